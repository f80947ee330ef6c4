/**
 * The benchmarks that time the CLI as users run it use the compiled one (`bin/taubridge.js` →
 * `dist/`): built first when `dist/` is missing or older than a source file, so a rerun after a
 * change measures the change.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
export const BIN = join(ROOT, "bin", "taubridge.js");

function newestSource(): number {
  let newest = 0;
  for (const folder of ["src", "app", "domains", "bridge", "adapters"]) {
    for (const entry of readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.(ts|json|py|md)$/.test(entry.name) || entry.parentPath.includes("node_modules")) continue;
      newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

/** Builds `dist/` unless it is newer than every source file. */
export function ensureBuilt(): void {
  const built = join(ROOT, "dist", "cli", "cli.js"); // the build's last step (scripts/build/bundle-cli.mjs)
  if (existsSync(built) && statSync(built).mtimeMs >= newestSource()) return;
  process.stderr.write("dist/ is missing or older than the sources: building (npm run build)\n");
  execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
}
