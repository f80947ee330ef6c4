/**
 * Usage accounting per role (agent, user simulator, judge). Tokens always add up; the dollar total
 * is `null` as soon as one call could not be priced (a partial sum would understate the cost), but
 * the partial sum and the number of unpriced calls are kept so reports can say how much is missing.
 */
import type { RoleUsage } from "../core/types.ts";
import type { CompletionResult } from "./types.ts";

/** JSON form of {@link UsageTotals}; a superset of the core {@link RoleUsage}. */
export interface UsageSummary extends RoleUsage {
  /** Calls answered from the response cache (included in `calls`). */
  cachedCalls: number;
  /** Calls whose cost is unknown; when > 0, `cost` is `null`. */
  unpricedCalls: number;
  /** Sum of the known costs (equals `cost` when every call was priced). */
  pricedCost: number;
  /** Known cost of the cached calls: money the cache saved (included in `cost`). */
  cachedCost: number;
  /** Calls that failed after all retries (no tokens, not in `calls`). */
  failedCalls: number;
}

/**
 * A role's usage for one episode as the results file stores it: exactly the four
 * {@link RoleUsage} fields, `cost` null when any call was unpriced (a provider that reports no
 * cost never crashes the loop, unlike τ-bench's `ChatReActAgent.solve`), `null` when the role made
 * no call.
 */
export function episodeUsage(totals: UsageTotals): RoleUsage | null {
  if (totals.calls === 0) return null;
  return { calls: totals.calls, promptTokens: totals.promptTokens, completionTokens: totals.completionTokens, cost: totals.cost };
}

/** Running totals for one role. Add each completion result; read `cost` / `toJSON()` at the end. */
export class UsageTotals {
  calls = 0;
  cachedCalls = 0;
  promptTokens = 0;
  completionTokens = 0;
  unpricedCalls = 0;
  pricedCost = 0;
  cachedCost = 0;
  failedCalls = 0;

  /** Total dollars, or `null` when any call was unpriced. */
  get cost(): number | null {
    return this.unpricedCalls > 0 ? null : this.pricedCost;
  }

  /** Records one successful call (cached or not). */
  add(result: Pick<CompletionResult, "usage" | "cost" | "cached">): void {
    this.calls += 1;
    this.promptTokens += result.usage.promptTokens;
    this.completionTokens += result.usage.completionTokens;
    if (result.cost === null) this.unpricedCalls += 1;
    else this.pricedCost += result.cost;
    if (result.cached) {
      this.cachedCalls += 1;
      if (result.cost !== null) this.cachedCost += result.cost;
    }
  }

  /**
   * Records calls a framework reported in bulk (tokens only, no price): their cost is unknown, so
   * the total's cost becomes `null` rather than a made-up 0.
   */
  addUnpriced(calls: number, promptTokens: number, completionTokens: number): void {
    this.calls += calls;
    this.promptTokens += promptTokens;
    this.completionTokens += completionTokens;
    this.unpricedCalls += calls;
  }

  /** Records a call that failed for good (it has no usage but should be visible). */
  addFailure(): void {
    this.failedCalls += 1;
  }

  /** Adds another total into this one (e.g. per-episode totals into a run total). */
  merge(other: UsageTotals | UsageSummary): void {
    this.calls += other.calls;
    this.cachedCalls += other.cachedCalls;
    this.promptTokens += other.promptTokens;
    this.completionTokens += other.completionTokens;
    this.unpricedCalls += other.unpricedCalls;
    this.pricedCost += other.pricedCost;
    this.cachedCost += other.cachedCost;
    this.failedCalls += other.failedCalls;
  }

  toJSON(): UsageSummary {
    return {
      calls: this.calls,
      cachedCalls: this.cachedCalls,
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
      cost: this.cost,
      unpricedCalls: this.unpricedCalls,
      pricedCost: this.pricedCost,
      cachedCost: this.cachedCost,
      failedCalls: this.failedCalls,
    };
  }

  /** Rebuilds totals from a saved summary (resume). */
  static fromJSON(summary: UsageSummary): UsageTotals {
    const totals = new UsageTotals();
    totals.merge(summary);
    return totals;
  }
}
