/**
 * Start-up benchmark (issue 8, performance): whole-process wall-clock times of the built CLI, the
 * way a user runs it, and where the time of a run goes. Not a test.
 *
 *   - `node -e 0` (the floor: Node's own start), `taubridge --version`, `taubridge run` (bundled
 *     library domain, oracle + scripted) and, with the official data, the oracle run over the 115
 *     retail test tasks (the original Python loop takes 33.7 s for it; target < 0.34 s, 100×);
 *   - the phases of those runs inside one process: Node start, module loading, data parsing,
 *     episodes, writing the results file (support/run-phases.mjs).
 *
 * Runs the compiled CLI (`bin/taubridge.js` → dist/); builds it first when dist/ is missing.
 * `npm run bench startup` or `npx tsx scripts/bench/startup.ts [repeats]`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(root, "bin", "taubridge.js");
const dist = join(root, "dist");
const repeats = Number(process.argv[2] ?? 10);
const shared = process.env.TAUBRIDGE_SHARED ?? (existsSync(join(root, "..", "shared", "tau-bench")) ? join(root, "..", "shared") : undefined);
const tauBench = shared && existsSync(join(shared, "tau-bench", "retail")) ? join(shared, "tau-bench") : undefined;

if (!existsSync(join(dist, "app", "cli.js"))) {
  process.stdout.write("dist/ missing: building (npm run build)\n");
  execFileSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
}

interface Timing {
  what: string;
  runs: number;
  minS: number;
  medianS: number;
  maxS: number;
}

/** Runs a whole process `repeats` times (after one warm-up) and reports wall-clock seconds. */
function time(what: string, args: string[], fresh?: () => string[]): Timing {
  const samples: number[] = [];
  for (let run = -1; run < repeats; run++) {
    const extra = fresh?.() ?? [];
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, [...args, ...extra], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    if (result.status !== 0) throw new Error(`${what} exited ${result.status}: ${result.stderr.toString()}`);
    if (run >= 0) samples.push(elapsed);
  }
  samples.sort((a, b) => a - b);
  const round = (value: number) => Number(value.toFixed(3));
  return { what, runs: samples.length, minS: round(samples[0]), medianS: round(samples[Math.floor(samples.length / 2)]), maxS: round(samples[samples.length - 1]) };
}

const logDirs: string[] = [];
const freshLogDir = () => {
  const directory = mkdtempSync(join(tmpdir(), "taubridge-bench-startup-"));
  logDirs.push(directory);
  return ["--log-dir", directory];
};

const retailFlags = ["--env", "retail", "--agent-strategy", "oracle", "--user-strategy", "scripted", "--data-dir", tauBench ?? "", "--quiet"];
const timings: Timing[] = [
  time("node -e 0 (Node's own start)", ["-e", "0"]),
  time("taubridge --version", [bin, "--version"]),
  time("taubridge run (library, oracle + scripted)", [bin, "run", "--quiet"], freshLogDir),
];
if (tauBench) timings.push(time("taubridge run --env retail (115 test tasks, oracle + scripted)", [bin, ...["run", ...retailFlags]], freshLogDir));
else process.stdout.write("retail run skipped: no official data (set TAUBRIDGE_SHARED to the folder holding tau-bench/)\n");

function phases(flags: Record<string, unknown>): Record<string, unknown> {
  const samples: Array<Record<string, number>> = [];
  for (let run = 0; run < Math.max(3, Math.min(repeats, 5)); run++) {
    const [logDir] = freshLogDir().slice(1);
    const output = execFileSync(process.execPath, [join(root, "scripts", "bench", "support", "run-phases.mjs"), dist, logDir, JSON.stringify(flags)], { cwd: root });
    samples.push(JSON.parse(output.toString()));
  }
  const median: Record<string, number> = {};
  for (const key of Object.keys(samples[0])) {
    const values = samples.map((sample) => sample[key]).sort((a, b) => a - b);
    median[key] = Number(values[Math.floor(values.length / 2)].toFixed(1));
  }
  return median;
}

const report: Record<string, unknown> = { timings, phasesLibraryMedianMs: phases({}) };
if (tauBench) {
  const retail = phases({ env: "retail", dataDir: tauBench });
  report.phasesRetailMedianMs = retail;
  const whole = timings.at(-1)!;
  report.retail = {
    originalPythonLoopS: 33.7,
    wholeProcessMedianS: whole.medianS,
    speedup: Number((33.7 / whole.medianS).toFixed(1)),
    targetS: 0.337,
    perTaskEpisodeMs: Number(((retail.episodesMs as number) / 115).toFixed(2)),
  };
}
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
for (const directory of logDirs) rmSync(directory, { recursive: true, force: true });
