// Copies the data files the compiled code finds relative to its own location (import.meta.url)
// into dist/, so `dist/domains/library/index.js` finds `./data` and `dist/src/data/manifest.js`
// finds `../../tasks/manifests/` exactly as the sources do. Plain JavaScript: it runs in
// `prepare`, before anything is compiled. The list lives in `assets.json`, which the tests' build
// check (`test/support/cli-build-setup.ts`) reads too.
import { cpSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { assets } = JSON.parse(readFileSync(join(root, "scripts", "build", "assets.json"), "utf8"));
for (const { from, skip } of assets) {
  const target = join(root, "dist", from);
  rmSync(target, { recursive: true, force: true });
  cpSync(join(root, from), target, {
    recursive: true,
    filter: (source) => !skip.some((name) => source.split(/[\\/]/).includes(name)) && !source.endsWith(".pyc"),
  });
}
