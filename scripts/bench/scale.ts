/**
 * Scale benchmark (issue 28): many concurrent τ² telecom simulations (`llm_agent` + `user_simulator`)
 * in one `taubridge tau2 run` process, against a loopback model server in another process that
 * answers every call after `--latency` ms. Reported:
 *
 *   - wall ÷ ideal: the batch's wall time (the server's first request to its last answer) over the
 *     ideal, every simulation's calls back to back at exactly the latency with `--concurrency` of
 *     them at once (target ≤ 1.15 at 1,000 × 500 ms);
 *   - harness CPU per model call: the CPU time of the harness processes (the CLI and any workers it
 *     starts, each measured at exit) of this run minus that of a one-simulation run of the same
 *     command (start-up, loading, writing), per call made beyond it (target ≤ 0.4 ms); the raw
 *     whole-process figure too;
 *   - peak RSS of the harness processes (target < 2 GB), and the machine's load.
 *   - the loopback server's CPU per call: it runs on the same cores, so it bounds what workers can gain.
 *
 *   npm run bench scale -- --latency 500 --concurrency 1000           (the run)
 *   npm run bench scale -- --latency 500 --concurrency 1000 --workers 2
 *   npx tsx scripts/bench/scale.ts --latency 100 --concurrency 64 --turns 5   (a quick look)
 *
 * Simulations: `--concurrency` of them (telecom base tasks × trials: `--concurrency` 1000 is the
 * first 100 tasks × 10 trials), all running at once (`--max-concurrency` = simulations). Each is
 * `--turns` user turns long (default 10: 21 calls). `--workers N` is passed to the CLI (`tau2 run
 * --workers`, the local worker processes); a CLI without it says so and that line is skipped.
 * Uses the compiled CLI (built when `dist/` is older than the sources) and TAUBRIDGE_SHARED's
 * tau2-bench data. `--bin <path>/bin/taubridge.js` runs another build's CLI instead (compare two
 * builds in alternating runs: on a loaded machine the ratio is steadier than either figure);
 * `--cpu-prof <dir>` writes a V8 CPU profile of the measured run's CLI there
 * (`support/profile-summary.mjs` summarises it); `--alloc-prof <dir>` writes an allocation profile of
 * it there (bytes allocated by function, freed ones included: `support/allocation-profile.mjs`,
 * summarised by `support/allocation-summary.mjs`). `--node-flags="<flags>"` starts the measured CLI
 * under those Node/V8 flags (both runs; `--workers` children inherit them), to A/B a flag on one
 * build. The server reports the TCP connections it accepted.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { BIN, ROOT, ensureBuilt } from "./support/built-cli.ts";

const { values } = parseArgs({
  options: {
    latency: { type: "string", default: "500" },
    concurrency: { type: "string", default: "1000" },
    turns: { type: "string", default: "10" },
    workers: { type: "string" },
    "keep-files": { type: "boolean", default: false },
    "cpu-prof": { type: "string" },
    "alloc-prof": { type: "string" },
    bin: { type: "string" },
    "node-flags": { type: "string" },
  },
  allowPositionals: true,
});
const latencyMs = Number(values.latency);
const simulations = Number(values.concurrency);
const turns = Number(values.turns);
/** Node/V8 flags for the measured CLI processes (both runs), e.g. `--node-flags="--max-inlined-bytecode-size-cumulative=300"`. */
const nodeFlags = values["node-flags"] ? values["node-flags"].split(/\s+/).filter(Boolean) : [];

const shared = process.env.TAUBRIDGE_SHARED;
const data = shared ? join(shared, "tau2-bench") : "";
if (!shared || !existsSync(join(data, "telecom"))) {
  console.log(JSON.stringify({ skipped: "TAUBRIDGE_SHARED with tau2-bench/telecom is not set" }));
  process.exit(0);
}

/** Telecom base has 114 tasks: the simulations are the first `tasks` of them × `trials`. */
function taskGrid(count: number): { tasks: number; trials: number } {
  for (let trials = Math.ceil(count / 114); trials <= count; trials++) if (count % trials === 0 && count / trials <= 114) return { tasks: count / trials, trials };
  throw new Error(`${count} simulations cannot be laid out as telecom base tasks × trials`);
}

interface Server {
  baseURL: string;
  stats(): Promise<{ completions: number; firstRequestAt: number | null; lastAnswerAt: number | null; peakInFlight: number; connections: number; cpuMs?: number }>;
  close(): void;
}

async function startServer(): Promise<Server> {
  const child = spawn(process.execPath, [join(ROOT, "scripts", "bench", "support", "scale-server.mjs")], {
    env: { ...process.env, LATENCY_MS: String(latencyMs), TURNS: String(turns) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once("data", (chunk: Buffer) => resolve((JSON.parse(chunk.toString()) as { port: number }).port));
    child.once("exit", (code) => reject(new Error(`the model server exited with ${code}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    baseURL: `${url}/v1`,
    stats: async () => (await (await fetch(`${url}/stats`)).json()) as Awaited<ReturnType<Server["stats"]>>,
    close: () => (child as ChildProcess).kill("SIGTERM"),
  };
}

interface ProcessUsage {
  pid: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  maxRssKB: number;
}

/** One `tau2 run` of `count` simulations against a fresh server: its calls, wall times, CPU and memory. */
async function run(count: number, workers: string | undefined, profileDirectory?: string, allocationDirectory?: string) {
  const server = await startServer();
  const directory = mkdtempSync(join(tmpdir(), "taubridge-bench-scale-"));
  const usageFile = join(directory, "usage.jsonl");
  const { tasks, trials } = taskGrid(count);
  const llmArgs = JSON.stringify({ temperature: 0.0, api_base: server.baseURL });
  const args = [
    ...nodeFlags,
    ...(profileDirectory ? ["--cpu-prof", `--cpu-prof-dir=${profileDirectory}`] : []),
    ...(allocationDirectory ? ["--import", join(ROOT, "scripts", "bench", "support", "allocation-profile.mjs")] : []),
    ...["--import", join(ROOT, "scripts", "bench", "support", "usage-report.mjs"), values.bin ?? BIN, "tau2", "run"],
    ...["--domain", "telecom", "--task-split-name", "base", "--num-tasks", String(tasks), "--num-trials", String(trials), "--max-concurrency", String(count)],
    ...["--agent", "llm_agent", "--agent-llm", "bench-agent", "--agent-llm-args", llmArgs, "--user", "user_simulator", "--user-llm", "bench-user", "--user-llm-args", llmArgs],
    ...["--data-dir", data, "--save-to", join(directory, "results.json"), "--quiet", "--format", "json"],
    ...(workers ? ["--workers", workers] : []),
  ];
  const started = performance.now();
  const allocationFile = allocationDirectory ? join(allocationDirectory, `alloc-${Date.now()}.heapprofile`) : undefined;
  if (allocationDirectory) mkdirSync(allocationDirectory, { recursive: true });
  const env = { ...process.env, TAUBRIDGE_BENCH_USAGE_FILE: usageFile, ...(allocationFile ? { TAUBRIDGE_ALLOCATION_PROFILE: allocationFile } : {}) };
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exitCode = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const processWallMs = performance.now() - started;
  const stats = await server.stats();
  server.close();
  const usage = existsSync(usageFile)
    ? readFileSync(usageFile, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as ProcessUsage)
    : [];
  if (!values["keep-files"]) rmSync(directory, { recursive: true, force: true });
  const cpuMs = usage.reduce((sum, each) => sum + each.cpuUserMs + each.cpuSystemMs, 0);
  return {
    exitCode,
    stderr: stderr.trim().slice(0, 2000),
    simulations: count,
    calls: stats.completions,
    peakInFlight: stats.peakInFlight,
    connections: stats.connections,
    serverCpuMs: stats.cpuMs ?? null,
    batchWallMs: stats.firstRequestAt && stats.lastAnswerAt ? stats.lastAnswerAt - stats.firstRequestAt : null,
    processWallMs: Math.round(processWallMs),
    processes: usage.length,
    cpuMs: Math.round(cpuMs),
    peakRssMB: Math.round(Math.max(0, ...usage.map((each) => each.maxRssKB)) / 1024),
    summedPeakRssMB: Math.round(usage.reduce((sum, each) => sum + each.maxRssKB, 0) / 1024),
  };
}

const round = (value: number, digits = 3) => Number(value.toFixed(digits));

async function measure(workers: string | undefined) {
  if (!values.bin) ensureBuilt();
  const loadBefore = loadavg().map((value) => round(value, 2));
  // The fixed cost of a run (start, loading, result writing) from a one-simulation run of the same command.
  const single = await run(1, workers);
  if (single.exitCode !== 0) return { workers: workers ?? null, failed: single };
  const full = await run(simulations, workers, values["cpu-prof"], values["alloc-prof"]);
  if (full.exitCode !== 0) return { workers: workers ?? null, failed: full };
  const callsPerSimulation = full.calls / full.simulations;
  const idealMs = callsPerSimulation * latencyMs * Math.ceil(full.simulations / simulations);
  return {
    workers: workers ?? null,
    latencyMs,
    simulations: full.simulations,
    turns,
    calls: full.calls,
    peakCallsInFlight: full.peakInFlight,
    connections: full.connections,
    idealMs: Math.round(idealMs),
    batchWallMs: full.batchWallMs,
    wallOverIdeal: full.batchWallMs === null ? null : round(full.batchWallMs / idealMs),
    processWallMs: full.processWallMs,
    processWallOverIdeal: round(full.processWallMs / idealMs),
    harnessProcesses: full.processes,
    harnessCpuMs: full.cpuMs,
    serverCpuMs: full.serverCpuMs,
    serverCpuPerCallMs: full.serverCpuMs === null ? null : round(full.serverCpuMs / Math.max(1, full.calls)),
    harnessCpuPerCallMs: round((full.cpuMs - single.cpuMs) / Math.max(1, full.calls - single.calls)),
    wholeProcessCpuPerCallMs: round(full.cpuMs / full.calls),
    oneSimulationRun: { calls: single.calls, cpuMs: single.cpuMs, processWallMs: single.processWallMs },
    peakRssMB: full.peakRssMB,
    summedPeakRssMB: full.summedPeakRssMB,
    targets: { wallOverIdeal: "≤ 1.15", harnessCpuPerCallMs: "≤ 0.4", peakRssMB: "< 2048" },
    load: { before: loadBefore, after: loadavg().map((value) => round(value, 2)) },
    node: process.version,
    nodeFlags: nodeFlags.join(" ") || null,
  };
}

const result = await measure(values.workers);
if ("failed" in result && result.failed && /--workers/.test(result.failed.stderr) && values.workers) {
  console.log(JSON.stringify({ workers: values.workers, skipped: `this CLI has no --workers yet: ${result.failed.stderr.split("\n")[0]}` }));
} else {
  console.log(JSON.stringify(result, null, 2));
}
