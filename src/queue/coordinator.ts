/**
 * The coordinator's end of `--queue`: a `WorkerTransport` (`src/worker`) over a BullMQ queue named
 * by the run's results file. Each attempt of each (task, trial) is one job whose id names them
 * (`names.ts`), added once — a coordinator started again after a crash, or a resumed run, finds the
 * jobs it already added and waits for them (or takes the reply a worker left while it was away) —
 * and whose return value is the worker's one reply. Replies arrive through the queue's events
 * (with a sweep of finished jobs in case events were missed while Redis was away), and the batch
 * runner records them, so the results file, checkpoint and report are written here exactly as in
 * a local run. A job is removed once its unit is recorded: Redis holds only what is in flight.
 */
import { setMaxListeners } from "node:events";
import { appendFileSync } from "node:fs";
import { hostname } from "node:os";
import { Job, Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import { unitKey, type RemoteResult, type TaskSource, type TaskSourceFactory, type WorkUnit } from "../core/run.ts";
import { ConfigError } from "../errors/error-tree.ts";
import { restoreError, WorkerLostError } from "../worker/errors.ts";
import { parseUnitReply, type RunConfiguration, type SerializedError, type UnitReply } from "../worker/protocol.ts";
import { RemoteTaskSource, type WorkerTransport } from "../worker/remote-source.ts";
import { durableConnection } from "./connection.ts";
import { type JobData, jobNameOf } from "./job.ts";
import { CANCEL_CHANNEL, jobIdOf, KEY_PREFIX, RUN_READY_CHANNEL, runNameOf } from "./names.ts";
import { type RateLimit, readRunRecord, removeRunRecord, writeRunRecord } from "./run-record.ts";
import { warmUpAdding } from "./warm-up.ts";

/** `TAUBRIDGE_QUEUE_TIMINGS=<file>`: one JSON line per job (added, reply received), for `npm run bench queue`. */
const TIMINGS = process.env.TAUBRIDGE_QUEUE_TIMINGS || undefined;

/** How often jobs that finished without an event reaching us are looked for (events lost while Redis was away). */
const SWEEP_INTERVAL_MS = 5_000;
/** How long after registering a run the coordinator says that no worker serves it. */
const NO_WORKER_WARNING_MS = 15_000;
/**
 * How long a new run's first jobs wait for the workers that heard its announcement to say they are
 * ready (consumer open, run built; `RUN_READY_CHANNEL`): a worker that hangs or builds slowly
 * delays the run by no more, and takes its jobs when it comes.
 */
const WORKERS_READY_WAIT_MS = 2_000;
/** How long closing the run's BullMQ queue and events may take before their connections are cut. */
const CLOSE_WAIT_MS = 10_000;
/** How long an attempt cut by the run's interrupt waits for its worker to answer before it counts as cancelled. */
const CANCEL_GRACE_MS = 15_000;

export interface QueueCoordinatorOptions {
  url: string;
  configuration: RunConfiguration;
  providerLimits: Record<string, number>;
  rateLimits: Record<string, RateLimit>;
  warn(message: string): void;
}

/** One job for `Queue.addBulk`. */
type BulkJob = Parameters<Queue["addBulk"]>[0][number];

interface Waiter {
  unit: WorkUnit;
  resolve(reply: UnitReply): void;
  reject(error: unknown): void;
}

/** One run's queue, from the coordinator's side. */
export class QueueCoordinator implements WorkerTransport {
  private readonly connection: Redis;
  private readonly eventsConnection: Redis;
  private readonly subscriber: Redis;
  private queue: Queue | undefined;
  private events: QueueEvents | undefined;
  private opening: Promise<Queue> | undefined;
  private run: string | undefined;
  private readonly waiters = new Map<string, Waiter>();
  /** The last attempt dispatched per unit key, so a recorded unit's jobs are all removed. */
  private readonly lastAttempt = new Map<string, number>();
  /** When each job in flight was added (only with `TAUBRIDGE_QUEUE_TIMINGS`). */
  private readonly added = new Map<string, number>();
  private readonly addDone = new Map<string, number>();
  private readonly eventAt = new Map<string, { stream: number; seen: number }>();
  /** When the run was announced (only with `TAUBRIDGE_QUEUE_TIMINGS`: the bench's wall time starts there). */
  private registeredAt: number | undefined;
  private readonly cancelController = new AbortController();
  private sweepTimer: NodeJS.Timeout | undefined;
  /** The jobs to add in the next pipeline, gathered over one turn of the event loop (`addSoon`). */
  private adding: { jobs: BulkJob[]; done: Promise<void> } | undefined;
  private closed = false;
  /** The warm-up lap, awaited before the run's first jobs are added. */
  private readonly warmed: Promise<void>;
  /**
   * Whether the run's queue held no job when this coordinator registered it: then an attempt it
   * has not dispatched before cannot have a job yet (only this coordinator adds to the run's queue),
   * and is added without first asking Redis for it (`enqueue`).
   */
  private freshQueue = false;
  /** The job ids this coordinator has dispatched (an id dispatched again is checked, fresh queue or not). */
  private readonly dispatched = new Set<string>();
  /** Units still to record, once the source is made: 0 at close means the run is complete and its keys can go. */
  private outstanding = Number.POSITIVE_INFINITY;

  constructor(private readonly options: QueueCoordinatorOptions) {
    this.connection = durableConnection(options.url, "taubridge-coordinator");
    this.eventsConnection = durableConnection(options.url, "taubridge-coordinator-events");
    this.subscriber = durableConnection(options.url, "taubridge-coordinator-cancel");
    // While the run is built, a scratch job pays the one-time costs of adding jobs and reading replies (`warm-up.ts`).
    const unit: WorkUnit = { runId: "warm-up", suite: options.configuration.suite, domain: "warm-up", taskId: "warm-up", taskIndex: 0, trial: 0, seed: 0, attempt: 1 };
    this.warmed = warmUpAdding(this.connection, this.bulkJob(unit), this.sampleReply(unit)).catch(() => undefined);
  }

  /** Aborts when `taubridge queue cancel <run>` cancels this run: the caller ends the run as interrupted. */
  get cancelled(): AbortSignal {
    return this.cancelController.signal;
  }

  /** The task source the suite's batch leases through: every pending unit is put on the queue at once. */
  source(): TaskSourceFactory {
    return (pending) => {
      this.outstanding = pending.length;
      const remote = new RemoteTaskSource(pending, this);
      const coordinator = this;
      const source: TaskSource = {
        concurrency: Math.max(1, pending.length),
        lease: () => remote.lease(),
        execute: (unit, signal): Promise<RemoteResult> => remote.execute(unit, signal),
        async complete(unit) {
          coordinator.outstanding--;
          await coordinator.forget(unit, coordinator.lastAttempt.get(unitKey(unit)) ?? unit.attempt);
          coordinator.lastAttempt.delete(unitKey(unit));
          await remote.complete(unit);
        },
        async fail(unit, error) {
          await coordinator.forget(unit, unit.attempt, unit.attempt);
          await remote.fail(unit, error);
        },
      };
      return source;
    };
  }

  /** Registers the run (its record, its queue and events) the first time an attempt is dispatched. */
  private open(unit: WorkUnit): Promise<Queue> {
    this.opening ??= this.register(runNameOf(unit.runId));
    return this.opening;
  }

  private async register(run: string): Promise<Queue> {
    this.run = run;
    const queue = new Queue(run, { connection: this.connection, prefix: KEY_PREFIX });
    // While Redis is away its connection retries; without a listener BullMQ prints each error on the user's terminal.
    queue.on("error", () => undefined);
    const existing = await readRunRecord(this.connection, run);
    const counts = await queue.getJobCounts("waiting", "active", "delayed", "prioritized", "completed", "failed", "waiting-children");
    const holdsJobs = Object.values(counts).some((count) => count > 0);
    this.freshQueue = !holdsJobs;
    if (existing && existing.configuration.id !== this.options.configuration.id) {
      if (holdsJobs) {
        await queue.close();
        throw new ConfigError(
          `--queue: the queue "${run}" holds jobs of another run configuration (a results file of the same name elsewhere, or other flags); finish or remove it first (taubridge queue clean ${run} --queue …), or name this run's results file differently`,
        );
      }
    }
    // Listen before announcing: a worker's "ready" may come back before the announcement's count does.
    const ready = new Set<string>();
    let heard = Number.POSITIVE_INFINITY;
    let allReady: (() => void) | undefined;
    this.subscriber.on("message", (channel: string, text: string) => {
      let message: { run?: unknown; key?: unknown; worker?: unknown };
      try {
        message = JSON.parse(text) as typeof message;
      } catch {
        return; // not ours
      }
      if (message.run !== run) return;
      if (channel === RUN_READY_CHANNEL) {
        if (typeof message.worker === "string") ready.add(message.worker);
        if (ready.size >= heard) allReady?.();
      } else if (channel === CANCEL_CHANNEL && message.key === undefined && !this.closed) {
        this.options.warn(`the run "${run}" was cancelled on the queue (taubridge queue cancel): no new simulation starts`);
        this.cancelController.abort();
      }
    });
    await this.subscriber.subscribe(CANCEL_CHANNEL, RUN_READY_CHANNEL);
    const events = new QueueEvents(run, { connection: this.eventsConnection, prefix: KEY_PREFIX });
    events.on("error", () => undefined); // the connection retries; a sweep picks up what was missed
    events.on("completed", ({ jobId, returnvalue }, eventId) => {
      if (TIMINGS) this.eventAt.set(jobId, { stream: Number(String(eventId).split("-")[0]), seen: Date.now() });
      this.settle(jobId, returnvalue);
    });
    events.on("failed", ({ jobId, failedReason }) => this.lost(jobId, failedReason));
    await events.waitUntilReady();
    this.events = events;
    this.queue = queue;
    this.registeredAt = Date.now();
    heard = await writeRunRecord(this.connection, {
      run,
      configuration: this.options.configuration,
      providerLimits: this.options.providerLimits,
      rateLimits: this.options.rateLimits,
      state: "open",
      coordinator: { host: hostname(), pid: process.pid, at: new Date().toISOString() },
    });
    // The workers alive now (those that heard the announcement) open their consumer of the run and
    // build it first; jobs added before that would wait for both. So the first jobs are added once
    // every one of them said it is ready, or after a bound (a worker starting later takes jobs when it comes).
    if (ready.size < heard) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, WORKERS_READY_WAIT_MS);
        allReady = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    allReady = undefined;
    await this.warmed;
    this.sweepTimer = setInterval(() => void this.sweep().catch(() => undefined), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
    // A run nobody serves waits silently otherwise: say so once.
    setTimeout(() => {
      void queue
        .getWorkersCount()
        .then((count) => {
          if (count === 0 && !this.closed) this.options.warn(`no worker serves the queue "${run}" yet: start \`taubridge worker --queue <this Redis>\` on the machines that run the simulations`);
        })
        .catch(() => undefined);
    }, NO_WORKER_WARNING_MS).unref();
    return queue;
  }

  async dispatch(unit: WorkUnit, signal: AbortSignal): Promise<UnitReply> {
    const queue = await this.open(unit);
    const id = jobIdOf(unit);
    this.lastAttempt.set(unitKey(unit), unit.attempt);
    const cancelled = (): UnitReply => ({ type: "cancelled", configurationId: this.options.configuration.id, key: unitKey(unit), attempt: unit.attempt, usage: {} });
    if (signal.aborted) return cancelled();
    // Every attempt in flight (all of the run's pending units) listens to the run's one signal.
    setMaxListeners(0, signal);
    const reply = new Promise<UnitReply>((resolve, reject) => this.waiters.set(id, { unit, resolve, reject }));
    const onAbort = () => void this.cut(queue, id, unit, cancelled);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      await this.enqueue(queue, id, unit);
      return await reply;
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.waiters.delete(id);
    }
  }

  /** Adds the attempt's job unless it is there: one left by an earlier coordinator is waited for, or its reply taken. */
  private async enqueue(queue: Queue, id: string, unit: WorkUnit): Promise<void> {
    // A run whose queue was empty at registration: an attempt not dispatched before has no job to
    // find (a resumed or restarted run's queue holds its jobs, so it takes the check below).
    const unseen = this.freshQueue && !this.dispatched.has(id);
    this.dispatched.add(id);
    const existing = unseen ? undefined : await Job.fromId(queue, id);
    if (existing) {
      const state = await existing.getState();
      if (state === "completed") {
        const reply = this.replyOf(existing.returnvalue, id);
        // A reply "cancelled" was an earlier run's interrupt: this run runs the attempt again.
        if (reply?.type !== "cancelled") return this.settle(id, existing.returnvalue);
        await existing.remove();
      } else if (state === "failed") {
        await existing.remove(); // lost on an earlier coordinator's watch: run it again
      } else if (state !== "unknown") {
        return; // waiting, delayed or active: its reply comes as an event
      }
    }
    if (TIMINGS) this.added.set(id, Date.now());
    await this.addSoon(queue, this.bulkJob(unit));
    if (TIMINGS) this.addDone.set(id, Date.now());
  }

  /** The job of an attempt: its id names the attempt; kept once finished until the unit is recorded (`forget`). */
  private bulkJob(unit: WorkUnit): BulkJob {
    const data: JobData = { configurationId: this.options.configuration.id, unit };
    return { name: jobNameOf(unit), data, opts: { jobId: jobIdOf(unit), attempts: 1, removeOnComplete: false, removeOnFail: false } };
  }

  /** A reply of the shape a worker sends (for the warm-up lap). */
  private sampleReply(unit: WorkUnit): UnitReply {
    return { type: "result", configurationId: this.options.configuration.id, key: unitKey(unit), attempt: unit.attempt, result: {}, usage: {} };
  }

  /**
   * Adds a job with the others dispatched in the same turn of the event loop, in one pipeline
   * (`addBulk`): a worker woken by the first finds them all and fetches them back to back, where
   * jobs added one by one reach it one by one, each fetch then waiting behind the work (the run's
   * build, the simulations) the earlier ones started.
   */
  private addSoon(queue: Queue, job: BulkJob): Promise<void> {
    if (!this.adding) {
      const jobs: BulkJob[] = [];
      const done = new Promise<void>((resolve, reject) =>
        setImmediate(() => {
          this.adding = undefined;
          queue.addBulk(jobs).then(() => resolve(), reject);
        }),
      );
      this.adding = { jobs, done };
    }
    this.adding.jobs.push(job);
    return this.adding.done;
  }

  /** The run was interrupted: a waiting job is taken off the queue, a running one is told to stop (its worker answers `cancelled`). */
  private async cut(queue: Queue, id: string, unit: WorkUnit, cancelled: () => UnitReply): Promise<void> {
    try {
      // Taken off the queue now, or already gone (`queue cancel` drained it): nothing will answer.
      if ((await queue.remove(id)) === 1 || !(await Job.fromId(queue, id))) return this.waiters.get(id)?.resolve(cancelled());
      await this.connection.publish(CANCEL_CHANNEL, JSON.stringify({ run: this.run, key: unitKey(unit) }));
    } catch {
      // Redis is away: the grace below ends the wait
    }
    setTimeout(() => this.waiters.get(id)?.resolve(cancelled()), CANCEL_GRACE_MS).unref();
  }

  private replyOf(value: unknown, id: string): UnitReply | { type: "refused"; error: unknown } | undefined {
    try {
      // The envelope is checked here; the result's payload by the suite's wire form where the runner decodes it (once).
      const message = parseUnitReply(typeof value === "string" ? JSON.parse(value) : value);
      if (message.type === "refused") return { type: "refused", error: message.error };
      return message;
    } catch (error) {
      this.waiters.get(id)?.reject(new WorkerLostError(`job ${id} came back with a reply that is not the worker protocol's (${error instanceof Error ? error.message : String(error)})`));
      return undefined;
    }
  }

  /** A job finished: its waiter (if this coordinator waits for it) gets the reply. */
  private settle(id: string, value: unknown): void {
    const waiter = this.waiters.get(id);
    if (!waiter) return;
    const reply = this.replyOf(value, id);
    if (!reply) return;
    if (reply.type === "refused") {
      const error: Error = restoreError(reply.error as SerializedError);
      const message = error.message;
      waiter.reject(ConfigError.isInstance(error) ? error : new ConfigError(`a queue worker could not build the run: ${message}`, { cause: error }));
      return;
    }
    if (reply.key !== unitKey(waiter.unit) || reply.attempt !== waiter.unit.attempt) return;
    if (TIMINGS && this.added.has(id))
      appendFileSync(
        TIMINGS,
        `${JSON.stringify({ side: "coordinator", job: id, registered: this.registeredAt, added: this.added.get(id), addDone: this.addDone.get(id), event: this.eventAt.get(id), received: Date.now() })}\n`,
      );
    this.added.delete(id);
    waiter.resolve(reply);
  }

  /** A job failed on the queue (stalled too often, or its worker broke): an infrastructure error the suite's policy retries. */
  private lost(id: string, reason: string): void {
    this.waiters.get(id)?.reject(new WorkerLostError(`the queue gave up on this episode's job: ${reason}`));
  }

  /** Finished jobs whose event did not reach this process (Redis restarted, events connection down). */
  private async sweep(): Promise<void> {
    const queue = this.queue;
    if (!queue || this.waiters.size === 0) return;
    for (const job of await queue.getJobs(["completed"], 0, -1)) if (job?.id) this.settle(job.id, job.returnvalue);
    for (const job of await queue.getJobs(["failed"], 0, -1)) if (job?.id) this.lost(job.id, job.failedReason);
  }

  /** Removes a recorded unit's jobs (attempts `from`..`to`). */
  private async forget(unit: WorkUnit, to: number, from = 1): Promise<void> {
    const queue = this.queue;
    if (!queue) return;
    for (let attempt = from; attempt <= to; attempt++) {
      try {
        await queue.remove(jobIdOf({ ...unit, attempt }));
      } catch {
        // locked by a worker that has lost it: BullMQ fails it once the lock lapses; `queue clean` removes it
      }
    }
  }

  /**
   * Ends the coordinator's side: a run whose every unit is recorded leaves nothing in Redis (its
   * queue and record are removed); an interrupted one takes its waiting jobs off the queue (no new
   * simulation starts) and keeps the rest for the same command to pick up.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    const queue = this.queue;
    try {
      if (queue && this.run) {
        if (this.outstanding === 0) {
          await queue.obliterate({ force: true });
          await removeRunRecord(this.connection, this.run);
        } else {
          await queue.drain(true);
        }
      }
    } catch (error) {
      this.options.warn(`could not tidy the queue "${this.run}" (${error instanceof Error ? error.message : String(error)}); taubridge queue clean ${this.run} removes it`);
    } finally {
      // Bounded: a BullMQ close that waits on a connection that never settles (a blocking read parked
      // across a Redis restart) must not keep a finished run's process alive; the connections are cut below.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([this.events?.close(), queue?.close()]),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, CLOSE_WAIT_MS);
        }),
      ]);
      clearTimeout(timer);
      for (const redis of [this.subscriber, this.eventsConnection, this.connection]) redis.disconnect();
    }
  }
}
