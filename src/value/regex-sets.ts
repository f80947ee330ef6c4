/**
 * The characters one position of a Python pattern accepts, as an explicit {@link CodePointSet}:
 * literals and sets under IGNORECASE exactly as CPython 3.11's `re._compiler` compiles them
 * (`_optimize_charset`: the set is tested on the *lowercased* character, BMP members are lowercased
 * at compile time with `re._casefix`'s extra equivalences, members beyond the BMP go to a tail that
 * is tested unlowered or as `RANGE_UNI_IGNORE`), and the categories `\d \s \w` of str patterns
 * (Unicode) or of `re.ASCII`. JavaScript's `i` flag folds differently (`İ`, `ſ`, Kelvin sign, …),
 * so the translation never uses it. Not Python operations themselves: no `py` prefix.
 */
import { ASCII_DIGIT, ASCII_SPACE, ASCII_UPPER, ASCII_WORD, charTables } from "./char-tables.ts";
import { CodePointSet } from "./code-point-set.ts";
import { type Category, RE_FLAGS, type SetItem } from "./regex-syntax.ts";

const BMP_END = 0xffff;
/** `_sre.ascii_iscased`: the ASCII letters. */
const ASCII_LETTERS = CodePointSet.fromRanges([
  [0x41, 0x5a],
  [0x61, 0x7a],
]);

/** The lowercase `_sre` folds with under these flags (Unicode, or ASCII letters only). */
function lowerOf(code: number, unicode: boolean): number {
  if (unicode) return charTables().lower.get(code) ?? code;
  return code >= 0x41 && code <= 0x5a ? code + 32 : code;
}

/** `_sre.unicode_iscased` / `_sre.ascii_iscased`. */
function isCased(code: number, unicode: boolean): boolean {
  return (unicode ? charTables().cased : ASCII_LETTERS).has(code);
}

/** The characters whose lowercase is in `targets`: what a test on the lowered character accepts. */
function lowerPreimage(targets: CodePointSet, unicode: boolean): CodePointSet {
  if (!unicode) {
    const upper = ASCII_UPPER.membersWithin(0, 0x7f).filter((code) => targets.has(code + 32));
    return targets.minus(ASCII_UPPER).union(CodePointSet.of(upper));
  }
  const { lower, lowered } = charTables();
  const extra: number[] = [];
  for (const [code, lowercase] of lower) if (targets.has(lowercase)) extra.push(code);
  return targets.minus(lowered).union(CodePointSet.of(extra));
}

/** The set of a category under the pattern's type flag. */
export function categorySet(category: Category, unicode: boolean): CodePointSet {
  const tables = unicode ? charTables() : undefined;
  switch (category) {
    case "digit":
      return tables ? tables.decimal : ASCII_DIGIT;
    case "not_digit":
      return (tables ? tables.decimal : ASCII_DIGIT).complement();
    case "space":
      return tables ? tables.space : ASCII_SPACE;
    case "not_space":
      return (tables ? tables.space : ASCII_SPACE).complement();
    case "word":
      return tables ? tables.word : ASCII_WORD;
    case "not_word":
      return (tables ? tables.word : ASCII_WORD).complement();
  }
}

/** `\w` under the flags (what `\b` and `\B` look at). */
export function wordSet(flags: number): CodePointSet {
  return categorySet("word", (flags & RE_FLAGS.UNICODE) !== 0);
}

/** What a LITERAL accepts: the character itself, or under IGNORECASE every character folding to it. */
export function literalSet(code: number, flags: number): CodePointSet {
  const unicode = (flags & RE_FLAGS.UNICODE) !== 0;
  if (!(flags & RE_FLAGS.IGNORECASE) || !isCased(code, unicode)) return CodePointSet.of([code]);
  const lowercase = lowerOf(code, unicode);
  const extra = unicode ? (charTables().extraCases.get(lowercase) ?? []) : [];
  return lowerPreimage(CodePointSet.of([lowercase, ...extra]), unicode);
}

/** The lowercased BMP members a set contributes to the compile-time charmap, and what goes to the tail. */
interface FoldedSet {
  charmap: CodePointSet;
  tail: SetItem[];
  hasCased: boolean;
  negate: boolean;
}

/** `_optimize_charset` with a fixup: lowercase the BMP members (plus extra cases), keep the rest for the tail. */
function foldSet(items: readonly SetItem[], unicode: boolean): FoldedSet {
  const folded: FoldedSet = { charmap: CodePointSet.EMPTY, tail: [], hasCased: false, negate: false };
  const codes: number[] = [];
  for (const item of items) {
    if (item.op === "negate") folded.negate = true;
    else if (item.op === "category") folded.tail.push(item);
    else if (item.op === "literal") {
      const lowercase = lowerOf(item.code, unicode);
      if (lowercase > BMP_END) {
        folded.hasCased = true;
        folded.tail.push(item);
        continue;
      }
      codes.push(lowercase);
      if (isCased(item.code, unicode)) folded.hasCased = true;
    } else foldRange(item.lo, item.hi, unicode, folded, codes);
  }
  folded.charmap = withExtraCases(folded.charmap.union(CodePointSet.of(codes)), unicode);
  return folded;
}

/** A range's BMP part lowercased into the charmap; a range reaching beyond the BMP also goes to the tail as RANGE_UNI_IGNORE. */
function foldRange(lo: number, hi: number, unicode: boolean, folded: FoldedSet, codes: number[]): void {
  const bmpHi = Math.min(hi, BMP_END);
  if (lo <= bmpHi) {
    const changed = unicode ? charTables().lowered : ASCII_UPPER;
    const members = CodePointSet.fromRanges([[lo, bmpHi]]);
    folded.charmap = folded.charmap.union(members.minus(changed));
    for (const code of changed.membersWithin(lo, bmpHi)) codes.push(lowerOf(code, unicode));
  }
  if (hi > BMP_END) {
    folded.hasCased = true;
    folded.tail.push({ op: "range", lo, hi });
  } else if (!folded.hasCased && (unicode ? charTables().cased.overlaps(lo, hi) : ASCII_LETTERS.overlaps(lo, hi))) {
    folded.hasCased = true;
  }
}

/** The charmap members' `re._casefix` equivalents (Unicode only). */
function withExtraCases(charmap: CodePointSet, unicode: boolean): CodePointSet {
  if (!unicode) return charmap;
  const extra: number[] = [];
  for (const [code, others] of charTables().extraCases) if (charmap.has(code)) extra.push(...others);
  return charmap.union(CodePointSet.of(extra));
}

/** A tail member tested on the lowered character: an unlowered literal, RANGE_UNI_IGNORE (the range or its uppercase), a category. */
function tailSet(item: SetItem, unicode: boolean): CodePointSet {
  if (item.op === "literal") return CodePointSet.of([item.code]);
  if (item.op === "category") return categorySet(item.category, unicode);
  if (item.op !== "range") return CodePointSet.EMPTY;
  const byUpper: number[] = [];
  for (const [code, uppercase] of charTables().upper) if (uppercase >= item.lo && uppercase <= item.hi) byUpper.push(code);
  return CodePointSet.fromRanges([[item.lo, item.hi]]).union(CodePointSet.of(byUpper));
}

/** What an IN (a `[...]` set, `\d`, a branch of single characters) accepts under the flags. */
export function charsetSet(items: readonly SetItem[], flags: number): CodePointSet {
  const unicode = (flags & RE_FLAGS.UNICODE) !== 0;
  if (flags & RE_FLAGS.IGNORECASE) {
    const folded = foldSet(items, unicode);
    if (folded.hasCased) {
      const tested = folded.tail.reduce((set, item) => set.union(tailSet(item, unicode)), folded.charmap);
      const accepted = lowerPreimage(tested, unicode);
      return folded.negate ? accepted.complement() : accepted;
    }
  }
  let set = CodePointSet.EMPTY;
  let negate = false;
  for (const item of items) {
    if (item.op === "negate") negate = true;
    else if (item.op === "literal") set = set.union(CodePointSet.of([item.code]));
    else if (item.op === "range") set = set.union(CodePointSet.fromRanges([[item.lo, item.hi]]));
    else set = set.union(categorySet(item.category, unicode));
  }
  return negate ? set.complement() : set;
}
