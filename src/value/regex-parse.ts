/**
 * CPython 3.11's `re._parser` for str patterns: the same tokens, the same parse tree (including its
 * common-prefix and branch-to-set rewrites, which change how IGNORECASE compiles), and the same
 * `re.error` for every pattern Python rejects, with its message and position. Whether a pattern is
 * valid decides what the grep tool searches (an invalid one is searched as `re.escape(pattern)`), so
 * this mirrors the original check by check. Not a Python operation itself: no `py` prefix.
 */
import { type PyException, pyOverflowError, pyValueError } from "./errors.ts";
import { pyStrRepr } from "./printing.ts";
import {
  type AtCode,
  type Category,
  type GroupWidths,
  MAXGROUPS,
  MAXREPEAT,
  RE_FLAGS,
  type ReNode,
  type Sequence,
  type SetItem,
  RegexTranslationError,
  pyReError,
  sameItem,
  sameNode,
  sequenceWidth,
} from "./regex-syntax.ts";
import { pyInt } from "./strings.ts";

const DIGITS = "0123456789";
const OCTDIGITS = "01234567";
const HEXDIGITS = "0123456789abcdefABCDEF";
const ASCIILETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const WHITESPACE = " \t\n\r\v\f";
const SPECIAL_CHARS = ".\\[{()*+?^$|";

/** Python's group nesting is bounded by its recursion limit (~450 groups), which depends on the caller's stack. */
export const MAX_NESTING = 100;

const ESCAPES: Record<string, number> = { "\\a": 7, "\\b": 8, "\\f": 12, "\\n": 10, "\\r": 13, "\\t": 9, "\\v": 11, "\\\\": 92 };
const CATEGORIES: Record<string, { at: AtCode } | { category: Category }> = {
  "\\A": { at: "beginning_string" },
  "\\b": { at: "boundary" },
  "\\B": { at: "non_boundary" },
  "\\d": { category: "digit" },
  "\\D": { category: "not_digit" },
  "\\s": { category: "space" },
  "\\S": { category: "not_space" },
  "\\w": { category: "word" },
  "\\W": { category: "not_word" },
  "\\Z": { at: "end_string" },
};
const FLAGS: Record<string, number> = {
  i: RE_FLAGS.IGNORECASE,
  L: RE_FLAGS.LOCALE,
  m: RE_FLAGS.MULTILINE,
  s: RE_FLAGS.DOTALL,
  x: RE_FLAGS.VERBOSE,
  a: RE_FLAGS.ASCII,
  t: RE_FLAGS.TEMPLATE,
  u: RE_FLAGS.UNICODE,
};
const TYPE_FLAGS = RE_FLAGS.ASCII | RE_FLAGS.LOCALE | RE_FLAGS.UNICODE;
const GLOBAL_FLAGS = RE_FLAGS.DEBUG | RE_FLAGS.TEMPLATE;

/** One token: a character or a backslash with the character after it (`re._parser.Tokenizer`). */
class Source {
  readonly chars: string[];
  private index = 0;
  next: string | null = null;
  private nextLength = 0;

  constructor(readonly pattern: string) {
    this.chars = Array.from(pattern);
    this.advance();
  }

  private advance(): void {
    let index = this.index;
    if (index >= this.chars.length) {
      this.next = null;
      this.nextLength = 0;
      return;
    }
    let char = this.chars[index];
    if (char === "\\") {
      index += 1;
      if (index >= this.chars.length) throw pyReError("bad escape (end of pattern)", this.pattern, this.chars.length - 1);
      char += this.chars[index];
    }
    this.index = index + 1;
    this.next = char;
    this.nextLength = char.startsWith("\\") ? 2 : 1;
  }

  match(char: string): boolean {
    if (char !== this.next) return false;
    this.advance();
    return true;
  }

  get(): string | null {
    const current = this.next;
    this.advance();
    return current;
  }

  /** Up to `n` single characters from `allowed`. */
  getWhile(n: number, allowed: string): string {
    let result = "";
    for (let count = 0; count < n; count++) {
      const char = this.next;
      if (char === null || char.length !== 1 || !allowed.includes(char)) break;
      result += char;
      this.advance();
    }
    return result;
  }

  /** The text up to `terminator` (a group name), with Python's errors for a missing one. */
  getUntil(terminator: string, name: string): string {
    let result = "";
    let length = 0;
    for (;;) {
      const char = this.next;
      this.advance();
      if (char === null) {
        if (!result) throw this.error(`missing ${name}`);
        throw this.error(`missing ${terminator}, unterminated name`, length);
      }
      if (char === terminator) {
        if (!result) throw this.error(`missing ${name}`, 1);
        return result;
      }
      result += char;
      length += Array.from(char).length;
    }
  }

  tell(): number {
    return this.index - this.nextLength;
  }

  seek(index: number): void {
    this.index = index;
    this.advance();
  }

  error(message: string, offset = 0): PyException {
    return pyReError(message, this.pattern, this.tell() - offset);
  }
}

/** `re._parser.State`, plus what the translation cannot reproduce (reported only if the pattern is valid). */
export class ParseState {
  flags = 0;
  readonly groupdict = new Map<string, number>();
  readonly groupwidths: GroupWidths = [null];
  lookbehindgroups: number | null = null;
  readonly grouprefpos = new Map<number, number>();
  readonly untranslatable: string[] = [];

  get groups(): number {
    return this.groupwidths.length;
  }

  opengroup(name: string | null): number {
    const gid = this.groups;
    this.groupwidths.push(null);
    if (this.groups > MAXGROUPS) throw pyReError("too many groups");
    if (name !== null) {
      const ogid = this.groupdict.get(name);
      if (ogid !== undefined) throw pyReError(`redefinition of group name ${pyStrRepr(name)} as group ${gid}; was group ${ogid}`);
      this.groupdict.set(name, gid);
    }
    return gid;
  }

  closegroup(gid: number, body: Sequence): void {
    this.groupwidths[gid] = sequenceWidth(body, this.groupwidths);
  }

  checkgroup(gid: number): boolean {
    return gid < this.groups && this.groupwidths[gid] !== null;
  }

  checklookbehindgroup(gid: number, source: Source): void {
    if (this.lookbehindgroups === null) return;
    if (!this.checkgroup(gid)) throw source.error("cannot refer to an open group");
    if (gid >= this.lookbehindgroups) throw source.error("cannot refer to group defined in the same lookbehind subpattern");
  }
}

/** `str.isidentifier()`: exact for ASCII; other names are decided by Node's Unicode tables, so they are flagged. */
function checkGroupName(source: Source, state: ParseState, name: string, offset: number): void {
  const valid = /^[\p{XID_Start}_]\p{XID_Continue}*$/u.test(name);
  if (!valid) throw source.error(`bad character in group name ${pyStrRepr(name)}`, Array.from(name).length + offset);
  if ([...name].some((char) => char.codePointAt(0)! > 0x7f)) state.untranslatable.push(`the group name ${pyStrRepr(name)} (Python's identifier tables are Unicode 14)`);
}

/** `re._parser.parse(pattern, flags)`: the parse tree and the final flags (UNICODE added unless ASCII). */
export function parsePattern(pattern: string, flags: number): { tree: Sequence; state: ParseState } {
  const source = new Source(pattern);
  const state = new ParseState();
  state.flags = flags;
  const tree = parseSub(source, state, (flags & RE_FLAGS.VERBOSE) !== 0, 0);
  state.flags = fixFlags(state.flags);
  if (source.next !== null) throw source.error("unbalanced parenthesis");
  for (const [group, position] of state.grouprefpos) {
    if (group >= state.groups) throw pyReError(`invalid group reference ${group}`, pattern, position);
  }
  return { tree, state };
}

/** `fix_flags` for a str pattern. */
function fixFlags(flags: number): number {
  if (flags & RE_FLAGS.LOCALE) throw pyValueError("cannot use LOCALE flag with a str pattern");
  if (!(flags & RE_FLAGS.ASCII)) return flags | RE_FLAGS.UNICODE;
  if (flags & RE_FLAGS.UNICODE) throw pyValueError("ASCII and UNICODE flags are incompatible");
  return flags;
}

/** `_parse_sub`: alternatives, with the common prefix factored out and single characters merged into a set. */
function parseSub(source: Source, state: ParseState, verbose: boolean, nested: number): Sequence {
  const items: Sequence[] = [];
  let currentVerbose = verbose;
  for (;;) {
    items.push(parse(source, state, currentVerbose, nested + 1, !nested && items.length === 0));
    if (!source.match("|")) break;
    if (!nested) currentVerbose = (state.flags & RE_FLAGS.VERBOSE) !== 0;
  }
  if (items.length === 1) return items[0];
  const subpattern: Sequence = [];
  for (;;) {
    const prefix = items[0][0];
    if (items.some((item) => item.length === 0 || !sameNode(item[0], prefix))) break;
    for (const item of items) item.shift();
    subpattern.push(prefix);
  }
  const set = branchAsSet(items);
  subpattern.push(set ? { op: "in", items: set } : { op: "branch", alternatives: items });
  return subpattern;
}

/** The members of a set equivalent to the branch, when every alternative is one character or a non-negated set. */
function branchAsSet(items: Sequence[]): SetItem[] | undefined {
  const set: SetItem[] = [];
  for (const item of items) {
    if (item.length !== 1) return undefined;
    const node = item[0];
    if (node.op === "literal") set.push({ op: "literal", code: node.code });
    else if (node.op === "in" && node.items[0].op !== "negate") set.push(...node.items);
    else return undefined;
  }
  return uniqueItems(set);
}

function uniqueItems(items: SetItem[]): SetItem[] {
  return items.filter((item, index) => items.findIndex((other) => sameItem(other, item)) === index);
}

/** `_parse`: one alternative. */
function parse(source: Source, state: ParseState, verbose: boolean, nested: number, first: boolean): Sequence {
  if (nested > MAX_NESTING * 2) throw new RegexTranslationError(source.pattern, `groups nested deeper than ${MAX_NESTING} (CPython's recursion limit decides)`);
  const subpattern: Sequence = [];
  let isVerbose = verbose;
  for (;;) {
    const token = source.next;
    if (token === null || token === "|" || token === ")") break;
    source.get();
    if (isVerbose && WHITESPACE.includes(token) && token.length === 1) continue;
    if (isVerbose && token === "#") {
      for (let char = source.get(); char !== null && char !== "\n"; char = source.get());
      continue;
    }
    if (token.startsWith("\\")) subpattern.push(parseEscape(source, token, state));
    else if (!SPECIAL_CHARS.includes(token)) subpattern.push({ op: "literal", code: token.codePointAt(0)! });
    else if (token === "[") subpattern.push(parseSet(source, state));
    else if ("*+?{".includes(token)) parseRepeat(source, token, subpattern);
    else if (token === ".") subpattern.push({ op: "any" });
    else if (token === "(") {
      const result = parseGroup(source, state, isVerbose, nested, first && subpattern.length === 0);
      if (result === "global-flags") isVerbose = (state.flags & RE_FLAGS.VERBOSE) !== 0;
      else if (result) subpattern.push(result);
    } else if (token === "^") subpattern.push({ op: "at", at: "beginning" });
    else if (token === "$") subpattern.push({ op: "at", at: "end" });
  }
  return unpackGroups(subpattern);
}

/** Non-capturing groups without flags are inlined (the end of `_parse`). */
function unpackGroups(subpattern: Sequence): Sequence {
  const result: Sequence = [];
  for (const node of subpattern) {
    if (node.op === "subpattern" && node.group === null && !node.addFlags && !node.delFlags) result.push(...node.body);
    else result.push(node);
  }
  return result;
}

/** `[...]`: literals, ranges and categories; one literal becomes LITERAL / NOT_LITERAL. */
function parseSet(source: Source, state: ParseState): ReNode {
  const here = source.tell() - 1;
  let set: SetItem[] = [];
  const negate = source.match("^");
  for (;;) {
    const token = source.get();
    if (token === null) throw source.error("unterminated character set", source.tell() - here);
    if (token === "]" && set.length > 0) break;
    let code1 = token.startsWith("\\") ? classEscape(source, token, state) : ({ op: "literal", code: token.codePointAt(0)! } as SetItem);
    if (!source.match("-")) {
      set.push(code1);
      continue;
    }
    const that = source.get();
    if (that === null) throw source.error("unterminated character set", source.tell() - here);
    if (that === "]") {
      set.push(code1, { op: "literal", code: 0x2d });
      break;
    }
    const code2 = that.startsWith("\\") ? classEscape(source, that, state) : ({ op: "literal", code: that.codePointAt(0)! } as SetItem);
    const rangeLength = Array.from(token).length + 1 + Array.from(that).length;
    if (code1.op !== "literal" || code2.op !== "literal" || code2.code < code1.code) {
      throw source.error(`bad character range ${token}-${that}`, rangeLength);
    }
    code1 = { op: "range", lo: code1.code, hi: code2.code };
    set.push(code1);
  }
  set = uniqueItems(set);
  if (set.length === 1 && set[0].op === "literal") return negate ? { op: "not_literal", code: set[0].code } : { op: "literal", code: set[0].code };
  return { op: "in", items: negate ? [{ op: "negate" }, ...set] : set };
}

/** `*`, `+`, `?`, `{m,n}` (a `{` that is not a repeat is a literal), then `?` (lazy) or `+` (possessive). */
function parseRepeat(source: Source, token: string, subpattern: Sequence): void {
  const here = source.tell();
  let min = 0;
  let max = MAXREPEAT;
  if (token === "?") max = 1;
  else if (token === "+") min = 1;
  else if (token === "{") {
    const bounds = parseBraces(source, here);
    if (!bounds) {
      subpattern.push({ op: "literal", code: 0x7b });
      return;
    }
    [min, max] = bounds;
  }
  const item = subpattern.at(-1);
  if (!item || item.op === "at") throw source.error("nothing to repeat", source.tell() - here + 1);
  if (item.op === "repeat") throw source.error("multiple repeat", source.tell() - here + 1);
  const body: Sequence = item.op === "subpattern" && item.group === null && !item.addFlags && !item.delFlags ? item.body : [item];
  const kind = source.match("?") ? "min" : source.match("+") ? "possessive" : "max";
  subpattern[subpattern.length - 1] = { op: "repeat", kind, min, max, body };
}

/** The bounds of `{m,n}`, or undefined when the brace is a literal (the source is then rewound). */
function parseBraces(source: Source, here: number): [number, number] | undefined {
  if (source.next === "}") return undefined;
  let lo = "";
  let hi = "";
  while (source.next !== null && source.next.length === 1 && DIGITS.includes(source.next)) lo += source.get();
  if (source.match(",")) {
    while (source.next !== null && source.next.length === 1 && DIGITS.includes(source.next)) hi += source.get();
  } else hi = lo;
  if (!source.match("}")) {
    source.seek(here);
    return undefined;
  }
  let min = 0;
  let max = MAXREPEAT;
  if (lo) {
    if (BigInt(lo) >= BigInt(MAXREPEAT)) throw pyOverflowError("the repetition number is too large");
    min = Number(lo);
  }
  if (hi) {
    if (BigInt(hi) >= BigInt(MAXREPEAT)) throw pyOverflowError("the repetition number is too large");
    max = Number(hi);
    if (max < min) throw source.error("min repeat greater than max repeat", source.tell() - here);
  }
  return [min, max];
}

/** `(` … `)`: groups, extensions, comments, assertions, conditionals and inline flags. */
function parseGroup(source: Source, state: ParseState, verbose: boolean, nested: number, first: boolean): ReNode | "global-flags" | null {
  const start = source.tell() - 1;
  let capture = true;
  let atomic = false;
  let name: string | null = null;
  let addFlags = 0;
  let delFlags = 0;
  if (source.match("?")) {
    const char = source.get();
    if (char === null) throw source.error("unexpected end of pattern");
    if (char === "P") {
      const named = parseNamedExtension(source, state);
      if (typeof named !== "string") return named;
      name = named;
    } else if (char === ":") capture = false;
    else if (char === "#") {
      for (;;) {
        if (source.next === null) throw source.error("missing ), unterminated comment", source.tell() - start);
        if (source.get() === ")") return null;
      }
    } else if (char === "=" || char === "!" || char === "<") return parseAssertion(source, state, verbose, nested, char, start);
    else if (char === "(") return parseConditional(source, state, verbose, nested, start);
    else if (char === ">") {
      capture = false;
      atomic = true;
    } else if (Object.hasOwn(FLAGS, char) || char === "-") {
      const flags = parseFlags(source, state, char);
      if (flags === null) {
        if (!first) throw source.error("global flags not at the start of the expression", source.tell() - start);
        return "global-flags";
      }
      [addFlags, delFlags] = flags;
      capture = false;
    } else throw source.error(`unknown extension ?${char}`, Array.from(char).length + 1);
  }
  let group: number | null = null;
  if (capture) {
    try {
      group = state.opengroup(name);
    } catch (error) {
      throw source.error((error as PyException).message, Array.from(name ?? "").length + 1);
    }
  }
  const subVerbose = (verbose || (addFlags & RE_FLAGS.VERBOSE) !== 0) && !(delFlags & RE_FLAGS.VERBOSE);
  const body = parseSub(source, state, subVerbose, nested + 1);
  if (!source.match(")")) throw source.error("missing ), unterminated subpattern", source.tell() - start);
  if (group !== null) state.closegroup(group, body);
  return atomic ? { op: "atomic", body } : { op: "subpattern", group, addFlags, delFlags, body };
}

/** `(?P<name>` (returns the name) or `(?P=name)` (returns the backreference). */
function parseNamedExtension(source: Source, state: ParseState): string | ReNode {
  if (source.match("<")) {
    const name = source.getUntil(">", "group name");
    checkGroupName(source, state, name, 1);
    return name;
  }
  if (source.match("=")) {
    const name = source.getUntil(")", "group name");
    checkGroupName(source, state, name, 1);
    const gid = state.groupdict.get(name);
    const nameLength = Array.from(name).length;
    if (gid === undefined) throw source.error(`unknown group name ${pyStrRepr(name)}`, nameLength + 1);
    if (!state.checkgroup(gid)) throw source.error("cannot refer to an open group", nameLength + 1);
    state.checklookbehindgroup(gid, source);
    return { op: "groupref", group: gid };
  }
  const char = source.get();
  if (char === null) throw source.error("unexpected end of pattern");
  throw source.error(`unknown extension ?P${char}`, Array.from(char).length + 2);
}

/** `(?=`, `(?!`, `(?<=`, `(?<!`. */
function parseAssertion(source: Source, state: ParseState, verbose: boolean, nested: number, opening: string, start: number): ReNode {
  let char: string | null = opening;
  let behind = false;
  let outerLookbehind: number | null = null;
  if (char === "<") {
    char = source.get();
    if (char === null) throw source.error("unexpected end of pattern");
    if (char !== "=" && char !== "!") throw source.error(`unknown extension ?<${char}`, Array.from(char).length + 2);
    behind = true;
    outerLookbehind = state.lookbehindgroups;
    if (outerLookbehind === null) state.lookbehindgroups = state.groups;
  }
  const body = parseSub(source, state, verbose, nested + 1);
  if (behind && outerLookbehind === null) state.lookbehindgroups = null;
  if (!source.match(")")) throw source.error("missing ), unterminated subpattern", source.tell() - start);
  return { op: "assert", negate: char === "!", behind, body };
}

/** `(?(group)yes|no)`. */
function parseConditional(source: Source, state: ParseState, verbose: boolean, nested: number, start: number): ReNode {
  const condname = source.getUntil(")", "group name");
  const nameLength = Array.from(condname).length;
  let condgroup: number;
  if (/^[\p{XID_Start}_]\p{XID_Continue}*$/u.test(condname)) {
    checkGroupName(source, state, condname, 1);
    const gid = state.groupdict.get(condname);
    if (gid === undefined) throw source.error(`unknown group name ${pyStrRepr(condname)}`, nameLength + 1);
    condgroup = gid;
  } else {
    condgroup = conditionalGroupNumber(source, condname, nameLength);
    if (!state.grouprefpos.has(condgroup)) state.grouprefpos.set(condgroup, source.tell() - nameLength - 1);
  }
  state.checklookbehindgroup(condgroup, source);
  const yes = parse(source, state, verbose, nested + 1, false);
  let no: Sequence | null = null;
  if (source.match("|")) {
    no = parse(source, state, verbose, nested + 1, false);
    if (source.next === "|") throw source.error("conditional backref with more than two branches");
  }
  if (!source.match(")")) throw source.error("missing ), unterminated subpattern", source.tell() - start);
  return { op: "groupref_exists", group: condgroup, yes, no };
}

/** `int(condname)` as the parser reads a numbered condition, with its errors. */
function conditionalGroupNumber(source: Source, condname: string, nameLength: number): number {
  let value: number | bigint;
  try {
    value = pyInt(condname);
  } catch {
    throw source.error(`bad character in group name ${pyStrRepr(condname)}`, nameLength + 1);
  }
  if (value < 0) throw source.error(`bad character in group name ${pyStrRepr(condname)}`, nameLength + 1);
  if (value === 0 || value === 0n) throw source.error("bad group number", nameLength + 1);
  if (value >= MAXGROUPS) throw source.error(`invalid group reference ${value}`, nameLength + 1);
  return Number(value);
}

/** `_parse_flags`: `(?aiLmsux)` (global, returns null), `(?flags-flags:` (scoped, returns the two sets). */
function parseFlags(source: Source, state: ParseState, first: string): [number, number] | null {
  let char: string | null = first;
  let addFlags = 0;
  let delFlags = 0;
  if (char !== "-") {
    for (;;) {
      const flag: number = FLAGS[char];
      if (char === "L") throw source.error("bad inline flags: cannot use 'L' flag with a str pattern");
      addFlags |= flag;
      if (flag & TYPE_FLAGS && (addFlags & TYPE_FLAGS) !== flag) throw source.error("bad inline flags: flags 'a', 'u' and 'L' are incompatible");
      char = source.get();
      if (char === null) throw source.error("missing -, : or )");
      if (char === ")" || char === "-" || char === ":") break;
      if (!Object.hasOwn(FLAGS, char)) throw source.error(isAlpha(char) ? "unknown flag" : "missing -, : or )", Array.from(char).length);
    }
  }
  if (char === ")") {
    state.flags |= addFlags;
    return null;
  }
  if (addFlags & GLOBAL_FLAGS) throw source.error("bad inline flags: cannot turn on global flag", 1);
  if (char === "-") {
    char = source.get();
    if (char === null) throw source.error("missing flag");
    if (!Object.hasOwn(FLAGS, char)) throw source.error(isAlpha(char) ? "unknown flag" : "missing flag", Array.from(char).length);
    for (;;) {
      const flag: number = FLAGS[char];
      if (flag & TYPE_FLAGS) throw source.error("bad inline flags: cannot turn off flags 'a', 'u' and 'L'");
      delFlags |= flag;
      char = source.get();
      if (char === null) throw source.error("missing :");
      if (char === ":") break;
      if (!Object.hasOwn(FLAGS, char)) throw source.error(isAlpha(char) ? "unknown flag" : "missing :", Array.from(char).length);
    }
  }
  if (delFlags & GLOBAL_FLAGS) throw source.error("bad inline flags: cannot turn off global flag", 1);
  if (addFlags & delFlags) throw source.error("bad inline flags: flag turned on and off", 1);
  return [addFlags, delFlags];
}

/** `str.isalpha()` of a token (a two-character escape token is not alphabetic). */
function isAlpha(token: string): boolean {
  return /^\p{L}+$/u.test(token);
}

/** `_escape`: an escape outside a set (categories, anchors, literals, octal escapes and backreferences). */
function parseEscape(source: Source, escape: string, state: ParseState): ReNode {
  const category = CATEGORIES[escape];
  if (category) return "at" in category ? { op: "at", at: category.at } : { op: "in", items: [{ op: "category", category: category.category }] };
  if (Object.hasOwn(ESCAPES, escape)) return { op: "literal", code: ESCAPES[escape] };
  const c = escape[1];
  const unicode = unicodeEscape(source, escape, state);
  if (unicode !== undefined) return { op: "literal", code: unicode };
  if (c === "0") {
    const text = escape + source.getWhile(2, OCTDIGITS);
    return { op: "literal", code: parseInt(text.slice(1), 8) };
  }
  if (DIGITS.includes(c)) return parseNumberedEscape(source, escape, state);
  if (ASCIILETTERS.includes(c)) throw source.error(`bad escape ${escape}`, escape.length);
  return { op: "literal", code: escape.codePointAt(1)! };
}

/** `\1`…`\99` (a backreference) or three octal digits (a character). */
function parseNumberedEscape(source: Source, escape: string, state: ParseState): ReNode {
  let text = escape;
  if (source.next !== null && source.next.length === 1 && DIGITS.includes(source.next)) {
    text += source.get();
    if (OCTDIGITS.includes(text[1]) && OCTDIGITS.includes(text[2]) && source.next !== null && source.next.length === 1 && OCTDIGITS.includes(source.next)) {
      text += source.get();
      const code = parseInt(text.slice(1), 8);
      if (code > 0o377) throw source.error(`octal escape value ${text} outside of range 0-0o377`, text.length);
      return { op: "literal", code };
    }
  }
  const group = Number(text.slice(1));
  if (group < state.groups) {
    if (!state.checkgroup(group)) throw source.error("cannot refer to an open group", text.length);
    state.checklookbehindgroup(group, source);
    return { op: "groupref", group };
  }
  throw source.error(`invalid group reference ${group}`, text.length - 1);
}

/** `\xhh`, `\uhhhh`, `\Uhhhhhhhh`, `\N{name}` (both contexts); undefined for other escapes. */
function unicodeEscape(source: Source, escape: string, state: ParseState): number | undefined {
  const c = escape[1];
  const digits = c === "x" ? 2 : c === "u" ? 4 : c === "U" ? 8 : 0;
  if (digits > 0) {
    const text = escape + source.getWhile(digits, HEXDIGITS);
    if (text.length !== digits + 2) throw source.error(`incomplete escape ${text}`, text.length);
    const code = parseInt(text.slice(2), 16);
    if (code > 0x10ffff) throw source.error(`bad escape ${text}`, text.length);
    return code;
  }
  if (c !== "N") return undefined;
  if (!source.match("{")) throw source.error("missing {");
  const name = source.getUntil("}", "character name");
  // Character names are letters, digits, spaces and hyphens (looked up ignoring case): anything else is undefined for sure.
  if (!/^[A-Za-z0-9 -]+$/.test(name)) throw source.error(`undefined character name ${pyStrRepr(name)}`, Array.from(name).length + 4);
  state.untranslatable.push(`\\N{${name}} (needs Python's Unicode name table)`);
  return 0;
}

/** `_class_escape`: an escape inside a set. */
function classEscape(source: Source, escape: string, state: ParseState): SetItem {
  if (Object.hasOwn(ESCAPES, escape)) return { op: "literal", code: ESCAPES[escape] };
  const category = CATEGORIES[escape];
  if (category && "category" in category) return { op: "category", category: category.category };
  const c = escape[1];
  const unicode = unicodeEscape(source, escape, state);
  if (unicode !== undefined) return { op: "literal", code: unicode };
  if (OCTDIGITS.includes(c)) {
    const text = escape + source.getWhile(2, OCTDIGITS);
    const code = parseInt(text.slice(1), 8);
    if (code > 0o377) throw source.error(`octal escape value ${text} outside of range 0-0o377`, text.length);
    return { op: "literal", code };
  }
  if (DIGITS.includes(c) || ASCIILETTERS.includes(c)) throw source.error(`bad escape ${escape}`, escape.length);
  return { op: "literal", code: escape.codePointAt(1)! };
}
