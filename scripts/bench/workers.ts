/**
 * `--workers`: whole-process runs of the CLI (`bin/taubridge.js`, the build in dist/) with the
 * episodes in one process and in N local worker processes, on the same work in the same round:
 *
 *   telecom-full   τ² telecom `full` split (2,285 tasks), oracle agent, scripted user: CPU-bound,
 *                  the case worker processes are for (`--max-concurrency 8`)
 *   retail-v1      τ-bench retail `test` split (115 tasks) × 4 trials, oracle (`--max-concurrency 8`)
 *   telecom-model  τ² telecom `llm_agent` + `user_simulator` against a scripted model server (in a
 *                  worker thread of this process) that answers every call after `latency` ms, 10
 *                  turns per simulation, `--max-concurrency 128`: wall time ÷ ideal (calls ×
 *                  latency ÷ concurrency) and harness CPU per model call
 *
 * Reported per workload and worker count: wall seconds (spawn to exit, start-up included), CPU
 * seconds of the process tree (GNU time, which counts the workers it waited for; null without
 * /usr/bin/time), and the speed-up of each worker count over one process. Each run's results file
 * is checked to hold every episode. The machine's load is printed with the figures: on a shared
 * machine, compare within a round.
 *
 * Run: `npm run build && npm run bench workers`, or
 *      `npx tsx scripts/bench/workers.ts [rounds] [telecom-full|retail-v1|telecom-model …] [--workers 2,auto] [--latency 200]`.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { startLatencyServer } from "./support/latency-worker.ts";

const root = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const bin = join(root, "bin", "taubridge.js");
const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const [value] = args.splice(at, 2).slice(1);
  return value;
};
const workerCounts = (option("--workers") ?? "2").split(",").map((value) => (value === "auto" ? availableParallelism() : Number(value)));
const latencyMs = Number(option("--latency") ?? 200);
const rounds = /^\d+$/.test(args[0] ?? "") ? Number(args.shift()) : Number(process.env.TAUBRIDGE_BENCH_REPEATS ?? 1);
const only = new Set(args);
const shared = process.env.TAUBRIDGE_SHARED ?? (existsSync(join(root, "..", "shared", "tau2-bench")) ? join(root, "..", "shared") : undefined);
if (!shared || !existsSync(join(shared, "tau2-bench")) || !existsSync(join(shared, "tau-bench"))) {
  console.log(JSON.stringify({ skipped: "TAUBRIDGE_SHARED with tau2-bench/ and tau-bench/ is not set" }));
  process.exit(0);
}
if (!existsSync(join(root, "dist", "app", "worker-entry.js"))) {
  console.log(JSON.stringify({ skipped: "dist/ has no worker entry: run `npm run build` first (the benchmark measures the built CLI)" }));
  process.exit(0);
}

const gnuTime = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;

interface Measured {
  seconds: number;
  cpuSeconds: number | null;
  episodes: number;
}

/** The CLI once: wall time, CPU of the process tree, and the episodes its results file holds. */
async function cli(argv: string[], results: () => string): Promise<Measured> {
  const cpuFile = join(mkdtempSync(join(tmpdir(), "bench-workers-cpu-")), "cpu.txt");
  const [file, fileArgs] = gnuTime ? [gnuTime, ["-f", "%U %S", "-o", cpuFile, "node", bin, ...argv]] : ["node", [bin, ...argv]];
  const started = process.hrtime.bigint();
  const run = await execa(file, fileArgs, { cwd: root, reject: false, stdin: "ignore", env: { TAUBRIDGE_CACHE_DIR: mkdtempSync(join(tmpdir(), "bench-workers-cache-")) } });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.exitCode !== 0) throw new Error(`taubridge ${argv.join(" ")} exited ${run.exitCode}: ${(run.stderr || run.stdout).slice(-2000)}`);
  let cpuSeconds: number | null = null;
  if (gnuTime && existsSync(cpuFile)) {
    const [user, system] = (readFileSync(cpuFile, "utf8").trim().split("\n").at(-1) ?? "").split(" ").map(Number);
    if (Number.isFinite(user) && Number.isFinite(system)) cpuSeconds = user + system;
  }
  const document = JSON.parse(readFileSync(results(), "utf8")) as unknown;
  const episodes = Array.isArray(document) ? document.length : ((document as { simulations: unknown[] }).simulations ?? []).length;
  return { seconds, cpuSeconds, episodes };
}

interface Workload {
  name: string;
  episodes: number;
  /** The command line for a fresh output folder, and where its results file lands. */
  command(out: string): { argv: string[]; results: () => string };
  /** Extra figures from a run (the model workload's calls). */
  around?<T>(run: (extra: string[]) => Promise<T>): Promise<{ value: T; figures: Record<string, number> }>;
}

const tau2 = join(shared, "tau2-bench");
const tauBench = join(shared, "tau-bench");
const TURNS = 10;
const MODEL_CONCURRENCY = 128;

/** A τ² run of telecom's `full` task split into `<out>/results.json`, with the workload's own flags. */
function tau2TelecomFull(out: string, flags: readonly string[]): ReturnType<Workload["command"]> {
  const results = join(out, "results.json");
  return { argv: ["tau2", "run", "--data-dir", tau2, "--save-to", results, "--quiet", "--domain", "telecom", "--task-split-name", "full", ...flags], results: () => results };
}

const WORKLOADS: Workload[] = [
  {
    name: "telecom-full",
    episodes: 2285,
    command: (out) => tau2TelecomFull(out, ["--agent", "oracle", "--user", "scripted", "--max-concurrency", "8"]),
  },
  {
    name: "retail-v1",
    episodes: 460,
    command: (out) => ({
      argv: ["run", "--env", "retail", "--data-dir", tauBench, "--task-split", "test", "--num-trials", "4", "--log-dir", out, "--quiet", "--max-concurrency", "8"],
      results: () => join(out, readdirSync(out).find((name) => name.endsWith(".json") && !name.endsWith(".meta.json")) as string),
    }),
  },
  {
    name: "telecom-model",
    episodes: 256,
    command: (out) =>
      tau2TelecomFull(out, [
        ...["--agent", "llm_agent", "--user", "user_simulator", "--agent-llm", "bench-agent", "--user-llm", "bench-user"],
        ...["--num-tasks", "256", "--max-concurrency", String(MODEL_CONCURRENCY), "--max-steps", "200"],
      ]),
    async around(run) {
      const server = await startLatencyServer(latencyMs, TURNS);
      try {
        const llmArgs = JSON.stringify({ temperature: 0.0, api_base: server.baseURL });
        const before = await server.count();
        const value = await run(["--agent-llm-args", llmArgs, "--user-llm-args", llmArgs]);
        const calls = (await server.count()) - before;
        const measured = value as unknown as Measured;
        const ideal = (calls * latencyMs) / 1000 / MODEL_CONCURRENCY;
        return {
          value,
          figures: {
            calls,
            idealSeconds: Number(ideal.toFixed(2)),
            wallOverIdeal: Number((measured.seconds / ideal).toFixed(3)),
            ...(measured.cpuSeconds !== null ? { cpuMsPerCall: Number(((measured.cpuSeconds * 1000) / calls).toFixed(3)) } : {}),
          },
        };
      } finally {
        await server.close();
      }
    },
  },
];

const selected = WORKLOADS.filter((workload) => only.size === 0 || only.has(workload.name));
const report: Record<string, unknown> = {
  cores: availableParallelism(),
  loadBefore: loadavg().map((value) => Number(value.toFixed(2))),
  rounds,
  latencyMs,
  workloads: {},
};
for (const workload of selected) {
  const byCount: Record<string, Array<Measured & Record<string, number | null>>> = {};
  for (let round = 0; round < rounds; round++) {
    for (const count of [0, ...workerCounts]) {
      const out = mkdtempSync(join(tmpdir(), `bench-workers-${workload.name}-`));
      const { argv, results } = workload.command(out);
      const withWorkers = count > 0 ? [...argv, "--workers", String(count)] : argv;
      const once = (extra: string[]) => cli([...withWorkers, ...extra], results);
      const { value, figures } = workload.around ? await workload.around(once) : { value: await once([]), figures: {} };
      if (value.episodes !== workload.episodes) throw new Error(`${workload.name} with ${count} workers recorded ${value.episodes} of ${workload.episodes} episodes`);
      (byCount[String(count)] ??= []).push({ ...value, ...figures, seconds: Number(value.seconds.toFixed(2)), cpuSeconds: value.cpuSeconds === null ? null : Number(value.cpuSeconds.toFixed(2)) });
    }
  }
  const best = (count: string) => Math.min(...(byCount[count] ?? []).map((run) => run.seconds));
  const speedUp = Object.fromEntries(workerCounts.map((count) => [`workers ${count}`, Number((best("0") / best(String(count))).toFixed(2))]));
  (report.workloads as Record<string, unknown>)[workload.name] = {
    runs: Object.fromEntries(Object.entries(byCount).map(([count, runs]) => [count === "0" ? "one process" : `workers ${count}`, runs])),
    speedUpOverOneProcess: speedUp,
  };
}
report.loadAfter = loadavg().map((value) => Number(value.toFixed(2)));
console.log(JSON.stringify(report, null, 2));
