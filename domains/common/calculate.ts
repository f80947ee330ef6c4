/**
 * τ-bench's `calculate` tool, shared by the retail and airline domains.
 *
 * The original is four lines of Python: if every character of `expression` is in
 * {@link CALCULATE_ALPHABET}, it returns
 * `str(round(float(eval(expression, {"__builtins__": None}, {})), 2))`, and any exception becomes
 * `Error: {exception}`. So its observable behaviour is "whatever CPython 3.11 does" with that
 * alphabet: the PEG parser's error messages (including the second "invalid_*" pass and tokenizer errors that take priority),
 * unbounded ints, correctly rounded int/int true division, float and complex arithmetic with their
 * exact error texts, `round(x, 2)` half-even and the float repr. This file re-implements that
 * subset from the specification (docs/reference/tau-bench-v1.md §2, §5.2, quirk 25) and from
 * CPython's documented semantics; it was checked against CPython 3.11 on many thousands of
 * random expressions over the alphabet.
 *
 * Deliberate divergences, all on absurd inputs only:
 * - Ints are exact up to {@link MAX_EXACT_BITS} bits. A result beyond that (e.g. `9**9**9`, which
 *   takes CPython many minutes) is kept as an "inexact int": its sign, parity and log2 bounds. That
 *   is enough to reproduce what CPython would eventually print in the common cases (`float()` of it
 *   is `int too large to convert to float`, `x * 0` is `0`, `1 / x` is `0.0`, `x ** 0` is `1`,
 *   `(-1) ** x` uses the parity, ...). Where the exact value would be needed (e.g. `9**9**9 - 9**9**9`)
 *   we raise `OverflowError("integer too large to evaluate exactly")`, a text CPython never prints;
 *   CPython would answer after a very long time, or raise MemoryError on a smaller machine.
 * - CPython's two recursion limits are reproduced with the values of a shallow caller: the parser's
 *   stack limit (6000 rule frames → MemoryError, observation `Error: `) by mirroring the grammar's
 *   rule nesting, and the compiler's limit (`maximum recursion depth exceeded during compilation`)
 *   for ASTs deeper than 2991 nodes. In CPython the compiler limit shrinks with the caller's stack
 *   depth, so τ-bench's real threshold is a few dozen nodes lower.
 * - `pow` is computed correctly rounded ({@link accuratePow}); glibc's is correctly rounded except
 *   in rare near-halfway cases (about 0.1% of random non-integral exponents), where the last bit can
 *   differ, visible only for results of 1e15 and more. `hypot`, `atan2`, `exp`, `log`, `cos`, `sin`
 *   (complex powers only) come from V8; they can differ from glibc in the last bit, which only shows
 *   in a complex number printed inside a call's error message.
 */
import { TaubridgeError, errorMarker } from "../../src/core/errors.ts";
import type { EpisodeDatabase } from "../../src/engine/database.ts";
import { PyException, type ToolImplementation } from "../../src/engine/tool.ts";
import { pyFloatRepr, pyTypeName, type PyValue } from "../../src/value/python-value.ts";

/** The characters the tool accepts (the space is the only whitespace). */
export const CALCULATE_ALPHABET = "0123456789+-*/(). ";

/** Ints up to this many bits are computed exactly; larger ones become inexact (see the file comment). */
export const MAX_EXACT_BITS = 1 << 20;

/** CPython's PEG parser stack limit (`MAXSTACK` in Parser/parser.c, non-debug build). */
const MAXSTACK = 6000;
/** Deepest AST the 3.11 compiler accepts from a shallow caller (1000 × 3 minus the caller's frames). */
const MAX_AST_DEPTH = 2991;
/** The tokenizer's limit on nested parentheses (`MAXLEVEL`). */
const MAX_PAREN_LEVEL = 200;
/** `sys.get_int_max_str_digits()` default. */
const INT_MAX_STR_DIGITS = 4300;

/**
 * The observation text τ-bench's `calculate` gives, as a thrown {@link PyException} for the error
 * paths (the environment turns it into `Error: {message}`) and the result string otherwise.
 * Accepts any argument value, because τ-bench does not type-check the model's arguments.
 */
export function pythonCalculate(expression: PyValue): string {
  if (!passesCharacterCheck(expression)) throw new PyException("invalid characters in expression", "ValueError");
  if (typeof expression !== "string") {
    throw new PyException("eval() arg 1 must be a string, bytes or code object", "TypeError");
  }
  const tree = compileExpression(expression);
  const value = evaluate(tree);
  return pyFloatRepr(pyRound2(pyFloatOf(value)));
}

/**
 * `calculate(expression)`: evaluates a Python arithmetic expression and returns
 * `str(round(float(value), 2))`. See {@link pythonCalculate} for the semantics.
 */
export const calculateTool: ToolImplementation = {
  name: "calculate",
  className: "Calculate",
  parameters: ["expression"],
  kind: "generic",
  invoke(_db: EpisodeDatabase, args: Readonly<Record<string, PyValue>>): string {
    return pythonCalculate(args.expression);
  },
};

// =============================================================================================
// Step 1: `all(char in ALPHABET for char in expression)`, with Python's iteration rules
// =============================================================================================

/**
 * Python iterates whatever it is given: a str by character, a list by element, a dict by key.
 * `x in "..."` is a substring test for strings and a TypeError for anything else; `all` stops at the
 * first false element.
 */
function passesCharacterCheck(expression: PyValue): boolean {
  if (typeof expression === "string") {
    for (const char of expression) if (!CALCULATE_ALPHABET.includes(char)) return false;
    return true;
  }
  let items: Iterable<PyValue>;
  if (Array.isArray(expression)) items = expression;
  else if (expression instanceof Map) items = expression.keys();
  else throw new PyException(`'${pyTypeName(expression)}' object is not iterable`, "TypeError");
  for (const item of items) {
    if (typeof item !== "string") {
      throw new PyException(`'in <string>' requires string as left operand, not ${pyTypeName(item)}`, "TypeError");
    }
    if (!CALCULATE_ALPHABET.includes(item)) return false;
  }
  return true;
}

// =============================================================================================
// Step 2a: tokenizer (Parser/tokenizer.c, restricted to the alphabet)
// =============================================================================================

const NUMBER = 0;
const OP = 1;
const END = 2;

interface Token {
  readonly kind: typeof NUMBER | typeof OP | typeof END;
  readonly text: string;
  /** Parenthesis nesting after the token was read (CPython's `token->level`). */
  readonly level: number;
}

/** A SyntaxError raised by the tokenizer or the parser. */
class SourceError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("SourceError");

  constructor(
    readonly text: string,
    /** Tokenizer errors are final; parser errors can be replaced by a later tokenizer error. */
    readonly fromTokenizer: boolean,
  ) {
    super(text);
  }
}

/** The parser ran past MAXSTACK: CPython raises a MemoryError with an empty message. */
class ParserStackOverflow extends TaubridgeError {
  static readonly marker: symbol = errorMarker("ParserStackOverflow");

  constructor() {
    super("parser stack overflow");
  }
}

const isDigit = (char: string | undefined): boolean => char !== undefined && char >= "0" && char <= "9";

class Tokenizer {
  private position = 0;
  private level = 0;
  private finished = false;

  constructor(private readonly source: string) {}

  /** The next token; tokenizer errors throw {@link SourceError}. An unclosed '(' at the end throws too. */
  next(): Token {
    const source = this.source;
    while (source[this.position] === " ") this.position++;
    if (this.position >= source.length) {
      if (this.level > 0) throw new SourceError("'(' was never closed", true);
      this.finished = true;
      return { kind: END, text: "", level: 0 };
    }
    const start = this.position;
    const char = source[start];
    if (isDigit(char)) return this.number(start);
    if (char === ".") {
      if (isDigit(source[start + 1])) return this.fraction(start, start + 1);
      if (source[start + 1] === "." && source[start + 2] === ".") return this.op("...", 3);
      return this.op(".", 1);
    }
    if (char === "(") {
      if (this.level >= MAX_PAREN_LEVEL) throw new SourceError("too many nested parentheses", true);
      this.level++;
      return this.op("(", 1);
    }
    if (char === ")") {
      if (this.level === 0) throw new SourceError("unmatched ')'", true);
      this.level--;
      return this.op(")", 1);
    }
    if (char === "*" || char === "/") {
      return source[start + 1] === char ? this.op(char + char, 2) : this.op(char, 1);
    }
    if (char === "+" || char === "-") return this.op(char, 1);
    // Unreachable after the character check; CPython's text for a stray character.
    throw new SourceError("invalid syntax", true);
  }

  /** Tokenizes the rest of the source; returns a tokenizer error if there is one (used after a parser error). */
  remainingError(): SourceError | undefined {
    try {
      while (!this.finished) this.next();
    } catch (error) {
      // An unclosed '(' at the end only wins when it is on an earlier line than the parser's error,
      // which cannot happen in a one-line source.
      if (SourceError.isInstance(error) && error.text !== "'(' was never closed") return error;
    }
    return undefined;
  }

  private op(text: string, length: number): Token {
    this.position += length;
    return { kind: OP, text, level: this.level };
  }

  private number(start: number): Token {
    const source = this.source;
    let index = start;
    if (source[index] === "0") {
      while (source[index] === "0") index++;
      let nonzero = false;
      if (isDigit(source[index])) {
        nonzero = true;
        while (isDigit(source[index])) index++;
      }
      if (source[index] === ".") return this.fraction(start, index + 1);
      if (nonzero) {
        throw new SourceError(
          "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers",
          true,
        );
      }
    } else {
      while (isDigit(source[index])) index++;
      if (source[index] === ".") return this.fraction(start, index + 1);
    }
    this.position = index;
    return { kind: NUMBER, text: source.slice(start, index), level: this.level };
  }

  /** `index` is just after the '.'. */
  private fraction(start: number, index: number): Token {
    while (isDigit(this.source[index])) index++;
    this.position = index;
    return { kind: NUMBER, text: this.source.slice(start, index), level: this.level };
  }
}

// =============================================================================================
// Step 2b: parser (a faithful subset of CPython 3.11's PEG grammar, Grammar/python.gram)
// =============================================================================================

type BinaryOperator = "+" | "-" | "*" | "/" | "//" | "**";

type Expr =
  | { readonly t: "int"; readonly value: bigint }
  | { readonly t: "float"; readonly value: number }
  | { readonly t: "ellipsis" }
  | { readonly t: "tuple" }
  | { readonly t: "starred"; readonly value: Expr }
  | { readonly t: "unary"; readonly op: "+" | "-"; readonly operand: Expr }
  | { readonly t: "binary"; readonly op: BinaryOperator; readonly left: Expr; readonly right: Expr }
  | { readonly t: "call"; readonly func: Expr; readonly argument: CallArgument | undefined };

/** A call has at most one argument: the alphabet has no comma. */
interface CallArgument {
  readonly kind: "positional" | "star" | "double-star";
  readonly value: Expr;
}

// Memo slots, one per memoized rule (`(memo)` rules and left-recursive leaders).
const M_EXPRESSION = 0;
const M_DISJUNCTION = 1;
const M_CONJUNCTION = 2;
const M_INVERSION = 3;
const M_FACTOR = 4;
const M_AWAIT_PRIMARY = 5;
const M_ARGUMENTS = 6;
const M_INVALID_NAMED_EXPRESSION = 7;
const M_BITWISE_OR = 8;
const M_BITWISE_XOR = 9;
const M_BITWISE_AND = 10;
const M_SHIFT_EXPR = 11;
const M_SUM = 12;
const M_TERM = 13;
const M_PRIMARY = 14;
const SUM_OPERATORS = ["+", "-"] as const;
const TERM_OPERATORS = ["*", "/", "//", "%", "@"] as const;

/** A factor (or the power inside it) waiting for the factor it recursed into. */
interface FactorFrame {
  readonly kind: "+" | "-" | "**";
  readonly start: number;
  readonly powerStart: number;
  readonly base: Expr | undefined;
}

interface MemoEntry {
  readonly node: unknown;
  readonly end: number;
}

/**
 * Mirrors the generated C parser rule by rule, because three observable things depend on it:
 * which alternative raises first in the error pass, how far the (lazy) tokenizer got when a parse
 * failed (a tokenizer error further on wins over a parser error), and the rule nesting depth that
 * hits MAXSTACK. Rules whose alternatives start with a NAME, keyword or STRING only touch the
 * current token, since no such token exists in the alphabet. `level` counts active rule functions,
 * including the `_tmp`/`_loop`/`_gather` helpers the generator creates for groups.
 */
class Parser {
  private readonly tokens: Token[] = [];
  private mark = 0;
  private level = 0;
  private callInvalidRules = false;
  private memo: Array<Map<number, MemoEntry>> = [];

  constructor(private readonly tokenizer: Tokenizer) {}

  /** One pass of `eval: expressions NEWLINE* ENDMARKER`. */
  parse(): Expr | undefined {
    this.enter();
    const expression = this.expressions();
    let result: Expr | undefined;
    if (expression) {
      this.touch(1); // _loop0 for NEWLINE*
      this.current();
      if (this.current().kind === END) result = expression;
    }
    this.leave();
    return result;
  }

  /** `reset_parser_state_for_error_pass`: forget memos, restart, and enable the invalid_* rules. */
  startErrorPass(): void {
    this.memo = [];
    this.mark = 0;
    this.level = 0;
    this.callInvalidRules = true;
  }

  // ----- token access -------------------------------------------------------------------------

  private tokenAt(index: number): Token {
    while (this.tokens.length <= index) this.tokens.push(this.tokenizer.next());
    return this.tokens[index];
  }

  private current(): Token {
    return this.tokenAt(this.mark);
  }

  private expect(text: string): boolean {
    const token = this.current();
    if (token.kind === OP && token.text === text) {
      this.mark++;
      return true;
    }
    return false;
  }

  /** A check for a token kind the alphabet cannot produce (NAME, keyword, STRING, NEWLINE, ...). */
  private never(): false {
    this.current();
    return false;
  }

  private nextIs(text: string): boolean {
    const token = this.current();
    return token.kind === OP && token.text === text;
  }

  // ----- rule bookkeeping ---------------------------------------------------------------------

  private enter(): void {
    if (this.level === MAXSTACK) throw new ParserStackOverflow();
    this.level++;
  }

  private leave(): void {
    this.level--;
  }

  /** Entering `depth` nested helper rules that only look at the current token. */
  private touch(depth: number): void {
    if (this.level + depth > MAXSTACK) throw new ParserStackOverflow();
  }

  private memoized(slot: number): MemoEntry | undefined {
    this.current(); // `_PyPegen_is_memoized` fills the token at the mark
    return this.memo[this.mark]?.get(slot);
  }

  private storeMemo(position: number, slot: number, node: unknown, end: number): void {
    let entries = this.memo[position];
    if (!entries) this.memo[position] = entries = new Map();
    entries.set(slot, { node, end });
  }

  /**
   * The loop that CPython generates for a left-recursive leader rule. Callers invoke it directly
   * (never through a wrapper method) so that one grammar level costs one JavaScript frame: CPython
   * accepts about 6000 nested rule calls (e.g. 199 nested parentheses).
   */
  private leftRecursive(slot: number): Expr | undefined {
    this.enter();
    const memo = this.memoized(slot);
    if (memo) {
      this.mark = memo.end;
      this.leave();
      return memo.node as Expr | undefined;
    }
    const start = this.mark;
    let resultMark = start;
    let result: Expr | undefined;
    for (;;) {
      this.storeMemo(start, slot, result, this.mark);
      this.mark = start;
      let next: Expr | undefined;
      switch (slot) {
        case M_SUM:
        case M_TERM:
          next = this.binaryRaw(slot);
          break;
        case M_PRIMARY:
          next = this.primaryRaw();
          break;
        default:
          next = this.neverOperatorRaw(slot);
      }
      if (!next || this.mark <= resultMark) break;
      resultMark = this.mark;
      result = next;
    }
    this.mark = resultMark;
    this.leave();
    return result;
  }

  // ----- expressions --------------------------------------------------------------------------

  private expressions(): Expr | undefined {
    this.enter();
    const start = this.mark;
    // expression (',' expression)+ [','] | expression ',' | expression
    const result = this.expression();
    if (result) {
      this.touch(2);
      this.nextIs(",");
    } else this.mark = start;
    this.leave();
    return result;
  }

  private expression(): Expr | undefined {
    this.enter();
    const memo = this.memoized(M_EXPRESSION);
    if (memo) {
      this.mark = memo.end;
      this.leave();
      return memo.node as Expr | undefined;
    }
    const start = this.mark;
    if (this.callInvalidRules) {
      this.invalidExpression();
      this.mark = start;
      this.touch(1); // invalid_legacy_expression: NAME ...
      this.never();
    }
    // disjunction 'if' disjunction 'else' expression
    if (this.booleanLevel(M_DISJUNCTION)) this.never();
    this.mark = start;
    const result = this.booleanLevel(M_DISJUNCTION);
    if (!result) {
      this.mark = start;
      this.touch(1); // lambdef
      this.never();
    }
    this.storeMemo(start, M_EXPRESSION, result, this.mark);
    this.leave();
    return result;
  }

  private invalidExpression(): void {
    this.enter();
    const start = this.mark;
    // !(NAME STRING | SOFT_KEYWORD) a=disjunction b=expression_without_invalid
    this.touch(1);
    this.never();
    if (this.booleanLevel(M_DISJUNCTION) && this.expressionWithoutInvalid()) {
      if (this.tokens[this.mark - 1].level !== 0) {
        throw new SourceError("invalid syntax. Perhaps you forgot a comma?", false);
      }
      this.leave();
      return;
    }
    this.mark = start;
    // a=disjunction 'if' b=disjunction !('else'|':')
    if (this.booleanLevel(M_DISJUNCTION)) this.never();
    this.mark = start;
    this.leave();
  }

  private expressionWithoutInvalid(): Expr | undefined {
    this.enter();
    const saved = this.callInvalidRules;
    this.callInvalidRules = false;
    const start = this.mark;
    if (this.booleanLevel(M_DISJUNCTION)) this.never();
    this.mark = start;
    const result = this.booleanLevel(M_DISJUNCTION);
    if (!result) {
      this.mark = start;
      this.touch(1);
      this.never();
    }
    this.callInvalidRules = saved;
    this.leave();
    return result;
  }

  /**
   * disjunction, conjunction and inversion: memoized, each with a keyword alternative ('or', 'and',
   * 'not') that never matches here.
   */
  private booleanLevel(slot: number): Expr | undefined {
    this.enter();
    const memo = this.memoized(slot);
    if (memo) {
      this.mark = memo.end;
      this.leave();
      return memo.node as Expr | undefined;
    }
    const start = this.mark;
    if (slot === M_INVERSION) {
      this.never(); // 'not' inversion
    } else if (slot === M_DISJUNCTION ? this.booleanLevel(M_CONJUNCTION) : this.booleanLevel(M_INVERSION)) {
      this.touch(2); // _loop1 of ('or' conjunction) / ('and' inversion)
      this.never();
    }
    this.mark = start;
    const result =
      slot === M_DISJUNCTION
        ? this.booleanLevel(M_CONJUNCTION)
        : slot === M_CONJUNCTION
          ? this.booleanLevel(M_INVERSION)
          : this.comparison();
    if (!result) this.mark = start;
    this.storeMemo(start, slot, result, this.mark);
    this.leave();
    return result;
  }

  private comparison(): Expr | undefined {
    this.enter();
    const start = this.mark;
    if (this.leftRecursive(M_BITWISE_OR)) {
      this.touch(4); // _loop1 → compare_op_bitwise_or_pair → noteq_bitwise_or → _tmp
      this.never();
    }
    this.mark = start;
    const result = this.leftRecursive(M_BITWISE_OR);
    if (!result) this.mark = start;
    this.leave();
    return result;
  }

  /**
   * bitwise_or_raw, bitwise_xor_raw, bitwise_and_raw, shift_expr_raw: `a=self OP b=next`
   * alternatives whose operator ('|', '^', '&', '<<', '>>') is not in the alphabet, then `next`.
   */
  private neverOperatorRaw(slot: number): Expr | undefined {
    this.enter();
    const start = this.mark;
    const alternatives = slot === M_SHIFT_EXPR ? 2 : 1;
    for (let index = 0; index < alternatives; index++) {
      if (this.leftRecursive(slot)) this.never();
      this.mark = start;
    }
    const next = slot === M_BITWISE_OR ? M_BITWISE_XOR : slot === M_BITWISE_XOR ? M_BITWISE_AND : slot === M_BITWISE_AND ? M_SHIFT_EXPR : M_SUM;
    const result = this.leftRecursive(next);
    if (!result) this.mark = start;
    this.leave();
    return result;
  }

  /** sum_raw (`+`, `-`, then term) and term_raw (`*`, `/`, `//`, `%`, `@`, then factor). */
  private binaryRaw(slot: number): Expr | undefined {
    this.enter();
    const start = this.mark;
    const operators = slot === M_SUM ? SUM_OPERATORS : TERM_OPERATORS;
    for (const operator of operators) {
      const left = this.leftRecursive(slot);
      if (left && this.expect(operator)) {
        const right = slot === M_SUM ? this.leftRecursive(M_TERM) : this.factor();
        if (right) {
          this.leave();
          return { t: "binary", op: operator as BinaryOperator, left, right };
        }
      }
      this.mark = start;
    }
    const result = slot === M_SUM ? this.leftRecursive(M_TERM) : this.factor();
    if (!result) this.mark = start;
    this.leave();
    return result;
  }

  /**
   * factor (memo): `'+' factor | '-' factor | '~' factor | power`, with power: `await_primary '**'
   * factor | await_primary`. The chain of nested factors (`- - - 1`, `2 ** -3 ** 4`) is walked with
   * an explicit stack instead of JavaScript recursion, keeping CPython's rule levels and memo
   * entries: CPython accepts chains of thousands, more than V8's default stack holds.
   */
  private factor(): Expr | undefined {
    const pending: FactorFrame[] = [];
    let result: Expr | undefined;
    for (;;) {
      // Entering factor at the mark.
      this.enter();
      const memo = this.memoized(M_FACTOR);
      if (memo) {
        this.mark = memo.end;
        this.leave();
        result = memo.node as Expr | undefined;
        break;
      }
      const start = this.mark;
      if (this.expect("+")) {
        pending.push({ kind: "+", start, powerStart: start, base: undefined });
        continue;
      }
      if (this.expect("-")) {
        pending.push({ kind: "-", start, powerStart: start, base: undefined });
        continue;
      }
      this.expect("~");
      this.mark = start;
      // power
      this.enter();
      const powerStart = this.mark;
      const base = this.awaitPrimary();
      if (base && this.expect("**")) {
        pending.push({ kind: "**", start, powerStart, base });
        continue;
      }
      this.mark = powerStart;
      result = this.awaitPrimary();
      if (!result) this.mark = powerStart;
      this.leave();
      if (!result) this.mark = start;
      this.storeMemo(start, M_FACTOR, result, this.mark);
      this.leave();
      break;
    }
    while (pending.length > 0) {
      const frame = pending.pop()!;
      if (frame.kind === "**") {
        if (result) {
          result = { t: "binary", op: "**", left: frame.base!, right: result };
        } else {
          this.mark = frame.powerStart;
          result = this.awaitPrimary();
          if (!result) this.mark = frame.powerStart;
        }
        this.leave(); // power
      } else if (result) {
        result = { t: "unary", op: frame.kind, operand: result };
      } else {
        // The '+'/'-' alternative failed: the remaining ones ('-', '~', power) fail at this token.
        this.mark = frame.start;
        if (frame.kind === "+") this.expect("-");
        this.expect("~");
        this.mark = frame.start;
        result = this.power();
      }
      if (!result) this.mark = frame.start;
      this.storeMemo(frame.start, M_FACTOR, result, this.mark);
      this.leave(); // factor
    }
    return result;
  }

  /** power, as reached only from a failed '+'/'-' alternative (so it fails at once). */
  private power(): Expr | undefined {
    this.enter();
    const start = this.mark;
    const base = this.awaitPrimary();
    if (base && this.expect("**")) {
      const exponent = this.factor();
      if (exponent) {
        this.leave();
        return { t: "binary", op: "**", left: base, right: exponent };
      }
    }
    this.mark = start;
    const result = this.awaitPrimary();
    if (!result) this.mark = start;
    this.leave();
    return result;
  }

  private awaitPrimary(): Expr | undefined {
    this.enter();
    const memo = this.memoized(M_AWAIT_PRIMARY);
    if (memo) {
      this.mark = memo.end;
      this.leave();
      return memo.node as Expr | undefined;
    }
    const start = this.mark;
    this.never(); // AWAIT primary
    const result = this.leftRecursive(M_PRIMARY);
    if (!result) this.mark = start;
    this.storeMemo(start, M_AWAIT_PRIMARY, result, this.mark);
    this.leave();
    return result;
  }

  private primaryRaw(): Expr | undefined {
    this.enter();
    const start = this.mark;
    // primary '.' NAME
    if (this.leftRecursive(M_PRIMARY) && this.expect(".")) this.never();
    this.mark = start;
    // primary genexp
    if (this.leftRecursive(M_PRIMARY)) this.genexp();
    this.mark = start;
    // primary '(' [arguments] ')'
    const func = this.leftRecursive(M_PRIMARY);
    if (func && this.expect("(")) {
      const argument = this.arguments();
      if (this.expect(")")) {
        this.leave();
        return { t: "call", func, argument };
      }
    }
    this.mark = start;
    // primary '[' slices ']'
    if (this.leftRecursive(M_PRIMARY)) this.expect("[");
    this.mark = start;
    const result = this.atom();
    if (!result) this.mark = start;
    this.leave();
    return result;
  }

  private atom(): Expr | undefined {
    this.enter();
    const start = this.mark;
    const token = this.current(); // NAME, 'True', 'False', 'None', &STRING: never
    let result: Expr | undefined;
    if (token.kind === NUMBER) {
      this.mark++;
      result = numberLiteral(token.text);
    } else if (token.kind === OP && token.text === "(") {
      this.enter(); // _tmp: tuple | group | genexp
      result = this.tuple() ?? this.group() ?? this.genexp();
      this.leave();
    } else if (this.expect("...")) {
      result = { t: "ellipsis" };
    }
    if (!result) this.mark = start;
    this.leave();
    return result;
  }

  private tuple(): Expr | undefined {
    this.enter();
    const start = this.mark;
    if (this.expect("(")) {
      // [star_named_expression ',' [star_named_expressions]]
      this.enter();
      const inner = this.mark;
      if (this.starNamedExpression()) this.expect(",");
      this.mark = inner;
      this.leave();
      if (this.expect(")")) {
        this.leave();
        return { t: "tuple" };
      }
    }
    this.mark = start;
    this.leave();
    return undefined;
  }

  private group(): Expr | undefined {
    this.enter();
    const start = this.mark;
    if (this.expect("(")) {
      this.enter(); // _tmp: yield_expr | named_expression
      this.touch(1); // yield_expr
      this.never();
      const inner = this.namedExpression();
      this.leave();
      if (inner && this.expect(")")) {
        this.leave();
        return inner;
      }
    }
    this.mark = start;
    if (this.callInvalidRules) {
      this.invalidGroup();
      this.mark = start;
    }
    this.leave();
    return undefined;
  }

  private invalidGroup(): void {
    this.enter();
    const start = this.mark;
    if (this.expect("(") && this.starredExpression() && this.expect(")")) {
      throw new SourceError("cannot use starred expression here", false);
    }
    this.mark = start;
    if (this.expect("(") && this.expect("**") && this.expression() && this.expect(")")) {
      throw new SourceError("cannot use double starred expression here", false);
    }
    this.mark = start;
    this.leave();
  }

  private genexp(): undefined {
    this.enter();
    const start = this.mark;
    if (this.expect("(")) {
      this.enter(); // _tmp: assignment_expression | expression !':='
      this.touch(1);
      this.never();
      const element = this.expression();
      if (element) this.nextIs(":=");
      this.leave();
      if (element) this.forIfClauses();
    }
    this.mark = start;
    if (this.callInvalidRules) {
      this.invalidComprehension();
      this.mark = start;
    }
    this.leave();
    return undefined;
  }

  /** for_if_clauses: always fails here (no 'for'); the helpers still count towards the stack. */
  private forIfClauses(): void {
    this.enter();
    this.touch(this.callInvalidRules ? 3 : 2);
    this.never();
    this.leave();
  }

  private invalidComprehension(): void {
    this.enter();
    const start = this.mark;
    this.enter(); // _tmp: '[' | '(' | '{'
    const open = this.expect("(");
    this.leave();
    if (open && this.starredExpression()) this.forIfClauses();
    this.mark = start;
    this.touch(1); // two more alternatives starting with ('[' | '{')
    this.current();
    this.leave();
  }

  private starredExpression(): Expr | undefined {
    this.enter();
    const start = this.mark;
    if (this.expect("*")) {
      const value = this.expression();
      if (value) {
        this.leave();
        return { t: "starred", value };
      }
    }
    this.mark = start;
    this.leave();
    return undefined;
  }

  private starNamedExpression(): Expr | undefined {
    this.enter();
    const start = this.mark;
    if (this.expect("*")) {
      const value = this.leftRecursive(M_BITWISE_OR);
      if (value) {
        this.leave();
        return { t: "starred", value };
      }
    }
    this.mark = start;
    const result = this.namedExpression();
    if (!result) this.mark = start;
    this.leave();
    return result;
  }

  private namedExpression(): Expr | undefined {
    this.enter();
    const start = this.mark;
    this.touch(1); // assignment_expression: NAME ':=' ...
    this.never();
    if (this.callInvalidRules) {
      this.invalidNamedExpression();
      this.mark = start;
    }
    const result = this.expression();
    if (result && !this.nextIs(":=")) {
      this.leave();
      return result;
    }
    this.mark = start;
    this.leave();
    return undefined;
  }

  private invalidNamedExpression(): void {
    this.enter();
    const memo = this.memoized(M_INVALID_NAMED_EXPRESSION);
    if (memo) {
      this.mark = memo.end;
      this.leave();
      return;
    }
    const start = this.mark;
    // a=expression ':=' expression
    if (this.expression()) this.nextIs(":=");
    this.mark = start;
    // a=NAME '=' ...
    this.never();
    // !(list|tuple|genexp|'True'|'None'|'False') a=bitwise_or b='=' ...
    this.enter();
    this.touch(1); // list
    this.never();
    const excluded = this.tuple() !== undefined || (this.genexp(), false);
    this.leave();
    this.mark = start;
    if (!excluded && this.leftRecursive(M_BITWISE_OR)) this.nextIs("=");
    this.mark = start;
    this.storeMemo(start, M_INVALID_NAMED_EXPRESSION, undefined, start);
    this.leave();
  }

  // ----- call arguments -----------------------------------------------------------------------

  private arguments(): CallArgument | undefined {
    this.enter();
    const memo = this.memoized(M_ARGUMENTS);
    if (memo) {
      this.mark = memo.end;
      this.leave();
      return memo.node as CallArgument | undefined;
    }
    const start = this.mark;
    let result = this.args();
    if (result) {
      this.expect(",");
      if (!this.nextIs(")")) result = undefined;
    }
    if (!result) {
      this.mark = start;
      if (this.callInvalidRules) {
        this.invalidArguments();
        this.mark = start;
      }
    }
    this.storeMemo(start, M_ARGUMENTS, result, this.mark);
    this.leave();
    return result;
  }

  private args(): CallArgument | undefined {
    this.enter();
    const start = this.mark;
    // ','.(starred_expression | (assignment_expression | expression !':=') !'=')+ [',' kwargs]
    this.enter(); // _gather
    const element = this.argumentElement();
    if (element) {
      this.touch(1); // _loop0 (',' element)*
      this.nextIs(",");
    }
    this.leave();
    if (element) {
      this.touch(1); // _tmp: ',' kwargs
      this.nextIs(",");
      this.leave();
      return element;
    }
    this.mark = start;
    const keyword = this.kwargs();
    if (!keyword) this.mark = start;
    this.leave();
    return keyword;
  }

  private argumentElement(): CallArgument | undefined {
    this.enter();
    const start = this.mark;
    const starred = this.starredExpression();
    if (starred && starred.t === "starred") {
      this.leave();
      return { kind: "star", value: starred.value };
    }
    this.mark = start;
    this.enter(); // _tmp: assignment_expression | expression !':='
    this.touch(1);
    this.never();
    let value = this.expression();
    if (value && this.nextIs(":=")) value = undefined;
    this.leave();
    if (value && !this.nextIs("=")) {
      this.leave();
      return { kind: "positional", value };
    }
    this.mark = start;
    this.leave();
    return undefined;
  }

  private kwargs(): CallArgument | undefined {
    this.enter();
    const start = this.mark;
    // ','.kwarg_or_starred+ ',' ','.kwarg_or_double_starred+
    if (this.gatherKeyword(false)) this.nextIs(",");
    this.mark = start;
    let result = this.gatherKeyword(false);
    if (!result) {
      this.mark = start;
      result = this.gatherKeyword(true);
      if (!result) this.mark = start;
    }
    this.leave();
    return result;
  }

  private gatherKeyword(doubleStarred: boolean): CallArgument | undefined {
    this.enter();
    const result = this.keywordOrStarred(doubleStarred);
    if (result) {
      this.touch(1);
      this.nextIs(",");
    }
    this.leave();
    return result;
  }

  /** kwarg_or_starred (`*x`) or kwarg_or_double_starred (`**x`). */
  private keywordOrStarred(doubleStarred: boolean): CallArgument | undefined {
    this.enter();
    const start = this.mark;
    if (this.callInvalidRules) {
      this.invalidKwarg();
      this.mark = start;
    }
    this.never(); // NAME '=' expression
    let result: CallArgument | undefined;
    if (doubleStarred) {
      if (this.expect("**")) {
        const value = this.expression();
        if (value) result = { kind: "double-star", value };
      }
    } else {
      const starred = this.starredExpression();
      if (starred && starred.t === "starred") result = { kind: "star", value: starred.value };
    }
    if (!result) this.mark = start;
    this.leave();
    return result;
  }

  private invalidKwarg(): void {
    this.enter();
    const start = this.mark;
    this.touch(1); // ('True'|'False'|'None') '='
    this.never();
    this.never(); // NAME '=' expression for_if_clauses
    this.touch(1); // !(NAME '=') a=expression b='='
    this.never();
    if (this.expression()) this.nextIs("=");
    this.mark = start;
    this.leave();
  }

  private invalidArguments(): void {
    this.enter();
    const start = this.mark;
    // a=args ',' '*'
    if (this.args()) this.nextIs(",");
    this.mark = start;
    // a=expression b=for_if_clauses ',' [args | expression for_if_clauses]
    if (this.expression()) this.forIfClauses();
    this.mark = start;
    // a=NAME b='=' expression for_if_clauses
    this.never();
    // a=args b=for_if_clauses
    if (this.args()) this.forIfClauses();
    this.mark = start;
    // args ',' a=expression b=for_if_clauses ; a=args ',' args
    for (let index = 0; index < 2; index++) {
      if (this.args()) this.nextIs(",");
      this.mark = start;
    }
    this.leave();
  }
}

/** The NUMBER token's value (`_PyPegen_number_token`), including the int-digits limit. */
function numberLiteral(text: string): Expr {
  if (text.includes(".")) return { t: "float", value: Number(text) };
  const significant = text.replace(/^0+/, "");
  if (significant.length > INT_MAX_STR_DIGITS) {
    throw new SourceError(
      `Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion: value has ${significant.length} digits; ` +
        "use sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge integer literals " +
        "to avoid decimal conversion limits.",
      false,
    );
  }
  return { t: "int", value: BigInt(text) };
}

function syntaxError(message: string, line: number): PyException {
  return new PyException(`${message} (<string>, line ${line})`, "SyntaxError");
}

/**
 * `compile(source, "<string>", "eval")`: the two parser passes, CPython's choice of which error to
 * report, and the compiler's recursion limit.
 */
function compileExpression(expression: string): Expr {
  // eval() strips leading spaces and tabs.
  const source = expression.replace(/^[ \t]+/, "");
  const tokenizer = new Tokenizer(source);
  const parser = new Parser(tokenizer);
  let tree: Expr | undefined;
  try {
    try {
      tree = parser.parse();
    } catch (error) {
      if (!SourceError.isInstance(error)) throw error;
      // The error pass does nothing when the first pass raised. A tokenizer error is final; a parser
      // error (the int-digits limit) gives way to a tokenizer error further on.
      const final = error.fromTokenizer ? error : (tokenizer.remainingError() ?? error);
      throw syntaxError(final.text, 1);
    }
    if (!tree) {
      parser.startErrorPass();
      try {
        parser.parse();
      } catch (error) {
        if (!SourceError.isInstance(error)) throw error;
        const final = error.fromTokenizer ? error : (tokenizer.remainingError() ?? error);
        throw syntaxError(final.text, 1);
      }
      const final = tokenizer.remainingError();
      throw syntaxError(final ? final.text : "invalid syntax", final ? 1 : source.length === 0 ? 0 : 1);
    }
  } catch (error) {
    // MAXSTACK (and, as a backstop, a JavaScript stack overflow on the same kind of input).
    if (ParserStackOverflow.isInstance(error) || error instanceof RangeError) throw new PyException("", "MemoryError");
    throw error;
  }
  if (astDepth(tree, 1) > MAX_AST_DEPTH) {
    throw new PyException("maximum recursion depth exceeded during compilation", "RecursionError");
  }
  return tree;
}

/** The AST optimizer's recursion depth (every expression node counts; `**` keyword wrappers do not). */
function astDepth(node: Expr, depth: number): number {
  // Iterative over the left spine to keep long `a + b + c + ...` chains off the JavaScript stack.
  let deepest = depth;
  let current: Expr | undefined = node;
  let level = depth;
  while (current) {
    if (level > deepest) deepest = level;
    if (deepest > MAX_AST_DEPTH) return deepest;
    switch (current.t) {
      case "unary":
        current = current.operand;
        break;
      case "starred":
        current = current.value;
        break;
      case "binary":
        deepest = Math.max(deepest, astDepth(current.right, level + 1));
        current = current.left;
        break;
      case "call":
        if (current.argument) {
          const extra = current.argument.kind === "star" ? 1 : 0;
          deepest = Math.max(deepest, astDepth(current.argument.value, level + 1 + extra));
        }
        current = current.func;
        break;
      default:
        current = undefined;
    }
    level++;
  }
  return deepest;
}

// =============================================================================================
// Step 2c: evaluation with CPython's number semantics
// =============================================================================================

/** An int too large to keep exactly: sign (0 = unknown), parity (null = unknown), log2 bounds of |value|. */
interface InexactInt {
  readonly k: "inexact";
  readonly sign: -1 | 0 | 1;
  readonly lo: number;
  readonly hi: number;
  readonly odd: boolean | null;
}

type Value =
  | { readonly k: "int"; readonly v: bigint }
  | InexactInt
  | { readonly k: "float"; readonly v: number }
  | { readonly k: "complex"; readonly re: number; readonly im: number }
  | { readonly k: "tuple" }
  | { readonly k: "ellipsis" };

type IntValue = Extract<Value, { k: "int" }> | InexactInt;
type Complex = { readonly re: number; readonly im: number };

const EXACT_LIMIT = 1n << BigInt(MAX_EXACT_BITS);
const INDEX_MIN = -(1n << 63n);
const INDEX_MAX = (1n << 63n) - 1n;
const STR_DIGITS_LIMIT = 10n ** BigInt(INT_MAX_STR_DIGITS);
const LOG2_STR_DIGITS_LIMIT = INT_MAX_STR_DIGITS * Math.log2(10);
const SAFE = 1n << 53n;
const EPSILON = 1e-6;

const int = (v: bigint): Value => ({ k: "int", v });
const float = (v: number): Value => ({ k: "float", v });

function typeName(value: Value): string {
  switch (value.k) {
    case "int":
    case "inexact":
      return "int";
    default:
      return value.k;
  }
}

function pyError(type: string, message: string): PyException {
  return new PyException(message, type);
}

const overflowToFloat = (): PyException => pyError("OverflowError", "int too large to convert to float");
const inexactDivergence = (): PyException => pyError("OverflowError", "integer too large to evaluate exactly");

function evaluate(node: Expr): Value {
  switch (node.t) {
    case "int":
      return int(node.value);
    case "float":
      return float(node.value);
    case "ellipsis":
      return { k: "ellipsis" };
    case "tuple":
      return { k: "tuple" };
    case "unary":
      return unary(node.op, evaluate(node.operand));
    case "binary": {
      const left = evaluate(node.left);
      const right = evaluate(node.right);
      return binary(node.op, left, right);
    }
    case "call":
      return call(node);
    case "starred":
      // Only reachable inside a call, handled there.
      throw pyError("SyntaxError", "can't use starred expression here");
  }
}

function call(node: Extract<Expr, { t: "call" }>): Value {
  const func = evaluate(node.func);
  const argument = node.argument;
  if (argument) {
    const value = evaluate(argument.value);
    if (argument.kind === "star" && value.k !== "tuple") {
      throw pyError("TypeError", `${pyStrForMessage(func)} argument after * must be an iterable, not ${typeName(value)}`);
    }
    if (argument.kind === "double-star") {
      throw pyError("TypeError", `${pyStrForMessage(func)} argument after ** must be a mapping, not ${typeName(value)}`);
    }
  }
  throw pyError("TypeError", `'${typeName(func)}' object is not callable`);
}

/** `str(x)` as `_PyObject_FunctionStr` uses it in call error messages. */
function pyStrForMessage(value: Value): string {
  switch (value.k) {
    case "int": {
      const magnitude = value.v < 0n ? -value.v : value.v;
      if (magnitude >= STR_DIGITS_LIMIT) throw strDigitsError();
      return value.v.toString();
    }
    case "inexact":
      if (value.lo >= LOG2_STR_DIGITS_LIMIT) throw strDigitsError();
      throw inexactDivergence();
    case "float":
      return pyFloatRepr(value.v);
    case "complex":
      return complexRepr(value);
    case "tuple":
      return "()";
    case "ellipsis":
      return "Ellipsis";
  }
}

function strDigitsError(): PyException {
  return pyError(
    "ValueError",
    `Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit`,
  );
}

/** `repr(complex)`: `1j`, `(1+2j)`, `(-0+0j)`; parts use the float repr without a forced `.0`. */
function complexRepr(value: Complex): string {
  const part = (x: number): string => {
    const text = pyFloatRepr(x);
    return text.endsWith(".0") ? text.slice(0, -2) : text;
  };
  if (value.re === 0 && !Object.is(value.re, -0)) return `${part(value.im)}j`;
  const imaginary = part(value.im);
  const signed = imaginary.startsWith("-") ? imaginary : `+${imaginary}`;
  return `(${part(value.re)}${signed}j)`;
}

/** `float(x)` at the end of the tool. */
function pyFloatOf(value: Value): number {
  switch (value.k) {
    case "int":
    case "inexact":
      return toDouble(value);
    case "float":
      return value.v;
    default:
      throw pyError("TypeError", `float() argument must be a string or a real number, not '${value.k}'`);
  }
}

/**
 * Python `round(x, 2)` for a float: the exact binary value rounded half-even to two decimals, then
 * the nearest double (CPython does it with dtoa mode 3 and strtod). Exact with BigInt, because the
 * shared `roundHalfEven2` recipe multiplies by 100 in floating point, which is no longer exact for
 * |x| ≥ 2^53 / 100 (`round(906991185404271.125, 2)` is `906991185404271.1`).
 */
export function pyRound2(x: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= 2 ** 52 || x === 0) return x;
  const negative = x < 0;
  const { mantissa, exponent } = decompose(Math.abs(x));
  if (exponent >= 0) return x;
  const divisor = 1n << BigInt(-exponent);
  const scaled = mantissa * 100n;
  let hundredths = scaled / divisor;
  const twiceRemainder = (scaled - hundredths * divisor) * 2n;
  if (twiceRemainder > divisor || (twiceRemainder === divisor && (hundredths & 1n) === 1n)) hundredths += 1n;
  const magnitude = hundredths === 0n ? 0 : roundToDouble(hundredths, 100n, 0);
  return negative ? -magnitude : magnitude;
}

// ----- ints ----------------------------------------------------------------------------------

function bitLength(value: bigint): number {
  const magnitude = value < 0n ? -value : value;
  if (magnitude < SAFE) return magnitude === 0n ? 0 : Math.floor(Math.log2(Number(magnitude))) + 1;
  const hex = magnitude.toString(16);
  return (hex.length - 1) * 4 + Math.floor(Math.log2(parseInt(hex[0], 16))) + 1;
}

/** log2 |value| for a nonzero bigint, to about 1e-15 relative. */
function log2Of(value: bigint): number {
  const magnitude = value < 0n ? -value : value;
  const bits = bitLength(magnitude);
  if (bits <= 1000) return Math.log2(Number(magnitude));
  return bits - 60 + Math.log2(Number(magnitude >> BigInt(bits - 60)));
}

/** An exact int, or an inexact one once it passes {@link MAX_EXACT_BITS}. */
function makeInt(value: bigint): IntValue {
  if (value > -EXACT_LIMIT && value < EXACT_LIMIT) return { k: "int", v: value };
  const bits = bitLength(value);
  return inexact(value < 0n ? -1 : 1, bits - 1, bits, (value & 1n) === 1n);
}

function inexact(sign: -1 | 0 | 1, lo: number, hi: number, odd: boolean | null): InexactInt {
  return { k: "inexact", sign, lo, hi, odd };
}

interface Bounds {
  readonly sign: -1 | 0 | 1;
  readonly lo: number;
  readonly hi: number;
  readonly odd: boolean | null;
}

/** Bounds of a nonzero int. */
function bounds(value: IntValue): Bounds {
  if (value.k === "inexact") return value;
  const log = log2Of(value.v);
  return { sign: value.v < 0n ? -1 : 1, lo: log - EPSILON, hi: log + EPSILON, odd: (value.v & 1n) === 1n };
}

const isZero = (value: IntValue): boolean => value.k === "int" && value.v === 0n;

/** `PyLong_AsDouble`: correctly rounded, OverflowError beyond the double range. */
function toDouble(value: IntValue | Extract<Value, { k: "float" }>): number {
  if (value.k === "float") return value.v;
  if (value.k === "inexact") {
    if (value.lo >= 1024) throw overflowToFloat();
    throw inexactDivergence();
  }
  const result = Number(value.v);
  if (!Number.isFinite(result)) throw overflowToFloat();
  return result;
}

function mulSign(a: -1 | 0 | 1, b: -1 | 0 | 1): -1 | 0 | 1 {
  return (a * b) as -1 | 0 | 1;
}

function intAdd(a: IntValue, b: IntValue): IntValue {
  if (a.k === "int" && b.k === "int") return makeInt(a.v + b.v);
  if (isZero(a)) return b;
  if (isZero(b)) return a;
  const x = bounds(a);
  const y = bounds(b);
  if (x.sign === 0 || y.sign === 0) throw inexactDivergence();
  const odd = x.odd === null || y.odd === null ? null : x.odd !== y.odd;
  if (x.sign === y.sign) return inexact(x.sign, Math.max(x.lo, y.lo), Math.max(x.hi, y.hi) + 1, odd);
  // Opposite signs: the larger magnitude must dominate for the result to be known.
  const [big, small] = x.lo > y.hi ? [x, y] : y.lo > x.hi ? [y, x] : [undefined, undefined];
  if (!big || !small) throw inexactDivergence();
  const lo = big.lo + Math.log2(1 - Math.pow(2, small.hi - big.lo)) - EPSILON;
  if (!(lo > 64)) throw inexactDivergence();
  return inexact(big.sign, lo, big.hi, odd);
}

function intNeg(a: IntValue): IntValue {
  if (a.k === "int") return makeInt(-a.v);
  return inexact(mulSign(a.sign, -1), a.lo, a.hi, a.odd);
}

function intMul(a: IntValue, b: IntValue): IntValue {
  if (isZero(a) || isZero(b)) return { k: "int", v: 0n };
  if (a.k === "int" && b.k === "int") {
    const bits = bitLength(a.v) + bitLength(b.v);
    if (bits - 2 < MAX_EXACT_BITS) return makeInt(a.v * b.v);
  }
  const x = bounds(a);
  const y = bounds(b);
  const odd = x.odd === false || y.odd === false ? false : x.odd === true && y.odd === true ? true : null;
  return inexact(mulSign(x.sign, y.sign), x.lo + y.lo, x.hi + y.hi, odd);
}

/** int / int: correctly rounded, like `long_true_divide`. */
function intTrueDivide(a: IntValue, b: IntValue): number {
  if (isZero(b)) throw pyError("ZeroDivisionError", "division by zero");
  if (a.k === "int" && b.k === "int") {
    const negative = a.v < 0n !== b.v < 0n;
    const n = a.v < 0n ? -a.v : a.v;
    const d = b.v < 0n ? -b.v : b.v;
    if (n === 0n) return negative ? -0 : 0;
    if (n <= SAFE && d <= SAFE) return Number(a.v) / Number(b.v);
    const magnitude = ratioToDouble(n, d);
    if (magnitude === Infinity) throw pyError("OverflowError", "integer division result too large for a float");
    return negative ? -magnitude : magnitude;
  }
  const y = bounds(b);
  if (isZero(a)) {
    if (y.sign === 0) throw inexactDivergence();
    return y.sign < 0 ? -0 : 0;
  }
  const x = bounds(a);
  if (x.lo - y.hi > 1025) throw pyError("OverflowError", "integer division result too large for a float");
  if (x.hi - y.lo < -1080) {
    const sign = mulSign(x.sign, y.sign);
    if (sign === 0) throw inexactDivergence();
    return sign < 0 ? -0 : 0;
  }
  throw inexactDivergence();
}

/** n / d (both positive) rounded to the nearest double, ties to even, with subnormals; Infinity on overflow. */
function ratioToDouble(n: bigint, d: bigint): number {
  return roundToDouble(n, d, 0);
}

/** (n / d) · 2^shift for positive bigints, correctly rounded (ties to even, subnormals); Infinity on overflow. */
function roundToDouble(n: bigint, d: bigint, shift: number): number {
  const e = bitLength(n) - bitLength(d);
  const above = e >= 0 ? n >= d << BigInt(e) : n << BigInt(-e) >= d;
  const exponent = (above ? e : e - 1) + shift; // floor(log2(value))
  if (exponent >= 1024) return Infinity;
  if (exponent <= -1076) return 0; // below half the smallest subnormal
  const lsb = Math.max(exponent - 52, -1074);
  const scale = lsb - shift; // quotient = floor(n / (d · 2^scale))
  const numerator = scale >= 0 ? n : n << BigInt(-scale);
  const denominator = scale >= 0 ? d << BigInt(scale) : d;
  let quotient = numerator / denominator;
  const twiceRemainder = (numerator - quotient * denominator) * 2n;
  if (twiceRemainder > denominator || (twiceRemainder === denominator && (quotient & 1n) === 1n)) quotient += 1n;
  if (lsb + bitLength(quotient) > 1024) return Infinity;
  return Number(quotient) * 2 ** lsb;
}

function intFloorDivide(a: IntValue, b: IntValue): IntValue {
  if (isZero(b)) throw pyError("ZeroDivisionError", "integer division or modulo by zero");
  if (a.k === "int" && b.k === "int") {
    const quotient = a.v / b.v;
    const adjust = a.v % b.v !== 0n && a.v < 0n !== b.v < 0n;
    return makeInt(adjust ? quotient - 1n : quotient);
  }
  if (isZero(a)) return { k: "int", v: 0n };
  const x = bounds(a);
  const y = bounds(b);
  const sign = mulSign(x.sign, y.sign);
  if (x.hi < y.lo) {
    // |a| < |b|: 0 for the same signs, -1 otherwise.
    if (sign === 0) throw inexactDivergence();
    return { k: "int", v: sign > 0 ? 0n : -1n };
  }
  const lo = x.lo - y.hi - EPSILON;
  if (lo > MAX_EXACT_BITS) return inexact(sign, lo, x.hi - y.lo + 1, null);
  throw inexactDivergence();
}

function intPower(a: IntValue, b: IntValue): Value {
  const exponentSign = b.k === "int" ? (b.v < 0n ? -1 : b.v > 0n ? 1 : 0) : b.sign;
  if (b.k === "inexact" && b.sign === 0) throw inexactDivergence();
  if (exponentSign < 0) {
    // A negative exponent makes it float ** float (both converted, base first).
    return floatPower(toDouble(a), toDouble(b));
  }
  if (isZero(b)) return int(1n);
  if (a.k === "int") {
    if (a.v === 0n || a.v === 1n) return a;
    if (a.v === -1n) {
      const odd = b.k === "int" ? (b.v & 1n) === 1n : b.odd;
      if (odd === null) throw inexactDivergence();
      return int(odd ? -1n : 1n);
    }
    if (b.k === "int") {
      const estimate = Number(b.v) * log2Of(a.v);
      if (estimate * (1 - 1e-12) - EPSILON < MAX_EXACT_BITS) return makeInt(a.v ** b.v);
      const odd = (a.v & 1n) === 1n;
      const sign = a.v < 0n && (b.v & 1n) === 1n ? -1 : 1;
      return inexact(sign, estimate * (1 - 1e-12) - EPSILON, estimate * (1 + 1e-12) + EPSILON, odd);
    }
  }
  const x = bounds(a);
  const exponentLo = b.k === "int" ? Number(b.v) : Math.pow(2, b.lo);
  const exponentHi = b.k === "int" ? Number(b.v) : Math.pow(2, b.hi);
  const exponentOdd = b.k === "int" ? (b.v & 1n) === 1n : b.odd;
  const sign: -1 | 0 | 1 = x.sign > 0 ? 1 : x.sign < 0 ? (exponentOdd === null ? 0 : exponentOdd ? -1 : 1) : exponentOdd === false ? 1 : 0;
  return inexact(sign, exponentLo * x.lo, exponentHi * x.hi, x.odd);
}

function intIndex(value: IntValue): void {
  if (value.k === "inexact" || value.v < INDEX_MIN || value.v > INDEX_MAX) {
    throw pyError("OverflowError", "cannot fit 'int' into an index-sized integer");
  }
}

// ----- floats (Objects/floatobject.c) ---------------------------------------------------------

const isOddInteger = (x: number): boolean => Math.abs(x) % 2 === 1;
const copySign = (magnitude: number, sign: number): number =>
  sign < 0 || Object.is(sign, -0) ? -Math.abs(magnitude) : Math.abs(magnitude);

function floatFloorDivide(vx: number, wx: number): number {
  if (wx === 0) throw pyError("ZeroDivisionError", "float floor division by zero");
  let mod = vx % wx;
  let div = (vx - mod) / wx;
  if (mod !== 0) {
    if (wx < 0 !== mod < 0) {
      mod += wx;
      div -= 1.0;
    }
  }
  if (div !== 0) {
    let floordiv = Math.floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
    return floordiv;
  }
  return copySign(0, vx / wx);
}

function floatPower(iv: number, iw: number): Value {
  if (iw === 0) return float(1);
  if (Number.isNaN(iv)) return float(iv);
  if (Number.isNaN(iw)) return float(iv === 1 ? 1 : iw);
  if (!Number.isFinite(iw)) {
    const magnitude = Math.abs(iv);
    if (magnitude === 1) return float(1);
    return float(iw > 0 === magnitude > 1 ? Math.abs(iw) : 0);
  }
  if (!Number.isFinite(iv)) {
    const odd = isOddInteger(iw);
    if (iw > 0) return float(odd ? iv : Math.abs(iv));
    return float(odd ? copySign(0, iv) : 0);
  }
  if (iv === 0) {
    const odd = isOddInteger(iw);
    if (iw < 0) throw pyError("ZeroDivisionError", "0.0 cannot be raised to a negative power");
    return float(odd ? iv : 0);
  }
  let negate = false;
  if (iv < 0) {
    if (iw !== Math.floor(iw)) {
      // A negative number to a fractional power is complex.
      const result = complexPower({ re: iv, im: 0 }, { re: iw, im: 0 });
      return { k: "complex", re: result.re, im: result.im };
    }
    iv = -iv;
    negate = isOddInteger(iw);
  }
  if (iv === 1) return float(negate ? -1 : 1);
  let ix = accuratePow(iv, iw);
  if (negate) ix = -ix;
  if (!Number.isFinite(ix)) throw pyError("OverflowError", "(34, 'Numerical result out of range')");
  return float(ix);
}

/**
 * C `pow(x, y)` for the cases `float_pow` leaves to libm: x > 0, x ≠ 1, both finite, y ≠ 0.
 * CPython gets glibc's pow, which is correctly rounded in all but rare near-halfway cases; V8's
 * `Math.pow` can be hundreds of ulps off for large results. So this computes the correctly rounded
 * value: exactly for integral exponents up to 2048 (x^n = m^n · 2^(e·n) with BigInt), and with
 * 192-bit fixed-point logarithm and exponential otherwise.
 */
function accuratePow(x: number, y: number): number {
  const { mantissa, exponent } = decompose(x);
  if (Number.isInteger(y) && Math.abs(y) <= 2048) {
    const power = mantissa ** BigInt(Math.abs(y));
    return y > 0 ? roundToDouble(power, 1n, exponent * y) : roundToDouble(1n, power, exponent * y);
  }
  const t = multiplyByDouble(lnFixed(mantissa, exponent), y);
  if (t > 800n * FIXED_ONE) return Infinity;
  if (t < -800n * FIXED_ONE) return 0;
  return expFixed(t);
}

/** pow() as the complex code calls it: any inputs (the special cases are IEEE's, like C's). */
function libmPow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if (x > 0 && Number.isFinite(x) && Number.isFinite(y)) return accuratePow(x, y);
  return Math.pow(x, y);
}

const FIXED_BITS = 192n;
const FIXED_ONE = 1n << FIXED_BITS;
let fixedLn2: bigint | undefined;

/** ln 2 as a fixed-point number (2·atanh(1/3)). */
function ln2Fixed(): bigint {
  if (fixedLn2 === undefined) {
    let term = FIXED_ONE / 3n;
    let sum = 0n;
    for (let k = 1n; term > 0n; k += 2n) {
      sum += term / k;
      term /= 9n;
    }
    fixedLn2 = 2n * sum;
  }
  return fixedLn2;
}

/** A positive finite double as mantissa · 2^exponent with an integer mantissa. */
function decompose(x: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const high = view.getUint32(0);
  const low = view.getUint32(4);
  const biased = (high >>> 20) & 0x7ff;
  const fraction = (BigInt(high & 0xfffff) << 32n) | BigInt(low);
  return biased === 0
    ? { mantissa: fraction, exponent: -1074 }
    : { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

/** ln(mantissa · 2^exponent) in fixed point. */
function lnFixed(mantissa: bigint, exponent: number): bigint {
  const bits = bitLength(mantissa);
  let e = exponent + bits - 1;
  // m in [1, 2) as fixed point, then moved to [√½, √2) for a fast atanh series.
  let m = (mantissa << FIXED_BITS) >> BigInt(bits - 1);
  if (m * m > 2n * FIXED_ONE * FIXED_ONE) {
    m >>= 1n;
    e += 1;
  }
  const s = ((m - FIXED_ONE) << FIXED_BITS) / (m + FIXED_ONE);
  const s2 = (s * s) / FIXED_ONE;
  let sum = 0n;
  let term = s;
  for (let k = 1n; term !== 0n; k += 2n) {
    sum += term / k;
    term = (term * s2) / FIXED_ONE; // truncates towards zero, so the series ends for negative s
  }
  return 2n * sum + BigInt(e) * ln2Fixed();
}

/** fixed · y for a double y, exactly up to the final truncation. */
function multiplyByDouble(fixed: bigint, y: number): bigint {
  const { mantissa, exponent } = decompose(Math.abs(y));
  const product = fixed * mantissa;
  const scaled = exponent >= 0 ? product << BigInt(exponent) : product >> BigInt(-exponent);
  return y < 0 ? -scaled : scaled;
}

/** e^t for a fixed-point t (|t| ≤ 800), rounded to a double. */
function expFixed(t: bigint): number {
  const ln2 = ln2Fixed();
  let k = t / ln2;
  let r = t - k * ln2;
  const half = ln2 / 2n;
  if (r > half) {
    r -= ln2;
    k += 1n;
  } else if (r < -half) {
    r += ln2;
    k -= 1n;
  }
  let sum = FIXED_ONE;
  let term = FIXED_ONE;
  for (let n = 1n; term !== 0n; n += 1n) {
    term = (term * r) / FIXED_ONE / n;
    sum += term;
  }
  return roundToDouble(sum, 1n, Number(k) - Number(FIXED_BITS));
}

// ----- complex (Objects/complexobject.c) ------------------------------------------------------

const EDOM = 33;
const ERANGE = 34;

function complexProduct(a: Complex, b: Complex): Complex {
  return { re: a.re * b.re - a.im * b.im, im: a.re * b.im + a.im * b.re };
}

/** `_Py_c_quot` (Smith's algorithm); `errno.value` becomes EDOM for a zero divisor. */
function complexQuotient(a: Complex, b: Complex, errno: { value: number }): Complex {
  const absReal = b.re < 0 ? -b.re : b.re;
  const absImag = b.im < 0 ? -b.im : b.im;
  if (absReal >= absImag) {
    if (absReal === 0) {
      errno.value = EDOM;
      return { re: 0, im: 0 };
    }
    const ratio = b.im / b.re;
    const denominator = b.re + b.im * ratio;
    return { re: (a.re + a.im * ratio) / denominator, im: (a.im - a.re * ratio) / denominator };
  }
  if (absImag >= absReal) {
    const ratio = b.re / b.im;
    const denominator = b.re * ratio + b.im;
    return { re: (a.re * ratio + a.im) / denominator, im: (a.im * ratio - a.re) / denominator };
  }
  return { re: NaN, im: NaN };
}

function complexPowerUnsigned(x: Complex, n: number): Complex {
  let result: Complex = { re: 1, im: 0 };
  let power = x;
  for (let mask = 1; mask > 0 && n >= mask; mask *= 2) {
    if (Math.floor(n / mask) % 2 === 1) result = complexProduct(result, power);
    power = complexProduct(power, power);
  }
  return result;
}

function complexPower(a: Complex, b: Complex): Complex {
  const errno = { value: 0 };
  let result: Complex;
  if (b.im === 0 && b.re === Math.floor(b.re) && Math.abs(b.re) <= 100) {
    const n = b.re;
    result = n > 0 ? complexPowerUnsigned(a, n) : complexQuotient({ re: 1, im: 0 }, complexPowerUnsigned(a, -n), errno);
  } else if (b.re === 0 && b.im === 0) {
    result = { re: 1, im: 0 };
  } else if (a.re === 0 && a.im === 0) {
    if (b.im !== 0 || b.re < 0) errno.value = EDOM;
    result = { re: 0, im: 0 };
  } else {
    const vabs = Math.hypot(a.re, a.im);
    let length = libmPow(vabs, b.re);
    const angle = Math.atan2(a.im, a.re);
    let phase = angle * b.re;
    if (b.im !== 0) {
      length /= Math.exp(angle * b.im);
      phase += b.im * Math.log(vabs);
    }
    if (!Number.isFinite(phase) && !Number.isNaN(phase)) errno.value = EDOM; // cos/sin of ±inf
    result = { re: length * Math.cos(phase), im: length * Math.sin(phase) };
  }
  const infinite = (x: number): boolean => x === Infinity || x === -Infinity;
  if (infinite(result.re) || infinite(result.im)) {
    if (errno.value === 0) errno.value = ERANGE;
  } else if (errno.value === ERANGE) errno.value = 0;
  if (errno.value === EDOM) throw pyError("ZeroDivisionError", "0.0 to a negative or complex power");
  if (errno.value === ERANGE) throw pyError("OverflowError", "complex exponentiation");
  return result;
}

function toComplex(value: Value): Complex {
  if (value.k === "complex") return value;
  if (value.k === "float") return { re: value.v, im: 0 };
  return { re: toDouble(value as IntValue), im: 0 };
}

function complexBinary(op: BinaryOperator, left: Value, right: Value): Value {
  if (op === "//") throw unsupported(op, left, right);
  const a = toComplex(left);
  const b = toComplex(right);
  let result: Complex;
  switch (op) {
    case "+":
      result = { re: a.re + b.re, im: a.im + b.im };
      break;
    case "-":
      result = { re: a.re - b.re, im: a.im - b.im };
      break;
    case "*":
      result = complexProduct(a, b);
      break;
    case "/": {
      const errno = { value: 0 };
      result = complexQuotient(a, b, errno);
      if (errno.value === EDOM) throw pyError("ZeroDivisionError", "complex division by zero");
      break;
    }
    case "**":
      result = complexPower(a, b);
      break;
  }
  return { k: "complex", re: result.re, im: result.im };
}

// ----- operator dispatch (Objects/abstract.c) -------------------------------------------------

function unsupported(op: BinaryOperator, left: Value, right: Value): PyException {
  const symbol = op === "**" ? "** or pow()" : op;
  return pyError("TypeError", `unsupported operand type(s) for ${symbol}: '${typeName(left)}' and '${typeName(right)}'`);
}

const isIntValue = (value: Value): value is IntValue => value.k === "int" || value.k === "inexact";
const isNumber = (value: Value): boolean => value.k === "int" || value.k === "inexact" || value.k === "float" || value.k === "complex";

function unary(op: "+" | "-", operand: Value): Value {
  switch (operand.k) {
    case "int":
    case "inexact":
      return op === "-" ? intNeg(operand) : operand;
    case "float":
      return op === "-" ? float(-operand.v) : operand;
    case "complex":
      return op === "-" ? { k: "complex", re: -operand.re, im: -operand.im } : operand;
    default:
      throw pyError("TypeError", `bad operand type for unary ${op}: '${operand.k}'`);
  }
}

/** `seq * n` for the only sequence there is, the empty tuple. */
function repeatTuple(count: Value): Value {
  if (!isIntValue(count)) throw pyError("TypeError", `can't multiply sequence by non-int of type '${typeName(count)}'`);
  intIndex(count);
  return { k: "tuple" };
}

function binary(op: BinaryOperator, left: Value, right: Value): Value {
  if (isNumber(left) && isNumber(right)) {
    if (left.k === "complex" || right.k === "complex") return complexBinary(op, left, right);
    if (left.k === "float" || right.k === "float") {
      const a = toDouble(left as IntValue);
      const b = toDouble(right as IntValue);
      switch (op) {
        case "+":
          return float(a + b);
        case "-":
          return float(a - b);
        case "*":
          return float(a * b);
        case "/":
          if (b === 0) throw pyError("ZeroDivisionError", "float division by zero");
          return float(a / b);
        case "//":
          return float(floatFloorDivide(a, b));
        case "**":
          return floatPower(a, b);
      }
    }
    const a = left as IntValue;
    const b = right as IntValue;
    switch (op) {
      case "+":
        return intAdd(a, b);
      case "-":
        return intAdd(a, intNeg(b));
      case "*":
        return intMul(a, b);
      case "/":
        return float(intTrueDivide(a, b));
      case "//":
        return intFloorDivide(a, b);
      case "**":
        return intPower(a, b);
    }
  }
  if (op === "+" && left.k === "tuple") {
    if (right.k === "tuple") return left;
    throw pyError("TypeError", `can only concatenate tuple (not "${typeName(right)}") to tuple`);
  }
  if (op === "*") {
    if (left.k === "tuple") return repeatTuple(right);
    if (right.k === "tuple") return repeatTuple(left);
  }
  throw unsupported(op, left, right);
}

