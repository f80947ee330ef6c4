/**
 * The page's script: `src/view/page/` (TypeScript, DOM only) bundled into one IIFE. A build
 * (`npm run build`) writes it beside this module as `page.js`; a checkout running from its sources
 * bundles it on first use with esbuild (a dev dependency, already what tsx and vitest compile with).
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

/** The bundled page script (cached per process). */
export async function pageScript(): Promise<string> {
  if (cached !== undefined) return cached;
  const built = fileURLToPath(new URL("./page.js", import.meta.url));
  if (existsSync(built)) cached = readFileSync(built, "utf8");
  else {
    const { bundlePage } = await import("./page-build.ts");
    cached = await bundlePage(fileURLToPath(new URL("./page/main.ts", import.meta.url)));
  }
  return cached;
}
