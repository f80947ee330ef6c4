/**
 * Step 2a of `calculate`: the tokenizer (Parser/tokenizer.c, restricted to the alphabet). Lazy, as
 * CPython's is, because how far it got when the parser failed decides which error is reported.
 */
import { TaubridgeError, errorMarker } from "../../../src/errors/error-tree.ts";
import { MAX_PAREN_LEVEL } from "./limits.ts";

export const NUMBER = 0;
export const OP = 1;
export const END = 2;

export interface Token {
  readonly kind: typeof NUMBER | typeof OP | typeof END;
  readonly text: string;
  /** Parenthesis nesting after the token was read (CPython's `token->level`). */
  readonly level: number;
}

/** A SyntaxError raised by the tokenizer or the parser. */
export class SourceError extends TaubridgeError {
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
export class ParserStackOverflow extends TaubridgeError {
  static readonly marker: symbol = errorMarker("ParserStackOverflow");

  constructor() {
    super("parser stack overflow");
  }
}

const isDigit = (char: string | undefined): boolean => char !== undefined && char >= "0" && char <= "9";

export class Tokenizer {
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
        throw new SourceError("leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers", true);
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
