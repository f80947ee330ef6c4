/**
 * An episode's end state against the ground-truth ("gold") end state, row by row: what the viewer
 * shows beside the evaluator's verdict. Results files hold no databases, so a suite that can
 * (`Suite.endStateDiffs`) replays the episode's state-changing calls and the task's gold actions on
 * fresh copies of the domain's data with the engine its evaluator uses, and compares the two with
 * `diffDatabases` (src/metrics/state-diff.ts). The types are plain JSON (the page embeds them).
 */
import type { PyValue } from "../value/index.ts";

/** One field that differs; a side is null where the field is absent. */
export interface StateFieldDiff {
  /** Dotted path inside the row (`address.city`); `` for a row that is not a dict. */
  field: string;
  gold: string | null;
  actual: string | null;
}

/** One row (record) that differs: `added` is in the episode's end state only, `removed` in the gold end state only. */
export interface StateRowDiff {
  key: string;
  change: "added" | "removed" | "changed";
  /** For `changed`, the fields that differ; for `added`/`removed`, one entry holding the whole row. */
  fields: StateFieldDiff[];
}

/** One table (collection) with the rows that differ. */
export interface StateTableDiff {
  /** The table's name (τ²'s user-side database prefixes it: `user/devices`). */
  table: string;
  rows: StateRowDiff[];
  /** Rows left out when a table differs in more than the diff keeps. */
  omittedRows: number;
}

/**
 * The comparison for one episode. `computed`: `tables` lists what differs (empty: the end states are
 * equal). `unavailable`: `reason` says why it could not be computed (no data, no gold actions, the
 * episode did not run).
 */
export interface EndStateDiff {
  status: "computed" | "unavailable";
  tables: StateTableDiff[];
  reason: string | null;
  /** What was compared (`the episode's 4 state-changing calls vs the task's 3 gold actions`). */
  compared: string | null;
}

/** The end-state diffs of a results file's episodes, by `taskId#trial`. */
export interface EndStateDiffs {
  episodes: Map<string, EndStateDiff>;
  /** The domain whose data was used (`retail`, τ² `airline`). */
  domain: string;
}

/** How a suite renders and compares its values. */
export interface StateDiffRendering {
  /** A value as the suite shows it (its tools' JSON). */
  render(value: PyValue): string;
  /** Equality as the suite's hash sees it. */
  same(gold: PyValue, actual: PyValue): boolean;
}
