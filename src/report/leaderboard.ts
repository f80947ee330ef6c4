import Table from "cli-table3";
import { TERMINATION_REASONS, type RoleUsage, type TerminationReason } from "../core/types.ts";
import type { SuiteMetrics } from "../core/suite.ts";
import { computePassK, isInfraError, isSuccess } from "../metrics/pass-k.ts";
import type { EpisodeSummary } from "../core/run.ts";

/** Everything a report shows, computed once from episode summaries. */
export interface RunReport {
  strategy: string;
  episodes: number;
  metrics: SuiteMetrics;
  terminations: Partial<Record<TerminationReason | "unknown", number>>;
  /** Episodes that ended in `infra_error`: counted here, left out of pass^k and the average reward. */
  infraErrors: number;
  usage: { agent: RoleTotals; user: RoleTotals };
  /** Total cost of all roles; null when any priced role is unknown. */
  cost: number | null;
  /** `averageReward` is over the task's scored episodes (null when all ended in infra errors). */
  perTask: Array<{ taskId: number | string; trials: number; successes: number; averageReward: number | null; infraErrors: number }>;
  /** Per termination reason other than a normal stop: how many, and the first error message (null when none was recorded). */
  failures: Array<{ reason: string; count: number; firstError: string | null }>;
  /** Every episode that did not stop normally, with its termination and error (for `--per-task`). */
  episodeErrors: Array<{ taskId: number | string; trial: number; termination: string; error: string | null }>;
  /** Framework tools the bridge refused in any episode (not benchmark tools, so not executed). */
  unmappedTools: string[];
  /** Set when the run did not cover every episode it was asked for (interrupted); null for a complete run. */
  partial: { episodes: number; expectedEpisodes: number; interrupted: boolean } | null;
  /** Lines the suite adds (τ²: the NL judge's usage, tasks whose score checks less than it seems). */
  notes: string[];
}

/** How a run ended, when the caller knows it (the batch layer, or a results file's `.meta.json`). */
export interface RunCompleteness {
  expectedEpisodes: number;
  interrupted: boolean;
}

/** Terminations that are the conversation ending as designed; every other reason is shown with its first error. */
const NORMAL_STOPS: ReadonlySet<string> = new Set(["user_stop", "agent_stop"]);

/**
 * The reason a summary is grouped under for failures: its termination, or `error` for an entry of
 * the original's files (no termination) that recorded one; null for a normal stop or no information.
 */
function failureReason(summary: EpisodeSummary): string | null {
  if (summary.termination) return NORMAL_STOPS.has(summary.termination) ? null : summary.termination;
  return summary.error ? "error" : null;
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
  // An unknown cost makes the total unknown, whether or not calls were counted (τ² records null for a
  // side whose messages came without cost, e.g. a task's message history).
  if (usage.cost === null) {
    totals.unpricedEpisodes++;
    totals.cost = null;
  } else if (totals.cost !== null) totals.cost += usage.cost;
}

/**
 * Builds the report of a run (or of any results file). `completeness` (when known) marks a run
 * that stopped before all its episodes as partial, so no table passes a cut-short run off as whole.
 */
export function buildReport(strategy: string, summaries: readonly EpisodeSummary[], completeness?: RunCompleteness, suite: { metrics?: SuiteMetrics; notes?: readonly string[] } = {}): RunReport {
  const computed = suite.metrics ?? computePassK(summaries);
  // No scored episode (all infrastructure errors, or none at all): there is no average, as there is no pass^k.
  const metrics = summaries.some((summary) => !isInfraError(summary)) ? computed : { ...computed, averageReward: null };
  const terminations: RunReport["terminations"] = {};
  const agent: RoleTotals = { calls: 0, promptTokens: 0, completionTokens: 0, cost: 0, unpricedEpisodes: 0 };
  const user: RoleTotals = { calls: 0, promptTokens: 0, completionTokens: 0, cost: 0, unpricedEpisodes: 0 };
  let sawUsage = false;
  const byTask = new Map<number | string, { trials: number; successes: number; rewardSum: number; infraErrors: number }>();
  const failures = new Map<string, { reason: string; count: number; firstError: string | null }>();
  const episodeErrors: RunReport["episodeErrors"] = [];
  const unmappedTools = new Set<string>();
  for (const summary of summaries) {
    for (const tool of summary.unmappedTools ?? []) unmappedTools.add(tool);
    const failed = failureReason(summary);
    if (failed) {
      const group = failures.get(failed) ?? { reason: failed, count: 0, firstError: null };
      group.count++;
      group.firstError ??= summary.error ?? null;
      failures.set(failed, group);
      episodeErrors.push({ taskId: summary.taskId, trial: summary.trial, termination: failed, error: summary.error ?? null });
    }
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
  // A role that called no model in any episode spent nothing: its cost is known to be 0, even where
  // the file records it as unknown (τ² writes a null cost for a side whose messages carry none, such
  // as an oracle's, or a task's message history).
  for (const totals of sawUsage ? [agent, user] : []) {
    if (totals.calls > 0) continue;
    totals.cost = 0;
    totals.unpricedEpisodes = 0;
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
    failures: [...failures.values()],
    episodeErrors,
    unmappedTools: [...unmappedTools],
    partial:
      completeness && (completeness.interrupted || summaries.length < completeness.expectedEpisodes)
        ? { episodes: summaries.length, expectedEpisodes: completeness.expectedEpisodes, interrupted: completeness.interrupted }
        : null,
    notes: [...(suite.notes ?? [])],
  };
}

/** `10 of 60 episodes; interrupted — rerun to resume`. */
export function partialText(partial: NonNullable<RunReport["partial"]>): string {
  return `${partial.episodes} of ${partial.expectedEpisodes} episodes; ${partial.interrupted ? "interrupted — rerun to resume" : "incomplete — rerun to finish"}`;
}

/** An error message as one line of at most `width` characters (messages may carry tracebacks or bodies). */
function oneLine(message: string, width = 200): string {
  const line = message.split("\n").find((part) => part.trim() !== "") ?? "";
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
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
    // The blank line ends the table: Markdown reads a line right after it as one more row.
    const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
    return `${[line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n")}\n`;
  }
  const table = new Table({ head, style: { head: [], border: [] } });
  table.push(...rows);
  return table.toString();
}

/** A column a caller adds to the leaderboard table: its head and one cell per report, in order. */
export interface ExtraColumn {
  head: string;
  cells: readonly string[];
}

/**
 * The leaderboard table: Strategy | Pass^1 | … | Pass^k | Avg reward | Cost, plus an `Infra errors`
 * column when any report has some (their episodes are not in the other numbers, so the table must say so)
 * and an `Episodes` column when any run is partial (its numbers cover only the episodes that finished).
 */
export function leaderboardText(reports: readonly RunReport[], format: "text" | "markdown" = "text", extra: { columns?: ReadonlyArray<ExtraColumn> } = {}): string {
  const maxK = Math.max(1, ...reports.map((report) => report.metrics.trials));
  const showInfra = reports.some((report) => report.infraErrors > 0);
  const showPartial = reports.some((report) => report.partial);
  const head = ["Strategy", ...Array.from({ length: maxK }, (_, index) => `Pass^${index + 1}`), "Avg reward", "Cost", ...(showInfra ? ["Infra errors"] : []), ...(showPartial ? ["Episodes"] : [])];
  const rows = reports.map((report) => [
    report.strategy,
    ...Array.from({ length: maxK }, (_, index) => formatNumber(report.metrics.passK[index + 1] ?? null)),
    formatNumber(report.metrics.averageReward),
    formatCost(report.cost),
    ...(showInfra ? [`${report.infraErrors}/${report.episodes}`] : []),
    ...(showPartial ? [report.partial ? `${report.partial.episodes} of ${report.partial.expectedEpisodes} (partial)` : String(report.episodes)] : []),
  ]);
  // Columns other layers compute (policy adherence, the overall score), after Avg reward and Cost.
  for (const column of extra.columns ?? []) {
    head.push(column.head);
    rows.forEach((row, index) => row.push(column.cells[index] ?? ""));
  }
  return renderTable(head, rows, format);
}

/**
 * Lines under the table: a partial run's marker, episodes by termination reason, the first error of
 * each failure reason, refused framework tools, infra errors, usage per role. Failures are printed
 * here because this is where the user looks; the results file alone hid them.
 */
export function detailsText(report: RunReport): string {
  const lines: string[] = [];
  if (report.partial) lines.push(`⚠ partial: ${partialText(report.partial)}`);
  const reasons = [...TERMINATION_REASONS, "unknown" as const].filter((reason) => report.terminations[reason]).map((reason) => `${reason}=${report.terminations[reason]}`);
  lines.push(`Episodes: ${report.episodes} over ${report.metrics.tasks} tasks × ${report.metrics.trials} trial(s); ended by: ${reasons.join(", ") || "n/a"}`);
  for (const failure of report.failures) {
    lines.push(`  ${failure.reason}=${failure.count}${failure.firstError ? `: ${oneLine(failure.firstError)}` : ""}`);
  }
  if (report.unmappedTools.length > 0) {
    lines.push(
      `warning: ${report.unmappedTools.length} tool(s) of your agent are not part of the benchmark and were not executed: ${report.unmappedTools.join(", ")}` +
        ' — map them in a mapping file, or list them under "native"',
    );
  }
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
  lines.push(...report.notes);
  return lines.join("\n");
}

/**
 * The per-task table (task, trials, successes, average reward, infra errors), then one row per
 * episode that did not stop normally with its termination and error, so a failing task can be traced.
 */
export function perTaskText(report: RunReport, format: "text" | "markdown" = "text"): string {
  const head = ["Task", "Trials", "Successes", "Avg reward", "Infra errors"];
  const rows = report.perTask.map((task) => [String(task.taskId), String(task.trials), String(task.successes), formatNumber(task.averageReward), String(task.infraErrors)]);
  const table = renderTable(head, rows, format);
  if (report.episodeErrors.length === 0) return table;
  const errorRows = report.episodeErrors.map((episode) => [String(episode.taskId), String(episode.trial), episode.termination, episode.error ? oneLine(episode.error, 160) : "-"]);
  return `${table}\nEpisodes that did not stop normally (${report.episodeErrors.length}):\n${renderTable(["Task", "Trial", "Termination", "Error"], errorRows, format)}`;
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
    failures: report.failures,
    episodeErrors: report.episodeErrors,
    unmappedTools: report.unmappedTools,
    partial: report.partial,
    ...(report.notes.length > 0 ? { notes: report.notes } : {}),
  };
}
