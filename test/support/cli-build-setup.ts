/**
 * vitest global setup: whether the CLI the tests start can be the build (`bin/taubridge.js` over
 * `dist/`) instead of the TypeScript sources through tsx. Why: a CLI started through tsx spends
 * ~1.5 s of CPU compiling and loading the sources before it does anything, ~5× the built CLI's start,
 * and the suite starts the CLI many hundreds of times — on three Node versions in CI. The build is
 * used only while it is current: `dist/cli/cli.js` (the build's last output) newer than every file
 * the build reads: what `tsconfig.build.json` compiles, the assets `scripts/build/assets.json` copies,
 * `scripts/build` itself, `package.json` and the tsconfigs — read from those files, so a folder added
 * to the build is watched here without a second list. A checkout edited since its last `npm run build` runs the sources,
 * and says so once. `TAUBRIDGE_TEST_CLI=source` or `=build` chooses explicitly (`build` with no
 * current build is an error, not a silent fallback).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..");

/** The paths the build reads, from the build's own configuration files. */
export function buildInputs(): string[] {
  const compiled = (JSON.parse(readFileSync(join(root, "tsconfig.build.json"), "utf8")) as { include: string[] }).include;
  const copied = (JSON.parse(readFileSync(join(root, "scripts", "build", "assets.json"), "utf8")) as { assets: { from: string }[] }).assets.map((asset) => asset.from);
  return [...new Set([...compiled, ...copied, join("scripts", "build"), "package.json", "tsconfig.json", "tsconfig.build.json"])];
}

/**
 * The newest modification time of the files under `path` (a file or a folder, walked whole).
 * Folders' own times are left out: Python writes `__pycache__` beside the bridge's sources when a
 * test runs them, which changes nothing the build reads.
 */
function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return path.endsWith(".pyc") ? 0 : stats.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "__pycache__") continue;
    latest = Math.max(latest, newest(join(path, entry.name)));
  }
  return latest;
}

/** Why the build cannot be used, or undefined when it is current. */
export function staleBuild(): string | undefined {
  const bundle = join(root, "dist", "cli", "cli.js");
  if (!existsSync(bundle)) return "there is no build (dist/cli/cli.js)";
  const built = statSync(bundle).mtimeMs;
  const changed = buildInputs().find((input) => newest(join(root, input)) > built);
  return changed === undefined ? undefined : `${changed} changed after the last build`;
}

export default function setup(): void {
  const choice = process.env.TAUBRIDGE_TEST_CLI;
  if (choice === "source") return;
  const stale = staleBuild();
  if (stale === undefined) {
    process.env.TAUBRIDGE_TEST_CLI = "build";
    return;
  }
  if (choice === "build") throw new Error(`TAUBRIDGE_TEST_CLI=build, but ${stale}: run \`npm run build\``);
  process.env.TAUBRIDGE_TEST_CLI = "source";
  process.stdout.write(`tests start the CLI from the sources through tsx (${stale}; \`npm run build\` makes them start ~5× cheaper)\n`);
}
