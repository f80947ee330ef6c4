/**
 * `str.split()` and `str.strip()` without arguments: both use CPython's whitespace
 * (`str.isspace()`: `\t\n\v\f\r`, the information separators `\x1c`–`\x1f`, space, `\x85`, no-break
 * space, the Unicode space separators, `\u2028`, `\u2029`). JavaScript's `\s` differs (it has
 * `\ufeff`, lacks `\x1c`–`\x1f` and `\x85`), so the sets come from CPython's table.
 */
import { charTables } from "./char-tables.ts";
import { pyAttributeError } from "./errors.ts";
import type { PyValue } from "./values.ts";

let patterns: { word: RegExp; edges: RegExp } | undefined;

/** The whitespace RegExps, built once from the table (every whitespace code point is in the BMP). */
function whitespacePatterns(): { word: RegExp; edges: RegExp } {
  if (patterns) return patterns;
  const space = charTables().space.toRegExpClass();
  patterns = { word: new RegExp(`${space.replace("[", "[^")}+`, "gu"), edges: new RegExp(`^${space}+|${space}+$`, "gu") };
  return patterns;
}

/**
 * Python `value.split()` (no separator): the runs of non-whitespace, leading and trailing
 * whitespace ignored, never an empty string. AttributeError for a non-str.
 */
export function pySplitWhitespace(value: PyValue | undefined): string[] {
  if (typeof value !== "string") throw pyAttributeError(value, "split");
  return value.match(whitespacePatterns().word) ?? [];
}

/** Python `value.strip()` (no argument): leading and trailing whitespace removed. AttributeError for a non-str. */
export function pyStrip(value: PyValue | undefined): string {
  if (typeof value !== "string") throw pyAttributeError(value, "strip");
  return value.replace(whitespacePatterns().edges, "");
}
