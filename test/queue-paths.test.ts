/**
 * Two paths of `--queue` that the end-to-end tests (`queue.test.ts`) go through without showing
 * which way they went, with a real `redis-server` and BullMQ, in one process (no suite, no model):
 *
 * - the coordinator's add: a fresh run's queue holds no job, so its adds skip the read-back
 *   (`Job.fromId`, `getState`); a run started again over jobs an earlier coordinator added reads
 *   each back and adds nothing twice;
 * - the run consumer's wait on the queue's marker: jobs added after the worker went idle are taken
 *   by the wake (the wait's own bound is an hour here), and a wait whose connection went silent
 *   (a black hole between worker and Redis) is cut by its watchdog and the jobs are taken.
 */
import { createServer, type Server, type Socket, connect } from "node:net";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unitKey, type WorkUnit } from "../src/core/run.ts";
import { durableConnection } from "../src/queue/connection.ts";
import { QueueCoordinator } from "../src/queue/coordinator.ts";
import type { JobData } from "../src/queue/job.ts";
import { jobIdOf, KEY_PREFIX } from "../src/queue/names.ts";
import { RunConsumer } from "../src/queue/run-consumer.ts";
import { type RunConfiguration, type UnitReply, WORKER_PROTOCOL_VERSION } from "../src/worker/protocol.ts";
import { until } from "./support/gated-runs.ts";
import { redisMissing, startRedis, type TestRedis } from "./support/redis-server.ts";

const TIMEOUT = 120_000;

function configurationOf(id: string): RunConfiguration {
  return { protocol: WORKER_PROTOCOL_VERSION, id, taubridgeVersion: "test", registries: "bundled", suite: "tau2", surface: "api", settings: {} };
}

function unitsOf(run: string, count: number): WorkUnit[] {
  return Array.from({ length: count }, (_, index) => ({ runId: run, suite: "tau2", domain: "mock", taskId: `t${index}`, taskIndex: index, trial: 0, seed: null, attempt: 1 }));
}

/** A consumer that answers every job with a result at once, counting how often each job ran. */
function answeringConsumer(url: string, run: string, ran: Map<string, number>, extra: { markerWaitSeconds?: number; markerWatchdogMs?: number } = {}): RunConsumer {
  return new RunConsumer({
    url,
    name: run,
    concurrency: 8,
    lockDurationMs: 30_000,
    stalledIntervalMs: 30_000,
    maxStalledCount: 1,
    log: () => undefined,
    ...extra,
    async process(job) {
      const { unit, configurationId } = job.data as JobData;
      ran.set(job.id as string, (ran.get(job.id as string) ?? 0) + 1);
      return { type: "result", configurationId, key: unitKey(unit), attempt: unit.attempt, result: { task: unit.taskId }, usage: {} };
    },
  });
}

function coordinatorFor(url: string, id: string): QueueCoordinator {
  return new QueueCoordinator({ url, configuration: configurationOf(id), providerLimits: {}, rateLimits: {}, warn: () => undefined });
}

/** The commands clients sent to Redis (scripts' own commands left out), as `MONITOR` sees them. */
async function monitored(redis: Redis): Promise<{ commands: string[][]; stop(): void }> {
  const monitor = await redis.monitor();
  const commands: string[][] = [];
  monitor.on("monitor", (_time: string, args: string[], source: string) => {
    if (source !== "lua") commands.push(args);
  });
  return { commands, stop: () => monitor.disconnect() };
}

/** The `added` events of a run's queue: one per job BullMQ really added (an id that exists gives `duplicated`). */
function addedEvents(redis: TestRedis, run: string): string[] {
  const entries = redis.cli("--no-raw", "xrange", `${KEY_PREFIX}:${run}:events`, "-", "+");
  return [...entries.matchAll(/"event"\s+\d+\)\s+"added"\s+\d+\)\s+"jobId"\s+\d+\)\s+"([^"]+)"/g)].map((match) => match[1] as string);
}

/** A job's hash read on its own (`Job.fromId`: `HGETALL <prefix>:<run>:<id>`). */
function readsBack(commands: string[][], run: string, ids: readonly string[]): string[] {
  const keys = new Set(ids.map((id) => `${KEY_PREFIX}:${run}:${id}`));
  return commands.filter(([command, key]) => command?.toLowerCase() === "hgetall" && keys.has(key ?? "")).map(([, key]) => key as string);
}

/**
 * A TCP relay to Redis that can turn one connection into a black hole: nothing more passes either
 * way and nothing closes (what a peer gone silent looks like; ioredis sees no error).
 */
async function startRelay(port: number): Promise<{ port: number; silence(upstreamPort: number): boolean; silencedCut(): number; close(): Promise<void> }> {
  const pairs: Array<{ client: Socket; upstream: Socket; silent: boolean }> = [];
  let silencedCut = 0;
  const server: Server = createServer((client) => {
    const upstream = connect(port, "127.0.0.1");
    const pair = { client, upstream, silent: false };
    pairs.push(pair);
    client.on("data", (chunk) => pair.silent || upstream.write(chunk));
    upstream.on("data", (chunk) => pair.silent || client.write(chunk));
    client.on("close", () => {
      if (pair.silent) silencedCut++;
      upstream.destroy();
    });
    upstream.on("close", () => client.destroy());
    client.on("error", () => undefined);
    upstream.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    /** Silences the open connection whose Redis side is `upstreamPort`; false when there is none (it was closed meanwhile). */
    silence(upstreamPort) {
      const pair = pairs.find((entry) => entry.upstream.localPort === upstreamPort && !entry.client.destroyed);
      if (pair) pair.silent = true;
      return pair !== undefined;
    },
    /** Silenced connections the worker closed (its watchdog cut them). */
    silencedCut: () => silencedCut,
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The client Redis lists under `name`, once it is blocked in a wait (`flags=b`): its line of `CLIENT LIST`. */
async function blockedClient(redis: TestRedis, name: string): Promise<string> {
  let line = "";
  await until(() => {
    line =
      redis
        .cli("client", "list")
        .split("\n")
        .find((entry) => entry.includes(` name=${name} `) && / flags=\w*b/.test(entry)) ?? "";
    return line !== "";
  }, `the client ${name} to wait on the marker`);
  return line;
}

/** Adds one job per unit, as the coordinator does (its id from the unit, configuration "c"). */
function addUnits(queue: Queue, units: ReturnType<typeof unitsOf>) {
  return queue.addBulk(units.map((unit) => ({ name: unit.taskId, data: { configurationId: "c", unit }, opts: { jobId: jobIdOf(unit) } })));
}
describe.skipIf(redisMissing !== undefined)(`the queue's add and wait paths with a real redis-server${redisMissing ? ` (skipped: ${redisMissing})` : ""}`, () => {
  let redis: TestRedis;
  let admin: Redis;
  beforeAll(async () => {
    redis = await startRedis();
    admin = durableConnection(redis.url, "test-admin");
  }, TIMEOUT);
  afterAll(async () => {
    admin?.disconnect();
    await redis?.stop();
  });

  it(
    "a fresh run's adds skip the read-back; a run started again over an earlier coordinator's jobs reads them back and adds nothing twice",
    async () => {
      const ran = new Map<string, number>();
      // Fresh: the queue is empty at registration, so no job is read back before its add. No
      // consumer yet, so nothing completes (the coordinator's sweep of completed jobs reads none back).
      const fresh = "fresh-run";
      const freshUnits = unitsOf(fresh, 4);
      const freshIds = freshUnits.map(jobIdOf);
      const watch = await monitored(admin);
      const coordinator = coordinatorFor(redis.url, "configuration-fresh");
      let consumer: RunConsumer | undefined;
      try {
        const replies = Promise.all(freshUnits.map((unit) => coordinator.dispatch(unit, new AbortController().signal)));
        await until(() => addedEvents(redis, fresh).length === 4, "the four adds");
        watch.stop();
        consumer = answeringConsumer(redis.url, fresh, ran);
        expect((await replies).map((reply: UnitReply) => reply.type)).toEqual(["result", "result", "result", "result"]);
      } finally {
        watch.stop();
        await coordinator.close();
        await consumer?.close();
      }
      expect(watch.commands.length).toBeGreaterThan(0);
      expect(readsBack(watch.commands, fresh, freshIds)).toEqual([]);
      expect(freshIds.map((id) => ran.get(id))).toEqual([1, 1, 1, 1]);

      // Started again: an earlier coordinator added three jobs and died (its connections cut, nothing tidied).
      const resumed = "resumed-run";
      const units = unitsOf(resumed, 4);
      const ids = units.map(jobIdOf);
      const earlier = coordinatorFor(redis.url, "configuration-resumed");
      for (const unit of units.slice(0, 3)) void earlier.dispatch(unit, new AbortController().signal).catch(() => undefined);
      await until(() => addedEvents(redis, resumed).length === 3, "the earlier coordinator's three adds");
      for (const key of ["connection", "eventsConnection", "subscriber"] as const) (earlier as unknown as Record<typeof key, Redis>)[key].disconnect();

      const ranAgain = new Map<string, number>();
      // The monitor first: a coordinator's warm-up lap (`src/queue/warm-up.ts`) sends commands from
      // its construction on, and a command Redis runs while MONITOR starts can reach ioredis before
      // it has switched that connection to monitoring ("Command queue state error").
      const watchAgain = await monitored(admin);
      const again = coordinatorFor(redis.url, "configuration-resumed");
      let resumedConsumer: RunConsumer | undefined;
      try {
        const replies = Promise.all(units.map((unit) => again.dispatch(unit, new AbortController().signal)));
        await until(() => addedEvents(redis, resumed).length === 4, "the fourth job's add");
        watchAgain.stop();
        resumedConsumer = answeringConsumer(redis.url, resumed, ranAgain);
        expect((await replies).map((reply) => reply.key)).toEqual(units.map((unit) => unitKey(unit)));
      } finally {
        watchAgain.stop();
        await again.close();
        await resumedConsumer?.close();
      }
      // Each of the four was read back before its add (the queue held jobs), and only the fourth was really added.
      expect(new Set(readsBack(watchAgain.commands, resumed, ids)).size).toBe(4);
      expect(addedEvents(redis, resumed).sort()).toEqual([...ids].sort());
      expect(ids.map((id) => ranAgain.get(id))).toEqual([1, 1, 1, 1]);
    },
    TIMEOUT,
  );

  it(
    "jobs added after the worker went idle are taken by the marker's wake, not by the wait's bound",
    async () => {
      const run = "idle-run";
      const ran = new Map<string, number>();
      // The wait's bound is an hour: only a wake can end it within the test.
      const consumer = answeringConsumer(redis.url, run, ran, { markerWaitSeconds: 3_600 });
      const queue = new Queue(run, { connection: admin, prefix: KEY_PREFIX });
      try {
        await blockedClient(redis, `taubridge-worker-${run}-marker`);
        const units = unitsOf(run, 3);
        await addUnits(queue, units);
        await until(() => ran.size === 3, "the three jobs to run");
        expect(units.map((unit) => ran.get(jobIdOf(unit)))).toEqual([1, 1, 1]);
      } finally {
        await consumer.close();
        await queue.obliterate({ force: true });
        await queue.close();
      }
    },
    TIMEOUT,
  );

  it(
    "a worker whose wait on the marker went silent recovers through its watchdog and takes the jobs",
    async () => {
      const run = "silent-run";
      const ran = new Map<string, number>();
      const relay = await startRelay(redis.port);
      // Through the relay; the wait's bound is an hour and its watchdog 1 s: only the watchdog can end a silenced wait.
      const consumer = answeringConsumer(`redis://127.0.0.1:${relay.port}/0`, run, ran, { markerWaitSeconds: 3_600, markerWatchdogMs: 1_000 });
      const queue = new Queue(run, { connection: admin, prefix: KEY_PREFIX });
      try {
        // The watchdog also cuts a healthy wait every second here: a wait it cut before it was silenced
        // is gone from the relay, and the reconnected one (listed again) is silenced instead.
        for (;;) {
          const line = await blockedClient(redis, `taubridge-worker-${run}-marker`);
          if (relay.silence(Number(/ addr=[^ ]+:(\d+) /.exec(line)?.[1]))) break;
        }
        const units = unitsOf(run, 3);
        // The add sets the marker; Redis answers the silenced wait, and the answer is lost in the black hole.
        await addUnits(queue, units);
        await until(() => ran.size === 3, "the three jobs to run after the watchdog cut the silenced wait");
        expect(units.map((unit) => ran.get(jobIdOf(unit)))).toEqual([1, 1, 1]);
        expect(relay.silencedCut()).toBeGreaterThanOrEqual(1);
      } finally {
        await consumer.close();
        await queue.obliterate({ force: true });
        await queue.close();
        await relay.close();
      }
    },
    TIMEOUT,
  );
});
