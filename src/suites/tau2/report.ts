/**
 * The report of a τ² run or results file: τ²'s metrics (average reward, pass^k, agent cost,
 * terminations, infrastructure errors counted but not scored) and the tasks whose score means
 * less than it seems.
 */
import Table from "cli-table3";
import type { Tau2JudgeUsage } from "./judge.ts";
import type { Tau2Metrics } from "./metrics.ts";
import type { Tau2TaskFlag } from "./task-flags.ts";

const fixed = (value: number | null, digits = 3) => (value === null ? "n/a" : value.toFixed(digits));

/** The judge's line: calls, tokens, cost (unknown when a price is). */
function judgeLine(usage: Tau2JudgeUsage | null): string {
  if (usage === null) return "NL judge: not needed by these tasks";
  const cost = usage.cost === null ? "cost unknown" : `$${usage.cost.toFixed(4)}`;
  return `NL judge: ${usage.calls} call(s), ${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens, ${cost}`;
}

export function tau2ReportText(label: string, metrics: Tau2Metrics, flags: readonly Tau2TaskFlag[], judgeUsage: Tau2JudgeUsage | null = null): string {
  const table = new Table({ head: ["run", "sims", "tasks", "avg reward", ...Object.keys(metrics.passK).map((k) => `pass^${k}`), "agent cost", "user cost", "infra errors"] });
  table.push([
    label,
    metrics.simulations,
    metrics.tasks,
    fixed(metrics.averageReward),
    ...Object.values(metrics.passK).map((value) => fixed(value)),
    metrics.averageAgentCost === null ? "unknown" : `$${metrics.averageAgentCost.toFixed(4)}`,
    metrics.averageUserCost === null ? "unknown" : `$${metrics.averageUserCost.toFixed(4)}`,
    metrics.infraErrors,
  ]);
  const lines = [table.toString()];
  lines.push(judgeLine(judgeUsage));
  lines.push(
    `Terminations: ${
      Object.entries(metrics.terminations)
        .map(([reason, count]) => `${reason} ${count}`)
        .join(", ") || "none"
    }`,
  );
  if (metrics.infraErrors > 0) lines.push(`Infrastructure errors: ${metrics.infraErrors} simulation(s), left out of every metric; rerun to retry them`);
  if (flags.length > 0) {
    lines.push(`⚠ ${flags.length} task(s) score without checking everything their basis names:`);
    const grouped = new Map<string, string[]>();
    for (const flag of flags) for (const reason of flag.reasons) grouped.set(reason, [...(grouped.get(reason) ?? []), flag.taskId]);
    for (const [reason, ids] of grouped) lines.push(`  ${ids.length} × ${reason}: ${ids.slice(0, 8).join(", ")}${ids.length > 8 ? ", …" : ""}`);
  }
  return lines.join("\n");
}
