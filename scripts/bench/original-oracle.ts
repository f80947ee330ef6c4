/**
 * The original Python code against taubridge, on the same offline oracle work, measured in the
 * same run on this machine. This is the reference that taubridge's speed-up targets are ratios
 * against. Workloads (each: build the environment, apply the initial state, replay the ground truth on
 * both sides, build the trajectory, evaluate with the suite's own evaluator; the NL judge says "met"):
 *
 *   telecom  τ² telecom, `base` split (114 tasks)
 *   retail   τ² retail, the first 40 tasks of the `base` split
 *   banking  τ³ banking_knowledge, all 97 tasks, `bm25` retrieval (task_102's NL assertion judged met)
 *   v1       τ-bench v1 retail `test` (115 tasks): `env.step` per ground-truth action, `calculate_reward`
 *
 * For each workload: one untimed run of each side that checks the work is correct (the original's
 * tool results and end-state hashes against the fixtures, every task rewarded 1.0, and the same
 * per-task rewards from taubridge), then `repeats` timed rounds. Each round runs the original and
 * taubridge one after the other, so both see the same machine load. Reported per side: the whole
 * process (wall clock from spawn to exit, start-up and imports included) and the in-process loop
 * (original: its driver's own timer around the task loop; taubridge: the same CLI code driven in
 * one process by support/tau2-run-phases.mjs or support/run-phases.mjs). Both are given as min and
 * median, with the ratios original ÷ taubridge, in wall-clock seconds and in CPU seconds (user +
 * system). CPU time is the steadier figure when other jobs share the machine's two cores. For a
 * whole process it comes from GNU time (/usr/bin/time) when that is installed.
 *
 * Needs the originals prepared as scripts/bench/support/original/README.md says:
 *   TAUBRIDGE_SHARED             folder with tau2-bench/ and tau-bench/ (default ../shared)
 *   TAUBRIDGE_TAU2_ORIGINAL      τ²-bench checkout (commit a2c0247…)
 *   TAUBRIDGE_TAU_ORIGINAL       τ-bench checkout (commit 59a200c…)
 *   TAUBRIDGE_ORIGINAL_PYTHON    the interpreter with the original's dependencies (default python3)
 *   TAUBRIDGE_ORIGINAL_STANDINS  import stand-ins folder (default support/original/stand-ins)
 * Without them it prints why and skips (the workloads of the side that is prepared still run).
 *
 * Run: `npm run bench original-oracle` (3 rounds), or
 *      `npx tsx scripts/bench/original-oracle.ts [rounds] [telecom|retail|banking|v1 …]`.
 * Prints one JSON object. Runs several minutes: the original takes ~1.5 min per round.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { execa } from "execa";
import { startScriptedModelServer, type ScriptedRequest, type ScriptedModelServer } from "../../src/testing/index.ts";

const root = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const support = join(root, "scripts", "bench", "support");
const bin = join(root, "bin", "taubridge.js");
const dist = join(root, "dist");
const args = process.argv.slice(2);
const rounds = /^\d+$/.test(args[0] ?? "") ? Number(args.shift()) : Number(process.env.TAUBRIDGE_BENCH_REPEATS ?? 3);
const only = new Set(args);
const shared = process.env.TAUBRIDGE_SHARED ?? (existsSync(join(root, "..", "shared", "tau2-bench")) ? join(root, "..", "shared") : undefined);
const python = process.env.TAUBRIDGE_ORIGINAL_PYTHON ?? "python3";
const standIns = process.env.TAUBRIDGE_ORIGINAL_STANDINS ?? join(support, "original", "stand-ins");
const HOW = "see scripts/bench/support/original/README.md";

function skipAll(reason: string): never {
  console.log(JSON.stringify({ skipped: reason }));
  process.exit(0);
}

if (!shared || !existsSync(join(shared, "tau2-bench")) || !existsSync(join(shared, "tau-bench"))) skipAll("TAUBRIDGE_SHARED with tau2-bench/ and tau-bench/ is not set");
const tau2Data = join(shared, "tau2-bench");
const tauData = join(shared, "tau-bench");

const scratch = mkdtempSync(join(tmpdir(), "taubridge-bench-original-"));
let outputs = 0;
const fresh = (name: string) => join(scratch, `${outputs++}-${name}`);

/** The original drivers' environment: where the checkouts and stand-ins are. */
const pythonEnv = { ...process.env, TAUBRIDGE_SHARED: shared, TAUBRIDGE_ORIGINAL_STANDINS: standIns };

type Side = "tau2" | "tau";
const drivers: Record<Side, { variable: string; script: string; marker: string }> = {
  tau2: { variable: "TAUBRIDGE_TAU2_ORIGINAL", script: join(support, "original", "tau2_oracle.py"), marker: join("src", "tau2", "registry.py") },
  tau: { variable: "TAUBRIDGE_TAU_ORIGINAL", script: join(support, "original", "tau_oracle.py"), marker: join("tau_bench", "envs", "base.py") },
};

/** Why a side's original cannot run here (null: it can), checked by importing it for real. */
async function originalProblem(side: Side): Promise<string | null> {
  const { variable, script, marker } = drivers[side];
  const checkout = process.env[variable];
  if (!checkout) return `${variable} is not set (${HOW})`;
  if (!existsSync(join(checkout, marker))) return `${variable}=${checkout} holds no ${marker} (${HOW})`;
  const probe = await execa(python, [script, "--check-imports"], { env: pythonEnv, reject: false, stdin: "ignore" });
  if (probe.exitCode !== 0) return `the original does not import with ${python}: ${(probe.stderr || probe.stdout).trim().split("\n").slice(-1)[0]} (${HOW})`;
  return null;
}

interface Run {
  seconds: number;
  /** User + system CPU seconds of the whole process (null without /usr/bin/time). */
  cpuSeconds: number | null;
  stdout: string;
}

/** GNU time reports a child's CPU time; Node has no rusage for children. Debian package `time`. */
const gnuTime = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;

async function timed(command: string, argv: string[], env?: NodeJS.ProcessEnv): Promise<Run> {
  const cpuFile = gnuTime ? fresh("cpu.txt") : null;
  const [file, fileArgs] = gnuTime && cpuFile ? [gnuTime, ["-f", "%U %S", "-o", cpuFile, command, ...argv]] : [command, argv];
  const started = process.hrtime.bigint();
  const result = await execa(file, fileArgs, { cwd: root, env, reject: false, stdin: "ignore" });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.exitCode !== 0) throw new Error(`${command} ${argv.join(" ")} exited ${result.exitCode}: ${(result.stderr || result.stdout).slice(-3000)}`);
  let cpuSeconds: number | null = null;
  if (cpuFile && existsSync(cpuFile)) {
    const [user, system] = (readFileSync(cpuFile, "utf8").trim().split("\n").at(-1) ?? "").split(" ").map(Number);
    if (Number.isFinite(user) && Number.isFinite(system)) cpuSeconds = user! + system!;
  }
  return { seconds, cpuSeconds, stdout: result.stdout };
}

interface Stats {
  minS: number;
  medianS: number;
  maxS: number;
  samplesS: number[];
}

const round3 = (value: number) => Number(value.toFixed(3));

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  return { minS: round3(sorted[0]!), medianS: round3(sorted[Math.floor((sorted.length - 1) / 2)]!), maxS: round3(sorted.at(-1)!), samplesS: samples.map(round3) };
}

const ratio = (original: Stats, ours: Stats) => ({ byMin: Number((original.minS / ours.minS).toFixed(1)), byMedian: Number((original.medianS / ours.medianS).toFixed(1)) });

interface OriginalReport {
  tasks: number;
  reward_sum: number;
  rewards: Record<string, number>;
  seconds: { imports: number; loop: number; in_process_total: number; loop_cpu: number; process_cpu: number };
  fixture_check?: { mismatches: unknown[]; skipped?: string } & Record<string, unknown>;
}

interface Workload {
  key: string;
  name: string;
  side: Side;
  tasks: number;
  originalArgs: string[];
  /** Reference figure we were given for the original's loop, if any. */
  referenceOriginalLoopS?: number;
  judge?: boolean;
  /** taubridge's CLI arguments for a results path (null: taubridge has no such workload). */
  taubridge: ((out: string, judgeUrl: string) => string[]) | null;
  /** taubridge's in-process loop: the phases helper's arguments and the field holding the loop. */
  phases?: (out: string, judgeUrl: string) => { script: string; argv: string[]; loopField: string; cpuField: string };
  /** Per-task rewards from taubridge's results (τ² results file, or τ-bench's results list). */
  rewards?: (out: string) => Record<string, number>;
}

const tau2Rewards = (path: string) => {
  const document = JSON.parse(readFileSync(path, "utf8")) as { simulations: Array<{ task_id: string; reward_info: { reward: number } | null }> };
  return Object.fromEntries(document.simulations.map((simulation) => [simulation.task_id, simulation.reward_info?.reward ?? 0]));
};

const tauRewards = (directory: string) => {
  const file = readdirSync(directory).find((name) => name.endsWith(".json") && !name.endsWith(".meta.json"));
  if (!file) throw new Error(`no results file in ${directory}`);
  const results = JSON.parse(readFileSync(join(directory, file), "utf8")) as Array<{ task_id: number; reward: number }>;
  return Object.fromEntries(results.map((result) => [String(result.task_id), result.reward]));
};

const tau2Cli = (domain: string, extra: string[]) => (out: string) => [
  bin,
  "tau2",
  "run",
  "--domain",
  domain,
  "--agent",
  "oracle",
  "--user",
  "scripted",
  "--data-dir",
  tau2Data,
  "--save-to",
  out,
  "--quiet",
  ...extra,
];
const judgeFlags = (judgeUrl: string) => ["--judge-model", "judge-model", "--judge-provider", "openai-compatible", "--judge-base-url", judgeUrl];
const tau2Phases = (options: Record<string, unknown>) => (out: string) => ({
  script: join(support, "tau2-run-phases.mjs"),
  argv: [dist, out, JSON.stringify({ dataDir: tau2Data, ...options })],
  loopField: "simulationsMs",
  cpuField: "simulationsCpuMs",
});

const WORKLOADS: Workload[] = [
  {
    key: "telecom",
    name: "τ² telecom, base split (114 tasks)",
    side: "tau2",
    tasks: 114,
    originalArgs: ["--domain", "telecom", "--split", "base"],
    referenceOriginalLoopS: 5.8,
    taubridge: (out) => tau2Cli("telecom", ["--task-split-name", "base"])(out),
    phases: (out) => tau2Phases({ domain: "telecom", taskSplitName: "base" })(out),
    rewards: tau2Rewards,
  },
  {
    key: "retail",
    name: "τ² retail, first 40 tasks of the base split (NL judge: every assertion met)",
    side: "tau2",
    tasks: 40,
    originalArgs: ["--domain", "retail", "--split", "base", "--num-tasks", "40"],
    judge: true,
    taubridge: (out, judgeUrl) => tau2Cli("retail", ["--task-split-name", "base", "--num-tasks", "40", ...judgeFlags(judgeUrl)])(out),
    phases: (out, judgeUrl) => tau2Phases({ domain: "retail", taskSplitName: "base", numTasks: 40, judgeBaseUrl: judgeUrl })(out),
    rewards: tau2Rewards,
  },
  {
    key: "banking",
    name: "τ³ banking_knowledge, all 97 tasks (bm25 retrieval)",
    side: "tau2",
    tasks: 97,
    originalArgs: ["--domain", "banking_knowledge", "--retrieval-variant", "bm25"],
    judge: true,
    taubridge: (out, judgeUrl) => tau2Cli("banking_knowledge", ["--retrieval-config", "bm25", ...judgeFlags(judgeUrl)])(out),
    phases: (out, judgeUrl) => tau2Phases({ domain: "banking_knowledge", retrievalConfig: "bm25", judgeBaseUrl: judgeUrl })(out),
    rewards: tau2Rewards,
  },
  {
    key: "v1",
    name: "τ-bench v1 retail, test split (115 tasks)",
    side: "tau",
    tasks: 115,
    originalArgs: ["--env", "retail", "--split", "test"],
    referenceOriginalLoopS: 33.7,
    taubridge: (out) => [bin, "run", "--env", "retail", "--agent-strategy", "oracle", "--user-strategy", "scripted", "--data-dir", tauData, "--log-dir", out, "--quiet"],
    phases: (out) => ({ script: join(support, "run-phases.mjs"), argv: [dist, out, JSON.stringify({ env: "retail", dataDir: tauData })], loopField: "episodesMs", cpuField: "episodesCpuMs" }),
    rewards: tauRewards,
  },
];

/** Every task of a τ² task file, or of τ³'s task folder (one `task_*.json` each). */
function tau2TasksOf(domain: string): Array<{ evaluation_criteria?: { nl_assertions?: string[] | null } | null }> {
  const folder = join(tau2Data, domain, "tasks");
  if (existsSync(folder))
    return readdirSync(folder)
      .filter((name) => /^task_.*\.json$/.test(name))
      .map((name) => JSON.parse(readFileSync(join(folder, name), "utf8")));
  return JSON.parse(readFileSync(join(tau2Data, domain, "tasks.json"), "utf8"));
}

/** τ²'s NL-assertion judge for taubridge's retail and banking runs: every assertion of the task the request is about is met. */
async function startJudge(): Promise<ScriptedModelServer> {
  const tasks = [...tau2TasksOf("retail"), ...tau2TasksOf("banking_knowledge")];
  const assertionSets = tasks.map((task) => task.evaluation_criteria?.nl_assertions ?? []).filter((list) => list.length > 0);
  const textOf = (message: Record<string, unknown>) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content ?? ""));
  return startScriptedModelServer({
    responder: (request: ScriptedRequest) => {
      const text = request.messages.map(textOf).join("\n");
      const matching = assertionSets.filter((list) => list.every((assertion) => text.includes(assertion)));
      const assertions = matching.sort((a, b) => b.length - a.length)[0] ?? [];
      return { content: JSON.stringify({ results: assertions.map((assertion) => ({ expectedOutcome: assertion, reasoning: "benchmark stand-in judge", metExpectation: true })) }) };
    },
  });
}

/** Why taubridge has no such workload yet (null: it has): a τ² domain it does not register. */
async function taubridgeLacks(workload: Workload): Promise<string | null> {
  if (workload.side !== "tau2") return null;
  const domain = workload.originalArgs[workload.originalArgs.indexOf("--domain") + 1]!;
  const { createTau2 } = (await import(pathToFileURL(join(dist, "app", "suites.js")).href)) as { createTau2(): Promise<{ parts: { domains: { has(name: string): boolean; names(): string[] } } }> };
  const { domains } = (await createTau2()).parts;
  if (domains.has(domain)) return null;
  return `${domain} is not implemented in taubridge yet (its τ² domains: ${domains.names().join(", ")}); the original is timed alone`;
}

function disagreements(original: Record<string, number>, ours: Record<string, number>): string[] {
  const ids = new Set([...Object.keys(original), ...Object.keys(ours)]);
  return [...ids].filter((id) => original[id] !== ours[id]).map((id) => `${id}: original ${original[id]}, taubridge ${ours[id]}`);
}

async function measure(workload: Workload, judgeUrl: string): Promise<Record<string, unknown>> {
  const { script } = drivers[workload.side];
  const entry: Record<string, unknown> = { workload: workload.name, tasks: workload.tasks };

  // Correctness first (untimed; also warms the file cache): the original's work checked against the fixtures.
  const fixtures = join(workload.side === "tau2" ? tau2Data : tauData, "fixtures");
  const verification = JSON.parse((await timed(python, [script, ...workload.originalArgs, "--fixtures", fixtures], pythonEnv)).stdout) as OriginalReport;
  const notOne = Object.entries(verification.rewards)
    .filter(([, reward]) => reward !== 1)
    .map(([id]) => id);
  const check = verification.fixture_check ?? { mismatches: [] };
  const originalCorrect = verification.tasks === workload.tasks && notOne.length === 0 && check.mismatches.length === 0 && !check.skipped;
  entry.originalCheck = {
    ok: originalCorrect,
    tasks: verification.tasks,
    rewardSum: verification.reward_sum,
    tasksNotRewarded1: notOne,
    fixtures: check,
  };

  // taubridge: is the workload there at all, and does it give the same reward per task?
  let ours: Workload["taubridge"] = workload.taubridge;
  const missing = ours ? await taubridgeLacks(workload) : null;
  if (missing) {
    entry.taubridge = { notTimed: missing };
    ours = null;
  }
  if (ours) {
    const out = fresh(workload.key);
    const probe = await execa("node", ours(out, judgeUrl), { cwd: root, reject: false, stdin: "ignore" });
    if (probe.exitCode !== 0) {
      const message = (probe.stderr || probe.stdout).trim().split("\n").slice(-1)[0] ?? "";
      entry.taubridge = { notTimed: `taubridge cannot run this workload yet: ${message}` };
      ours = null;
    } else {
      const differing = disagreements(verification.rewards, workload.rewards!(out));
      entry.rewardAgreement = { ok: differing.length === 0, differing };
    }
  }

  const original = { whole: [] as number[], loop: [] as number[], imports: [] as number[], wholeCpu: [] as number[], loopCpu: [] as number[] };
  const taubridge = { whole: [] as number[], loop: [] as number[], wholeCpu: [] as number[], loopCpu: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    const run = await timed(python, [script, ...workload.originalArgs, "--save-to", fresh(`${workload.key}-original.json`)], pythonEnv);
    const report = JSON.parse(run.stdout) as OriginalReport;
    if (report.reward_sum !== verification.reward_sum) throw new Error(`${workload.key}: the original's reward sum changed between runs`);
    original.whole.push(run.seconds);
    original.loop.push(report.seconds.loop);
    original.imports.push(report.seconds.imports);
    original.loopCpu.push(report.seconds.loop_cpu);
    original.wholeCpu.push(run.cpuSeconds ?? report.seconds.process_cpu);
    if (ours) {
      const whole = await timed("node", ours(fresh(workload.key), judgeUrl));
      taubridge.whole.push(whole.seconds);
      if (whole.cpuSeconds !== null) taubridge.wholeCpu.push(whole.cpuSeconds);
      const phases = workload.phases!(fresh(workload.key), judgeUrl);
      const inside = JSON.parse((await timed("node", [phases.script, ...phases.argv])).stdout) as Record<string, number>;
      taubridge.loop.push(inside[phases.loopField]! / 1000);
      taubridge.loopCpu.push(inside[phases.cpuField]! / 1000);
    }
  }
  const originalStats = {
    wholeProcess: stats(original.whole),
    loop: stats(original.loop),
    imports: stats(original.imports),
    wholeProcessCpu: stats(original.wholeCpu),
    loopCpu: stats(original.loopCpu),
  };
  entry.original = {
    ...originalStats,
    perTaskLoopMs: round3((originalStats.loop.medianS * 1000) / workload.tasks),
    ...(workload.referenceOriginalLoopS ? { referenceLoopS: workload.referenceOriginalLoopS, measuredVsReference: round3(originalStats.loop.medianS / workload.referenceOriginalLoopS) } : {}),
  };
  if (ours) {
    const wholeCpu = taubridge.wholeCpu.length > 0 ? stats(taubridge.wholeCpu) : null;
    const oursStats = { wholeProcess: stats(taubridge.whole), loop: stats(taubridge.loop), ...(wholeCpu ? { wholeProcessCpu: wholeCpu } : {}), loopCpu: stats(taubridge.loopCpu) };
    entry.taubridge = { ...oursStats, perTaskLoopMs: round3((oursStats.loop.medianS * 1000) / workload.tasks) };
    entry.speedup = {
      wholeProcess: ratio(originalStats.wholeProcess, oursStats.wholeProcess),
      loop: ratio(originalStats.loop, oursStats.loop),
      ...(wholeCpu ? { wholeProcessCpu: ratio(originalStats.wholeProcessCpu, wholeCpu) } : {}),
      loopCpu: ratio(originalStats.loopCpu, oursStats.loopCpu),
    };
  }
  return entry;
}

const selected = WORKLOADS.filter((workload) => only.size === 0 || only.has(workload.key));
const problems: Partial<Record<Side, string | null>> = {};
for (const side of new Set(selected.map((workload) => workload.side))) problems[side] = await originalProblem(side);
const runnable = selected.filter((workload) => problems[workload.side] === null);
const skipped = selected.filter((workload) => problems[workload.side] !== null).map((workload) => ({ workload: workload.name, skipped: problems[workload.side] }));
if (runnable.length === 0) {
  rmSync(scratch, { recursive: true, force: true });
  console.log(JSON.stringify({ skipped: "the original code is not prepared", details: skipped }, null, 2));
  process.exit(0);
}
if (!existsSync(join(dist, "cli", "cli.js"))) {
  process.stderr.write("dist/ missing: building (npm run build)\n");
  execFileSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
}

const pythonVersion = JSON.parse((await execa(python, [drivers[runnable[0]!.side].script, "--check-imports"], { env: pythonEnv, stdin: "ignore" })).stdout).python as string;
const judge = runnable.some((workload) => workload.judge) ? await startJudge() : null;
const results: Record<string, unknown>[] = [];
try {
  for (const workload of runnable) {
    process.stderr.write(`[original-oracle] ${workload.name}: verifying, then ${rounds} timed round(s)\n`);
    results.push(await measure(workload, judge?.baseURL ?? ""));
  }
} finally {
  await judge?.close();
  rmSync(scratch, { recursive: true, force: true });
}
console.log(
  JSON.stringify(
    {
      machine: { cpus: cpus().length, loadAverageAtEnd: loadavg().map((value) => Number(value.toFixed(2))), node: process.version, python: `${python} (${pythonVersion})` },
      rounds,
      results,
      ...(skipped.length > 0 ? { skipped } : {}),
    },
    null,
    2,
  ),
);
