/**
 * The parsed form of a Python regular expression, as CPython 3.11's `re._parser` builds it (the
 * same opcodes, the same shapes after its branch and group simplifications), `re.error` with its
 * message format, and `SubPattern.getwidth()`. regex-parse.ts produces it, regex-compile.ts turns
 * it into a JavaScript RegExp. Not Python operations themselves, hence no `py` prefix.
 */
import { TaubridgeError, errorMarker } from "../errors/error-tree.ts";
import { PyException } from "./errors.ts";

/** `re.IGNORECASE`, `re.MULTILINE`, … with CPython's bit values. */
export const RE_FLAGS = {
  IGNORECASE: 2,
  LOCALE: 4,
  MULTILINE: 8,
  DOTALL: 16,
  UNICODE: 32,
  VERBOSE: 64,
  DEBUG: 128,
  ASCII: 256,
  TEMPLATE: 1,
} as const;

/** `_sre.MAXREPEAT`: a repeat's upper bound when there is none. */
export const MAXREPEAT = 4294967295;
/** `_sre.MAXGROUPS`. */
export const MAXGROUPS = 1073741823;
/** `re._parser.MAXWIDTH`: the cap of `getwidth()`. */
export const MAXWIDTH = 1n << 64n;

/** A `\d`-style category inside a set. */
export type Category = "digit" | "not_digit" | "space" | "not_space" | "word" | "not_word";
/** A zero-width position test (`^`, `$`, `\A`, `\Z`, `\b`, `\B`). */
export type AtCode = "beginning" | "end" | "beginning_string" | "end_string" | "boundary" | "non_boundary";

/** One member of a set (`IN`). */
export type SetItem = { op: "negate" } | { op: "literal"; code: number } | { op: "range"; lo: number; hi: number } | { op: "category"; category: Category };

/** A sequence of nodes: `re._parser.SubPattern`. */
export type Sequence = ReNode[];

/** One opcode of the parsed pattern. */
export type ReNode =
  | { op: "literal"; code: number }
  | { op: "not_literal"; code: number }
  | { op: "any" }
  | { op: "in"; items: SetItem[] }
  | { op: "at"; at: AtCode }
  | { op: "branch"; alternatives: Sequence[] }
  | { op: "subpattern"; group: number | null; addFlags: number; delFlags: number; body: Sequence }
  | { op: "atomic"; body: Sequence }
  | { op: "repeat"; kind: "max" | "min" | "possessive"; min: number; max: number; body: Sequence }
  | { op: "groupref"; group: number }
  | { op: "groupref_exists"; group: number; yes: Sequence; no: Sequence | null }
  | { op: "assert"; negate: boolean; behind: boolean; body: Sequence };

/**
 * `re.error(msg, pattern, pos)`: its str is `msg`, then ` at position <pos>`, then
 * ` (line <l>, column <c>)` when the pattern has a newline. Positions count code points.
 */
export function pyReError(message: string, pattern?: string, position?: number): PyException {
  if (pattern === undefined || position === undefined) return new PyException(message, "re.error");
  const chars = Array.from(pattern);
  let text = `${message} at position ${position}`;
  if (chars.includes("\n")) {
    const before = chars.slice(0, position);
    const line = before.filter((char) => char === "\n").length + 1;
    const column = position - before.lastIndexOf("\n");
    text += ` (line ${line}, column ${column})`;
  }
  return new PyException(text, "re.error");
}

/**
 * A pattern CPython compiles that has no exact JavaScript equivalent here (a case-insensitive
 * backreference, a conditional group, `\N{name}`, …). Not a Python exception: a tool that meets it
 * cannot know what the original would have answered, so it must fail loudly (the environment
 * reports a tool crash) rather than search differently.
 */
export class RegexTranslationError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("RegexTranslationError");

  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`cannot reproduce Python's re for ${JSON.stringify(pattern)}: ${reason}`);
  }
}

/** Whether an exception is Python's `re.error` (what the grep retriever catches). */
export function isPyReError(error: unknown): boolean {
  return PyException.isInstance(error) && error.pythonType === "re.error";
}

/** Two nodes Python's parser would find equal (`item[0] != prefix`): by value for the plain ones, by identity otherwise. */
export function sameNode(a: ReNode, b: ReNode): boolean {
  if (a === b) return true;
  switch (a.op) {
    case "literal":
    case "not_literal":
      return b.op === a.op && b.code === a.code;
    case "any":
      return b.op === "any";
    case "at":
      return b.op === "at" && b.at === a.at;
    case "groupref":
      return b.op === "groupref" && b.group === a.group;
    case "in":
      return b.op === "in" && b.items.length === a.items.length && a.items.every((item, index) => sameItem(item, b.items[index]));
    default:
      return false;
  }
}

/** Set members compare by value (they are tuples in Python). */
export function sameItem(a: SetItem, b: SetItem): boolean {
  if (a.op !== b.op) return false;
  switch (a.op) {
    case "negate":
      return true;
    case "literal":
      return a.code === (b as typeof a).code;
    case "range":
      return a.lo === (b as typeof a).lo && a.hi === (b as typeof a).hi;
    case "category":
      return a.category === (b as typeof a).category;
  }
}

/** The `(min, max)` width of each group, as Python's `State.groupwidths` records it when the group closes. */
export type GroupWidths = Array<readonly [bigint, bigint] | null>;

const widths = new WeakMap<Sequence, readonly [bigint, bigint]>();

function clampWidth(value: bigint): bigint {
  return value < MAXWIDTH ? value : MAXWIDTH;
}

/** `SubPattern.getwidth()`: the least and greatest number of characters a sequence matches (capped at MAXWIDTH). */
export function sequenceWidth(sequence: Sequence, groupWidths: GroupWidths): readonly [bigint, bigint] {
  const cached = widths.get(sequence);
  if (cached) return cached;
  let lo = 0n;
  let hi = 0n;
  for (const node of sequence) {
    const [nodeLo, nodeHi] = nodeWidth(node, groupWidths);
    lo += nodeLo;
    hi += nodeHi;
  }
  const result = [clampWidth(lo), clampWidth(hi)] as const;
  widths.set(sequence, result);
  return result;
}

function nodeWidth(node: ReNode, groupWidths: GroupWidths): readonly [bigint, bigint] {
  switch (node.op) {
    case "branch": {
      let lo = MAXWIDTH;
      let hi = 0n;
      for (const alternative of node.alternatives) {
        const [l, h] = sequenceWidth(alternative, groupWidths);
        if (l < lo) lo = l;
        if (h > hi) hi = h;
      }
      return [lo, hi];
    }
    case "atomic":
    case "subpattern":
      return sequenceWidth(node.body, groupWidths);
    case "repeat": {
      const [i, j] = sequenceWidth(node.body, groupWidths);
      const hi = node.max === MAXREPEAT && j !== 0n ? MAXWIDTH : j * BigInt(node.max);
      return [i * BigInt(node.min), hi];
    }
    case "literal":
    case "not_literal":
    case "any":
    case "in":
      return [1n, 1n];
    case "groupref":
      return groupWidths[node.group] ?? [0n, 0n];
    case "groupref_exists": {
      const [i, j] = sequenceWidth(node.yes, groupWidths);
      if (!node.no) return [0n, j];
      const [l, h] = sequenceWidth(node.no, groupWidths);
      return [i < l ? i : l, j > h ? j : h];
    }
    default:
      return [0n, 0n];
  }
}
