/**
 * The run layer's contracts, the same for both suites: a run is a set of work units (one episode
 * of one task in one trial), leased from a task source, executed by the suite, and their results
 * appended to a result sink. The in-process source and the suites' file sinks implement them now;
 * a queue-backed source (workers on a queue) and other sinks (a results viewer's store, an A2A
 * server's stream) implement the same shapes.
 */
import type { RoleUsage, TerminationReason } from "./types.ts";

/** One episode to run: which run, suite, domain, task and trial, with the trial's seed and the attempt number (1 = first). */
export interface WorkUnit {
  runId: string;
  suite: string;
  domain: string;
  /** The task's id as the suite names it (τ-bench: its index in the task list; τ²: its id string). */
  taskId: string;
  /** The task's position in the run's task list (its order in results files). */
  taskIndex: number;
  trial: number;
  /** The trial's seed (τ²), or null. */
  seed: number | null;
  attempt: number;
}

/** The key that identifies a unit's episode across attempts and resumes. */
export function unitKey(unit: Pick<WorkUnit, "taskId" | "trial">): string {
  return `${unit.taskId}\u0000${unit.trial}`;
}

/**
 * Where work units come from. `lease` hands out the next unit (null when none is left); `complete`
 * says a unit's result is recorded; `fail` says an attempt of the unit failed (the runner retries
 * it as attempt + 1 while the suite's retry policy allows, then records what the policy says).
 *
 * A source that runs units elsewhere (worker processes, a queue's workers on other machines) also
 * has `execute`: the runner hands it each attempt instead of running the episode itself, and gets
 * back the result in the suite's wire form. Retries, the result sink, progress and the report stay
 * with the runner, so a run writes the same files wherever its episodes ran.
 */
export interface TaskSource {
  lease(): Promise<WorkUnit | null>;
  complete(unit: WorkUnit): Promise<void>;
  fail(unit: WorkUnit, error: unknown): Promise<void>;
  /**
   * Runs one attempt of a leased unit elsewhere. What the attempt threw comes back as `error` (with
   * the error tree's markers, so a `ConfigError` still stops the run and an `InfraError` is still
   * retried); it rejects with an infrastructure error when the worker running it was lost.
   */
  execute?(unit: WorkUnit, signal: AbortSignal): Promise<RemoteResult>;
  /** Releases what the source holds for the run; called once when the batch ends. */
  close?(): Promise<void>;
}

/**
 * Makes the task source of a run from its pending units (in lease order). The default keeps them
 * in this process; `--workers` hands them to worker processes; a queue-backed one would publish
 * them and lease what workers report back.
 */
export type TaskSourceFactory = (pending: readonly WorkUnit[]) => TaskSource;

/** Model usage outside an episode's own record (τ²'s NL judge), by role: added to the run's totals where the result is recorded. */
export type RoleUsageDelta = Record<string, RoleUsage>;

/**
 * One attempt as it comes back across a process or machine boundary: its result in the suite's
 * wire form (plain JSON, made by `SuiteUnitRunner.execute` and read back by the suite's batch), or
 * the error it threw, and the usage it spent that its result does not hold.
 */
export type RemoteResult = ({ result: unknown } | { error: unknown }) & { usage: RoleUsageDelta };

/**
 * Where results go. `append` takes each result as it is made (a checkpoint line); `flush` writes
 * what is kept so far (a results file rewritten mid-run); `close` writes the final form.
 */
export interface ResultSink<Result> {
  append(result: Result): void | Promise<void>;
  flush(): void | Promise<void>;
  close(final: SinkClose<Result>): void | Promise<void>;
}

/** What a sink is told when the run ends. */
export interface SinkClose<Result> {
  /** Every result of the run (resumed and new), by unit key. */
  results: ReadonlyMap<string, Result>;
  /** The run's units in their report order (trial-major, task-list order). */
  units: readonly WorkUnit[];
  /** The run was interrupted before every unit was done. */
  interrupted: boolean;
}

/** What the batch layer and the reports need to know about a finished episode, the same for both suites. */
export interface EpisodeSummary {
  taskId: number | string;
  trial: number;
  reward: number;
  /** The kernel's termination reason; null for an entry of the original's files (which record none). */
  termination: TerminationReason | null;
  usage: { agent: RoleUsage | null; user: RoleUsage | null } | null;
  /** The episode's error message, for the run summary's first-error lines (absent or null: none). */
  error?: string | null;
  /** Framework tools the bridge refused (no benchmark mapping), for the run summary's warning. */
  unmappedTools?: string[];
}
