/**
 * Step 2b of `calculate`: a faithful subset of CPython 3.11's PEG grammar (Grammar/python.gram),
 * rule by rule, including the second `invalid_*` pass and the parser stack limit.
 */
import { INT_MAX_STR_DIGITS, MAXSTACK } from "./limits.ts";
import { END, NUMBER, OP, ParserStackOverflow, SourceError, type Token, type Tokenizer } from "./tokenizer.ts";

export type BinaryOperator = "+" | "-" | "*" | "/" | "//" | "**";

export type Expr =
  | { readonly t: "int"; readonly value: bigint }
  | { readonly t: "float"; readonly value: number }
  | { readonly t: "ellipsis" }
  | { readonly t: "tuple" }
  | { readonly t: "starred"; readonly value: Expr }
  | { readonly t: "unary"; readonly op: "+" | "-"; readonly operand: Expr }
  | { readonly t: "binary"; readonly op: BinaryOperator; readonly left: Expr; readonly right: Expr }
  | { readonly t: "call"; readonly func: Expr; readonly argument: CallArgument | undefined };

/** A call has at most one argument: the alphabet has no comma. */
export interface CallArgument {
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
export class Parser {
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
    const result = slot === M_DISJUNCTION ? this.booleanLevel(M_CONJUNCTION) : slot === M_CONJUNCTION ? this.booleanLevel(M_INVERSION) : this.comparison();
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
export function numberLiteral(text: string): Expr {
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
