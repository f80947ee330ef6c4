/**
 * Policy results as text, Markdown and JSON: the hits by rule, the adherence score, rules skipped
 * for want of a model, and each hit with the message it points at.
 */
import { basename } from "node:path";
import type { StoredPolicy } from "../../core/run-manifest.ts";
import type { EpisodeSummary } from "../../core/run.ts";
import { formatNumber, renderTable } from "../tables.ts";
import type { PolicyHit, PolicyReport, Strictness } from "./engine.ts";

/** The rules table and the adherence line; with `details`, every hit (episode, message, rule, what). */
export function policyText(report: PolicyReport, format: "text" | "markdown", options: { label?: string; details?: boolean } = {}): string {
  const parts: string[] = [];
  const title = `Policy ${report.file}${options.label ? ` — ${options.label}` : ""}: adherence ${formatNumber(report.adherence)} (strictness ${report.strictness})`;
  parts.push(title);
  if (report.hitsByRule.length > 0)
    parts.push(
      renderTable(
        ["Rule", "Severity", "Hits", "Episodes"],
        report.hitsByRule.map((row) => [row.ruleId, row.severity, String(row.hits), String(row.episodes)]),
        format,
      ),
    );
  else parts.push("no rule was broken");
  for (const skipped of report.skipped) parts.push(`skipped ${skipped.ruleId}: ${skipped.reason}`);
  if (options.details) {
    const rows = report.episodes.flatMap((episode) =>
      episode.hits.map((hit) => [
        `${episode.domain ?? episode.suite}/${episode.taskId}`,
        String(episode.trial),
        hit.messageIndex === null ? "-" : String(hit.messageIndex),
        hit.ruleId,
        hit.severity,
        hit.detail,
      ]),
    );
    if (rows.length > 0) parts.push(renderTable(["Task", "Trial", "Message", "Rule", "Severity", "What"], rows, format));
  }
  return parts.join("\n");
}

/** The policy report as JSON (what a viewer imports: hits pinned to message indices). */
export function policyJson(report: PolicyReport): Record<string, unknown> {
  return { file: report.file, strictness: report.strictness, adherence: report.adherence, hitsByRule: report.hitsByRule, skipped: report.skipped, episodes: report.episodes };
}

/**
 * The check as a results file stores it (`run --policy`): the rule file by its name and content
 * hash (no directory: nothing machine-dependent), the run's score, every episode's adherence and hits.
 */
export function storedPolicyOf(report: PolicyReport, sha256: string): StoredPolicy {
  return {
    file: basename(report.file),
    sha256,
    strictness: report.strictness,
    adherence: report.adherence,
    hitsByRule: report.hitsByRule,
    skipped: report.skipped,
    episodes: report.episodes.map((episode) => ({ taskId: episode.taskId, trial: episode.trial, adherence: episode.adherence, hits: episode.hits })),
  };
}

/** A stored check as `report` shows it, with each episode's reward and domain from the results file it was read from. */
export function policyReportOfStored(stored: StoredPolicy, file: { suite: string; domain: string | null; summaries: readonly EpisodeSummary[] }): PolicyReport {
  const rewards = new Map(file.summaries.map((summary) => [`${summary.taskId}\u0000${summary.trial}`, summary.reward]));
  return {
    file: stored.file,
    strictness: stored.strictness as Strictness,
    adherence: stored.adherence,
    hitsByRule: stored.hitsByRule as PolicyReport["hitsByRule"],
    skipped: stored.skipped,
    episodes: stored.episodes.map((episode) => ({
      suite: file.suite,
      domain: file.domain,
      taskId: episode.taskId,
      trial: episode.trial,
      reward: rewards.get(`${episode.taskId}\u0000${episode.trial}`) ?? 0,
      hits: episode.hits as PolicyHit[],
      adherence: episode.adherence,
    })),
  };
}
