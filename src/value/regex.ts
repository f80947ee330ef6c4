/**
 * Python's `re` for str patterns, as far as tools need it: `re.compile(pattern, flags)` with
 * CPython 3.11's syntax and errors (regex-parse.ts), run by a JavaScript RegExp that matches the
 * same text (regex-compile.ts), `len(pattern.findall(text))` with Python's empty-match rules, and
 * `re.escape`. A pattern Python accepts but the translation cannot reproduce raises
 * {@link RegexTranslationError} (never a silently different search).
 */
import { parsePattern } from "./regex-parse.ts";
import { translatePattern } from "./regex-compile.ts";
import { RE_FLAGS, RegexTranslationError } from "./regex-syntax.ts";

/** `re.IGNORECASE`. */
export const PY_RE_IGNORECASE = RE_FLAGS.IGNORECASE;
/** `re.MULTILINE`. */
export const PY_RE_MULTILINE = RE_FLAGS.MULTILINE;
/** `re.DOTALL`. */
export const PY_RE_DOTALL = RE_FLAGS.DOTALL;
/** `re.ASCII`. */
export const PY_RE_ASCII = RE_FLAGS.ASCII;
/** `re.VERBOSE`. */
export const PY_RE_VERBOSE = RE_FLAGS.VERBOSE;

/** A compiled pattern: `re.Pattern` for what the tools use of it. */
export class PyRePattern {
  private advance: RegExp | undefined;

  constructor(
    /** The pattern as given. */
    readonly pattern: string,
    /** The flags as given to `re.compile`. */
    readonly flags: number,
    /** The JavaScript equivalent (flags `gu`). */
    readonly regExp: RegExp,
    private readonly emptyLast: boolean,
    private readonly looksBehind: boolean,
    private readonly advanceSource: () => string,
  ) {}

  /**
   * `len(pattern.findall(text))`: non-overlapping matches from left to right, empty ones included.
   * After an empty match Python first retries at the same place for a non-empty match (3.7+), then
   * moves on one character; JavaScript only moves on, which is the same when no non-empty match can
   * follow an empty one there (the common case, counted by RegExp's own global match).
   */
  findallCount(text: string): number {
    if (this.emptyLast && !SURROGATE.test(text)) return text.match(this.regExp)?.length ?? 0;
    return this.countStepwise(text);
  }

  /** The same count, one match at a time: Python's retry after an empty match, and code point positions only. */
  private countStepwise(text: string): number {
    let count = 0;
    let position = 0;
    let mustAdvance = false;
    while (position <= text.length) {
      if (mustAdvance && !this.emptyLast) {
        const end = this.nonEmptyMatchAt(text, position);
        if (end !== undefined) {
          count++;
          position = end;
          mustAdvance = false;
          continue;
        }
      }
      if (mustAdvance) {
        position += (text.codePointAt(position) ?? 0) > 0xffff ? 2 : 1;
        if (position > text.length) break;
      }
      const match = nextMatch(this.regExp, text, position);
      if (!match) break;
      count++;
      const end = match.index + match[0].length;
      mustAdvance = end === match.index;
      position = end;
    }
    return count;
  }

  /**
   * Where the first non-empty match starting exactly at `position` ends (Python's must-advance
   * search), if any. A pattern that never looks left runs on the text from `position` on, where "not
   * empty" is a look-behind for any character at the end; otherwise the pattern first captures the
   * rest of the text and refuses to end where that capture still follows (slower: linear per retry).
   */
  private nonEmptyMatchAt(text: string, position: number): number | undefined {
    this.advance ??= new RegExp(this.advanceSource(), "uy");
    this.advance.lastIndex = this.looksBehind ? position : 0;
    const subject = this.looksBehind ? text : text.slice(position);
    if (!this.advance.exec(subject)) return undefined;
    return this.looksBehind ? this.advance.lastIndex : position + this.advance.lastIndex;
  }
}

/** Any UTF-16 surrogate: the text has characters beyond the BMP (or lone surrogates). */
const SURROGATE = /[\uD800-\uDFFF]/;

/** Whether `index` falls between the two halves of a surrogate pair (not a position in Python's str). */
function insidePair(text: string, index: number): boolean {
  const before = text.charCodeAt(index - 1);
  const at = text.charCodeAt(index);
  return before >= 0xd800 && before <= 0xdbff && at >= 0xdc00 && at <= 0xdfff;
}

/**
 * The next match at or after `position`. V8 can report a zero-width match between the halves of a
 * surrogate pair (e.g. a negative look-behind there); Python has no such position, so the search
 * goes on from the next character.
 */
function nextMatch(regExp: RegExp, text: string, position: number): RegExpExecArray | null {
  regExp.lastIndex = position;
  let match = regExp.exec(text);
  while (match && insidePair(text, match.index)) {
    regExp.lastIndex = match.index + 1;
    match = regExp.exec(text);
  }
  return match;
}

const cache = new Map<string, PyRePattern>();
const CACHE_SIZE = 512;

/**
 * `re.compile(pattern, flags)` for a str pattern: `re.error` (a PyException of type `re.error`) for
 * what CPython rejects, OverflowError for a too large repeat count, {@link RegexTranslationError}
 * for what cannot be reproduced. Compiled patterns are cached like Python's (512).
 */
export function pyReCompile(pattern: string, flags = 0): PyRePattern {
  const key = `${flags}:${pattern}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const { tree, state } = parsePattern(pattern, flags);
  const { source, emptyLast, looksBehind } = translatePattern(pattern, tree, state);
  const advanceSource = () => (looksBehind ? `(?=([\\s\\S]*))(?:${translatePattern(pattern, tree, state, 1).source})(?!\\1)` : `(?:${source})(?<=[\\s\\S])`);
  const compiled = new PyRePattern(pattern, flags, javaScriptRegExp(pattern, source), emptyLast, looksBehind, advanceSource);
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(key, compiled);
  return compiled;
}

/** The RegExp of a translated source; one V8 refuses (too large, too many groups) is a translation failure. */
function javaScriptRegExp(pattern: string, source: string): RegExp {
  try {
    return new RegExp(source, "gu");
  } catch (error) {
    throw new RegexTranslationError(pattern, `JavaScript refuses the translation (${(error as Error).message})`);
  }
}

const SPECIAL = new Set("()[]{}?*+-|^$\\.&~# \t\n\r\v\f");

/** `re.escape(pattern)` (3.7+): a backslash before each of `()[]{}?*+-|^$\.&~#`, space and `\t\n\r\v\f`. */
export function pyReEscape(pattern: string): string {
  let escaped = "";
  for (const char of pattern) escaped += SPECIAL.has(char) ? `\\${char}` : char;
  return escaped;
}
