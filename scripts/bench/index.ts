/**
 * `npm run bench`: every benchmark of the project, one after the other, printed as JSON sections.
 * Benchmarks whose data or components are absent say so and are skipped; nothing here is a test.
 * Arguments: names selecting scripts (by part of the file name), then flags handed to each of them.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..", "..");
if (!process.env.TAUBRIDGE_SHARED && existsSync(join(root, "..", "shared", "tau-bench"))) {
  process.env.TAUBRIDGE_SHARED = join(root, "..", "shared");
}
// `npm run bench scale -- --latency 500 --concurrency 1000`: names first (which scripts), then flags for them.
const firstFlag = process.argv.slice(2).findIndex((argument) => argument.startsWith("--"));
const only = firstFlag < 0 ? process.argv.slice(2) : process.argv.slice(2, 2 + firstFlag);
const flags = firstFlag < 0 ? [] : process.argv.slice(2 + firstFlag);
const scripts = readdirSync(here)
  .filter((file) => file.endsWith(".ts") && file !== "index.ts")
  .filter((file) => only.length === 0 || only.some((name) => file.includes(name)))
  .sort();
for (const script of scripts) {
  process.stdout.write(`\n=== ${script.replace(/\.ts$/, "")} ===\n`);
  const result = await execa("node", ["--expose-gc", "--import", "tsx", join(here, script), ...flags], { reject: false, stdio: "inherit", cwd: root });
  if (result.exitCode !== 0) process.stdout.write(`(${script} exited with ${result.exitCode})\n`);
}
