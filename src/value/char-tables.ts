/**
 * CPython 3.11's per-character facts, decoded once from unicode-tables.ts: the sets behind `\w`,
 * `\d`, `\s` (Unicode and ASCII), `str.isspace()`, and the simple case mappings the regex engine
 * folds with. Shared by `pySplitWhitespace` and the regex translation. Not Python operations
 * themselves, hence no `py` prefix.
 */
import { CodePointSet } from "./code-point-set.ts";
import { DECIMAL_TABLE, EXTRA_CASES_TABLE, LOWER_TABLE, SPACE_TABLE, UPPER_TABLE, WORD_TABLE } from "./unicode-tables.ts";

function decodeSet(text: string): CodePointSet {
  const ranges: Array<[number, number]> = [];
  let next = 0;
  for (const entry of text.split(",")) {
    const [gap, length] = entry.split(".").map((part) => parseInt(part, 36));
    const lo = next + gap;
    ranges.push([lo, lo + length]);
    next = lo + length + 1;
  }
  return CodePointSet.fromRanges(ranges);
}

function decodeMap(text: string): Map<number, number> {
  const map = new Map<number, number>();
  let start = 0;
  for (const entry of text.split(",")) {
    const [offset, count, step, delta] = entry.split(".").map((part) => parseInt(part, 36));
    start += offset;
    for (let index = 0; index < count; index++) map.set(start + index * step, start + index * step + delta);
  }
  return map;
}

function decodeExtraCases(text: string): Map<number, readonly number[]> {
  const map = new Map<number, readonly number[]>();
  for (const entry of text.split(",")) {
    const [key, others] = entry.split(":");
    map.set(
      parseInt(key, 36),
      others.split(".").map((part) => parseInt(part, 36)),
    );
  }
  return map;
}

/** The decoded tables (see {@link charTables}). */
export interface CharTables {
  /** Unicode `\w`: `str.isalnum()` or `_`. */
  readonly word: CodePointSet;
  /** Unicode `\d`: `str.isdecimal()`. */
  readonly decimal: CodePointSet;
  /** Unicode `\s`, `str.isspace()`, the separators of `str.split()`. */
  readonly space: CodePointSet;
  /** `_sre.unicode_tolower` where it is not the identity. */
  readonly lower: ReadonlyMap<number, number>;
  /** The simple uppercase mapping where it is not the identity. */
  readonly upper: ReadonlyMap<number, number>;
  /** Code points whose lowercase differs from themselves (the keys of `lower`). */
  readonly lowered: CodePointSet;
  /** Code points whose uppercase differs from themselves (the keys of `upper`). */
  readonly uppered: CodePointSet;
  /** `_sre.unicode_iscased`: the lowercase or the uppercase differs. */
  readonly cased: CodePointSet;
  /** `re._casefix._EXTRA_CASES`: lowercase letters equal ignoring case to other lowercase letters. */
  readonly extraCases: ReadonlyMap<number, readonly number[]>;
}

let tables: CharTables | undefined;

/** The tables, decoded on first use (a few milliseconds). */
export function charTables(): CharTables {
  if (tables) return tables;
  const lower = decodeMap(LOWER_TABLE);
  const upper = decodeMap(UPPER_TABLE);
  const lowered = CodePointSet.of(lower.keys());
  const uppered = CodePointSet.of(upper.keys());
  tables = {
    word: decodeSet(WORD_TABLE),
    decimal: decodeSet(DECIMAL_TABLE),
    space: decodeSet(SPACE_TABLE),
    lower,
    upper,
    lowered,
    uppered,
    cased: lowered.union(uppered),
    extraCases: decodeExtraCases(EXTRA_CASES_TABLE),
  };
  return tables;
}

/** ASCII `\w` of `re.ASCII` patterns: `[0-9A-Za-z_]`. */
export const ASCII_WORD = CodePointSet.fromRanges([
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
]);
/** ASCII `\d`: `[0-9]`. */
export const ASCII_DIGIT = CodePointSet.fromRanges([[0x30, 0x39]]);
/** ASCII `\s`: C's `isspace` below 128, `[\t\n\v\f\r ]`. */
export const ASCII_SPACE = CodePointSet.fromRanges([
  [0x09, 0x0d],
  [0x20, 0x20],
]);
/** The ASCII upper-case letters, the only code points `re.ASCII` case folding changes. */
export const ASCII_UPPER = CodePointSet.fromRanges([[0x41, 0x5a]]);
