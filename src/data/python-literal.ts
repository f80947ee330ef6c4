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
import { PyFloat, normalizeInt, type PyDict, type PyValue } from "../value/index.ts";
import { FOLLOWERS, PythonLiteralError, type SourceMap, type Token, prepare, tokenize } from "./python-tokenizer.ts";

export { PythonLiteralError } from "./python-tokenizer.ts";

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
// Expression evaluator
// ---------------------------------------------------------------------------------------------

/** Evaluates the literal expression starting at a token (what `ast.literal_eval` accepts, plus the calls and names the options allow). */
export class Evaluator {
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
