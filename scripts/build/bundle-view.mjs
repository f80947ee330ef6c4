// Bundles the results viewer's page (src/view/page/*.ts, browser code) into dist/src/view/page.js,
// which `taubridge view` inlines into every page it writes. Plain JavaScript: it runs in `prepare`.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const result = await build({
  entryPoints: [join(root, "src", "view", "page", "main.ts")],
  bundle: true,
  write: false,
  format: "iife",
  target: "es2022",
  platform: "browser",
  minify: true,
  legalComments: "none",
  logLevel: "silent",
});
const target = join(root, "dist", "src", "view", "page.js");
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, result.outputFiles[0].text);
