/**
 * The one batch runner, for both suites: leases work units from a task source, runs each with the
 * suite's retry policy (bounded concurrency), appends each result to the result sink as it is made,
 * reports progress that counts resumed episodes, stops at once when a model endpoint refused the
 * run's first call (every episode would fail the same way), and on Ctrl-C leaves the sink to say
 * "partial". The suite supplies what an episode is (`execute`), what a retryable failure is, how
 * results are summarised and where they are written.
 */
import { defaultMaxListeners, setMaxListeners } from "node:events";
import { ConfigError } from "../errors/error-tree.ts";
import { unitKey, type EpisodeSummary, type ResultSink, type TaskSource, type TaskSourceFactory, type RoleUsageDelta, type WorkUnit } from "../core/run.ts";
import { isSuccess } from "../metrics/pass-k.ts";
import { InProcessTaskSource } from "./task-source.ts";

/** How a unit is retried: `classify` says whether an attempt's outcome stands or says nothing about the agent. */
export interface RetryPolicy<Result> {
  /** Total attempts per unit (1 = no retry). */
  attempts: number;
  /** Wait between attempts, in milliseconds. */
  delayMs: number;
  /** "retry": the attempt failed on infrastructure (run it again while attempts remain); "done": it stands. */
  classify(outcome: AttemptOutcome<Result>): "done" | "retry";
  /** What is recorded once every attempt failed (the last infra result, or τ²'s placeholder run). */
  exhausted(unit: WorkUnit, last: AttemptOutcome<Result>, attempts: number): Result;
}

/** One attempt's result, or the error it threw. */
export type AttemptOutcome<Result> = { result: Result } | { error: unknown };

/**
 * How the runner reads back a result made elsewhere (a task source with `execute`: worker
 * processes, a queue): the suite's wire form, and the usage an attempt spent outside its result.
 */
export interface ResultWire<Result> {
  decode(result: unknown): Result;
  /** Usage outside the result (τ²'s NL judge), added to the run's totals. */
  usage?(usage: RoleUsageDelta): void;
}

/** What a suite hands the batch runner for one run. */
export interface SuiteBatch<Result> {
  /** Every unit the run is asked for, in report order (trial-major, task-list order). */
  readonly units: readonly WorkUnit[];
  /** The order units are leased in, per trial (τ-bench's `--shuffle`); default: report order. */
  readonly leaseOrder?: readonly WorkUnit[];
  /** Results kept from an earlier run of the same identity (resume), by unit key. */
  readonly resumed: ReadonlyMap<string, Result>;
  /** Resumed units whose result was an infrastructure failure: they run again (and stay in `resumed` until their re-run is done). */
  readonly rerun: ReadonlySet<string>;
  readonly concurrency: number;
  readonly retry: RetryPolicy<Result>;
  execute(unit: WorkUnit, signal: AbortSignal): Promise<Result>;
  summary(result: Result): EpisodeSummary;
  readonly sink: ResultSink<Result>;
  /** Where the pending units are leased from (default: an in-process source, in lease order). */
  readonly source?: TaskSourceFactory;
  /** How results made elsewhere are read back; a source that runs units elsewhere needs it. */
  readonly wire?: ResultWire<Result>;
  /** A model endpoint that refused the run's first call: the run stops with this error. */
  unreachable?(): Error | undefined;
  /** Releases what the run holds (participants' processes); called once. */
  close(): Promise<void>;
}

/** Progress callbacks; the CLI renders them. */
export interface BatchProgress<Result> {
  start?(info: { total: number; alreadyDone: number; rerunInfraErrors: number; resumed: boolean; successes: number; cost: number | null }): void;
  /** After each episode run now is recorded. */
  episodeDone?(info: { result: EpisodeSummary; done: number; total: number; successes: number; cost: number | null }): void;
  /** The full result of each episode run now, after it is recorded. */
  episode?(result: Result): void;
}

/** What a batch did. */
export interface BatchRun<Result> {
  /** Every result (resumed and new), by unit key. */
  results: Map<string, Result>;
  /** Summaries in report order (units without a result are left out). */
  summaries: EpisodeSummary[];
  ranEpisodes: number;
  resumedEpisodes: number;
  rerunInfraErrors: number;
  expectedEpisodes: number;
  interrupted: boolean;
}

/** The cost an episode adds to the run total: null when any role's calls were unpriced. */
export function episodeCost(summary: EpisodeSummary): number | null {
  let total = 0;
  for (const usage of [summary.usage?.agent, summary.usage?.user]) {
    if (!usage) continue;
    if (usage.cost === null) return null;
    total += usage.cost;
  }
  return total;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/** Running totals shown in progress lines: successes and cost (null once any episode's cost is unknown). */
class Totals {
  successes = 0;
  cost: number | null = 0;

  add(summary: EpisodeSummary): void {
    if (isSuccess(summary.reward)) this.successes++;
    const cost = episodeCost(summary);
    this.cost = this.cost === null || cost === null ? null : this.cost + cost;
  }
}

/**
 * Endings an episode's own loop decides. Any other one (an error, the timeout) of an episode that
 * settled after the run was interrupted may be the interrupt's doing: an aborted model call, an
 * agent that threw its own error on abort, or the loop refusing to go on.
 */
const LOOP_ENDINGS: ReadonlySet<EpisodeSummary["termination"]> = new Set(["user_stop", "agent_stop", "max_steps", "max_errors"]);

/**
 * True when an attempt that settled after the run's interrupt is to be left unrecorded: the
 * interrupt cut it (whether the agent honoured its signal or not), so it says nothing about the
 * agent, and the resumed run runs it again. An episode that reached its own end stands.
 */
function cutByInterrupt<Result>(batch: SuiteBatch<Result>, outcome: AttemptOutcome<Result>, signal: AbortSignal): boolean {
  if (!signal.aborted) return false;
  return "error" in outcome || !LOOP_ENDINGS.has(batch.summary(outcome.result).termination);
}

/**
 * Runs a unit with the retry policy. Undefined when the run was interrupted, or stopped because an
 * endpoint is unreachable, before the unit had a result that stands (an episode the interrupt cut
 * is never recorded, see {@link cutByInterrupt}).
 */
async function attemptUnit<Result>(batch: SuiteBatch<Result>, execute: SuiteBatch<Result>["execute"], first: WorkUnit, source: TaskSource, signal: AbortSignal): Promise<Result | undefined> {
  const { retry } = batch;
  let unit = first;
  let last: AttemptOutcome<Result> | undefined;
  for (;;) {
    if (signal.aborted || batch.unreachable?.()) return undefined;
    try {
      last = { result: await execute(unit, signal) };
    } catch (error) {
      if (ConfigError.isInstance(error) && !signal.aborted) throw error;
      last = { error };
    }
    if (cutByInterrupt(batch, last, signal)) return undefined;
    if (retry.classify(last) === "done") return (last as { result: Result }).result;
    if (signal.aborted || batch.unreachable?.()) return undefined;
    if (unit.attempt >= retry.attempts) return retry.exhausted(unit, last, unit.attempt);
    await source.fail(unit, "error" in last ? last.error : undefined);
    if (retry.delayMs > 0) await sleep(retry.delayMs, signal);
    unit = { ...unit, attempt: unit.attempt + 1 };
  }
}

/** Where an attempt runs: in this process (the suite's `execute`), or where the source sends it (read back through the suite's wire form). */
function executorOf<Result>(batch: SuiteBatch<Result>, source: TaskSource): SuiteBatch<Result>["execute"] {
  const remote = source.execute?.bind(source);
  if (!remote) return (unit, signal) => batch.execute(unit, signal);
  const { wire } = batch;
  if (!wire) throw new ConfigError("this suite's episodes cannot run in another process (its batch reads no results made elsewhere)");
  return async (unit, signal) => {
    const made = await remote(unit, signal);
    wire.usage?.(made.usage);
    if ("error" in made) throw made.error;
    return wire.decode(made.result);
  };
}

/**
 * Runs every unit of `batch` not already done, with at most `concurrency` at once. Resolves when
 * every unit is recorded, or the signal aborted (the sink is closed as partial); rejects with the
 * endpoint's error when `unreachable` reports one, and with a ConfigError an attempt raised.
 */
export async function runSuiteBatch<Result>(batch: SuiteBatch<Result>, progress: BatchProgress<Result> = {}, signal: AbortSignal = new AbortController().signal): Promise<BatchRun<Result>> {
  const results = new Map<string, Result>(batch.resumed);
  const totals = new Totals();
  for (const [key, result] of batch.resumed) if (!batch.rerun.has(key)) totals.add(batch.summary(result));
  const pending = (batch.leaseOrder ?? batch.units).filter((unit) => !batch.resumed.has(unitKey(unit)) || batch.rerun.has(unitKey(unit)));
  const total = batch.units.length;
  const resumedEpisodes = batch.resumed.size - batch.rerun.size;
  let done = resumedEpisodes;
  let ranEpisodes = 0;
  progress.start?.({ total, alreadyDone: done, rerunInfraErrors: batch.rerun.size, resumed: batch.resumed.size > 0, successes: totals.successes, cost: totals.cost });
  const source: TaskSource = batch.source?.(pending) ?? new InProcessTaskSource(pending);
  // A failure that stops the run (a ConfigError) stops the other workers' attempts too: nothing is recorded after it.
  const halt = new AbortController();
  const running = AbortSignal.any([signal, halt.signal]);
  // Every attempt in flight listens to it (its episode, a worker's dispatch, a retry's wait): that many listeners are expected.
  setMaxListeners(Math.max(defaultMaxListeners, 4 * batch.concurrency + 4), running);
  const worker = async () => {
    const execute = executorOf(batch, source);
    for (let unit = await source.lease(); unit !== null; unit = await source.lease()) {
      if (running.aborted || batch.unreachable?.()) return;
      const result = await attemptUnit(batch, execute, unit, source, running);
      if (result === undefined) continue;
      await batch.sink.append(result);
      await source.complete(unit);
      results.set(unitKey(unit), result);
      const summary = batch.summary(result);
      ranEpisodes++;
      done++;
      totals.add(summary);
      progress.episode?.(result);
      progress.episodeDone?.({ result: summary, done, total, successes: totals.successes, cost: totals.cost });
    }
  };
  const halting = async () => {
    try {
      await worker();
    } catch (error) {
      halt.abort(error);
      throw error;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(batch.concurrency, pending.length)) }, halting));
  } finally {
    try {
      await batch.close();
    } finally {
      await source.close?.();
    }
  }
  const stop = batch.unreachable?.();
  if (stop) throw stop;
  const interrupted = signal.aborted;
  await batch.sink.close({ results, units: batch.units, interrupted });
  const summaries = batch.units.flatMap((unit) => {
    const result = results.get(unitKey(unit));
    return result === undefined ? [] : [batch.summary(result)];
  });
  return { results, summaries, ranEpisodes, resumedEpisodes, rerunInfraErrors: batch.rerun.size, expectedEpisodes: total, interrupted };
}
