/**
 * `--queue`: a τ² run (telecom `llm_agent` + `user_simulator`) against a scripted model server that
 * answers every call after `latency` ms (in a worker thread of this process), on a real
 * `redis-server` started here, with 1, 2 and 4 `taubridge worker` processes of `--concurrency 32`:
 *
 *   wall / ideal     ideal = model calls × latency ÷ (workers × 32); wall from the coordinator's
 *                    announcement of the run (or, for a build without it, its first job added)
 *                    to its last reply received (`TAUBRIDGE_QUEUE_TIMINGS`), and
 *                    the coordinator process's whole life (start-up included)
 *   overhead p50     per simulation, on a run no bigger than the workers' slots (no job waits for
 *                    a slot): reply received − job added − the simulation's own time in the worker
 *                    − the wait for the worker's one-time build of the run
 *   overhead per simulation, in each run of 1, 2, 4 workers (the runs the issue names), over every
 *                    simulation: pick-up (from added, or from the moment the slot it took freed) + taken →
 *                    started beyond the build + finished → reply received (`overheadPerSimulation`);
 *                    the 32-job figure above is a fresh run's first round only, printed beside it
 *   run start        announcement → first job added (the workers build the run) → every slot's first job taken
 *   steady pick-up   for jobs past each worker's first 32 (they waited for a slot): taken − the moment
 *                    that worker's previous job finished; report = reply received − job finished
 *   CPU              of the worker processes (per simulation, per model call) and of everything
 *                    (workers, coordinator, Redis, this process's model server) ÷ cores ÷ ideal:
 *                    above 1, the machine's cores alone keep the run from its ideal
 *   Redis memory     used_memory growth per 10,000 queued jobs (as the coordinator adds them: the
 *                    configuration once in the run's record, each job its configuration id and unit)
 *
 * Processes run from the sources (tsx), or from a build's CLI with `--bin <checkout>/bin/taubridge.js`
 * (compare two builds in the same round: on a loaded machine the ratio is steadier than either
 * figure). `--cpu-prof <dir>` writes a V8 CPU profile of every worker and coordinator there
 * (`support/profile-summary.mjs` summarises one). The machine's load is printed with the figures.
 * Run: `npm run bench queue`, or `npx tsx scripts/bench/queue.ts [--workers 1,2,4] [--latency 200] [--simulations 256] [--overhead-only] [--bin …] [--cpu-prof dir [--cpu-prof-interval µs]] [--cold-derived-cache] [--monitor file] [--light-model]`;
 * each run's timings file (one JSON line per job and side, absolute stamps) is named in the output.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Queue } from "bullmq";
import { execa, type ResultPromise } from "execa";
import { Redis } from "ioredis";
import { jobIdOf, KEY_PREFIX } from "../../src/queue/names.ts";
import { startLatencyServer } from "./support/latency-worker.ts";

const root = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const cli = join(root, "app", "cli.ts");
const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at < 0 ? undefined : args[at + 1];
};
const workerCounts = (option("--workers") ?? "1,2,4").split(",").map(Number);
const latencyMs = Number(option("--latency") ?? 200);
const simulations = Number(option("--simulations") ?? 256);
const CONCURRENCY = 32;
const TURNS = 10;
const shared = process.env.TAUBRIDGE_SHARED ?? (existsSync(join(root, "..", "shared", "tau2-bench")) ? join(root, "..", "shared") : undefined);
if (!shared || !existsSync(join(shared, "tau2-bench"))) {
  console.log(JSON.stringify({ skipped: "TAUBRIDGE_SHARED with tau2-bench/ is not set" }));
  process.exit(0);
}
if (spawnSync("sh", ["-c", "command -v redis-server"]).status !== 0) {
  console.log(JSON.stringify({ skipped: "redis-server is not installed (apt-get install -y redis-server)" }));
  process.exit(0);
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

const port = await freePort();
const redisProcess = execa("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", mkdtempSync(join(tmpdir(), "bench-queue-redis-"))], {
  reject: false,
  stdio: "ignore",
});
const url = `redis://127.0.0.1:${port}/0`;
const redis = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: null });
redis.on("error", () => undefined); // refused until redis-server listens: the ping loop below waits
for (let tries = 0; ; tries++) {
  try {
    if ((await redis.ping()) === "PONG") break;
  } catch {
    if (tries > 100) throw new Error("redis-server did not start");
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}

const bin = option("--bin");
const profileDirectory = option("--cpu-prof");
/** `--cpu-prof-interval <µs>` with `--cpu-prof`: a finer sampling than V8's 1 ms (a diagnostic: one job's stages last a few ms). */
const profileInterval = option("--cpu-prof-interval");
/**
 * Each process has a cache directory of its own (no model answer is ever read from a cache), but
 * the derived cache (task-file indexes, texts read from τ²'s sources: `src/data/derived-cache.ts`)
 * is shared, as on a machine whose workers ran this data before: the overhead run (first) fills it.
 * `--cold-derived-cache` gives each process an empty one (every worker derives the data again).
 */
const coldDerived = args.includes("--cold-derived-cache");
const sharedDerived = mkdtempSync(join(tmpdir(), "bench-queue-derived-"));
const node = (argv: string[], env: Record<string, string>): ResultPromise => {
  const cache = mkdtempSync(join(tmpdir(), "bench-queue-cache-"));
  const profileFlags = profileDirectory ? ["--cpu-prof", `--cpu-prof-dir=${profileDirectory}`, ...(profileInterval ? [`--cpu-prof-interval=${profileInterval}`] : [])] : [];
  return execa("node", [...profileFlags, ...(bin ? [bin] : ["--import", "tsx", cli]), ...argv], {
    cwd: root,
    reject: false,
    stdin: "ignore",
    env: { TAUBRIDGE_CACHE_DIR: cache, TAUBRIDGE_DERIVED_CACHE_DIR: coldDerived ? join(cache, "derived") : sharedDerived, ...env },
  });
};

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); undefined elsewhere or once it is gone. */
function cpuSecondsOf(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
      .replace(/^.*\) /, "")
      .split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return undefined;
  }
}

/** Follows a process's CPU while it lives (a process gone can no longer be read): its last reading, and its reading at a moment (the last sample before it). */
function followCpu(pid: number | undefined): { last: () => number; at: (time: number) => number; stop: () => void } {
  let last = cpuSecondsOf(pid) ?? 0;
  const samples: Array<[number, number]> = [[Date.now(), last]];
  const timer = setInterval(() => {
    last = cpuSecondsOf(pid) ?? last;
    samples.push([Date.now(), last]);
  }, 100);
  const at = (time: number) => samples.filter(([when]) => when <= time).at(-1)?.[1] ?? 0;
  return { last: () => last, at, stop: () => clearInterval(timer) };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

const lightModel = args.includes("--light-model");

/** One queued run on `workers` workers: figures from the processes and the timings file. */
async function queuedRun(workers: number, count: number) {
  const timings = join(mkdtempSync(join(tmpdir(), "bench-queue-timings-")), "timings.jsonl");
  const env = { TAUBRIDGE_QUEUE_TIMINGS: timings };
  const server = await startLatencyServer(latencyMs, TURNS, { light: lightModel });
  const started: ResultPromise[] = [];
  try {
    for (let index = 0; index < workers; index++) {
      const worker = node(["worker", "--queue", url, "--concurrency", String(CONCURRENCY)], env);
      started.push(worker);
      await new Promise<void>((resolve) => {
        let text = "";
        worker.stderr?.on("data", (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes("serving runs on")) resolve();
        });
      });
    }
    const out = mkdtempSync(join(tmpdir(), "bench-queue-out-"));
    const llmArgs = JSON.stringify({ temperature: 0.0, api_base: server.baseURL });
    const before = await server.count();
    // CPU from here on: the workers (their build and simulations), the coordinator, Redis, and this process (the model server's thread).
    const workerCpu = started.map((worker) => followCpu(worker.pid));
    const workerCpuBefore = workerCpu.map((follow) => follow.last());
    const redisBefore = cpuSecondsOf(redisProcess.pid) ?? 0;
    const benchBefore = (process.cpuUsage().user + process.cpuUsage().system) / 1e6;
    const begun = process.hrtime.bigint();
    // biome-ignore format: one flag per pair
    const coordinatorProcess = node(["tau2", "run", "--data-dir", join(shared as string, "tau2-bench"), "--save-to", join(out, "results.json"), "--quiet",
      "--domain", "telecom", "--agent", "llm_agent", "--user", "user_simulator", "--agent-llm", "bench-agent", "--user-llm", "bench-user",
      "--agent-llm-args", llmArgs, "--user-llm-args", llmArgs, "--task-split-name", "full", "--num-tasks", String(count), "--max-steps", "200", "--queue", url], env);
    const coordinatorCpu = followCpu(coordinatorProcess.pid);
    const coordinator = await coordinatorProcess;
    coordinatorCpu.stop();
    for (const follow of workerCpu) follow.stop();
    const processSeconds = Number(process.hrtime.bigint() - begun) / 1e9;
    if (coordinator.exitCode !== 0) throw new Error(`the coordinator exited ${coordinator.exitCode}: ${String(coordinator.stderr).slice(-2000)}`);
    const calls = (await server.count()) - before;
    const lines = readFileSync(timings, "utf8")
      .trim()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as {
            side: string;
            job: string;
            registered?: number;
            added?: number;
            addDone?: number;
            queued?: number;
            processedOn?: number;
            serving?: number;
            consumerReady?: number;
            received?: number;
            event?: { stream: number; seen: number };
            taken?: number;
            built?: number;
            started?: number;
            finished?: number;
            ran?: number;
            pid?: number;
          },
      );
    // The simulation's own time, and the wait for the worker's one-time build of the run (its first jobs wait for it): neither is queue overhead.
    const ran = new Map(lines.filter((line) => line.side === "worker").map((line) => [line.job, (line.ran as number) + (line.built ?? 0)]));
    const coordinatorLines = lines.filter((line) => line.side === "coordinator");
    // From the run's announcement (workers open their consumer and build the run before its first job is added) to the last reply.
    const queueStart = Math.min(...coordinatorLines.map((line) => line.registered ?? (line.added as number)));
    const queueSeconds = (Math.max(...coordinatorLines.map((line) => line.received as number)) - queueStart) / 1000;
    const overheads = coordinatorLines.filter((line) => ran.has(line.job)).map((line) => (line.received as number) - (line.added as number) - (ran.get(line.job) as number));
    const ideal = (calls * latencyMs) / 1000 / (workers * CONCURRENCY);
    // Per stage, for jobs past each worker's first `CONCURRENCY` (the steady state: a job waits for a slot, then for the queue):
    // pick-up = taken − the moment the worker's previous job finished (its slot freed); report = the coordinator has the reply − finished.
    const workerLines = lines.filter((line) => line.side === "worker");
    const pickUps: number[] = [];
    for (const pid of new Set(workerLines.map((line) => line.pid))) {
      const own = workerLines.filter((line) => line.pid === pid).sort((a, b) => (a.taken as number) - (b.taken as number));
      const finishes = own.map((line) => line.finished as number).sort((a, b) => a - b);
      for (const line of own.slice(CONCURRENCY)) {
        const freed = finishes.filter((at) => at <= (line.taken as number)).at(-1);
        if (freed !== undefined) pickUps.push((line.taken as number) - freed);
      }
    }
    const perSimulation = overheadPerSimulation(coordinatorLines, workerLines);
    const finishedAt = new Map(workerLines.map((line) => [line.job, line.finished as number]));
    const reports = coordinatorLines.filter((line) => finishedAt.has(line.job)).map((line) => (line.received as number) - (finishedAt.get(line.job) as number));
    const firstAdded = Math.min(...coordinatorLines.map((line) => line.added as number));
    const breakdown = overheadBreakdown(
      coordinatorLines,
      workerLines,
      lines.filter((line) => line.side === "worker-run"),
    );
    const startupMs = Math.min(...workerLines.map((line) => line.taken as number)) - firstAdded;
    const buildMs = Math.max(...workerLines.map((line) => line.built as number));
    const simulationCpu = workerCpu.map((follow, index) => follow.last() - (workerCpuBefore[index] as number)).reduce((sum, value) => sum + value, 0);
    const redisCpu = (cpuSecondsOf(redisProcess.pid) ?? 0) - redisBefore;
    const benchCpu = (process.cpuUsage().user + process.cpuUsage().system) / 1e6 - benchBefore;
    const otherCpu = coordinatorCpu.last() + redisCpu + benchCpu;
    const cores = availableParallelism();
    const simulationsDone = (JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as { simulations: unknown[] }).simulations.length;
    return {
      workers,
      simulations: simulationsDone,
      calls,
      idealSeconds: Number(ideal.toFixed(2)),
      queueSeconds: Number(queueSeconds.toFixed(2)),
      processSeconds: Number(processSeconds.toFixed(2)),
      wallOverIdeal: Number((queueSeconds / ideal).toFixed(3)),
      processOverIdeal: Number((processSeconds / ideal).toFixed(3)),
      overheadMsP50: Number(percentile(overheads, 50).toFixed(1)),
      overheadMsP90: Number(percentile(overheads, 90).toFixed(1)),
      // Every simulation of this run (not only a fresh run's first 32): see `overheadPerSimulation`.
      overheadPerSimulationMsP50: perSimulation.length > 0 ? Number(percentile(perSimulation, 50).toFixed(1)) : null,
      overheadPerSimulationMsP90: perSimulation.length > 0 ? Number(percentile(perSimulation, 90).toFixed(1)) : null,
      steadyPickUpMsP50: pickUps.length > 0 ? Number(percentile(pickUps, 50).toFixed(1)) : null,
      steadyPickUpMsP90: pickUps.length > 0 ? Number(percentile(pickUps, 90).toFixed(1)) : null,
      // Stage by stage, on a run whose jobs all fit the slots (beyond them, a job's wait for a slot would count as fetching).
      overheadBreakdownMsP50: count <= workers * CONCURRENCY ? breakdown : null,
      reportMsP50: Number(percentile(reports, 50).toFixed(1)),
      reportMsP90: Number(percentile(reports, 90).toFixed(1)),
      firstJobTakenMs: startupMs,
      // The run's start, inside the wall: the announcement → its first job added (the workers open their consumer and build the run), then → every slot of the first round taken.
      announcedToFirstAddedMs: Number.isFinite(queueStart) ? firstAdded - queueStart : null,
      firstAddedToFirstRoundTakenMs: firstRoundTaken(workerLines) - firstAdded,
      workerBuildMs: buildMs,
      workerCpuSeconds: Number(simulationCpu.toFixed(2)),
      workerCpuMsPerSimulation: Number(((simulationCpu * 1000) / simulationsDone).toFixed(1)),
      workerCpuMsPerModelCall: Number(((simulationCpu * 1000) / calls).toFixed(2)),
      otherCpuSeconds: Number(otherCpu.toFixed(2)),
      // Of it: the coordinator's whole process (its start-up and the run's build, before the announcement, included), Redis, and this process (the model server's thread).
      // CPU between the announcement and the first job added (the workers build the run; the wall counts it), and the coordinator's from the announcement on (its start-up and build come before).
      cpuSecondsAnnouncedToFirstAdded: {
        workers: Number(workerCpu.reduce((sum, follow) => sum + follow.at(firstAdded) - follow.at(queueStart), 0).toFixed(2)),
        coordinator: Number((coordinatorCpu.at(firstAdded) - coordinatorCpu.at(queueStart)).toFixed(2)),
      },
      coordinatorCpuSecondsFromAnnouncement: Number((coordinatorCpu.last() - coordinatorCpu.at(queueStart)).toFixed(2)),
      otherCpuSecondsBy: { coordinator: Number(coordinatorCpu.last().toFixed(2)), redis: Number(redisCpu.toFixed(2)), modelServer: Number(benchCpu.toFixed(2)) },
      cpuBoundSeconds: Number(((simulationCpu + otherCpu) / cores).toFixed(2)),
      cpuBoundOverIdeal: Number(((simulationCpu + otherCpu) / cores / ideal).toFixed(3)),
      timings,
    };
  } finally {
    for (const worker of started) worker.kill("SIGTERM");
    await Promise.allSettled(started);
    await server.close();
  }
}

/**
 * Queue overhead per simulation, over every simulation of a run: the time the queue adds to the
 * job's own path, beyond waiting for a free slot (which the queue does not cause: 256 jobs on 32
 * slots wait their turn) and the worker's one-time build of the run. For each job:
 *   pick-up — a worker's first `CONCURRENCY` jobs: taken − added; a later one (the worker's
 *             (CONCURRENCY + k)-th take): taken − the worker's k-th finish, the slot it took freeing
 *             (slots are taken in the order they free);
 *   + taken → started beyond the build wait;
 *   + report — the coordinator has the reply − the simulation finished.
 * The overhead run's figure (`overheadMsP50`: 32 jobs of a fresh run on one worker of 32 slots,
 * reply − added − simulation − build) is the first of these rounds only — a burst of 32 adds and 32
 * fetches, each job behind the others in Redis's one thread — and is printed beside it.
 */
function overheadPerSimulation(coordinatorLines: TimingLine[], workerLines: TimingLine[]): number[] {
  const coordinator = new Map(coordinatorLines.map((line) => [line.job, line]));
  const overheads: number[] = [];
  for (const pid of new Set(workerLines.map((line) => line.pid))) {
    const own = workerLines.filter((line) => line.pid === pid).sort((a, b) => (a.taken as number) - (b.taken as number));
    const finishes = own.map((line) => line.finished as number).sort((a, b) => a - b);
    own.forEach((line, index) => {
      const mine = coordinator.get(line.job);
      if (!mine || mine.added === undefined || mine.received === undefined) return;
      const freed = index < CONCURRENCY ? mine.added : Math.max(mine.added, finishes[index - CONCURRENCY] as number);
      const pickUp = (line.taken as number) - freed;
      const beyondBuild = (line.started as number) - (line.taken as number) - (line.built ?? 0);
      overheads.push(pickUp + beyondBuild + (mine.received - (line.finished as number)));
    });
  }
  return overheads;
}

/** When the last job of the workers' first round (each worker's first `CONCURRENCY` takes) was taken. */
function firstRoundTaken(workerLines: TimingLine[]): number {
  let last = Number.NEGATIVE_INFINITY;
  for (const pid of new Set(workerLines.map((line) => line.pid))) {
    const takes = workerLines
      .filter((line) => line.pid === pid)
      .map((line) => line.taken as number)
      .sort((a, b) => a - b);
    last = Math.max(last, takes[Math.min(CONCURRENCY, takes.length) - 1] as number);
  }
  return last;
}

interface TimingLine {
  pid?: number;
  job: string;
  registered?: number;
  added?: number;
  addDone?: number;
  event?: { stream: number; seen: number };
  received?: number;
  processedOn?: number;
  taken?: number;
  built?: number;
  started?: number;
  finished?: number;
  ran?: number;
  serving?: number;
  consumerReady?: number;
}

/**
 * Where the overhead goes, stage by stage (p50 over the jobs, in ms; the stages add up to each
 * job's overhead, their p50s only roughly to its p50). A job's stamps: added (the coordinator
 * queues it in its pipeline) → BullMQ moved it to active (`processedOn`, the worker's clock, in
 * its fetch) → taken (the worker's processor starts: the run consumer starts a round's jobs once
 * the round's fetches, all sent at once, have answered; builds before session 7 used BullMQ's loop,
 * which starts them once its fetches in sequence stop) → build waited for (left out of the overhead) → started → finished
 * (the simulation, left out) → the completion's entry in the events stream (the worker's
 * `moveToFinished`) → seen by the coordinator's events reader → reply received (checked, resolved).
 * Two one-time costs of a new run are beside them: announcement → the worker serves it and its
 * consumer's connection is ready (only from builds that write `worker-run` lines).
 */
function overheadBreakdown(coordinatorLines: TimingLine[], workerLines: TimingLine[], runLines: TimingLine[]) {
  const worker = new Map(workerLines.map((line) => [line.job, line]));
  const stages: Record<string, number[]> = {
    addRoundTrip: [],
    addedToActive: [],
    activeToTaken: [],
    takenToStartedBeyondBuild: [],
    finishedToEventStream: [],
    eventStreamToSeen: [],
    seenToReceived: [],
  };
  for (const line of coordinatorLines) {
    const own = worker.get(line.job);
    if (!own || line.added === undefined || own.taken === undefined) continue;
    if (line.addDone !== undefined) stages.addRoundTrip?.push(line.addDone - line.added);
    if (own.processedOn !== undefined) {
      stages.addedToActive?.push(own.processedOn - line.added);
      stages.activeToTaken?.push(own.taken - own.processedOn);
    }
    stages.takenToStartedBeyondBuild?.push((own.started as number) - own.taken - (own.built ?? 0));
    if (line.event && own.finished !== undefined && line.received !== undefined) {
      stages.finishedToEventStream?.push(line.event.stream - own.finished);
      stages.eventStreamToSeen?.push(line.event.seen - line.event.stream);
      stages.seenToReceived?.push(line.received - line.event.seen);
    }
  }
  const registered = coordinatorLines.find((line) => line.registered !== undefined)?.registered;
  const firstAdded = Math.min(...coordinatorLines.map((line) => line.added as number));
  const run = runLines[0];
  return {
    ...Object.fromEntries(Object.entries(stages).map(([stage, values]) => [stage, values.length > 0 ? Number(percentile(values, 50).toFixed(1)) : null])),
    // One-time, per worker and run: from the run's announcement.
    announcedToFirstAdded: registered !== undefined ? firstAdded - registered : null,
    announcedToServing: registered !== undefined && run?.serving !== undefined ? run.serving - registered : null,
    announcedToConsumerReady: registered !== undefined && run?.consumerReady !== undefined ? run.consumerReady - registered : null,
    firstAddedToFirstActive: Math.min(...workerLines.map((line) => line.processedOn ?? Number.POSITIVE_INFINITY)) - firstAdded,
    firstActiveToLastActive: Math.max(...workerLines.map((line) => line.processedOn ?? 0)) - Math.min(...workerLines.map((line) => line.processedOn ?? Number.POSITIVE_INFINITY)),
  };
}

/** Redis's memory growth for 10,000 queued jobs of the shape the coordinator adds. */
async function memoryPer10k(): Promise<{ bytes: number; bytesPerJob: number }> {
  const used = async () => Number(/used_memory:(\d+)/.exec(await redis.info("memory"))?.[1]);
  const queue = new Queue("bench-memory", { connection: redis, prefix: KEY_PREFIX });
  await queue.obliterate({ force: true }).catch(() => undefined);
  const before = await used();
  const jobs = Array.from({ length: 10_000 }, (_, index) => {
    const unit = {
      runId: "/data/runs/telecom-full.json",
      suite: "tau2",
      domain: "telecom",
      taskId: `[mobile_data_issue]airplane_mode_on|bad_network_preference|user_abroad_roaming_enabled_off[PERSONA:Hard]#${index}`,
      taskIndex: index,
      trial: 0,
      seed: 300 + index,
      attempt: 1,
    };
    return { name: `${unit.taskId}#${unit.trial}`, data: { configurationId: "0123456789abcdef0123456789abcdef", unit }, opts: { jobId: jobIdOf(unit), attempts: 1 } };
  });
  for (let at = 0; at < jobs.length; at += 1_000) await queue.addBulk(jobs.slice(at, at + 1_000));
  const bytes = (await used()) - before;
  await queue.obliterate({ force: true });
  await queue.close();
  return { bytes, bytesPerJob: Math.round(bytes / 10_000) };
}

/**
 * Redis's own execution time during a run, by command and by BullMQ script (SLOWLOG with no
 * threshold: each command's execution in Redis's one thread, without network or queueing), per
 * simulation: the part of the overhead no client change can remove. A round's jobs pass through
 * Redis one after another (32 adds, then 32 moves to active), so a job also waits for those before it.
 */
async function startRedisProfile(): Promise<void> {
  await redis.config("SET", "slowlog-log-slower-than", "0");
  await redis.config("SET", "slowlog-max-len", "1000000");
  await redis.slowlog("RESET");
}

async function redisProfile(simulations: number) {
  const entries = (await redis.slowlog("GET", "-1")) as Array<[number, number, number, string[], string]>;
  await redis.config("SET", "slowlog-log-slower-than", "10000");
  await redis.slowlog("RESET");
  // The scripts' names, by the hash ioredis sends (BullMQ defines them on every connection it uses, this one included).
  const scripts = (redis as unknown as { scriptsSet?: Record<string, { sha: string }> }).scriptsSet ?? {};
  const names = new Map(Object.entries(scripts).map(([name, script]) => [script.sha, name.replace(/:.*$/, "")]));
  const byCommand = new Map<string, { calls: number; micros: number }>();
  for (const [, , micros, argv, client] of entries) {
    const command = String(argv[0]).toLowerCase();
    // Redis 7 also logs the commands a script calls (client "?:0"): their time is in the script's.
    if (command === "slowlog" || command === "config" || client === "?:0") continue;
    // A script's first use on a connection is an EVAL of its text (the log cuts it: not named).
    const script = command === "evalsha" ? names.get(String(argv[1])) : undefined;
    const key = script ? `script ${script}` : command === "eval" ? "eval (a script's first use on a connection)" : command;
    const entry = byCommand.get(key) ?? { calls: 0, micros: 0 };
    entry.calls++;
    entry.micros += micros;
    byCommand.set(key, entry);
  }
  const total = [...byCommand.values()].reduce((sum, entry) => sum + entry.micros, 0);
  // Redis writes its answers once it has run what it read in one go: the coordinator's adds (one
  // pipeline) run before the worker they wake hears of them, and the worker's fetches of the round
  // (one write) before the first answer. So the round's jobs wait about this long for Redis alone.
  const add = byCommand.get("script addStandardJob");
  const move = byCommand.get("script moveToActive");
  const roundFloor = add && move ? add.micros + (move.micros / move.calls) * simulations : undefined;
  const top = [...byCommand.entries()].sort((a, b) => b[1].micros - a[1].micros).slice(0, 8);
  return {
    redisMsPerSimulation: Number((total / 1000 / simulations).toFixed(2)),
    roundAddsAndMovesMs: roundFloor === undefined ? null : Number((roundFloor / 1000).toFixed(1)),
    byCommand: Object.fromEntries(
      top.map(([key, entry]) => [key, { calls: entry.calls, usPerCall: Math.round(entry.micros / entry.calls), msPerSimulation: Number((entry.micros / 1000 / simulations).toFixed(2)) }]),
    ),
  };
}

/**
 * `--monitor <file>` (a diagnostic): every command Redis runs during the overhead run, one JSON line
 * each (`MONITOR`: Redis's own clock in ms, the client's address, the command and its first
 * arguments, a script's first use shown as `eval`), to line up with the timings file's stamps.
 */
async function startMonitor(file: string | undefined): Promise<Redis | undefined> {
  if (!file) return undefined;
  const names = new Map<string, string>();
  const monitor = await redis.monitor();
  monitor.on("monitor", (time: string, argv: string[], source: string) => {
    const command = String(argv[0]).toLowerCase();
    let script: string | undefined;
    if (command === "evalsha") script = names.get(String(argv[1]));
    else if (command === "eval") script = /--\[\[\s*\n?\s*([^\n]*)/.exec(String(argv[1]))?.[1]?.trim().slice(0, 60) ?? "eval";
    if (names.size === 0) {
      const scripts = (redis as unknown as { scriptsSet?: Record<string, { sha: string }> }).scriptsSet ?? {};
      for (const [name, entry] of Object.entries(scripts)) names.set(entry.sha, name.replace(/:.*$/, ""));
    }
    const rest = (command === "eval" || command === "evalsha" ? argv.slice(2, 5) : argv.slice(1, 4)).map((value) => String(value).slice(0, 80));
    appendFileSync(file, `${JSON.stringify({ at: Number(time) * 1000, source, command, ...(script ? { script } : {}), args: rest })}\n`);
  });
  return monitor;
}

const report: Record<string, unknown> = {
  cores: availableParallelism(),
  loadBefore: loadavg().map((value) => Number(value.toFixed(2))),
  latencyMs,
  concurrency: CONCURRENCY,
  cli: bin ?? "sources (tsx)",
  modelServer: lightModel ? "light (--light-model: answers only, records nothing)" : "scripted (records every request)",
  derivedCache: coldDerived ? "cold (one per process)" : "shared, filled by the overhead run",
};
try {
  report.redisMemoryPer10000Queued = await memoryPer10k();
  // Overhead on a run that fits the slots of one worker (no job waits for a slot).
  await startRedisProfile();
  const monitor = await startMonitor(option("--monitor"));
  report.overheadRun = await queuedRun(1, CONCURRENCY);
  monitor?.disconnect();
  report.overheadRunRedisTime = await redisProfile(CONCURRENCY);
  if (args.includes("--overhead-only")) workerCounts.length = 0;
  report.runs = [];
  for (const workers of workerCounts) (report.runs as unknown[]).push(await queuedRun(workers, simulations));
} finally {
  report.loadAfter = loadavg().map((value) => Number(value.toFixed(2)));
  redis.disconnect();
  redisProcess.kill("SIGTERM");
  await redisProcess;
}
console.log(JSON.stringify(report, null, 2));
