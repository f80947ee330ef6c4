/**
 * Python's tokenizer, as far as reading literals and module structure needs it: names, numbers,
 * strings (every prefix; escapes decoded as CPython does), operators with matched brackets, and
 * logical lines with their indentation. Syntax errors name the file, line and column in CPython's
 * words. Shared by the literal evaluator (`python-literal.ts`), the module reader
 * (`python-module.ts`) and the source reader (`python-source/`).
 */
import { DataError, errorMarker } from "../errors/error-tree.ts";

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

type TokenType = "name" | "number" | "string" | "op" | "newline" | "eof";
type StringKind = "str" | "bytes" | "fstring";

export interface Token {
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

export interface LogicalLine {
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
export const FOLLOWERS = new Set([",", ")", "]", "}", ":", "="]);
const STRING_START = /([A-Za-z]{0,2})(['"])/y;

/** Source positions: 1-based line and column for an offset. */
export class SourceMap {
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

export function tokenize(source: SourceMap): { tokens: Token[]; lines: LogicalLine[] } {
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

/** The text as Python reads it: without a byte-order mark, with `\n` line ends. */
export function prepare(text: string, file: string): SourceMap {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  return new SourceMap(file, normalized);
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
