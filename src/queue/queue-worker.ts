/**
 * `taubridge worker --queue redis://…`: a process that serves every open run on a Redis, on any
 * machine. It watches the registry of runs (`run-record.ts`), starts a BullMQ consumer for each
 * open one, and runs each job — one attempt of one (task, trial) — with a `UnitWorker`
 * (`src/worker`): the same build, kernel, model clients, response cache and bridge as a local run,
 * from the configuration in the run's record, with this machine's keys from its environment. The
 * job's return value is the worker's one reply; nothing else of the run is written to Redis.
 *
 * Each run is consumed through `RunConsumer` (BullMQ's manual processing: every free slot's fetch
 * in flight at once, each job started as its fetch answers). Liveness: the consumer renews its
 * jobs' locks on a timer of its own (every half `--lock-duration`), apart from the simulation's
 * work, which mostly waits on the model; a worker killed mid-simulation stops renewing, and once
 * the lock lapses another worker's stalled-job check (BullMQ's) puts the job back on the queue,
 * where it runs again from scratch (the first attempt never reported, so nothing is recorded
 * twice: a reply comes only from the worker holding the lock).
 */
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { hostname } from "node:os";
import type { Job } from "bullmq";
import type { Redis } from "ioredis";
import { unitKey } from "../core/run.ts";
import type { ModelEndpoint } from "../run/model-clients.ts";
import type { Registries } from "../run/registries.ts";
import type { RunSettings } from "../run/run-settings.ts";
import { serializeError, WorkerProtocolError } from "../worker/errors.ts";
import type { UnitReply, WorkerMessage } from "../worker/protocol.ts";
import { UnitWorker } from "../worker/unit-worker.ts";
import { durableConnection, probeRedis } from "./connection.ts";
import { type JobData, jobDataSchema } from "./job.ts";
import { SharedLimits } from "./limits.ts";
import { CANCEL_CHANNEL, KEY_PREFIX, REGISTRY_CHANNEL, REGISTRY_KEY, RUN_READY_CHANNEL, redactUrl } from "./names.ts";
import { RunConsumer } from "./run-consumer.ts";
import { readRunRecords, type RunRecord } from "./run-record.ts";
import { warmUpTaking } from "./warm-up.ts";

export interface QueueWorkerOptions {
  url: string;
  /** Simulations this process runs at once, per run it serves. */
  concurrency: number;
  /** The registry set a run's configuration names, created by the composition root. */
  registries(set: string, settings: RunSettings): Promise<Registries>;
  /** A line for the operator (stderr). */
  log(line: string): void;
  /** How long a job's lock lasts without renewal (default 30 s): a killed worker's jobs run again after it. */
  lockDurationMs?: number;
  /** How often this worker looks for stalled jobs (default: the lock duration). */
  stalledIntervalMs?: number;
  /**
   * How often the registry of runs is read (default 5 s). A coordinator announces each change of the
   * registry on a channel, which reads it at once; the poll only catches an announcement missed
   * while Redis was away.
   */
  pollMs?: number;
}

/** `TAUBRIDGE_QUEUE_TIMINGS=<file>`: one JSON line per job (taken, simulation time), for `npm run bench queue`. */
const TIMINGS = process.env.TAUBRIDGE_QUEUE_TIMINGS || undefined;

/** Times a job may stall (its worker lost) and run again before the queue gives up on it (an infrastructure error the coordinator's retry policy sees). */
const MAX_STALLED = 3;

/** Job data and a reply of the shapes a run's have, for the warm-up lap (`warm-up.ts`). */
const WARM_UP_JOB: JobData = {
  configurationId: "warm-up",
  unit: { runId: "warm-up", suite: "warm-up", domain: "warm-up", taskId: "warm-up", taskIndex: 0, trial: 0, seed: 0, attempt: 1 },
};
const WARM_UP_REPLY: UnitReply = { type: "result", configurationId: "warm-up", key: unitKey({ taskId: "warm-up", trial: 0 }), attempt: 1, result: {}, usage: {} };

/** One run this process serves. */
interface ServedRun {
  record: RunRecord;
  consumer: RunConsumer;
  /** Settles once the consumer is open and the run is built (or refused): this worker is ready for the run's jobs. */
  ready: Promise<void>;
  units: UnitWorker;
  limits: SharedLimits;
}

export class QueueWorker {
  private readonly redis: Redis;
  private readonly subscriber: Redis;
  private readonly limitsSubscriber: Redis;
  private readonly served = new Map<string, ServedRun>();
  private poller: NodeJS.Timeout | undefined;
  /** The registry read in progress, and whether another was asked for meanwhile (reads never overlap). */
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  /** Whether the last registry read failed (its failure is said once, not at every retry). */
  private registryUnreadable = false;
  private closing = false;
  private done = 0;
  /** This worker's name in its "ready for the run" answers (one process may hold several workers). */
  private readonly id = `${hostname()}:${process.pid}:${randomUUID()}`;

  constructor(private readonly options: QueueWorkerOptions) {
    this.redis = durableConnection(options.url, `taubridge-worker-${hostname()}-${process.pid}`);
    this.subscriber = durableConnection(options.url, "taubridge-worker-cancel");
    this.limitsSubscriber = durableConnection(options.url, "taubridge-worker-limits");
  }

  /** Checks the Redis, then serves runs until `close`. */
  async start(): Promise<void> {
    await probeRedis(this.options.url);
    await this.subscriber.subscribe(CANCEL_CHANNEL, REGISTRY_CHANNEL);
    this.subscriber.on("message", (channel: string, text: string) => {
      if (channel === REGISTRY_CHANNEL) void this.requestRefresh().then(() => this.sayReady(text));
      else this.cancel(text);
    });
    // Before serving: a scratch job pays the one-time costs of taking and completing jobs (`warm-up.ts`).
    await warmUpTaking(this.redis, WARM_UP_JOB, WARM_UP_REPLY).catch(() => undefined);
    this.options.log(`taubridge worker ${hostname()}:${process.pid} serving runs on ${redactUrl(this.options.url)} (concurrency ${this.options.concurrency})`);
    await this.requestRefresh();
    this.poller = setInterval(() => void this.requestRefresh(), this.options.pollMs ?? 5_000);
  }

  /** Reads the registry now, or once more after the read in progress (an announcement during a read is not lost). */
  private requestRefresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        await this.refresh().then(
          () => this.registryRead(null),
          (error: unknown) => this.registryRead(error),
        );
      } while (this.refreshAgain && !this.closing);
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /**
   * After an announcement of `run`: once this worker serves it with its consumer open and the run
   * built, says so on `RUN_READY_CHANNEL`; the coordinator of a new run adds its first jobs when
   * every worker that heard the announcement has (or a bound passed: `coordinator.ts`).
   */
  private async sayReady(run: string): Promise<void> {
    const served = this.served.get(run);
    if (!served || served.record.state !== "open" || this.closing) return;
    await served.ready;
    if (this.served.get(run) !== served) return;
    await this.redis.publish(RUN_READY_CHANNEL, JSON.stringify({ run, worker: this.id })).catch(() => undefined);
  }

  /** Says once that the registry of runs cannot be read (a worker that serves nothing says why), and once that it can again. */
  private registryRead(error: unknown): void {
    if (error === null) {
      if (this.registryUnreadable) this.options.log("the registry of runs is readable again");
      this.registryUnreadable = false;
      return;
    }
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    if (!this.registryUnreadable) this.options.log(`cannot read the registry of runs (retrying every ${(this.options.pollMs ?? 5_000) / 1000} s): ${reason}`);
    this.registryUnreadable = true;
  }

  /** Simulations this process finished (any reply). */
  get finished(): number {
    return this.done;
  }

  /** Starts consumers for new open runs, stops those of runs cancelled or gone. */
  private async refresh(): Promise<void> {
    if (this.closing) return;
    const records = await readRunRecords(this.redis);
    for (const [name, served] of this.served) {
      const record = records.get(name);
      if (!record || record.state !== "open" || record.configuration.id !== served.record.configuration.id) await this.stop(name, record ? "cancelled or reconfigured" : "finished or removed");
      else served.record = record;
    }
    for (const [name, record] of records) if (record.state === "open" && !this.served.has(name) && !this.closing) this.serve(name, record);
  }

  private serve(name: string, record: RunRecord): void {
    const limits = new SharedLimits(this.redis, this.limitsSubscriber, name, record.providerLimits, record.rateLimits);
    const units = new UnitWorker({
      registries: async (set, settings) => {
        const registries = await this.options.registries(set, settings);
        const createModels = registries.createModels;
        if (!createModels) return registries;
        // Calls in flight per endpoint follow this worker's --concurrency, not the run's --max-concurrency
        // (which bounds episodes in one process); --provider-limit bounds them across workers.
        const concurrency = this.options.concurrency;
        return {
          ...registries,
          createModels: (modelSettings) =>
            createModels({ ...modelSettings, maxConcurrency: concurrency, ...(limits.active ? { fetchFor: (endpoint: ModelEndpoint) => limits.fetchFor(endpoint) } : {}) }),
        };
      },
      warn: (message) => this.options.log(`[${name}] warning: ${message}`),
    });
    const lockDuration = this.options.lockDurationMs ?? 30_000;
    const consumer = new RunConsumer({
      url: this.options.url,
      name,
      concurrency: this.options.concurrency,
      lockDurationMs: lockDuration,
      stalledIntervalMs: this.options.stalledIntervalMs ?? lockDuration,
      maxStalledCount: MAX_STALLED,
      process: (job) => this.process(name, job),
      log: (line) => this.options.log(line),
    });
    const serving = Date.now();
    // The run's build (its data, once per configuration) starts now, not at its first job: a
    // build holds the event loop, and jobs fetched meanwhile would be taken late.
    const built = units.configure(record.configuration).then(
      () => undefined,
      () => undefined,
    );
    const ready = Promise.all([consumer.ready, built]).then(() => undefined);
    if (TIMINGS)
      void consumer.ready.then(() => appendFileSync(TIMINGS, `${JSON.stringify({ side: "worker-run", run: name, serving, consumerReady: Date.now(), pid: process.pid })}\n`)).catch(() => undefined);
    this.served.set(name, { record, consumer, ready, units, limits });
    this.options.log(`[${name}] serving (${record.configuration.suite}, coordinator ${record.coordinator.host}:${record.coordinator.pid})`);
  }

  /** One job: its attempt's one reply, returned as the job's value (never thrown: a thrown job is a lost one). */
  private async process(name: string, job: Job): Promise<WorkerMessage> {
    const taken = Date.now();
    const served = this.served.get(name);
    const data = jobDataSchema.safeParse(job.data);
    if (!data.success || !served) {
      const unit = data.success ? data.data.unit : undefined;
      return {
        type: "failed",
        configurationId: data.success ? data.data.configurationId : "",
        key: unit ? unitKey(unit) : "",
        attempt: unit?.attempt ?? 1,
        error: serializeError(new WorkerProtocolError(`job ${job.id} is not a taubridge unit of a run this worker serves`)),
        usage: {},
      };
    }
    const { configurationId, unit } = data.data;
    const ids = { configurationId, key: unitKey(unit), attempt: unit.attempt };
    if (served.record.state !== "open") return { type: "cancelled", ...ids, usage: {} } satisfies UnitReply;
    if (configurationId !== served.record.configuration.id) {
      return { type: "failed", ...ids, error: serializeError(new WorkerProtocolError(`job ${job.id} names configuration ${configurationId}, not the run's`)), usage: {} };
    }
    const building = Date.now();
    const ready = await served.units.configure(served.record.configuration);
    const built = Date.now() - building;
    if (ready.type === "refused") return ready;
    const started = Date.now();
    const reply = await served.units.run(configurationId, unit);
    const finished = Date.now();
    if (TIMINGS)
      appendFileSync(
        TIMINGS,
        `${JSON.stringify({ side: "worker", job: job.id, queued: job.timestamp, processedOn: job.processedOn, taken, building, built, started, finished, ran: finished - started, pid: process.pid })}\n`,
      );
    this.done++;
    return reply;
  }

  /** A cancel published by a coordinator (one unit) or `taubridge queue cancel` (the whole run). */
  private cancel(text: string): void {
    let message: { run?: unknown; key?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    const served = typeof message.run === "string" ? this.served.get(message.run) : undefined;
    if (!served) return;
    if (message.key === undefined) served.record = { ...served.record, state: "cancelled" };
    served.units.cancel(served.record.configuration.id, typeof message.key === "string" ? message.key : undefined);
  }

  private async stop(name: string, why: string, force = false): Promise<void> {
    const served = this.served.get(name);
    if (!served) return;
    this.served.delete(name);
    if (why !== "closing") this.options.log(`[${name}] stopped serving (${why})`);
    // A run cancelled (or gone) cuts what runs of it here: each attempt answers `cancelled`, never recorded.
    if (why !== "closing" || force) served.units.cancel(served.record.configuration.id);
    await served.consumer.close(force);
    await served.units.close();
    // A consumer writes its queue's meta key: a finished run (record and jobs gone) leaves nothing behind.
    if (why === "finished or removed") await this.tidy(name, served.consumer.connection).catch(() => undefined);
    served.consumer.connection.disconnect();
  }

  private async tidy(name: string, connection: Redis): Promise<void> {
    if ((await connection.hexists(REGISTRY_KEY, name)) === 1) return;
    const base = `${KEY_PREFIX}:${name}`;
    const [waiting, active, delayed, prioritized, completed, failed] = await Promise.all(
      ["wait", "active", "delayed", "prioritized", "completed", "failed"].map((state) =>
        state === "wait" || state === "active" ? connection.llen(`${base}:${state}`) : connection.zcard(`${base}:${state}`),
      ),
    );
    if (waiting + active + delayed + prioritized + completed + failed === 0) await connection.del(`${base}:meta`);
  }

  /**
   * Stops taking jobs. Without `force`, the simulations running now finish and report; with it,
   * they are cut (their jobs go back on the queue once their locks lapse).
   */
  async close(force = false): Promise<void> {
    this.closing = true;
    if (this.poller) clearInterval(this.poller);
    await Promise.allSettled([...this.served.keys()].map((name) => this.stop(name, "closing", force)));
    for (const redis of [this.subscriber, this.limitsSubscriber, this.redis]) redis.disconnect();
  }
}
