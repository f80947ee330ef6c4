/**
 * Policy results as text, Markdown and JSON: the hits by rule, the adherence score, rules skipped
 * for want of a model, and each hit with the message it points at.
 */
import { formatNumber, renderTable } from "../tables.ts";
import type { PolicyReport } from "./engine.ts";

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
