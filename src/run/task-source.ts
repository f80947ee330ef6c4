/**
 * The in-process task source: the run's pending units in lease order, handed out one at a time to
 * the batch runner's workers. A queue-backed source (workers on a queue) implements the same
 * `TaskSource` shape; this one also keeps what happened to each unit, for tests and reports.
 */
import { unitKey, type TaskSource, type WorkUnit } from "../core/run.ts";

export class InProcessTaskSource implements TaskSource {
  private next = 0;
  /** Units whose result was recorded, by key. */
  readonly completed = new Set<string>();
  /** Failed attempts, in order. */
  readonly failures: Array<{ unit: WorkUnit; error: unknown }> = [];

  constructor(private readonly units: readonly WorkUnit[]) {}

  async lease(): Promise<WorkUnit | null> {
    return this.next < this.units.length ? this.units[this.next++] : null;
  }

  async complete(unit: WorkUnit): Promise<void> {
    this.completed.add(unitKey(unit));
  }

  async fail(unit: WorkUnit, error: unknown): Promise<void> {
    this.failures.push({ unit, error });
  }
}
