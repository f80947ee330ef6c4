/**
 * One run's consumer on a `taubridge worker`: BullMQ's documented manual processing (a `Worker`
 * without a processor, `getNextJob(token)`, the completion with the fetch's token: see `complete`) instead of its
 * fetch loop. BullMQ's loop fetches one job per round trip and starts none of the jobs it fetched
 * until its fetches stop, so a 32-job run waited 32 round trips before its first simulation began.
 * Here every free slot has a fetch in flight at once (one pipelined round trip for all of them)
 * and the round's jobs start as soon as it has answered (or, when it brought some jobs and left slots
 * free, as soon as a round at once after it has filled them or found nothing); when the queue is empty, the consumer waits
 * on the queue's marker (the key BullMQ's own blocking wait pops) on a connection of its own, and
 * once it wakes every free slot's fetch goes out at once: a woken worker's jobs are one round trip
 * away, not two (BullMQ's blocking `getNextJob` fetches one job after its wait; the others followed).
 *
 * What BullMQ's loop did besides fetching is kept, off the simulations' path:
 * - locks: every job's lock is renewed on a timer of this consumer (every half lock duration, all
 *   running jobs in one call), so a long simulation that is alive is never declared stalled;
 * - stalled jobs: BullMQ's own stalled-job check runs (`startStalledCheckTimer`), so the jobs of a
 *   worker killed mid-simulation go back on the queue once their locks lapse;
 * - a completion is accepted only from the lock's holder (the token it was fetched with): a job
 *   re-run after a stall is reported once.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { isNotConnectionError, Job, type JobJson, type KeepJobs, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { WorkerMessage } from "../worker/protocol.ts";
import { durableConnection } from "./connection.ts";
import { KEY_PREFIX } from "./names.ts";

export interface RunConsumerOptions {
  url: string;
  /** The run's queue. */
  name: string;
  /** Jobs this consumer runs at once. */
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  /** Times a job may stall and run again before BullMQ fails it. */
  maxStalledCount: number;
  /** Runs one job to its one reply (never throws: a thrown job would be a lost one). */
  process(job: Job): Promise<WorkerMessage>;
  /** A line for the operator. */
  log(line: string): void;
  /** How long one wait on the queue's marker lasts, in seconds (default 5; tests lengthen it, so only a wake can end it). */
  markerWaitSeconds?: number;
  /** When a wait on the marker that has not answered is cut, in ms (default: the wait's bound plus 10 s). */
  markerWatchdogMs?: number;
}

/** How long one wait on the queue's marker lasts (seconds) before it is made again. */
const MARKER_WAIT_SECONDS = 5;
/** How far past the wait's own bound a wait on the marker that has not answered is cut (a margin for a loaded machine). */
const MARKER_WATCHDOG_MARGIN_MS = 10_000;
/** The longest a marker for a job due later (a delayed job's) is waited out before fetching again. */
const MARKER_DUE_MAX_MS = 1_000;
/** How long a fetch that failed (Redis away) waits before the next. */
const FETCH_RETRY_MS = 1_000;
/** Pauses between attempts to report a finished job while Redis is away (its lock lasts meanwhile only if renewed). */
const COMPLETE_RETRY_MS = [250, 500, 1_000, 2_000];

export class RunConsumer {
  /** The consumer's connection (BullMQ leaves a connection it was given open; `close` ends it). */
  readonly connection: Redis;
  /** The connection that waits on the queue's marker (a blocking command holds its connection). */
  private readonly blocking: Redis;
  /** Resolves once the consumer's connections are ready (it takes jobs from then on). */
  readonly ready: Promise<void>;
  private readonly worker: Worker;
  /** Jobs running now, by id, with the token their lock holds. */
  private readonly running = new Map<string, { job: Job; token: string }>();
  private readonly tokenPrefix = randomUUID();
  private tokens = 0;
  private stopping = false;
  private closed = false;
  /** Wakes the fetch loop when a slot frees (or the consumer stops). */
  private slotFreed: (() => void) | undefined;
  /** Resolves when the last running job has been reported (graceful close). */
  private allDone: (() => void) | undefined;
  private readonly loop: Promise<void>;
  private renewal: NodeJS.Timeout | undefined;

  constructor(private readonly options: RunConsumerOptions) {
    this.connection = durableConnection(options.url, `taubridge-worker-${options.name}`);
    this.blocking = durableConnection(options.url, `taubridge-worker-${options.name}-marker`);
    this.worker = new Worker(options.name, null, {
      connection: this.connection,
      prefix: KEY_PREFIX,
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs,
      stalledInterval: options.stalledIntervalMs,
      maxStalledCount: options.maxStalledCount,
      // The coordinator removes a job once its unit is recorded; it needs the job (and its reply) until then.
      removeOnComplete: { count: Number.MAX_SAFE_INTEGER },
      removeOnFail: { count: Number.MAX_SAFE_INTEGER },
    });
    this.worker.on("error", () => undefined); // connection errors: the connections reconnect
    this.ready = this.worker.waitUntilReady().then(
      () => undefined,
      () => undefined,
    );
    void this.worker.startStalledCheckTimer().catch(() => undefined);
    this.scheduleRenewal();
    this.loop = this.ready.then(() => this.fetchLoop());
  }

  private token(): string {
    return `${this.tokenPrefix}:${this.tokens++}`;
  }

  /**
   * Fills free slots: with jobs waiting, one fetch per free slot at once; with the queue found
   * empty, one fetch that waits for a job to be added, then the other free slots' fetches at once.
   */
  private async fetchLoop(): Promise<void> {
    let drained = false;
    while (!this.stopping) {
      const free = this.options.concurrency - this.running.size;
      if (free <= 0) {
        await new Promise<void>((resolve) => {
          this.slotFreed = resolve;
        });
        continue;
      }
      try {
        // With the queue found empty, wait for its marker (set whenever a job is added or put back),
        // then every free slot's fetch at once, in one round trip.
        if (drained) await this.waitForMarker();
        if (this.stopping) break;
        const { jobs, empty } = await this.fill(free);
        drained = empty;
        // A round's jobs start together once its fetches have answered (one round trip): a job started
        // earlier would hold the event loop (a simulation's start) while the others' answers wait.
        for (const entry of jobs) this.start(entry.job, entry.token);
      } catch {
        // Redis away (commands wait for the reconnection; what failed is fetched again after a pause)
        if (!this.stopping) await sleep(FETCH_RETRY_MS);
      }
    }
  }

  /**
   * Waits until the queue's marker is set (BullMQ sets it when a job is added or put back on the
   * queue, and its own blocking wait pops it the same way), or a bound passes (then the caller
   * fetches anyway, as BullMQ's loop does). A marker popped by a consumer that is stopping is put
   * back, so the wait of another worker's consumer wakes for the job instead.
   */
  private async waitForMarker(): Promise<void> {
    const marker = `${KEY_PREFIX}:${this.options.name}:marker`;
    const waitSeconds = this.options.markerWaitSeconds ?? MARKER_WAIT_SECONDS;
    const watchdogMs = this.options.markerWatchdogMs ?? waitSeconds * 1_000 + MARKER_WATCHDOG_MARGIN_MS;
    // A watchdog past the wait's own bound: a wait parked across a Redis restart that never answers
    // is cut by reconnecting its connection (as BullMQ's blocking fetch does), and the round fetches anyway.
    let watchdog: NodeJS.Timeout | undefined;
    const popped = await Promise.race([
      this.blocking.bzpopmin(marker, waitSeconds),
      new Promise<null>((resolve) => {
        watchdog = setTimeout(() => {
          if (!this.closed) this.blocking.disconnect(true);
          resolve(null);
        }, watchdogMs);
      }),
    ]).finally(() => clearTimeout(watchdog));
    if (!popped) return;
    const [, member, score] = popped;
    if (this.stopping) {
      await this.connection.zadd(marker, score, member).catch(() => undefined);
      return;
    }
    // A marker's score is when its job is due (0 for a job ready now; a delayed job's later).
    const due = Number(score) - Date.now();
    if (due > 0) await sleep(Math.min(due, MARKER_DUE_MAX_MS));
  }

  /**
   * Fetches for `free` slots: rounds of one fetch per slot still free, again at once while a round
   * brings jobs and leaves slots free, until the slots are full or a round finds nothing (`empty`:
   * the queue is drained, the caller waits on the marker). A round that brings only some jobs does
   * not mean the queue is empty: the coordinator's adds reach Redis in pieces (a pipeline read
   * in parts), and other workers' fetches take jobs between. Starting those jobs and waiting on the
   * marker instead left the other slots behind the started simulations' work, and behind a marker
   * another worker may pop first: at 4 workers one worker's first round was cut in two, the second
   * part taken 0.7–1.5 s later (session 12, on the bench's timings) — a delay the run's wall keeps.
   */
  private async fill(free: number): Promise<{ jobs: Array<{ job: Job; token: string }>; empty: boolean }> {
    const jobs: Array<{ job: Job; token: string }> = [];
    while (jobs.length < free && !this.stopping) {
      const round = (await this.fetchRound(free - jobs.length)).filter((entry) => entry !== undefined);
      if (round.length === 0) return { jobs, empty: true };
      jobs.push(...round);
    }
    return { jobs, empty: false };
  }

  /** `count` fetches at once; one that failed (Redis away) counts as empty, the jobs of the others are kept. */
  private async fetchRound(count: number): Promise<Array<{ job: Job; token: string } | undefined>> {
    const settled = await Promise.allSettled(Array.from({ length: count }, () => this.fetch()));
    return settled.map((outcome) => (outcome.status === "fulfilled" ? outcome.value : undefined));
  }

  /** One fetch: the job and its lock's token, or undefined when the queue had nothing for it. */
  private async fetch(): Promise<{ job: Job; token: string } | undefined> {
    const token = this.token();
    const job = await this.worker.getNextJob(token, { block: false });
    return job?.id ? { job, token } : undefined;
  }

  private start(job: Job, token: string): void {
    if (this.stopping) {
      // Fetched while this consumer stops: back to waiting, for another worker or a later start.
      void job.moveToWait(token).catch(() => undefined);
      return;
    }
    this.running.set(job.id as string, { job, token });
    void this.run(job, token);
  }

  private async run(job: Job, token: string): Promise<void> {
    let next: Job | undefined;
    try {
      const reply = await this.options.process(job);
      next = await this.complete(job, token, reply);
    } finally {
      this.running.delete(job.id as string);
      // The slot's next job came with the completion: it keeps the slot (and the token its lock holds).
      if (next) this.start(next, token);
      else {
        this.slotFreed?.();
        this.slotFreed = undefined;
      }
      if (this.running.size === 0) this.allDone?.();
    }
  }

  /**
   * Reports the reply as the job's return value; only the lock's holder can (a job lost to a stall is
   * not reported twice). Unless the consumer stops, the same call fetches the slot's next job, as
   * BullMQ's own loop does (`moveToFinished`'s `fetchNext`): a freed slot's job is then one round
   * trip from the simulation's end, not two (the completion's, then a fetch's). The next job, if the
   * queue had one, is returned, locked with the same token.
   */
  private async complete(job: Job, token: string, reply: WorkerMessage): Promise<Job | undefined> {
    for (let attempt = 0; ; attempt++) {
      try {
        // The worker's backend directly rather than `job.moveToCompleted`: the job's method stringifies the
        // reply once only to check that it serialises, then the backend stringifies it again to send it
        // (a ≈ 40 KB simulation, twice per job); a worker's reply is plain JSON, so once is enough.
        // The same script, keys and arguments (the job's own `removeOnComplete`, as the job's method passes it).
        const { result } = await this.worker.backend.moveToCompleted(job, reply, job.opts.removeOnComplete as KeepJobs, token, !this.stopping);
        // [job data, job id, rate-limit delay, due time of the next delayed job]: only a job ready now is taken here; otherwise the slot frees and the fetch loop takes over.
        const [data, id] = Array.isArray(result) ? (result as [JobJson | null | undefined, string | undefined]) : [];
        if (!data || !id) return undefined;
        const next = Job.fromJSON(this.worker, data, id);
        next.token = token;
        return next;
      } catch (error) {
        const connection = error instanceof Error && !isNotConnectionError(error);
        if (!connection || this.closed) {
          // The lock was lost (the job stalled and is another worker's now) or the consumer is gone: the queue runs it again.
          if (!this.closed) this.options.log(`[${this.options.name}] job ${job.id} not reported: ${error instanceof Error ? error.message : String(error)}`);
          return undefined;
        }
        await sleep(COMPLETE_RETRY_MS[Math.min(attempt, COMPLETE_RETRY_MS.length - 1)]);
      }
    }
  }

  /** Renews the locks of the running jobs every half lock duration, in one call, on a timer apart from the simulations. */
  private scheduleRenewal(): void {
    if (this.closed) return;
    this.renewal = setTimeout(() => {
      const held = [...this.running.entries()];
      const renew =
        held.length === 0
          ? Promise.resolve()
          : this.worker
              .extendJobLocks(
                held.map(([id]) => id),
                held.map(([, entry]) => entry.token),
                this.options.lockDurationMs,
              )
              .then(
                (lost) => {
                  for (const id of lost) if (this.running.has(id)) this.options.log(`[${this.options.name}] job ${id}: its lock could not be renewed (stalled; the queue may run it again)`);
                },
                () => undefined, // Redis away: the next renewal tries again
              );
      void renew.finally(() => this.scheduleRenewal());
    }, this.options.lockDurationMs / 2);
    this.renewal.unref();
  }

  /** Jobs running now. */
  get active(): number {
    return this.running.size;
  }

  /**
   * Stops taking jobs. Without `force`, the jobs running finish and are reported first; with it,
   * they are left (their locks lapse and the queue runs them again).
   */
  async close(force = false): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.slotFreed?.();
    if (!force && this.running.size > 0) await new Promise<void>((resolve) => (this.allDone = resolve));
    this.closed = true;
    if (this.renewal) clearTimeout(this.renewal);
    // Forced: no job of ours is waited for (done above when graceful).
    await this.worker.close(true).catch(() => undefined);
    this.blocking.disconnect(); // cuts a wait on the marker
    await this.loop.catch(() => undefined);
  }
}
