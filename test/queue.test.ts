/**
 * `--queue` end to end with a real `redis-server` (started here on a loopback port) and real
 * `taubridge worker` processes, through the CLI from the sources, on the scripted model server:
 *
 * - a τ² run of 200 simulations on 3 workers prints and writes what a local run does (every
 *   (task, trial) once, same rewards and trajectories), and a τ-bench run does too; no key reaches
 *   Redis (its append-only file included); a finished run leaves no key behind;
 * - a worker SIGKILLed mid-simulation: its jobs run again on another worker, recorded once;
 * - `queue status`, `queue cancel` (the coordinator ends as interrupted, exit 130, nothing cut is
 *   recorded; the same command finishes the run) and `queue clean`;
 * - `--provider-limit`: the model server never sees more requests in flight than the limit;
 * - a coordinator SIGKILLed and started again, and a Redis restart mid-run: the run completes with
 *   a local run's results.
 *
 * Simulations are held at a scripted model server's gate, never timed.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBenchmark } from "../app/index.ts";
import { durableConnection } from "../src/queue/connection.ts";
import { SharedLimits } from "../src/queue/limits.ts";
import { REGISTRY_KEY, runKey } from "../src/queue/names.ts";
import { QueueWorker } from "../src/queue/queue-worker.ts";
import { removeRunRecord, type RunRecord, writeRunRecord } from "../src/queue/run-record.ts";
import { WORKER_PROTOCOL_VERSION } from "../src/worker/protocol.ts";
import { type Responder, startScriptedModelServer } from "../src/testing/index.ts";
import { missing, runScenario, scenarioFiles } from "./golden/run-scenario.ts";
import { scenarioContext, type ScenarioContext } from "./golden/scenarios.ts";
import { runCli } from "./support/cli.ts";
import { filesOf, gatedScenario, scenarioNamed, until, withArgs, withoutHeadings } from "./support/gated-runs.ts";
import { redisMissing, startRedis, type TestRedis } from "./support/redis-server.ts";
import { sharedDirectory } from "./support/shared-data.ts";

const TIMEOUT = 1_200_000;
/** Short locks, so a killed worker's jobs come back quickly (the machine may be loaded: a false stall only costs a re-run). */
const WORKER_FLAGS = ["--lock-duration", "4", "--stalled-interval", "1"];

/** Waits until Redis holds no key matching `pattern` (workers let go of a finished run's queue within a second or so). */
async function noKeys(redis: TestRedis, pattern: string): Promise<void> {
  await until(() => redis.cli("--scan", "--pattern", pattern).trim() === "", `no key ${pattern} left in Redis`);
}

interface WorkerProcess {
  process: ResultPromise;
  output(): string;
}

/** A `taubridge worker` process; resolves once it serves the queue. */
async function startWorker(url: string, extra: readonly string[] = [], env: Record<string, string> = {}): Promise<WorkerProcess> {
  const child = runCli(["worker", "--queue", url, ...WORKER_FLAGS, ...extra], { env: { TAUBRIDGE_DEBUG: "", ...env } });
  let output = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const worker = { process: child, output: () => output };
  await until(() => output.includes("serving runs on") || child.exitCode !== null, "the worker to start");
  if (!output.includes("serving runs on")) throw new Error(`the worker did not start: ${output}`);
  return worker;
}

/**
 * Workers starting while the test does something else first (its local baseline run): each loads
 * the suites' code for seconds, which then overlaps the baseline instead of following it. Awaiting
 * the result gives the workers; `stop` stops whichever started, whatever happened meanwhile.
 */
function workersStarting(count: number, url: string, extra: readonly string[] = [], env: Record<string, string> = {}) {
  const starting = Promise.allSettled(Array.from({ length: count }, () => startWorker(url, extra, env)));
  return {
    async ready(): Promise<WorkerProcess[]> {
      const settled = await starting;
      const failed = settled.find((outcome) => outcome.status === "rejected");
      if (failed) throw failed.reason;
      return settled.map((outcome) => (outcome as PromiseFulfilledResult<WorkerProcess>).value);
    },
    async stop(): Promise<void> {
      const settled = await starting;
      await stopWorkers(settled.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : [])));
    },
  };
}

/** A scenario's local baseline run and its gated run's set-up, while `count` workers start. */
async function baselineWhileWorkersStart(scenario: Parameters<typeof runScenario>[0], count: number, url: string, extra: readonly string[]) {
  const starting = workersStarting(count, url, extra);
  try {
    const baseline = await runScenario(scenario);
    const run = await gatedScenario(scenario, () => true);
    return { baseline, run, workers: await starting.ready() };
  } catch (error) {
    await starting.stop();
    throw error;
  }
}

async function stopWorkers(workers: readonly WorkerProcess[]): Promise<void> {
  for (const worker of workers) if (worker.process.exitCode === null) worker.process.kill("SIGKILL");
  await Promise.allSettled(workers.map((worker) => worker.process));
}

/**
 * The process's result once it exits; if it has not within `ms`, it is killed and the test fails
 * with what it printed so far and `more()` (the queue's state, the workers' output), not a bare timeout.
 */
async function finishedWithin<T extends ResultPromise>(child: T, ms: number, more: () => Promise<string[]>): Promise<Awaited<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
  });
  const outcome = await Promise.race([child, late]);
  clearTimeout(timer);
  if (outcome !== "late") return outcome as Awaited<T>;
  const details = await more().catch((error: unknown) => [`(could not read more: ${String(error)})`]);
  child.kill("SIGKILL");
  const killed = await child; // execa keeps what it printed
  throw new Error(`the process did not end within ${ms / 1000} s; its stderr:\n${String(killed.stderr)}\n${details.join("\n")}`);
}

function startCoordinator(args: readonly string[], env: Record<string, string> = {}) {
  return runCli(args, { env: { TAUBRIDGE_DEBUG: "", ...env } });
}

/** The run's job counts, as `taubridge queue status --format json` prints them. */
interface StatusJson {
  counts: Record<string, number>;
  record?: { state: string; coordinator: { host: string; pid: number } };
}

async function statusOf(url: string, run: string): Promise<StatusJson | undefined> {
  const status = await runCli(["queue", "status", run, "--queue", url, "--format", "json"]);
  return status.exitCode === 0 ? (JSON.parse(status.stdout) as StatusJson) : undefined;
}

const tau2 = scenarioNamed("tau2-mock-llm-agent-user-simulator");
const tau2Reason = redisMissing ?? missing(tau2.needs);
const tau = scenarioNamed("tau-library-tool-calling-llm-user");
const tauReason = redisMissing ?? missing(tau.needs);

describe.skipIf(redisMissing !== undefined)(`--queue with a real redis-server${redisMissing ? ` (skipped: ${redisMissing})` : ""}`, () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  }, 60_000);
  afterAll(async () => {
    await redis?.stop();
  });

  it.skipIf(tau2Reason !== undefined)(
    `τ²: 200 simulations on 3 workers print and write what a local run does; no key reaches Redis; nothing is left behind${tau2Reason ? ` (skipped: ${tau2Reason})` : ""}`,
    async () => {
      const secret = `sk-queue-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
      const keys = ["--agent-api-key-env", "QUEUE_TEST_AGENT_KEY", "--user-api-key-env", "QUEUE_TEST_USER_KEY"];
      const env = { QUEUE_TEST_AGENT_KEY: secret, QUEUE_TEST_USER_KEY: `${secret}-user` };
      const big = withArgs(tau2, ["--num-trials", "20", ...keys], env);
      const starting = workersStarting(3, redis.url, ["--concurrency", "8"], env);
      try {
        const local = await runScenario(big);
        expect(local.whole).toMatch(/^exit 0$/m);
        const workers = await starting.ready();
        const queued = await runScenario(withArgs(big, ["--queue", redis.url]));
        expect(withoutHeadings(queued.whole)).toBe(withoutHeadings(local.whole));
        // 200 simulations, each (task, trial) once.
        const simulations = [...filesOf(queued.whole).matchAll(/^task (\S+) trial (\d+) reward/gm)].map((match) => `${match[1]}#${match[2]}`);
        expect(simulations.length === 0 || new Set(simulations).size === simulations.length).toBe(true);
        // Every worker took part, and none reported a simulation twice.
        for (const worker of workers) expect(worker.output()).toContain("[results] serving");
        // A finished run leaves no key behind, once the workers let go of it.
        await noKeys(redis, "taubridge:*");
        await until(() => workers.every((worker) => worker.output().includes("[results] stopped serving (finished or removed)")), "every worker to let go of the run");
      } finally {
        await starting.stop();
      }
      // No key was ever written (the append-only file holds every write).
      const written = redis.appendOnlyText();
      expect(written).toContain("QUEUE_TEST_AGENT_KEY"); // the variable's name travels in the configuration…
      expect(written).not.toContain(secret); // …its value never does
      expect(written).toContain("user_simulator");
      // The coordinator and every worker ran their warm-up lap (`src/queue/warm-up.ts`) on a scratch queue of its own, removed above with the rest.
      expect(new Set(written.match(/taubridge:warm-up-[0-9a-f-]{36}:/g)).size).toBeGreaterThanOrEqual(4);
    },
    TIMEOUT,
  );

  it.skipIf(tauReason !== undefined)(
    `τ-bench: a run on 2 workers prints and writes what a local run does${tauReason ? ` (skipped: ${tauReason})` : ""}`,
    async () => {
      const twice = withArgs(tau, ["--num-trials", "2"]);
      const starting = workersStarting(2, redis.url, ["--concurrency", "4"]);
      try {
        const local = await runScenario(twice);
        expect(local.whole).toMatch(/^exit 0$/m);
        await starting.ready();
        const queued = await runScenario(withArgs(twice, ["--queue", redis.url]));
        expect(withoutHeadings(queued.whole)).toBe(withoutHeadings(local.whole));
        await noKeys(redis, "taubridge:*");
      } finally {
        await starting.stop();
      }
    },
    TIMEOUT,
  );

  it(
    "the API: runBenchmark({ queue }) gives the episodes and metrics of a local call; the refusals are one line",
    async () => {
      const options = { env: "library", agentStrategy: "oracle", userStrategy: "scripted", numTrials: 2 } as const;
      const starting = workersStarting(1, redis.url, ["--concurrency", "4"]);
      try {
        const local = await runBenchmark({ ...options, logDir: mkdtempSync(join(tmpdir(), "taubridge-queue-api-local-")) });
        await starting.ready();
        const queued = await runBenchmark({ ...options, logDir: mkdtempSync(join(tmpdir(), "taubridge-queue-api-")), queue: redis.url });
        const shape = (result: typeof local) => result.episodes.map(({ taskId, trial, reward, termination, resumed }) => ({ taskId, trial, reward, termination, resumed }));
        expect(shape(queued)).toEqual(shape(local));
        expect(queued.episodes).toHaveLength(22);
        expect(queued.metrics.passK).toEqual(local.metrics.passK);
        expect(queued.interrupted).toBe(false);
      } finally {
        await starting.stop();
      }
      await expect(runBenchmark({ ...options, queue: redis.url, workers: 2 })).rejects.toThrow("--queue and --workers both say where the run's episodes go; give one");
      await expect(runBenchmark({ ...options, queue: "redis://127.0.0.1:9/0" })).rejects.toThrow(/^--queue: cannot reach Redis at redis:\/\/127\.0\.0\.1:9\/0/);
      await expect(runBenchmark({ ...options, queue: "http://127.0.0.1/" })).rejects.toThrow("--queue: must be a redis:// or rediss:// URL");
    },
    TIMEOUT,
  );

  it.skipIf(tau2Reason !== undefined)(
    `a worker SIGKILLed mid-simulation: its jobs run again on another worker and are recorded once${tau2Reason ? ` (skipped: ${tau2Reason})` : ""}`,
    async () => {
      // Long locks here (the later flags win): this test counts jobs by state, and on a loaded machine a
      // worker late to renew a short lock would have a job moved back to waiting as stalled.
      const { baseline, run, workers } = await baselineWhileWorkersStart(tau2, 1, redis.url, ["--concurrency", "2", "--lock-duration", "120", "--stalled-interval", "30"]);
      const [first] = workers;
      try {
        const coordinator = startCoordinator([...run.args, "--queue", redis.url]);
        // Both of the first worker's simulations wait at the model; it dies holding them.
        await until(() => run.gate.held.length >= 2, "two simulations waiting at the model");
        first.process.kill("SIGKILL");
        await first.process;
        workers.push(await startWorker(redis.url, ["--concurrency", "2"]));
        run.gate.open();
        const done = await coordinator;
        expect(done.exitCode).toBe(0);
        expect(filesOf(baseline.whole)).toBe(scenarioFiles(run.context));
      } finally {
        run.gate.open();
        await stopWorkers(workers);
        await run.server.close();
      }
    },
    TIMEOUT,
  );

  it.skipIf(tau2Reason !== undefined)(
    `queue status, cancel (exit 130, nothing cut recorded; the same command finishes the run) and clean${tau2Reason ? ` (skipped: ${tau2Reason})` : ""}`,
    async () => {
      // Long locks here (the later flags win): this test counts jobs by state, and on a loaded machine a
      // worker late to renew a short lock would have a job moved back to waiting as stalled.
      const { baseline, run, workers } = await baselineWhileWorkersStart(tau2, 1, redis.url, ["--concurrency", "2", "--lock-duration", "120", "--stalled-interval", "30"]);
      try {
        const coordinator = startCoordinator([...run.args, "--queue", redis.url]);
        await until(() => run.gate.held.length >= 2, "two simulations waiting at the model");
        await until(async () => (await statusOf(redis.url, "results"))?.counts.active === 2, "two active jobs");
        const status = await statusOf(redis.url, "results");
        expect(status?.counts).toMatchObject({ active: 2, waiting: 8, completed: 0, failed: 0 });
        expect(status?.record?.state).toBe("open");
        const text = await runCli(["queue", "status", "results", "--queue", redis.url]);
        expect(text.stdout).toMatch(/^run results: open \(tau2, coordinator /m);
        expect(text.stdout).toContain("jobs: waiting 8, active 2");

        const cancel = await runCli(["queue", "cancel", "results", "--queue", redis.url]);
        expect(cancel.exitCode).toBe(0);
        expect(cancel.stdout).toContain("run results cancelled: 8 waiting job(s) removed, 2 running simulation(s) told to stop");
        const cancelled = await coordinator;
        expect(cancelled.exitCode).toBe(130);
        expect(cancelled.stderr).toContain('the run "results" was cancelled on the queue');
        // Nothing was recorded: both simulations were cut, the rest never started.
        expect(run.server.requests.length).toBeLessThanOrEqual(2);
        expect((await statusOf(redis.url, "results"))?.record?.state).toBe("cancelled");

        const clean = await runCli(["queue", "clean", "results", "--queue", redis.url]);
        expect(clean.stderr).toBe("");
        expect(clean.exitCode).toBe(0);
        const gone = await runCli(["queue", "status", "results", "--queue", redis.url]);
        expect(gone.exitCode).toBe(2);
        expect(gone.stderr).toContain('the queue has no run "results"');
        await noKeys(redis, "taubridge:results:*");

        // The same command finishes the run, with a local run's results.
        run.gate.open();
        const again = await startCoordinator([...run.args, "--queue", redis.url]);
        expect(again.exitCode).toBe(0);
        expect(filesOf(baseline.whole)).toBe(scenarioFiles(run.context));
      } finally {
        run.gate.open();
        await stopWorkers(workers);
        await run.server.close();
      }
    },
    TIMEOUT,
  );

  it.skipIf(tau2Reason !== undefined)(
    `--provider-limit: the model server never has more requests in flight than the limit, across every worker${tau2Reason ? ` (skipped: ${tau2Reason})` : ""}`,
    async () => {
      const starting = workersStarting(2, redis.url, ["--concurrency", "5"]);
      const baseline = await runScenario(withArgs(tau2, ["--num-trials", "2"])).catch(async (error: unknown) => {
        await starting.stop();
        throw error;
      });
      let inFlight = 0;
      let most = 0;
      const answer: { responder: Responder } = { responder: () => undefined };
      const server = await startScriptedModelServer({
        responder: async (request) => {
          inFlight++;
          most = Math.max(most, inFlight);
          try {
            await new Promise((resolve) => setTimeout(resolve, 20));
            return await answer.responder(request);
          } finally {
            inFlight--;
          }
        },
      });
      const context = scenarioContext(sharedDirectory, server.baseURL);
      answer.responder = (tau2.responder as (context: ScenarioContext) => Responder)(context);
      try {
        await starting.ready();
        const args = [...tau2.invocations(context)[0].args, "--num-trials", "2", "--queue", redis.url, "--provider-limit", "openai-compatible=2"];
        const done = await startCoordinator(args);
        expect(done.stderr).toBe("");
        expect(done.exitCode).toBe(0);
        expect(filesOf(baseline.whole)).toBe(scenarioFiles(context));
        expect(server.requests.length).toBeGreaterThan(20);
        expect(most).toBe(2);
      } finally {
        await starting.stop();
        await server.close();
      }
    },
    TIMEOUT,
  );

  it(
    "a worker starts serving a run when its coordinator registers it, and lets go when it is removed, without waiting for its poll",
    async () => {
      const lines: string[] = [];
      // A poll of an hour: only the registry's announcements can make this worker see the run within the test.
      const worker = new QueueWorker({
        url: redis.url,
        concurrency: 1,
        pollMs: 3_600_000,
        registries: () => Promise.reject(new Error("never built: the run's version is not this worker's")),
        log: (line) => lines.push(line),
      });
      const connection = durableConnection(redis.url, "announce-test");
      const record: RunRecord = {
        run: "announce-test",
        configuration: {
          protocol: WORKER_PROTOCOL_VERSION,
          id: "announce-test-configuration",
          taubridgeVersion: "0.0.0-announce-test",
          registries: "bundled",
          suite: "tau2",
          surface: "cli",
          settings: {},
        },
        providerLimits: {},
        rateLimits: {},
        state: "open",
        coordinator: { host: "test", pid: process.pid, at: new Date().toISOString() },
      };
      try {
        await worker.start();
        expect(lines.join("\n")).not.toContain("[announce-test]");
        await writeRunRecord(connection, record);
        await until(() => lines.some((line) => line.startsWith("[announce-test] serving (tau2, coordinator test:")), "the worker to serve the announced run");
        await removeRunRecord(connection, record.run);
        await until(() => lines.includes("[announce-test] stopped serving (finished or removed)"), "the worker to let go of the removed run");
        expect(await connection.hexists(REGISTRY_KEY, record.run)).toBe(0);
      } finally {
        await worker.close();
        await removeRunRecord(connection, record.run);
        connection.disconnect();
      }
    },
    TIMEOUT,
  );

  it(
    "--rate-limit holds requests past the window for every worker, and a 429's retry-after pauses the endpoint for all of them",
    async () => {
      const server = await startScriptedModelServer({ steps: [{ error: { status: 429, retryAfter: 30 } }, { content: "ok", times: "unlimited" }] });
      const host = new URL(server.baseURL).host;
      const connections = [0, 1, 2, 3].map((index) => durableConnection(redis.url, `limits-test-${index}`));
      // Two workers' views of the same run's limits.
      const [first, second] = [0, 2].map((at) => new SharedLimits(connections[at], connections[at + 1], "limits-test", {}, { [host]: { requests: 2, seconds: 600 } }));
      const endpoint = { role: "agent" as const, provider: "openai-compatible", model: "m", baseURL: server.baseURL };
      const post = (limits: SharedLimits) =>
        limits.fetchFor(endpoint)(`${server.baseURL}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
        });
      try {
        // The first answer is a 429 with retry-after 30: the endpoint pauses for everyone.
        expect((await post(first)).status).toBe(429);
        const pause = runKey("limits-test", "pause", host);
        expect(Number(redis.cli("pttl", pause).trim())).toBeGreaterThan(20_000);
        const held = post(second);
        let answered = false;
        void held.then(() => {
          answered = true;
        });
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(answered).toBe(false);
        expect(server.requests.length).toBe(1);
        redis.cli("del", pause); // the pause lapses: the held request goes
        expect((await held).status).toBe(200);
        // Two requests in the window of 600 s: a third, from either worker, waits.
        expect(server.requests.length).toBe(2);
        const third = post(first);
        let thirdAnswered = false;
        void third.then(() => {
          thirdAnswered = true;
        });
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(thirdAnswered).toBe(false);
        expect(server.requests.length).toBe(2);
        redis.cli("del", runKey("limits-test", "rate", host)); // the window empties
        expect((await third).status).toBe(200);
        expect(server.requests.length).toBe(3);
      } finally {
        for (const connection of connections) connection.disconnect();
        await server.close();
      }
    },
    TIMEOUT,
  );

  it.skipIf(tau2Reason !== undefined)(
    `a coordinator SIGKILLed and started again, then a Redis restart: the run completes with a local run's results, nothing twice${tau2Reason ? ` (skipped: ${tau2Reason})` : ""}`,
    async () => {
      // Long locks here (the later flags win): this test counts jobs by state, and on a loaded machine a
      // worker late to renew a short lock would have a job moved back to waiting as stalled.
      const { baseline, run, workers } = await baselineWhileWorkersStart(tau2, 1, redis.url, ["--concurrency", "2", "--lock-duration", "120", "--stalled-interval", "30"]);
      try {
        const first = startCoordinator([...run.args, "--queue", redis.url]);
        await until(() => run.gate.held.length >= 2, "two simulations waiting at the model");
        first.kill("SIGKILL");
        await first;
        // The jobs stay: the same command picks the run up (adding none of them again).
        const second = startCoordinator([...run.args, "--queue", redis.url]);
        // The killed coordinator's record still says "open": wait for the new one's (its pid), so Redis
        // restarts while the run is in the second coordinator's hands, not while that one is starting.
        await until(async () => {
          const record = (await statusOf(redis.url, "results"))?.record;
          return record?.state === "open" && record.coordinator.pid === second.pid;
        }, "the run registered again by the second coordinator");
        const status = await statusOf(redis.url, "results");
        expect((status?.counts.waiting ?? 0) + (status?.counts.active ?? 0)).toBe(10);
        // Redis restarts (its append-only file keeps the queue); workers and coordinator reconnect.
        await redis.restart();
        run.gate.open();
        const done = await finishedWithin(second, 600_000, async () => [
          `queue status: ${JSON.stringify(await statusOf(redis.url, "results"))}`,
          `keys: ${redis.cli("--scan", "--pattern", "*").trim().split("\n").sort().join(" ")}`,
          ...workers.map((worker) => worker.output()),
        ]);
        expect(done.exitCode, `${String(done.stderr)}\n${workers.map((worker) => worker.output()).join("\n")}`).toBe(0);
        expect(filesOf(baseline.whole)).toBe(scenarioFiles(run.context));
      } finally {
        run.gate.open();
        await stopWorkers(workers);
        await run.server.close();
      }
    },
    TIMEOUT,
  );
});
