/**
 * Whether two values print the same under a printer that sorts dict keys — τ²'s
 * `json.dumps(…, sort_keys=True)` (its database hash) and τ-bench's `to_hashable` (its data hash) —
 * decided without printing either. Why: both suites compare every record an episode or its ground
 * truth touched with the base's, and printing both sides of each was several percent of an oracle run.
 */
import { PyFloat, type PyDict, type PyValue } from "./values.ts";

/** {@link pySameLeaves}'s answer for two dicts (or models) of one size: the caller compares their entries by its own rule. */
export const PY_SAME_MAPS = "maps";

/**
 * What every "same text" rule shares: the same value, floats (NaN equals NaN; -0.0 is not 0.0, as
 * their texts differ) and lists item by item with `same`. Answers {@link PY_SAME_MAPS} when both
 * are dicts of one size.
 */
export function pySameLeaves(left: PyValue | undefined, right: PyValue | undefined, same: (left: PyValue | undefined, right: PyValue | undefined) => boolean): boolean | typeof PY_SAME_MAPS {
  if (left === right) return true;
  if (typeof left !== "object" || typeof right !== "object" || left === null || right === null) return false;
  if (left instanceof PyFloat) return right instanceof PyFloat && (Object.is(left.value, right.value) || (Number.isNaN(left.value) && Number.isNaN(right.value)));
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index++) if (!same(left[index], right[index])) return false;
    return true;
  }
  if (!(left instanceof Map) || !(right instanceof Map) || left.size !== right.size) return false;
  return PY_SAME_MAPS;
}

/**
 * True when two values have the same sorted-keys text: same types (an int and a float never match),
 * equal scalars, lists item by item, dicts key by key in any order. It may say false for values
 * whose texts are equal (an int held as a number and as a bigint); it never says true for values
 * whose texts differ, so a caller falls back to comparing the texts on false.
 */
export function pySameSortedText(left: PyValue | undefined, right: PyValue | undefined): boolean {
  const leaves = pySameLeaves(left, right, pySameSortedText);
  if (leaves !== PY_SAME_MAPS) return leaves;
  const rightMap = right as PyDict;
  for (const [key, item] of left as PyDict) {
    if (!rightMap.has(key) || !pySameSortedText(item, rightMap.get(key))) return false;
  }
  return true;
}
