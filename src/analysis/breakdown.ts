/**
 * τ²'s breakdowns beyond pass^k (`compute_metrics` and `break_down_metrics.py`), for both suites
 * where the data allows: mean reward by component (τ²: DB, ENV_ASSERTION, ACTION, COMMUNICATE,
 * NL_ASSERTION; τ-bench: actions, outputs), ground-truth actions performed by tool, read and write
 * action correctness (τ² records each gold action's type), database matches, terminations.
 */
import type { EpisodeRecord } from "../core/episode-record.ts";
import { episodeFacts } from "./facts.ts";
import { formatNumber, renderTable } from "./tables.ts";

export interface Breakdown {
  episodes: number;
  /** Component → mean score over the episodes whose reward has it, and how many have it. */
  byComponent: Array<{ component: string; mean: number; episodes: number }>;
  /** Ground-truth actions by tool: how many the episodes were asked for, how many they performed. */
  byTool: Array<{ tool: string; expected: number; performed: number }>;
  /** τ²'s READ/WRITE action metrics (null where the file records no action types). */
  readActions: { total: number; correct: number } | null;
  writeActions: { total: number; correct: number } | null;
  database: { match: number; mismatch: number; notChecked: number };
  terminations: Record<string, number>;
}

/** The breakdown of records (infrastructure errors left out, as τ²'s metrics do). */
export function breakdownOf(records: readonly EpisodeRecord[]): Breakdown {
  const components = new Map<string, { sum: number; episodes: number }>();
  const tools = new Map<string, { expected: number; performed: number }>();
  const actions = { read: { total: 0, correct: 0, seen: false }, write: { total: 0, correct: 0, seen: false } };
  const database = { match: 0, mismatch: 0, notChecked: 0 };
  const terminations: Record<string, number> = {};
  let episodes = 0;
  for (const record of records) {
    const reason = record.termination ?? "unknown";
    terminations[reason] = (terminations[reason] ?? 0) + 1;
    if (record.termination === "infra_error") continue;
    episodes++;
    for (const [component, score] of Object.entries(record.rewardBreakdown)) {
      const row = components.get(component) ?? { sum: 0, episodes: 0 };
      row.sum += score;
      row.episodes++;
      components.set(component, row);
    }
    const match = record.expected?.databaseMatch ?? null;
    if (match === null) database.notChecked++;
    else if (match) database.match++;
    else database.mismatch++;
    if (!record.expected || record.expected.actions.length === 0) continue;
    const missing = new Set(episodeFacts(record).missingActions.map((action) => action.expectedIndex));
    record.expected.actions.forEach((action, index) => {
      const performed = !missing.has(index);
      const row = tools.get(action.name) ?? { expected: 0, performed: 0 };
      row.expected++;
      if (performed) row.performed++;
      tools.set(action.name, row);
      const kind = action.toolType === "read" || action.toolType === "write" ? actions[action.toolType] : null;
      if (kind) {
        kind.seen = true;
        kind.total++;
        if (action.matched ?? performed) kind.correct++;
      }
    });
  }
  return {
    episodes,
    byComponent: [...components].map(([component, row]) => ({ component, mean: row.sum / row.episodes, episodes: row.episodes })),
    byTool: [...tools].map(([tool, row]) => ({ tool, ...row })).sort((a, b) => a.performed / a.expected - b.performed / b.expected || (a.tool < b.tool ? -1 : 1)),
    readActions: actions.read.seen ? { total: actions.read.total, correct: actions.read.correct } : null,
    writeActions: actions.write.seen ? { total: actions.write.total, correct: actions.write.correct } : null,
    database,
    terminations,
  };
}

/** `report --breakdown` as text or Markdown. */
export function breakdownText(breakdown: Breakdown, format: "text" | "markdown"): string {
  const parts: string[] = [];
  if (breakdown.byComponent.length > 0)
    parts.push(
      renderTable(
        ["Reward component", "Mean", "Episodes"],
        breakdown.byComponent.map((row) => [row.component, formatNumber(row.mean), String(row.episodes)]),
        format,
      ),
    );
  const ratio = (value: { total: number; correct: number } | null) => (value === null ? "n/a" : `${value.correct}/${value.total}`);
  parts.push(
    renderTable(
      ["DB match", "DB mismatch", "DB not checked", "Read actions correct", "Write actions correct"],
      [[String(breakdown.database.match), String(breakdown.database.mismatch), String(breakdown.database.notChecked), ratio(breakdown.readActions), ratio(breakdown.writeActions)]],
      format,
    ),
  );
  if (breakdown.byTool.length > 0)
    parts.push(
      renderTable(
        ["Tool (ground truth)", "Expected", "Performed", "Share"],
        breakdown.byTool.map((row) => [row.tool, String(row.expected), String(row.performed), formatNumber(row.performed / row.expected)]),
        format,
      ),
    );
  parts.push(
    renderTable(
      ["Ended by", "Episodes"],
      Object.entries(breakdown.terminations).map(([reason, n]) => [reason, String(n)]),
      format,
    ),
  );
  return parts.join("\n\n");
}
