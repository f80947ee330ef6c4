import Table from "cli-table3";
import { TERMINATION_REASONS, type RoleUsage, type TerminationReason } from "../core/types.ts";
import { computePassK, isInfraError, isSuccess, type PassKReport } from "../metrics/pass-k.ts";
import type { EpisodeSummary } from "../runner/checkpoint.ts";

/** Everything a report shows, computed once from episode summaries. */
export interface RunReport {
  strategy: string;
  episodes: number;
  metrics: PassKReport;
  terminations: Partial<Record<TerminationReason | "unknown", number>>;
  /** Episodes that ended in `infra_error`: counted here, left out of pass^k and the average reward. */
  infraErrors: number;
  usage: { agent: RoleTotals; user: RoleTotals };
  /** Total cost of all roles; null when any priced role is unknown. */
  cost: number | null;
  /** `averageReward` is over the task's scored episodes (null when all ended in infra errors). */
  perTask: Array<{ taskId: number; trials: number; successes: number; averageReward: number | null; infraErrors: number }>;
}

export interface RoleTotals {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cost: number | null;
  unpricedEpisodes: number;
}

function addRole(totals: RoleTotals, usage: RoleUsage | null | undefined): void {
  if (!usage) return;
  totals.calls += usage.calls;
  totals.promptTokens += usage.promptTokens;
  totals.completionTokens += usage.completionTokens;
  if (usage.cost === null) {
    if (usage.calls > 0) totals.unpricedEpisodes++;
    if (usage.calls > 0) totals.cost = null;
  } else if (totals.cost !== null) totals.cost += usage.cost;
}

/** Builds the report of a run (or of any results file). */
export function buildReport(strategy: string, summaries: readonly EpisodeSummary[]): RunReport {
  const metrics = computePassK(summaries);
  const terminations: RunReport["terminations"] = {};
  const agent: RoleTotals = { calls: 0, promptTokens: 0, completionTokens: 0, cost: 0, unpricedEpisodes: 0 };
  const user: RoleTotals = { calls: 0, promptTokens: 0, completionTokens: 0, cost: 0, unpricedEpisodes: 0 };
  let sawUsage = false;
  const byTask = new Map<number, { trials: number; successes: number; rewardSum: number; infraErrors: number }>();
  for (const summary of summaries) {
    const reason = summary.termination ?? "unknown";
    terminations[reason] = (terminations[reason] ?? 0) + 1;
    if (summary.usage) {
      sawUsage = true;
      addRole(agent, summary.usage.agent);
      addRole(user, summary.usage.user);
    }
    const task = byTask.get(summary.taskId) ?? { trials: 0, successes: 0, rewardSum: 0, infraErrors: 0 };
    task.trials++;
    if (isInfraError(summary)) task.infraErrors++;
    else {
      task.rewardSum += summary.reward;
      if (isSuccess(summary.reward)) task.successes++;
    }
    byTask.set(summary.taskId, task);
  }
  if (!sawUsage) {
    agent.cost = null;
    user.cost = null;
  }
  const cost = agent.cost === null || user.cost === null ? null : agent.cost + user.cost;
  return {
    strategy,
    episodes: summaries.length,
    metrics,
    terminations,
    infraErrors: metrics.infraErrors,
    usage: { agent, user },
    cost,
    perTask: [...byTask.entries()].map(([taskId, task]) => ({
      taskId,
      trials: task.trials,
      successes: task.successes,
      averageReward: task.trials > task.infraErrors ? task.rewardSum / (task.trials - task.infraErrors) : null,
      infraErrors: task.infraErrors,
    })),
  };
}

function formatNumber(value: number | null, digits = 3): string {
  return value === null ? "n/a" : value.toFixed(digits);
}

function formatCost(value: number | null): string {
  return value === null ? "unknown" : `$${value.toFixed(4)}`;
}

/** A table as terminal box drawing or as Markdown (for `$GITHUB_STEP_SUMMARY` and docs). */
function renderTable(head: string[], rows: string[][], format: "text" | "markdown"): string {
  if (format === "markdown") {
    const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
    return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
  }
  const table = new Table({ head, style: { head: [], border: [] } });
  table.push(...rows);
  return table.toString();
}

/**
 * The leaderboard table: Strategy | Pass^1 | … | Pass^k | Avg reward | Cost, plus an `Infra errors`
 * column when any report has some (their episodes are not in the other numbers, so the table must say so).
 */
export function leaderboardText(reports: readonly RunReport[], format: "text" | "markdown" = "text"): string {
  const maxK = Math.max(1, ...reports.map((report) => report.metrics.trials));
  const showInfra = reports.some((report) => report.infraErrors > 0);
  const head = ["Strategy", ...Array.from({ length: maxK }, (_, index) => `Pass^${index + 1}`), "Avg reward", "Cost", ...(showInfra ? ["Infra errors"] : [])];
  const rows = reports.map((report) => [
    report.strategy,
    ...Array.from({ length: maxK }, (_, index) => formatNumber(report.metrics.passK[index + 1] ?? null)),
    formatNumber(report.metrics.averageReward),
    formatCost(report.cost),
    ...(showInfra ? [`${report.infraErrors}/${report.episodes}`] : []),
  ]);
  return renderTable(head, rows, format);
}

/** Lines under the table: episodes by termination reason (infra errors flagged), usage per role. */
export function detailsText(report: RunReport): string {
  const lines: string[] = [];
  const reasons = [...TERMINATION_REASONS, "unknown" as const]
    .filter((reason) => report.terminations[reason])
    .map((reason) => `${reason}=${report.terminations[reason]}`);
  lines.push(`Episodes: ${report.episodes} over ${report.metrics.tasks} tasks × ${report.metrics.trials} trial(s); ended by: ${reasons.join(", ") || "n/a"}`);
  if (report.infraErrors > 0) {
    lines.push(
      `⚠ ${report.infraErrors} episode(s) ended in infrastructure errors: left out of pass^k and the average reward (as τ²-bench does); ` +
        "running the same command again re-runs them (--episode-retries retries them at once)",
    );
  }
  for (const role of ["agent", "user"] as const) {
    const usage = report.usage[role];
    if (usage.calls === 0) continue;
    lines.push(
      `${role}: ${usage.calls} calls, ${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens, cost ${formatCost(usage.cost)}` +
        (usage.unpricedEpisodes > 0 ? ` (${usage.unpricedEpisodes} episode(s) with unpriced calls)` : ""),
    );
  }
  return lines.join("\n");
}

/** The per-task table (task, trials, successes, average reward, infra errors). */
export function perTaskText(report: RunReport, format: "text" | "markdown" = "text"): string {
  const head = ["Task", "Trials", "Successes", "Avg reward", "Infra errors"];
  const rows = report.perTask.map((task) => [
    String(task.taskId),
    String(task.trials),
    String(task.successes),
    formatNumber(task.averageReward),
    String(task.infraErrors),
  ]);
  return renderTable(head, rows, format);
}

/** The report as JSON (for `--format json`). */
export function reportJson(report: RunReport): Record<string, unknown> {
  return {
    strategy: report.strategy,
    episodes: report.episodes,
    tasks: report.metrics.tasks,
    trials: report.metrics.trials,
    averageReward: report.metrics.averageReward,
    passK: report.metrics.passK,
    terminations: report.terminations,
    infraErrors: report.infraErrors,
    usage: report.usage,
    cost: report.cost,
    perTask: report.perTask,
  };
}
