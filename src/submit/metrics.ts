/**
 * The leaderboard's numbers of one results file, as the original computes them
 * (`compute_metrics` → `get_metrics_df`, `get_tasks_pass_hat_k`, `prepare_dfs`, then
 * `prepare_submission.get_metrics`): infrastructure errors dropped; max k = `info.num_trials`,
 * lowered to the fewest simulations any task has; per task (groups in string-sorted id order)
 * `math.comb(c, k) / math.comb(n, k)`; the per-task column reordered by `sort_values("num_actions")`
 * (numpy's quicksort); pass^k its pandas mean (numpy's pairwise sum) × 100; cost the mean agent
 * cost, unknown costs skipped, NaN (no known cost) becoming null. Exactly the same floats.
 */
import type { LeaderboardResultsFile } from "../core/leaderboard.ts";
import { DataError } from "../errors/error-tree.ts";
import { binomial, isSuccess } from "../metrics/pass-k.ts";
import { numpyArgsortQuicksort, numpySum, pandasMean, pythonStringCompare } from "../metrics/numpy-sum.ts";

/** A domain's submitted numbers (`DomainResults`: percentages, cost in USD). */
export interface DomainNumbers {
  pass_1: number | null;
  pass_2: number | null;
  pass_3: number | null;
  pass_4: number | null;
  cost: number | null;
}

/** pass^k (fractions) by k, and the mean agent cost, exactly as `compute_metrics`. */
export function leaderboardMetrics(file: LeaderboardResultsFile, order: "numpy" | "task-id" = "numpy"): { passK: Map<number, number>; averageAgentCost: number } {
  const rows = file.simulations.filter((simulation) => !simulation.infrastructureError);
  if (rows.length === 0) return { passK: new Map(), averageAgentCost: 0 };
  const byTask = new Map<string, { n: number; c: number }>();
  for (const row of rows) {
    const task = byTask.get(row.taskId) ?? { n: 0, c: 0 };
    task.n++;
    if (row.reward !== null && isSuccess(row.reward)) task.c++;
    byTask.set(row.taskId, task);
  }
  const ids = [...byTask.keys()].sort(pythonStringCompare);
  let maxK = file.numTrials ?? Number.POSITIVE_INFINITY;
  const minK = Math.min(...[...byTask.values()].map((task) => task.n));
  if (minK < maxK) maxK = minK;
  const tasksById = new Map(file.tasks.map((task) => [task.id, task]));
  const actionCounts = ids.map((id) => {
    const task = tasksById.get(id);
    if (!task) throw new DataError(`${file.path}: simulations of task ${id}, which the file's tasks do not hold`);
    return task.numActions;
  });
  const positions = order === "numpy" ? numpyArgsortQuicksort(actionCounts) : ids.map((_, index) => index);
  const passK = new Map<number, number>();
  for (let k = 1; k <= maxK; k++) {
    const values = positions.map((position) => {
      const { n, c } = byTask.get(ids[position]) as { n: number; c: number };
      return Number(binomial(c, k)) / Number(binomial(n, k));
    });
    passK.set(k, numpySum(values) / values.length);
  }
  return { passK, averageAgentCost: pandasMean(rows.map((row) => row.agentCost)) };
}

/** The `DomainResults` numbers the original's `prepare` writes. */
export function domainNumbers(file: LeaderboardResultsFile, order: "numpy" | "task-id" = "numpy"): DomainNumbers {
  const { passK, averageAgentCost } = leaderboardMetrics(file, order);
  const percent = (k: number) => (passK.has(k) ? (passK.get(k) as number) * 100 : null);
  return { pass_1: percent(1), pass_2: percent(2), pass_3: percent(3), pass_4: percent(4), cost: Number.isNaN(averageAgentCost) ? null : averageAgentCost };
}
