/**
 * The one end-state comparison both suites' `Suite.endStateDiffs` use (the shapes are contracts, in
 * src/core/state-diff.ts): table by table, row by row, field by field over the engines' Python
 * values, with the suite deciding how values render and when two count as the same. Pure functions:
 * no engine, no I/O.
 */
import type { EndStateDiff, StateDiffRendering, StateFieldDiff, StateRowDiff, StateTableDiff } from "../core/state-diff.ts";
import type { PyValue } from "../value/index.ts";

/** Most rows kept per table: a runaway episode does not bloat the page. */
export const MAX_DIFF_ROWS = 50;

/** A diff that could not be computed, with why (the viewer shows the reason). */
export function unavailableDiff(reason: string): EndStateDiff {
  return { status: "unavailable", tables: [], reason, compared: null };
}

const isDict = (value: PyValue | undefined): value is Map<string, PyValue> => value instanceof Map;

/** The fields of two dict rows that differ, nested dicts by dotted path, other values whole. */
function fieldDiffs(gold: Map<string, PyValue>, actual: Map<string, PyValue>, prefix: string, how: StateDiffRendering, out: StateFieldDiff[]): void {
  const keys = [...gold.keys(), ...[...actual.keys()].filter((key) => !gold.has(key))];
  for (const key of keys) {
    const path = prefix ? `${prefix}.${key}` : key;
    const [left, right] = [gold.get(key), actual.get(key)];
    if (left !== undefined && right !== undefined) {
      if (left === right || how.same(left, right)) continue;
      if (isDict(left) && isDict(right)) fieldDiffs(left, right, path, how, out);
      else out.push({ field: path, gold: how.render(left), actual: how.render(right) });
    } else out.push({ field: path, gold: left === undefined ? null : how.render(left), actual: right === undefined ? null : how.render(right) });
  }
}

function rowDiff(key: string, gold: PyValue | undefined, actual: PyValue | undefined, how: StateDiffRendering): StateRowDiff | null {
  if (gold === undefined && actual === undefined) return null;
  if (gold === undefined) return { key, change: "added", fields: [{ field: "", gold: null, actual: how.render(actual as PyValue) }] };
  if (actual === undefined) return { key, change: "removed", fields: [{ field: "", gold: how.render(gold), actual: null }] };
  if (gold === actual || how.same(gold, actual)) return null;
  const fields: StateFieldDiff[] = [];
  if (isDict(gold) && isDict(actual)) fieldDiffs(gold, actual, "", how, fields);
  else fields.push({ field: "", gold: how.render(gold), actual: how.render(actual) });
  return fields.length === 0 ? null : { key, change: "changed", fields };
}

/** The rows of one table that differ: a dict of rows by key, a list by index, anything else as one row. */
function tableDiff(table: string, gold: PyValue | undefined, actual: PyValue | undefined, how: StateDiffRendering): StateTableDiff | null {
  if (gold === actual) return null;
  const rows: StateRowDiff[] = [];
  if (isDict(gold) && isDict(actual)) {
    for (const [key, row] of gold) {
      const diff = rowDiff(key, row, actual.get(key), how);
      if (diff) rows.push(diff);
    }
    for (const [key, row] of actual) if (!gold.has(key)) rows.push(rowDiff(key, undefined, row, how) as StateRowDiff);
  } else if (Array.isArray(gold) && Array.isArray(actual)) {
    for (let index = 0; index < Math.max(gold.length, actual.length); index++) {
      const diff = rowDiff(`[${index}]`, gold[index], actual[index], how);
      if (diff) rows.push(diff);
    }
  } else {
    const diff = rowDiff("(value)", gold, actual, how);
    if (diff) rows.push(diff);
  }
  if (rows.length === 0) return null;
  return { table, rows: rows.slice(0, MAX_DIFF_ROWS), omittedRows: Math.max(0, rows.length - MAX_DIFF_ROWS) };
}

/**
 * The tables of two databases (dicts of tables) that differ, in the gold database's table order.
 * Untouched records are usually the same object on both sides (the engines share them), so the
 * comparison costs little more than the records the two replays changed.
 */
export function diffDatabases(gold: Map<string, PyValue>, actual: Map<string, PyValue>, how: StateDiffRendering, tablePrefix = ""): StateTableDiff[] {
  const names = [...gold.keys(), ...[...actual.keys()].filter((name) => !gold.has(name))];
  return names.map((name) => tableDiff(`${tablePrefix}${name}`, gold.get(name), actual.get(name), how)).filter((diff): diff is StateTableDiff => diff !== null);
}

/** `2 rows differ in orders, 1 in users`: one line for a computed diff. */
export function stateDiffSummary(diff: EndStateDiff): string {
  if (diff.status === "unavailable") return `not computed: ${diff.reason ?? "unknown reason"}`;
  if (diff.tables.length === 0) return "the end state equals the gold end state";
  const parts = diff.tables.map((table, index) => {
    const count = table.rows.length + table.omittedRows;
    return `${count}${index === 0 ? ` row${count === 1 ? "" : "s"}` : ""} in ${table.table}`;
  });
  const total = diff.tables.reduce((sum, table) => sum + table.rows.length + table.omittedRows, 0);
  return `${total === 1 ? "1 row differs" : `${total} rows differ`}: ${parts.join(", ")}`;
}
