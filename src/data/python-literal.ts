/**
 * A small reader for the Python *literal* syntax found in τ-bench's task and tool modules.
 *
 * Why: upstream ships its task lists as Python modules (`TASKS_TEST = [Task(...), ...]`) and its
 * tool schemas as `get_info()` methods returning dict literals. We never run or copy that code; we
 * read the literal parts, so the harness can build its JSON data files from a pinned upstream
 * checkout with no Python installed. Only what `ast.literal_eval` would accept is evaluated (plus
 * calls the caller explicitly maps, such as `Task(...)`), so arbitrary code is never "executed".
 *
 * Values come out in the project's value model ({@link PyValue}): ints stay ints (number, or
 * bigint beyond 2^53), floats become {@link PyFloat} (so `100.0` stays a float), dicts become
 * insertion-ordered `Map`s, lists and tuples become arrays.
 */
import { DataError, errorMarker } from "../errors/error-tree.ts";
import { PyFloat, normalizeInt, type PyDict, type PyValue } from "../value/index.ts";

/** A syntax or evaluation error in a Python source file; the message starts with `file:line:column`. */
export class PythonLiteralError extends DataError {
  static readonly marker: symbol = errorMarker("PythonLiteralError");

  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`${file}:${line}:${column}: ${reason}`);
  }
}

/** The arguments of a call such as `Task(annotator="0", user_id=...)`, already evaluated. */
export interface CallArguments {
  /** The called name, dotted if written so (`types.Task`). */
  name: string;
  positional: PyValue[];
  /** Keyword arguments in source order. */
  keywords: Map<string, PyValue>;
  /** Raises a {@link PythonLiteralError} positioned at the call. */
  fail(reason: string): never;
}

/** Evaluates one kind of call into a value (e.g. `Task(...)` into the task JSON object). */
export type CallHandler = (call: CallArguments) => PyValue;

/** What the evaluator may do beyond plain literals. Everything not allowed here is an error. */
export interface EvaluateOptions {
  /** Handlers for calls by (dotted) callee name. Without a handler, a call is an error. */
  calls?: Readonly<Record<string, CallHandler>>;
  /**
   * Resolves a bare name other than True/False/None (e.g. the class names in `ALL_TOOLS = [...]`).
   * Return `undefined` to reject the name. Without it, any bare name is an error.
   */
  resolveName?: (name: string, fail: (reason: string) => never) => PyValue | undefined;
}

// ---------------------------------------------------------------------------------------------
// Tokenizer
// ---------------------------------------------------------------------------------------------

type TokenType = "name" | "number" | "string" | "op" | "newline" | "eof";
type StringKind = "str" | "bytes" | "fstring";

interface Token {
  type: TokenType;
  /** Source text of the token. */
  text: string;
  /** Offset in the (newline-normalised) source. */
  start: number;
  /** Bracket depth before this token. */
  depth: number;
  /** For string tokens: decoded value and kind. */
  value?: string;
  kind?: StringKind;
  /** For an opening bracket: index of the matching closing bracket. */
  match?: number;
}

interface LogicalLine {
  /** Index of the first token. */
  start: number;
  /** Index of the terminating NEWLINE (or EOF) token. */
  end: number;
  /** Indentation column of the first token (tabs to multiples of 8). */
  indent: number;
}

const STRING_PREFIXES = new Set(["r", "u", "f", "b", "fr", "rf", "br", "rb"]);
const NAME_START = /[\p{L}\p{Nl}_]/u;
const NAME_REST = /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_]*/uy;
const NUMBER = /0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?[jJ]?/y;
const OPERATORS = [
  "**=",
  "//=",
  ">>=",
  "<<=",
  "...",
  "->",
  ":=",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "&=",
  "|=",
  "^=",
  "@=",
  "==",
  "!=",
  "<=",
  ">=",
  "**",
  "//",
  "<<",
  ">>",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ",",
  ":",
  ";",
  ".",
  "=",
  "+",
  "-",
  "*",
  "/",
  "%",
  "&",
  "|",
  "^",
  "~",
  "<",
  ">",
  "@",
];
const CLOSING: Record<string, string> = { ")": "(", "]": "[", "}": "{" };
/** Operators that may follow a complete literal (separators and closers). */
const FOLLOWERS = new Set([",", ")", "]", "}", ":", "="]);
const STRING_START = /([A-Za-z]{0,2})(['"])/y;

/** Source positions: 1-based line and column for an offset. */
class SourceMap {
  private readonly lineStarts: number[] = [0];
  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) === 10) this.lineStarts.push(index + 1);
  }

  position(offset: number): { line: number; column: number } {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.lineStarts[middle] <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - this.lineStarts[low] + 1 };
  }

  fail(offset: number, reason: string): never {
    const { line, column } = this.position(offset);
    throw new PythonLiteralError(this.file, line, column, reason);
  }
}

function indentWidth(text: string, lineStart: number, tokenStart: number): number {
  let column = 0;
  for (let index = lineStart; index < tokenStart; index++) {
    const char = text[index];
    if (char === "\t") column = (Math.floor(column / 8) + 1) * 8;
    else if (char === "\f") column = 0;
    else column++;
  }
  return column;
}

/**
 * Python's tokenizer, for what literals and module structure need: tokens with their bracket
 * depth, logical lines (ended by a newline outside brackets) with their indentation, comments and
 * line continuations skipped, CPython's messages for what it refuses.
 */
class Tokenizer {
  readonly tokens: Token[] = [];
  readonly lines: LogicalLine[] = [];
  /** Token indexes of the open brackets. */
  private readonly brackets: number[] = [];
  private position = 0;
  /** Offset where the current physical line starts. */
  private lineStart = 0;
  /** Token index starting the current logical line, -1 if none yet. */
  private logicalStart = -1;
  private logicalIndent = 0;

  constructor(private readonly source: SourceMap) {}

  run(): { tokens: Token[]; lines: LogicalLine[] } {
    const text = this.source.text;
    while (this.position < text.length) {
      if (!this.skipLayout()) this.readToken();
    }
    if (this.brackets.length > 0) {
      const open = this.tokens[this.brackets[this.brackets.length - 1]];
      this.source.fail(open.start, `'${open.text}' was never closed`);
    }
    this.endLogicalLine(text.length);
    this.tokens.push({ type: "eof", text: "", start: text.length, depth: 0 });
    return { tokens: this.tokens, lines: this.lines };
  }

  private push(token: Omit<Token, "depth">): void {
    if (this.logicalStart < 0) {
      this.logicalStart = this.tokens.length;
      this.logicalIndent = indentWidth(this.source.text, this.lineStart, token.start);
    }
    this.tokens.push({ ...token, depth: this.brackets.length });
  }

  private endLogicalLine(at: number): void {
    if (this.logicalStart < 0) return;
    this.tokens.push({ type: "newline", text: "", start: at, depth: 0 });
    this.lines.push({ start: this.logicalStart, end: this.tokens.length - 1, indent: this.logicalIndent });
    this.logicalStart = -1;
  }

  /** Newlines, blanks, comments and line continuations: true when one was consumed. */
  private skipLayout(): boolean {
    const text = this.source.text;
    const char = text[this.position];
    if (char === "\n") {
      if (this.brackets.length === 0) this.endLogicalLine(this.position);
      this.position++;
      this.lineStart = this.position;
      return true;
    }
    if (char === " " || char === "\t" || char === "\f") {
      this.position++;
      return true;
    }
    if (char === "#") {
      while (this.position < text.length && text[this.position] !== "\n") this.position++;
      return true;
    }
    if (char !== "\\") return false;
    if (text[this.position + 1] !== "\n") this.source.fail(this.position, "unexpected character after line continuation character");
    this.position += 2;
    this.lineStart = this.position;
    return true;
  }

  /** A string (possibly prefixed), a name, a number or an operator. */
  private readToken(): void {
    const text = this.source.text;
    const char = text[this.position];
    STRING_START.lastIndex = this.position;
    const prefixed = STRING_START.exec(text);
    if (prefixed && (prefixed[1] === "" || STRING_PREFIXES.has(prefixed[1].toLowerCase()))) {
      this.push(readString(this.source, this.position, prefixed[1]));
      const token = this.tokens[this.tokens.length - 1];
      this.position = token.start + token.text.length;
    } else if (NAME_START.test(char)) {
      NAME_REST.lastIndex = this.position + char.length;
      NAME_REST.exec(text);
      const end = NAME_REST.lastIndex;
      this.push({ type: "name", text: text.slice(this.position, end), start: this.position });
      this.position = end;
    } else if ((char >= "0" && char <= "9") || (char === "." && text[this.position + 1] >= "0" && text[this.position + 1] <= "9")) {
      this.readNumber();
    } else {
      this.readOperator(char);
    }
  }

  private readNumber(): void {
    const text = this.source.text;
    NUMBER.lastIndex = this.position;
    const match = NUMBER.exec(text)!;
    const end = this.position + match[0].length;
    if (end < text.length && /[\p{L}\p{Nd}_]/u.test(text[end])) this.source.fail(this.position, "invalid decimal literal");
    this.push({ type: "number", text: match[0], start: this.position });
    this.position = end;
  }

  /** An operator; brackets are matched as CPython's tokenizer does. */
  private readOperator(char: string): void {
    const operator = OPERATORS.find((candidate) => this.source.text.startsWith(candidate, this.position));
    if (!operator) this.source.fail(this.position, `invalid character ${JSON.stringify(char)} in source`);
    if (operator === "(" || operator === "[" || operator === "{") {
      this.push({ type: "op", text: operator, start: this.position });
      this.brackets.push(this.tokens.length - 1);
    } else if (operator in CLOSING) {
      const openIndex = this.brackets.pop();
      if (openIndex === undefined) this.source.fail(this.position, `unmatched '${operator}'`);
      const open = this.tokens[openIndex];
      if (open.text !== CLOSING[operator]) {
        this.source.fail(this.position, `closing parenthesis '${operator}' does not match opening parenthesis '${open.text}'`);
      }
      this.push({ type: "op", text: operator, start: this.position });
      this.tokens[this.tokens.length - 1].depth = this.brackets.length;
      open.match = this.tokens.length - 1;
    } else {
      this.push({ type: "op", text: operator, start: this.position });
    }
    this.position += operator.length;
  }
}

function tokenize(source: SourceMap): { tokens: Token[]; lines: LogicalLine[] } {
  return new Tokenizer(source).run();
}

function readString(source: SourceMap, start: number, prefix: string): Omit<Token, "depth"> {
  const text = source.text;
  const lower = prefix.toLowerCase();
  const raw = lower.includes("r");
  const kind: StringKind = lower.includes("b") ? "bytes" : lower.includes("f") ? "fstring" : "str";
  let position = start + prefix.length;
  const quoteChar = text[position];
  const triple = text.startsWith(quoteChar.repeat(3), position);
  const quote = triple ? quoteChar.repeat(3) : quoteChar;
  position += quote.length;
  const bodyStart = position;
  for (;;) {
    if (position >= text.length) {
      source.fail(start, triple ? "unterminated triple-quoted string literal" : "unterminated string literal");
    }
    const char = text[position];
    if (char === "\\") {
      position += 2;
      continue;
    }
    if (!triple && char === "\n") source.fail(start, "unterminated string literal");
    if (text.startsWith(quote, position)) break;
    position++;
  }
  const body = text.slice(bodyStart, position);
  const end = position + quote.length;
  const value = raw || kind === "fstring" ? body : decodeEscapes(source, body, bodyStart, kind === "bytes");
  return { type: "string", text: text.slice(start, end), start, value, kind };
}

const SIMPLE_ESCAPES: Record<string, string> = {
  "\n": "",
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

function decodeEscapes(source: SourceMap, body: string, bodyOffset: number, bytes: boolean): string {
  if (!body.includes("\\")) return body;
  let out = "";
  let index = 0;
  while (index < body.length) {
    const char = body[index];
    if (char !== "\\") {
      out += char;
      index++;
      continue;
    }
    const next = body[index + 1];
    if (next in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[next];
      index += 2;
      continue;
    }
    if (next >= "0" && next <= "7") {
      const octal = /[0-7]{1,3}/y;
      octal.lastIndex = index + 1;
      const digits = octal.exec(body)![0];
      out += String.fromCodePoint(parseInt(digits, 8));
      index += 1 + digits.length;
      continue;
    }
    const width = next === "x" ? 2 : !bytes && next === "u" ? 4 : !bytes && next === "U" ? 8 : 0;
    if (width > 0) {
      const digits = body.slice(index + 2, index + 2 + width);
      if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(digits)) {
        source.fail(bodyOffset + index, `truncated \\${next}${"X".repeat(width)} escape`);
      }
      const code = parseInt(digits, 16);
      if (code > 0x10ffff) source.fail(bodyOffset + index, "illegal Unicode character");
      out += String.fromCodePoint(code);
      index += 2 + width;
      continue;
    }
    if (!bytes && next === "N") source.fail(bodyOffset + index, "\\N{...} escapes are not supported");
    // Unknown escapes keep the backslash, as in Python.
    out += char;
    index++;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Expression evaluator
// ---------------------------------------------------------------------------------------------

class Evaluator {
  position: number;
  constructor(
    readonly source: SourceMap,
    readonly tokens: Token[],
    start: number,
    readonly options: EvaluateOptions,
  ) {
    this.position = start;
  }

  get current(): Token {
    return this.tokens[this.position];
  }

  fail(reason: string, token: Token = this.current): never {
    return this.source.fail(token.start, reason);
  }

  describe(token: Token): string {
    if (token.type === "eof") return "end of file";
    if (token.type === "newline") return "end of line";
    return `'${token.text.length > 20 ? `${token.text.slice(0, 20)}…` : token.text}'`;
  }

  isOp(text: string, token: Token = this.current): boolean {
    return token.type === "op" && token.text === text;
  }

  expectOp(text: string): Token {
    const token = this.current;
    if (!this.isOp(text)) this.fail(`expected '${text}', found ${this.describe(token)}`);
    this.position++;
    return token;
  }

  /** One expression. Binary operators, comprehensions and the like are rejected where they appear. */
  expression(): PyValue {
    const token = this.current;
    if (this.isOp("-") || this.isOp("+")) {
      this.position++;
      const operand = this.expression();
      if (typeof operand === "number") return token.text === "-" ? (operand === 0 ? 0 : -operand) : operand;
      if (typeof operand === "bigint") return token.text === "-" ? normalizeInt(-operand) : operand;
      if (operand instanceof PyFloat) return token.text === "-" ? new PyFloat(-operand.value) : operand;
      return this.fail(`unary '${token.text}' is only allowed on numbers`, token);
    }
    const value = this.atom();
    const after = this.current;
    if (after.type === "op" && !FOLLOWERS.has(after.text)) {
      this.fail(`unexpected ${this.describe(after)}: only literals are allowed here`);
    }
    if (after.type === "name" && ["for", "if", "else", "and", "or", "in", "not", "is", "lambda"].includes(after.text)) {
      this.fail(`unexpected '${after.text}': only literals are allowed here`);
    }
    return value;
  }

  atom(): PyValue {
    const token = this.current;
    switch (token.type) {
      case "string":
        return this.strings();
      case "number":
        this.position++;
        return this.number(token);
      case "name":
        return this.name();
      case "op":
        if (token.text === "[") return this.list();
        if (token.text === "(") return this.parenthesized();
        if (token.text === "{") return this.braces();
        return this.fail(`unexpected ${this.describe(token)}: expected a literal`);
      default:
        return this.fail(`unexpected ${this.describe(token)}: expected a literal`);
    }
  }

  strings(): string {
    let out = "";
    while (this.current.type === "string") {
      const token = this.current;
      if (token.kind === "fstring") this.fail("f-strings are not literals", token);
      if (token.kind === "bytes") this.fail("bytes literals are not supported", token);
      out += token.value!;
      this.position++;
    }
    return out;
  }

  number(token: Token): PyValue {
    const text = token.text.replace(/_/g, "");
    if (/[jJ]$/.test(text)) this.fail("complex numbers are not supported", token);
    if (/^0[xXoObB]/.test(text)) return normalizeInt(BigInt(text));
    if (/[.eE]/.test(text)) return new PyFloat(Number(text));
    if (/^0+[1-9]/.test(text)) {
      this.fail("leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers", token);
    }
    return normalizeInt(BigInt(text));
  }

  name(): PyValue {
    const token = this.current;
    this.position++;
    if (token.text === "True") return true;
    if (token.text === "False") return false;
    if (token.text === "None") return null;
    let name = token.text;
    while (this.isOp(".") && this.tokens[this.position + 1].type === "name") {
      name += `.${this.tokens[this.position + 1].text}`;
      this.position += 2;
    }
    if (this.isOp("(")) return this.call(name, token);
    const fail = (reason: string): never => this.fail(reason, token);
    const resolved = this.options.resolveName?.(name, fail);
    if (resolved === undefined) this.fail(`name '${name}' is not a literal`, token);
    return resolved;
  }

  call(name: string, nameToken: Token): PyValue {
    const handler = this.options.calls?.[name];
    if (!handler) this.fail(`call of '${name}' is not allowed here`, nameToken);
    this.expectOp("(");
    const positional: PyValue[] = [];
    const keywords = new Map<string, PyValue>();
    while (!this.isOp(")")) {
      const token = this.current;
      if (this.isOp("*") || this.isOp("**")) this.fail("argument unpacking is not supported");
      if (token.type === "name" && this.isOp("=", this.tokens[this.position + 1])) {
        if (keywords.has(token.text)) this.fail(`keyword argument repeated: ${token.text}`, token);
        this.position += 2;
        keywords.set(token.text, this.expression());
      } else {
        if (keywords.size > 0) this.fail("positional argument follows keyword argument", token);
        positional.push(this.expression());
      }
      if (!this.isOp(")")) this.expectOp(",");
    }
    this.position++;
    return handler({
      name,
      positional,
      keywords,
      fail: (reason: string): never => this.fail(`${name}(...): ${reason}`, nameToken),
    });
  }

  /** Comma-separated expressions up to `close`; returns them and whether a comma was seen. */
  sequence(close: string): { items: PyValue[]; comma: boolean } {
    const items: PyValue[] = [];
    let comma = false;
    while (!this.isOp(close)) {
      if (this.isOp("*")) this.fail("starred expressions are not supported");
      items.push(this.expression());
      if (this.isOp(close)) break;
      this.expectOp(",");
      comma = true;
    }
    this.position++;
    return { items, comma };
  }

  list(): PyValue[] {
    this.position++;
    return this.sequence("]").items;
  }

  parenthesized(): PyValue {
    this.position++;
    const { items, comma } = this.sequence(")");
    // `(x)` is x; `()`, `(x,)` and `(x, y)` are tuples, represented as arrays.
    return items.length === 1 && !comma ? items[0] : items;
  }

  braces(): PyDict {
    const open = this.current;
    this.position++;
    const dict: PyDict = new Map();
    while (!this.isOp("}")) {
      if (this.isOp("**")) this.fail("dict unpacking is not supported");
      const keyToken = this.current;
      const key = this.expression();
      if (!this.isOp(":")) {
        if (dict.size === 0) this.fail("set literals are not supported", open);
        this.expectOp(":");
      }
      this.position++;
      if (typeof key !== "string") this.fail("dict keys must be strings", keyToken);
      // A repeated key keeps its first position and takes the last value, as in Python.
      dict.set(key, this.expression());
      if (!this.isOp("}")) this.expectOp(",");
    }
    this.position++;
    return dict;
  }
}

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

function prepare(text: string, file: string): SourceMap {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  return new SourceMap(file, normalized);
}

/**
 * Evaluates one Python literal expression (the whole text). Useful for tests and for single
 * values; modules go through {@link parsePythonModule}.
 */
export function parsePythonLiteral(text: string, options: EvaluateOptions & { file?: string } = {}): PyValue {
  const source = prepare(text, options.file ?? "<literal>");
  const { tokens } = tokenize(source);
  const evaluator = new Evaluator(source, tokens, 0, options);
  const value = evaluator.expression();
  if (evaluator.current.type === "newline") evaluator.position++;
  if (evaluator.current.type !== "eof") evaluator.fail(`unexpected ${evaluator.describe(evaluator.current)} after the literal`);
  return value;
}

/** One `from <module> import <name> [as <alias>]` binding. */
export interface ImportBinding {
  /** The name bound in this module (the alias, if any). */
  local: string;
  /** The imported name in the source module. */
  imported: string;
  /** Dotted module path without leading dots (`""` for `from . import x`). */
  module: string;
  /** Number of leading dots (0 = absolute import). */
  level: number;
}

/** A located `def`: its class (if a method) and where its first real statement starts. */
interface FunctionSite {
  name: string;
  className: string | undefined;
  defToken: number;
  /** Token index of the first body statement, and that statement's end (NEWLINE index). */
  bodyStart: number;
  bodyEnd: number;
}

/**
 * The module-level structure of a Python file, just enough to find literal data in it:
 * top-level assignments (`NAME = ...`, `NAME: Type = ...`), `from ... import ...` bindings, and
 * functions whose body is a `return <literal>`. The whole file is tokenised (so strings and
 * comments never confuse the search) but only the requested expressions are evaluated.
 */
export class PythonModule {
  private readonly source: SourceMap;
  private readonly tokens: Token[];
  private readonly lines: LogicalLine[];

  constructor(
    text: string,
    readonly file: string,
  ) {
    this.source = prepare(text, file);
    ({ tokens: this.tokens, lines: this.lines } = tokenize(this.source));
  }

  /** Names assigned at module level, in source order (repeats included). */
  assignedNames(): string[] {
    return this.topLevelAssignments().map((assignment) => assignment.name);
  }

  /** Evaluates the literal assigned to a module-level `name` (the last assignment wins, as in Python). */
  evaluateAssignment(name: string, options: EvaluateOptions = {}): PyValue {
    const found = this.topLevelAssignments().filter((assignment) => assignment.name === name);
    if (found.length === 0) {
      const known = this.assignedNames();
      throw new PythonLiteralError(this.file, 1, 1, `no module-level assignment to '${name}' (assigned names: ${known.join(", ") || "none"})`);
    }
    const assignment = found[found.length - 1];
    return this.evaluateStatement(assignment.valueStart, assignment.end, options);
  }

  /** The `from X import a, b as c` bindings anywhere at module level, in source order. */
  imports(): ImportBinding[] {
    const bindings: ImportBinding[] = [];
    for (const line of this.lines) {
      if (line.indent !== 0) continue;
      const tokens = this.tokens;
      let index = line.start;
      if (!(tokens[index].type === "name" && tokens[index].text === "from")) continue;
      index++;
      let level = 0;
      while (tokens[index].type === "op" && (tokens[index].text === "." || tokens[index].text === "...")) {
        level += tokens[index].text.length;
        index++;
      }
      const moduleParts: string[] = [];
      while (tokens[index].type === "name" && tokens[index].text !== "import") {
        moduleParts.push(tokens[index].text);
        index++;
        if (tokens[index].type === "op" && tokens[index].text === ".") index++;
      }
      if (!(tokens[index].type === "name" && tokens[index].text === "import")) {
        this.source.fail(tokens[index].start, "malformed import statement");
      }
      index++;
      for (; index < line.end; index++) {
        const token = tokens[index];
        if (token.type !== "name") continue; // brackets, commas
        if (token.text === "as") continue;
        const next = tokens[index + 1];
        if (next.type === "name" && next.text === "as") {
          bindings.push({ local: tokens[index + 2].text, imported: token.text, module: moduleParts.join("."), level });
          index += 2;
        } else {
          bindings.push({ local: token.text, imported: token.text, module: moduleParts.join("."), level });
        }
      }
    }
    return bindings;
  }

  /** Names of the classes defined at module level. */
  classNames(): string[] {
    return this.lines.filter((line) => line.indent === 0 && this.tokens[line.start].type === "name" && this.tokens[line.start].text === "class").map((line) => this.tokens[line.start + 1].text);
  }

  /**
   * Evaluates the literal returned by `def <functionName>(...)`, whose body must be a single
   * `return <literal>` (an optional docstring first is allowed). With `className`, only a method of
   * that class counts; otherwise there must be exactly one such function in the file.
   */
  evaluateFunctionReturn(functionName: string, options: EvaluateOptions & { className?: string } = {}): PyValue {
    const sites = this.functions().filter((site) => site.name === functionName && (options.className === undefined || site.className === options.className));
    const where = options.className === undefined ? "" : ` in class ${options.className}`;
    if (sites.length === 0) throw new PythonLiteralError(this.file, 1, 1, `no 'def ${functionName}'${where}`);
    if (sites.length > 1) {
      const { line, column } = this.source.position(this.tokens[sites[1].defToken].start);
      throw new PythonLiteralError(this.file, line, column, `more than one 'def ${functionName}'${where}`);
    }
    const site = sites[0];
    const first = this.tokens[site.bodyStart];
    if (!(first.type === "name" && first.text === "return")) {
      this.source.fail(first.start, `the body of ${functionName}() must be a single 'return <literal>'`);
    }
    return this.evaluateStatement(site.bodyStart + 1, site.bodyEnd, options);
  }

  private evaluateStatement(start: number, end: number, options: EvaluateOptions): PyValue {
    const evaluator = new Evaluator(this.source, this.tokens, start, options);
    if (start >= end) evaluator.fail("expected an expression");
    const value = evaluator.expression();
    if (evaluator.position !== end) {
      evaluator.fail(`unexpected ${evaluator.describe(evaluator.current)} after the literal`);
    }
    return value;
  }

  private topLevelAssignments(): { name: string; valueStart: number; end: number }[] {
    const result: { name: string; valueStart: number; end: number }[] = [];
    for (const line of this.lines) {
      if (line.indent !== 0) continue;
      const first = this.tokens[line.start];
      const second = this.tokens[line.start + 1];
      if (first.type !== "name" || second.type !== "op" || (second.text !== "=" && second.text !== ":")) continue;
      let index = line.start + 1;
      while (index < line.end && !(this.tokens[index].type === "op" && this.tokens[index].text === "=" && this.tokens[index].depth === 0)) {
        index++;
      }
      if (index >= line.end) continue; // bare annotation `NAME: Type`
      result.push({ name: first.text, valueStart: index + 1, end: line.end });
    }
    return result;
  }

  private functions(): FunctionSite[] {
    const sites: FunctionSite[] = [];
    const classes: { indent: number; name: string }[] = [];
    const lines = this.lines;
    for (let lineIndex = 0; lineIndex < lines.length; lineIndex++) {
      const line = lines[lineIndex];
      while (classes.length > 0 && classes[classes.length - 1].indent >= line.indent) classes.pop();
      let index = line.start;
      const first = this.tokens[index];
      if (first.type !== "name") continue;
      if (first.text === "class") {
        classes.push({ indent: line.indent, name: this.tokens[index + 1].text });
        continue;
      }
      if (first.text === "async") index++;
      if (!(this.tokens[index].type === "name" && this.tokens[index].text === "def")) continue;
      const defToken = index;
      const name = this.tokens[index + 1].text;
      const open = this.tokens[index + 2];
      if (open.match === undefined) this.source.fail(open.start, "expected '(' after the function name");
      // The header ends at the first ':' at depth 0 after the parameter list (`-> T` may precede it).
      let colon = open.match + 1;
      while (colon < line.end && !(this.tokens[colon].type === "op" && this.tokens[colon].text === ":" && this.tokens[colon].depth === 0)) {
        colon++;
      }
      if (colon >= line.end) this.source.fail(this.tokens[defToken].start, "function header without ':'");
      const className = classes.length > 0 && classes[classes.length - 1].indent < line.indent ? classes[classes.length - 1].name : undefined;
      if (colon + 1 < line.end) {
        sites.push({ name, className, defToken, bodyStart: colon + 1, bodyEnd: line.end });
        continue;
      }
      // Block body: the following lines indented deeper; skip a docstring.
      let bodyIndex = lineIndex + 1;
      const body = lines[bodyIndex];
      if (!body || body.indent <= line.indent) this.source.fail(this.tokens[defToken].start, "expected an indented block");
      if (this.isDocstring(body)) {
        bodyIndex++;
        const next = lines[bodyIndex];
        if (!next || next.indent !== body.indent) {
          this.source.fail(this.tokens[body.start].start, `the body of ${name}() has no statement after its docstring`);
        }
      }
      const statement = lines[bodyIndex];
      sites.push({ name, className, defToken, bodyStart: statement.start, bodyEnd: statement.end });
    }
    return sites;
  }

  private isDocstring(line: LogicalLine): boolean {
    for (let index = line.start; index < line.end; index++) if (this.tokens[index].type !== "string") return false;
    return true;
  }
}

/** Tokenises a Python module (syntax errors name file, line and column) for {@link PythonModule} queries. */
export function parsePythonModule(text: string, file: string): PythonModule {
  return new PythonModule(text, file);
}

// ---------------------------------------------------------------------------------------------
// Token-level access for the source reader (`python-source/`), which needs more than literals
// ---------------------------------------------------------------------------------------------

/** One token of a tokenised Python file (see {@link tokenizePythonSource}). */
export type PythonToken = Readonly<Token>;
/** One logical line: token range and indentation column. */
export type PythonLogicalLine = Readonly<LogicalLine>;

/** A tokenised Python file: tokens, logical lines, and a positioned failure for errors. */
export interface TokenizedPythonSource {
  file: string;
  text: string;
  tokens: readonly PythonToken[];
  lines: readonly PythonLogicalLine[];
  /** `{line, column}` (1-based) of an offset. */
  position(offset: number): { line: number; column: number };
  /** Throws a {@link PythonLiteralError} at an offset. */
  fail(offset: number, reason: string): never;
}

/** Tokenises a whole Python file with the literal reader's tokenizer (strings, brackets, logical lines). */
export function tokenizePythonSource(text: string, file: string): TokenizedPythonSource {
  const source = prepare(text, file);
  const { tokens, lines } = tokenize(source);
  return { file, text: source.text, tokens, lines, position: (offset) => source.position(offset), fail: (offset, reason) => source.fail(offset, reason) };
}

/** Decodes the backslash escapes of a (non-raw) string body as Python does. */
export function decodePythonEscapes(body: string, file = "<string>", offset = 0): string {
  const source = prepare(body, file);
  return decodeEscapes(source, source.text, offset, false);
}
