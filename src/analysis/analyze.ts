/**
 * Failure analysis of results files (`taubridge analyze`): every failed episode with its
 * deterministic facts, then, with a judge, its fault and fault type; summary tables (the "error
 * breakdown") in text, Markdown or JSON. Reads canonical episode records only.
 */
import type { EpisodeRecord } from "../core/episode-record.ts";
import { episodeFacts, type EpisodeFacts, isSuccessfulReward } from "./facts.ts";
import { FAULT_AUTHORS, FAULT_TYPES, type ConversationReview, type FailureJudge, type FaultAuthor, type FaultType, type JudgeUsage } from "./judge.ts";
import { renderTable } from "./tables.ts";

/** One failed episode as `analyze --format json` prints it (and a viewer imports). */
export interface AnalyzedEpisode {
  suite: string;
  domain: string | null;
  taskId: string;
  trial: number;
  reward: number;
  termination: string | null;
  facts: EpisodeFacts;
  fault?: FaultAuthor;
  faultDescription?: string;
  faultType?: FaultType | null;
  faultTypeDescription?: string | null;
  review?: ConversationReview | null;
}

export interface AnalysisSummary {
  episodes: number;
  failed: number;
  byTermination: Record<string, number>;
  /** Ground-truth actions missed, by tool name, most missed first. */
  missingActionsByTool: Array<{ name: string; count: number }>;
  episodesWithMissingActions: number;
  episodesWithArgumentDiffs: number;
  episodesWithMissingOutputs: number;
  episodesWithUnmetAssertions: number;
  episodesWithToolErrors: number;
  /** Episodes whose file carries no ground truth (no task): their action facts are empty. */
  episodesWithoutGroundTruth: number;
  /** With a judge: failed episodes by fault and, for agent faults, by type (count and share in %, rounded to 2 places as the original prints). */
  byFault: Array<{ fault: FaultAuthor; count: number; percent: number }> | null;
  byFaultType: Array<{ faultType: FaultType; count: number; percent: number }> | null;
  /** τ²'s reviews (recorded or made now): errors by source and severity. */
  reviewErrors: Record<string, Record<string, number>> | null;
}

export interface Analysis {
  episodes: AnalyzedEpisode[];
  summary: AnalysisSummary;
  /** The judge's model and usage; null without one. */
  judge: { model: string | null; usage: JudgeUsage } | null;
  /** What the analysis could not say without a judge. */
  needsJudge: string[];
}

export interface AnalyzeOptions {
  judge?: FailureJudge;
  judgeModel?: string | null;
  /** Judge calls in flight at once (default 4). */
  concurrency?: number;
  /** Only the first n failed episodes (τ-bench's `--max-num-failed-results`). */
  maxFailed?: number;
  /** Called after each judged episode (progress). */
  onJudged?(done: number, total: number): void;
}

/** The deterministic part: facts of every failed episode (reward not 1), no model call. */
export function failedEpisodes(records: Iterable<EpisodeRecord>, maxFailed?: number): AnalyzedEpisode[] {
  const out: AnalyzedEpisode[] = [];
  for (const record of records) {
    if (isSuccessfulReward(record.reward)) continue;
    if (maxFailed !== undefined && out.length >= maxFailed) break;
    out.push({
      suite: record.suite,
      domain: record.domain,
      taskId: record.taskId,
      trial: record.trial,
      reward: record.reward,
      termination: record.termination,
      facts: episodeFacts(record),
    });
  }
  return out;
}

const percent = (count: number, total: number) => (total === 0 ? 0 : Math.round((count / total) * 10000) / 100);

/** The summary tables of an analysis. */
export function summarize(total: number, episodes: readonly AnalyzedEpisode[], judged: boolean, reviews: ReadonlyArray<ConversationReview | null>): AnalysisSummary {
  const byTermination: Record<string, number> = {};
  const missing = new Map<string, number>();
  for (const episode of episodes) {
    const reason = episode.termination ?? "unknown";
    byTermination[reason] = (byTermination[reason] ?? 0) + 1;
    for (const action of episode.facts.missingActions) missing.set(action.name, (missing.get(action.name) ?? 0) + 1);
  }
  const count = (predicate: (facts: EpisodeFacts) => boolean) => episodes.filter((episode) => predicate(episode.facts)).length;
  const agentFaults = episodes.filter((episode) => episode.fault === "agent");
  let reviewErrors: AnalysisSummary["reviewErrors"] = null;
  for (const review of reviews) {
    if (!review) continue;
    reviewErrors ??= {};
    for (const error of review.errors) {
      const bySeverity = (reviewErrors[error.source] ??= {});
      bySeverity[error.severity ?? "unknown"] = (bySeverity[error.severity ?? "unknown"] ?? 0) + 1;
    }
  }
  return {
    episodes: total,
    failed: episodes.length,
    byTermination,
    missingActionsByTool: [...missing].map(([name, n]) => ({ name, count: n })).sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1)),
    episodesWithMissingActions: count((facts) => facts.missingActions.length > 0),
    episodesWithArgumentDiffs: count((facts) => facts.argumentDiffs.length > 0),
    episodesWithMissingOutputs: count((facts) => facts.missingOutputs.length > 0),
    episodesWithUnmetAssertions: count((facts) => facts.unmetAssertions.length > 0),
    episodesWithToolErrors: count((facts) => facts.toolErrors.length > 0),
    episodesWithoutGroundTruth: count((facts) => !facts.groundTruth),
    byFault: judged
      ? FAULT_AUTHORS.map((fault) => {
          const n = episodes.filter((episode) => episode.fault === fault).length;
          return { fault, count: n, percent: percent(n, episodes.length) };
        })
      : null,
    byFaultType: judged
      ? FAULT_TYPES.map((faultType) => {
          const n = agentFaults.filter((episode) => episode.faultType === faultType).length;
          return { faultType, count: n, percent: percent(n, agentFaults.length) };
        })
      : null,
    reviewErrors,
  };
}

/** Runs `tasks` with at most `limit` at once, in order of their results. */
async function inOrder<T>(count: number, limit: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
  return results;
}

/**
 * Analyses records: facts of every failed episode; with a judge, fault (user / agent /
 * environment), fault type and description of each, and its review when the judge was asked for
 * one; recorded τ² reviews are counted either way. Without a judge no model is called.
 */
export async function analyzeRecords(records: readonly EpisodeRecord[], options: AnalyzeOptions = {}): Promise<Analysis> {
  const episodes = failedEpisodes(records, options.maxFailed);
  const byKey = new Map(records.map((record) => [`${record.suite}\0${record.domain}\0${record.taskId}\0${record.trial}`, record]));
  const recordOf = (episode: AnalyzedEpisode) => byKey.get(`${episode.suite}\0${episode.domain}\0${episode.taskId}\0${episode.trial}`) as EpisodeRecord;
  const judge = options.judge;
  if (judge) {
    let done = 0;
    await inOrder(episodes.length, options.concurrency ?? 4, async (index) => {
      const episode = episodes[index];
      const verdict = await judge.judge(recordOf(episode), episode.facts);
      Object.assign(episode, {
        fault: verdict.fault,
        faultDescription: verdict.faultDescription,
        faultType: verdict.faultType,
        faultTypeDescription: verdict.faultTypeDescription,
        ...(verdict.review ? { review: verdict.review } : {}),
      });
      options.onJudged?.(++done, episodes.length);
    });
  }
  const reviews = episodes.map((episode) => episode.review ?? recordOf(episode).review ?? null);
  const needsJudge = judge ? [] : ["fault (user / agent / environment) and its description", "fault type of agent faults", "conversation review (where the file has none)"];
  return {
    episodes,
    summary: summarize(records.length, episodes, Boolean(judge), reviews),
    judge: judge ? { model: options.judgeModel ?? null, usage: judge.usage } : null,
    needsJudge,
  };
}

const short = (value: unknown, width = 80): string => {
  const text = value === undefined ? "(absent)" : JSON.stringify(value);
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
};

/** One failed episode as lines of text. */
function episodeLines(episode: AnalyzedEpisode): string[] {
  const facts = episode.facts;
  const head = `${episode.domain ?? episode.suite} task ${episode.taskId} trial ${episode.trial}: reward ${episode.reward}, ended by ${episode.termination ?? "unknown"}`;
  const lines = [head];
  if (!facts.groundTruth) lines.push("  (the file carries no ground truth for this episode)");
  for (const action of facts.missingActions) lines.push(`  missing: ${action.name}(${short(action.arguments, 160)})`);
  for (const diff of facts.argumentDiffs) {
    const where = diff.step.messageIndex !== null ? ` at message ${diff.step.messageIndex}` : "";
    lines.push(`  different arguments: ${diff.name}${where}: ${diff.fields.map((field) => `${field.field} expected ${short(field.expected, 40)}, got ${short(field.actual, 40)}`).join("; ")}`);
  }
  if (facts.extraActions.length > 0) lines.push(`  calls not in the ground truth: ${facts.extraActions.map((step) => step.name).join(", ")}`);
  for (const output of facts.missingOutputs) lines.push(`  not said: ${JSON.stringify(output)}`);
  for (const assertion of facts.unmetAssertions) lines.push(`  unmet ${assertion.kind} assertion: ${assertion.text}`);
  if (facts.firstDivergence) {
    const actual = facts.firstDivergence.actual;
    lines.push(
      `  first divergence: expected #${facts.firstDivergence.expectedIndex} ${facts.firstDivergence.expected.name}, ${actual ? `the episode called ${actual.name}${actual.messageIndex !== null ? ` (message ${actual.messageIndex})` : ""}` : "the episode made no further call"}`,
    );
  }
  if (facts.toolErrors.length > 0) lines.push(`  tool errors: ${facts.toolErrors.map((error) => `${error.name}: ${short(error.result, 60)}`).join("; ")}`);
  if (episode.fault) lines.push(`  fault: ${episode.fault}${episode.faultType ? ` (${episode.faultType})` : ""} — ${episode.faultTypeDescription ?? episode.faultDescription ?? ""}`);
  return lines;
}

/** The error breakdown tables. */
function summaryTables(analysis: Analysis, format: "text" | "markdown"): string[] {
  const summary = analysis.summary;
  const out: string[] = [];
  out.push(
    renderTable(
      ["Failed episodes", "Missing actions", "Different arguments", "Not said", "Unmet assertions", "Tool errors"],
      [
        [
          `${summary.failed} of ${summary.episodes}`,
          String(summary.episodesWithMissingActions),
          String(summary.episodesWithArgumentDiffs),
          String(summary.episodesWithMissingOutputs),
          String(summary.episodesWithUnmetAssertions),
          String(summary.episodesWithToolErrors),
        ],
      ],
      format,
    ),
  );
  const terminations = Object.entries(summary.byTermination);
  if (terminations.length > 0)
    out.push(
      renderTable(
        ["Ended by", "Failed episodes"],
        terminations.map(([reason, n]) => [reason, String(n)]),
        format,
      ),
    );
  if (summary.missingActionsByTool.length > 0)
    out.push(
      renderTable(
        ["Missed tool", "Times"],
        summary.missingActionsByTool.slice(0, 15).map((row) => [row.name, String(row.count)]),
        format,
      ),
    );
  if (summary.byFault)
    out.push(
      renderTable(
        ["Fault", "Episodes", "%"],
        summary.byFault.map((row) => [row.fault, String(row.count), row.percent.toFixed(2)]),
        format,
      ),
    );
  if (summary.byFaultType)
    out.push(
      renderTable(
        ["Agent fault type", "Episodes", "%"],
        summary.byFaultType.map((row) => [row.faultType, String(row.count), row.percent.toFixed(2)]),
        format,
      ),
    );
  if (summary.reviewErrors) {
    const rows = Object.entries(summary.reviewErrors).flatMap(([source, bySeverity]) => Object.entries(bySeverity).map(([severity, n]) => [source, severity, String(n)]));
    out.push(renderTable(["Review: source", "Severity", "Errors"], rows, format));
  }
  return out;
}

/** `analyze` as text or Markdown: the breakdown tables, then every failed episode. */
export function analysisText(analysis: Analysis, format: "text" | "markdown" = "text"): string {
  const parts = summaryTables(analysis, format);
  if (analysis.judge) {
    const usage = analysis.judge.usage;
    parts.push(
      `Judge${analysis.judge.model ? ` ${analysis.judge.model}` : ""}: ${usage.calls} call(s), ${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens, cost ${usage.cost === null ? "unknown" : `$${usage.cost.toFixed(4)}`}`,
    );
  } else if (analysis.episodes.length > 0) parts.push(`Needs a judge model (--judge-model), not computed: ${analysis.needsJudge.join("; ")}.`);
  const episodes = analysis.episodes.map((episode) => episodeLines(episode).join("\n"));
  if (format === "markdown") parts.push(episodes.map((text) => `\`\`\`\n${text}\n\`\`\``).join("\n\n"));
  else parts.push(...episodes);
  return parts.join("\n\n");
}

/** `analyze --format json`: `{episodes, summary, judge, needsJudge}`. */
export function analysisJson(analysis: Analysis): Record<string, unknown> {
  return { episodes: analysis.episodes, summary: analysis.summary, judge: analysis.judge, needsJudge: analysis.needsJudge };
}
