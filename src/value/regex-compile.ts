/**
 * A parsed Python pattern (regex-parse.ts) as a JavaScript RegExp source with the `u` flag and the
 * same matches: every position's characters as an explicit class (regex-sets.ts), `.` without
 * DOTALL as "not `\n`" (JavaScript also excludes `\r`, `\u2028`, `\u2029`), `^ $ \A \Z \b \B` as
 * lookarounds with Python's meaning (`$` also before a final `\n`, `\b` on Unicode words, no
 * boundary in an empty string), scoped flags applied while translating (JavaScript has no `(?i:…)`),
 * atomic groups and possessive repeats as `(?=(…))\k`, named groups as numbered ones.
 *
 * Where JavaScript would match differently it refuses ({@link RegexTranslationError}) instead of
 * guessing: a backreference under IGNORECASE (Python folds it with `lower()`), a backreference to a
 * group that may not have matched (Python fails, JavaScript matches empty), a repeat of something
 * that can match empty before matching text (Python stops after an empty iteration, JavaScript
 * backtracks into it), conditional groups. CPython's own compile-time errors (a variable-width
 * look-behind) are raised as `re.error` first. Not a Python operation itself: no `py` prefix.
 */
import type { CodePointSet } from "./code-point-set.ts";
import type { ParseState } from "./regex-parse.ts";
import { charsetSet, literalSet, wordSet } from "./regex-sets.ts";
import { MAXREPEAT, RE_FLAGS, type ReNode, RegexTranslationError, type Sequence, pyReError, sequenceWidth } from "./regex-syntax.ts";

const MAXCODE = 0xffffffffn;
const TYPE_FLAGS = RE_FLAGS.ASCII | RE_FLAGS.LOCALE | RE_FLAGS.UNICODE;
const ANY_CHAR = "[\\s\\S]";

/** Where a node sits: its ancestors, with the alternative taken at each branch. */
type Path = ReadonlyArray<{ readonly node: ReNode; readonly alternative: number }>;

/** The JavaScript source of a pattern, and what the must-advance search after an empty match needs to know. */
export interface TranslatedPattern {
  readonly source: string;
  /** True when, at any position, no non-empty match comes after an empty one in Python's order of attempts. */
  readonly emptyLast: boolean;
  /** True when the pattern looks at text before where it is tested (`^`, `\A`, `\b`, `\B`, a look-behind). */
  readonly looksBehind: boolean;
}

/** Translates a parsed pattern; `groupOffset` JavaScript groups come before it (for the must-advance wrapper). */
export function translatePattern(pattern: string, tree: Sequence, state: ParseState, groupOffset = 0): TranslatedPattern {
  const translator = new Translator(pattern, state, groupOffset);
  const source = translator.sequence(tree, state.flags, []);
  const reasons = [...state.untranslatable, ...translator.reasons];
  if (reasons.length > 0) throw new RegexTranslationError(pattern, reasons.join("; "));
  return { source, emptyLast: translator.emptyLast(tree), looksBehind: translator.looksBehind };
}

/** `_combine_flags`: a scoped type flag replaces the outer one. */
function combineFlags(flags: number, addFlags: number, delFlags: number): number {
  const base = addFlags & TYPE_FLAGS ? flags & ~TYPE_FLAGS : flags;
  return (base | addFlags) & ~delFlags;
}

/** One code point outside a class: ASCII letters and digits as themselves, anything else escaped. */
function atom(set: CodePointSet): string {
  const bounds = set.bounds;
  if (bounds.length !== 2 || bounds[0] !== bounds[1]) return set.toRegExpClass();
  const code = bounds[0];
  if ((code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) return String.fromCharCode(code);
  return `\\u{${code.toString(16)}}`;
}

class Translator {
  readonly reasons: string[] = [];
  looksBehind = false;
  private jsGroups: number;
  private readonly pythonToJs = new Map<number, number>();
  private readonly groupPaths = new Map<number, Path>();

  constructor(
    readonly pattern: string,
    readonly state: ParseState,
    groupOffset: number,
  ) {
    this.jsGroups = groupOffset;
  }

  sequence(sequence: Sequence, flags: number, path: Path): string {
    return sequence.map((node) => this.node(node, flags, path)).join("");
  }

  private width(sequence: Sequence): readonly [bigint, bigint] {
    return sequenceWidth(sequence, this.state.groupwidths);
  }

  private node(node: ReNode, flags: number, path: Path): string {
    const inside: Path = [...path, { node, alternative: 0 }];
    switch (node.op) {
      case "literal":
        return atom(literalSet(node.code, flags));
      case "not_literal":
        return atom(literalSet(node.code, flags).complement());
      case "any":
        return flags & RE_FLAGS.DOTALL ? ANY_CHAR : "[^\\n]";
      case "in":
        return atom(charsetSet(node.items, flags));
      case "at":
        return this.at(node.at, flags);
      case "branch":
        return `(?:${node.alternatives.map((alternative, index) => this.sequence(alternative, flags, [...path, { node, alternative: index }])).join("|")})`;
      case "subpattern":
        return this.subpattern(node, flags, path, inside);
      case "atomic":
        return this.atomic(() => this.sequence(node.body, flags, inside));
      case "repeat":
        return this.repeat(node, flags, inside);
      case "groupref":
        return this.groupref(node.group, flags, path);
      case "groupref_exists":
        this.reasons.push("a conditional group (?(…)…) (JavaScript has none)");
        return "(?:)";
      case "assert":
        return this.assertion(node, flags, inside);
    }
  }

  private subpattern(node: Extract<ReNode, { op: "subpattern" }>, flags: number, path: Path, inside: Path): string {
    const inner = combineFlags(flags, node.addFlags, node.delFlags);
    if (node.group === null) return `(?:${this.sequence(node.body, inner, inside)})`;
    this.pythonToJs.set(node.group, ++this.jsGroups);
    this.groupPaths.set(node.group, path);
    return `(${this.sequence(node.body, inner, inside)})`;
  }

  /** An atomic group: a lookahead capture (lookarounds do not backtrack) consumed by a backreference. */
  private atomic(body: () => string): string {
    const index = ++this.jsGroups;
    return `(?=(${body()}))\\${index}`;
  }

  private repeat(node: Extract<ReNode, { op: "repeat" }>, flags: number, inside: Path): string {
    if (flags & RE_FLAGS.TEMPLATE) throw pyReError(`internal: unsupported template operator ${node.kind.toUpperCase()}_REPEAT`);
    const [lo, hi] = this.width(node.body);
    if (lo === 0n && hi > 0n && node.max > node.min && !this.emptyLast(node.body)) {
      this.reasons.push("a repeat of something that can match empty before matching text (Python accepts the empty iteration, JavaScript backtracks into it)");
    }
    const bounds = node.max === MAXREPEAT ? (node.min === 0 ? "*" : node.min === 1 ? "+" : `{${node.min},}`) : node.min === 0 && node.max === 1 ? "?" : `{${node.min},${node.max}}`;
    if (node.kind === "possessive") return this.atomic(() => `(?:${this.sequence(node.body, flags, inside)})${bounds}`);
    return `(?:${this.sequence(node.body, flags, inside)})${bounds}${node.kind === "min" ? "?" : ""}`;
  }

  private assertion(node: Extract<ReNode, { op: "assert" }>, flags: number, inside: Path): string {
    if (node.behind) {
      this.looksBehind = true;
      const [lo, hi] = this.width(node.body);
      if (lo > MAXCODE) throw pyReError("looks too much behind");
      if (lo !== hi) throw pyReError("look-behind requires fixed-width pattern");
    }
    const opening = `(?${node.behind ? "<" : ""}${node.negate ? "!" : "="}`;
    return `${opening}${this.sequence(node.body, flags, inside)})`;
  }

  /** `^ $ \A \Z \b \B` with Python's meaning, MULTILINE and the type flag applied. */
  private at(code: Extract<ReNode, { op: "at" }>["at"], flags: number): string {
    const multiline = (flags & RE_FLAGS.MULTILINE) !== 0;
    if (code !== "end" && code !== "end_string") this.looksBehind = true;
    switch (code) {
      case "beginning":
        return multiline ? "(?<![^\\n])" : `(?<!${ANY_CHAR})`;
      case "beginning_string":
        return `(?<!${ANY_CHAR})`;
      case "end":
        return multiline ? "(?![^\\n])" : `(?=\\n?(?!${ANY_CHAR}))`;
      case "end_string":
        return `(?!${ANY_CHAR})`;
      case "boundary": {
        const word = wordSet(flags).toRegExpClass();
        return `(?:(?<=${word})(?!${word})|(?<!${word})(?=${word}))`;
      }
      case "non_boundary": {
        const word = wordSet(flags).toRegExpClass();
        return `(?:(?<=${word})(?=${word})|(?<!${word})(?!${word})(?:(?<=${ANY_CHAR})|(?=${ANY_CHAR})))`;
      }
    }
  }

  /** A backreference, when JavaScript's (case-sensitive, empty for an unset group) gives Python's result. */
  private groupref(group: number, flags: number, path: Path): string {
    if (flags & RE_FLAGS.IGNORECASE) this.reasons.push(`a backreference under IGNORECASE (Python compares lower() of each character)`);
    else if (!this.alwaysSet(group, path)) this.reasons.push(`a backreference to group ${group}, which may not have matched there (Python fails, JavaScript matches empty)`);
    return `(?:\\${this.pythonToJs.get(group)})`;
  }

  /**
   * Whether group `group` has always matched when a backreference at `path` is reached: below their
   * common ancestor, the group sits only in groups and in repeats that run at least once over
   * something non-empty — no branch, no optional repeat, no lookaround.
   */
  private alwaysSet(group: number, path: Path): boolean {
    const groupPath = this.groupPaths.get(group);
    if (!groupPath) return false;
    let common = 0;
    while (common < groupPath.length && common < path.length && groupPath[common].node === path[common].node && groupPath[common].alternative === path[common].alternative) common++;
    return groupPath.slice(common).every(({ node }) => {
      if (node.op === "subpattern" || node.op === "atomic") return true;
      return node.op === "repeat" && node.min >= 1 && this.width(node.body)[0] > 0n;
    });
  }

  /**
   * True when no non-empty match can come after an empty one in Python's order of attempts (for
   * every position): then Python's "retry here for a non-empty match" after an empty match finds
   * nothing, and an empty iteration of a repeat ends the repeat in both engines at the same place.
   */
  emptyLast(sequence: Sequence): boolean {
    if (this.width(sequence)[0] > 0n) return true;
    return sequence.every((node) => this.nodeEmptyLast(node));
  }

  private nodeEmptyLast(node: ReNode): boolean {
    switch (node.op) {
      case "subpattern":
        return this.emptyLast(node.body);
      case "branch":
        return this.branchEmptyLast(node.alternatives);
      case "repeat":
        return this.repeatEmptyLast(node);
      case "groupref_exists":
        return false;
      default:
        return true;
    }
  }

  /** Alternatives before the first that can match empty never do; those after it only match empty. */
  private branchEmptyLast(alternatives: Sequence[]): boolean {
    const first = alternatives.findIndex((alternative) => this.width(alternative)[0] === 0n);
    if (first < 0) return true;
    return this.emptyLast(alternatives[first]) && alternatives.slice(first + 1).every((alternative) => this.width(alternative)[1] === 0n);
  }

  private repeatEmptyLast(node: Extract<ReNode, { op: "repeat" }>): boolean {
    const [lo, hi] = this.width(node.body);
    if (node.kind === "possessive" || hi === 0n) return true;
    if (node.kind === "max" || node.max === node.min) return lo > 0n || this.emptyLast(node.body);
    return node.min >= 1 && lo > 0n;
  }
}
