/**
 * `str.split()` and `str.strip()` without arguments: both use CPython's whitespace
 * (`str.isspace()`: `\t\n\v\f\r`, the information separators `\x1c`–`\x1f`, space, `\x85`, no-break
 * space, the Unicode space separators, `\u2028`, `\u2029`). JavaScript's `\s` differs (it has
 * `\ufeff`, lacks `\x1c`–`\x1f` and `\x85`), so the sets come from CPython's table.
 */
import { charTables } from "./char-tables.ts";
import { pyAttributeError } from "./errors.ts";
import type { PyValue } from "./values.ts";

/** Every whitespace character is in the BMP, at most U+3000: one flag per code unit up to there. */
let spaceFlags: Uint8Array | undefined;

function whitespaceFlags(): Uint8Array {
  if (spaceFlags) return spaceFlags;
  const ranges = [...charTables().space.ranges()];
  spaceFlags = new Uint8Array(ranges[ranges.length - 1][1] + 1);
  for (const [lo, hi] of ranges) spaceFlags.fill(1, lo, hi + 1);
  return spaceFlags;
}

/** Whether the UTF-16 unit `code` is whitespace (a surrogate never is). */
function isSpaceUnit(flags: Uint8Array, code: number): boolean {
  return code < flags.length && flags[code] === 1;
}

/**
 * Python `value.split()` (no separator): the runs of non-whitespace, leading and trailing
 * whitespace ignored, never an empty string. AttributeError for a non-str.
 */
export function pySplitWhitespace(value: PyValue | undefined): string[] {
  if (typeof value !== "string") throw pyAttributeError(value, "split");
  const flags = whitespaceFlags();
  const words: string[] = [];
  let start = -1;
  for (let index = 0; index < value.length; index++) {
    if (isSpaceUnit(flags, value.charCodeAt(index))) {
      if (start >= 0) words.push(value.slice(start, index));
      start = -1;
    } else if (start < 0) start = index;
  }
  if (start >= 0) words.push(value.slice(start));
  return words;
}

/** Python `value.strip()` (no argument): leading and trailing whitespace removed. AttributeError for a non-str. */
export function pyStrip(value: PyValue | undefined): string {
  if (typeof value !== "string") throw pyAttributeError(value, "strip");
  const flags = whitespaceFlags();
  let start = 0;
  let end = value.length;
  while (start < end && isSpaceUnit(flags, value.charCodeAt(start))) start++;
  while (end > start && isSpaceUnit(flags, value.charCodeAt(end - 1))) end--;
  return value.slice(start, end);
}

/**
 * Python `value.isalnum()`: not empty and every character alphanumeric (`isalpha`, `isdecimal`,
 * `isdigit` or `isnumeric`), from CPython's table (its `\w` is exactly `isalnum()` or `_`).
 * AttributeError for a non-str.
 */
export function pyIsAlnum(value: PyValue | undefined): boolean {
  if (typeof value !== "string") throw pyAttributeError(value, "isalnum");
  if (value === "") return false;
  const word = charTables().word;
  for (const char of value) if (char === "_" || !word.has(char.codePointAt(0) as number)) return false;
  return true;
}
