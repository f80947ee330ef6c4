/**
 * The coordinator's side of the protocol: a `TaskSource` whose units run on workers. It leases the
 * pending units in order, as the in-process source does, and `execute` sends each attempt through
 * a transport and turns the worker's one reply back into what the runner expects: the result's
 * wire form, the attempt's error (its markers kept), or a cancellation. Retries, the result sink,
 * progress and the report stay with the runner (`src/run/batch-runner.ts`), so a run writes the
 * same files wherever its episodes ran.
 */
import type { RemoteResult, TaskSource, TaskSourceFactory, WorkUnit } from "../core/run.ts";
import { InProcessTaskSource } from "../run/task-source.ts";
import { AttemptCancelledError, restoreError } from "./errors.ts";
import type { UnitReply } from "./protocol.ts";

/**
 * What carries units to workers and their replies back (local worker processes; a queue). One
 * transport serves one run's configuration.
 */
export interface WorkerTransport {
  /**
   * Sends one attempt to a worker of the transport's choosing and resolves with the worker's reply.
   * When `signal` aborts, the worker is told to cancel the attempt (it answers `cancelled`, or its
   * result when that was already made). Rejects when the attempt's worker was lost (a
   * `WorkerLostError`, which the suite's retry policy retries) or the run was refused by the
   * workers (their error: a `ConfigError` stops the run).
   */
  dispatch(unit: WorkUnit, signal: AbortSignal): Promise<UnitReply>;
}

/** A task source whose units run where `transport` sends them. */
export class RemoteTaskSource implements TaskSource {
  private readonly local: InProcessTaskSource;

  constructor(
    pending: readonly WorkUnit[],
    private readonly transport: WorkerTransport,
  ) {
    this.local = new InProcessTaskSource(pending);
  }

  lease(): Promise<WorkUnit | null> {
    return this.local.lease();
  }

  complete(unit: WorkUnit): Promise<void> {
    return this.local.complete(unit);
  }

  fail(unit: WorkUnit, error: unknown): Promise<void> {
    return this.local.fail(unit, error);
  }

  async execute(unit: WorkUnit, signal: AbortSignal): Promise<RemoteResult> {
    if (signal.aborted) return { error: new AttemptCancelledError("the run stopped before this attempt was sent"), usage: {} };
    const reply = await this.transport.dispatch(unit, signal);
    switch (reply.type) {
      case "result":
        return { result: reply.result, usage: reply.usage };
      case "failed":
        return { error: restoreError(reply.error), usage: reply.usage };
      case "cancelled":
        return { error: new AttemptCancelledError("the attempt was cancelled"), usage: reply.usage };
    }
  }
}

/** The task source factory of a run whose units go through `transport`. */
export function remoteTaskSource(transport: WorkerTransport): TaskSourceFactory {
  return (pending) => new RemoteTaskSource(pending, transport);
}
