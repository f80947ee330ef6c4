/**
 * A reader for the *structure* of a Python source file: classes, functions with decorators and
 * signatures, docstrings, assignments, `if`/`else` blocks, and the expressions in them as a small
 * syntax tree.
 *
 * Why: τ² keeps what a model sees (tool descriptions, parameter schemas, prompt templates) in
 * Python source rather than data files, and those texts are the original authors' words, so the
 * project reads them at run time instead of containing them. Nothing is executed: expressions are
 * parsed into {@link PyExpr} trees that the callers interpret for the few constructs they expect,
 * and anything else is a {@link PythonLiteralError} naming file, line and column. Tokenising is the
 * literal reader's (`../python-literal.ts`), so both read strings and brackets identically.
 */
import type { PyValue } from "../../value/index.ts";
import { decodePythonEscapes, type PythonLogicalLine, type PythonToken, type TokenizedPythonSource, tokenizePythonSource } from "../python-tokenizer.ts";
import { normalizeInt, PyFloat } from "../../value/index.ts";

/** One piece of an f-string: literal text or a replacement field (its expression source). */
export type FStringPart = { text: string } | { expression: string; conversion?: string; formatSpec?: string };

/** An expression as written. `start` is the source offset (for error positions). */
export type PyExpr =
  | { kind: "name"; name: string; start: number }
  | { kind: "constant"; value: PyValue; start: number }
  | { kind: "ellipsis"; start: number }
  | { kind: "fstring"; parts: FStringPart[]; start: number }
  | { kind: "attribute"; object: PyExpr; name: string; start: number }
  | { kind: "call"; callee: PyExpr; positional: PyExpr[]; keywords: { name: string | null; value: PyExpr }[]; start: number }
  | { kind: "subscript"; object: PyExpr; index: PyExpr; start: number }
  | { kind: "tuple" | "list" | "set"; items: PyExpr[]; start: number }
  | { kind: "dict"; entries: { key: PyExpr; value: PyExpr }[]; start: number }
  | { kind: "binary"; operator: string; left: PyExpr; right: PyExpr; start: number }
  | { kind: "unary"; operator: string; operand: PyExpr; start: number }
  | { kind: "compare"; operator: string; left: PyExpr; right: PyExpr; start: number }
  | { kind: "conditional"; test: PyExpr; body: PyExpr; orElse: PyExpr; start: number };

/** A statement line and the block it opens (for `class`, `def`, `if`, ... lines ending in `:`). */
export interface PyBlock {
  line: PythonLogicalLine;
  children: PyBlock[];
}

/** A function parameter as written in the signature. */
export interface PyParameterDef {
  name: string;
  kind: "positional" | "var-positional" | "keyword-only" | "var-keyword";
  annotation?: PyExpr;
  default?: PyExpr;
}

/** A decorator line: `@name` or `@name(args)`. */
export interface PyDecorator {
  /** The dotted name (`is_tool`, `pydantic.field_validator`). */
  name: string;
  call?: Extract<PyExpr, { kind: "call" }>;
}

/** A `def` with what the tools need: decorators, signature, docstring, body blocks. */
export interface PyFunctionDef {
  name: string;
  decorators: PyDecorator[];
  parameters: PyParameterDef[];
  returns?: PyExpr;
  docstring?: string;
  body: PyBlock[];
  start: number;
}

/** A class-body assignment `name[: annotation] [= value]`. */
export interface PyAssignmentDef {
  name: string;
  annotation?: PyExpr;
  value?: PyExpr;
  start: number;
}

/** A `class` statement with its members in source order. */
export interface PyClassDef {
  name: string;
  bases: PyExpr[];
  keywords: { name: string | null; value: PyExpr }[];
  docstring?: string;
  /** Annotated or plain assignments in the class body, in order. */
  assignments: PyAssignmentDef[];
  methods: PyFunctionDef[];
  start: number;
}

const STATEMENT_KEYWORDS = new Set([
  "if",
  "elif",
  "else",
  "for",
  "while",
  "try",
  "except",
  "finally",
  "with",
  "class",
  "def",
  "return",
  "pass",
  "raise",
  "import",
  "from",
  "global",
  "nonlocal",
  "assert",
  "del",
  "yield",
  "lambda",
  "break",
  "continue",
  "async",
  "await",
]);
const KEYWORD_OPERATORS = new Set(["if", "else", "for", "in", "not", "and", "or", "is", "lambda", "async", "await", "yield"]);

/**
 * A parsed Python module: its block tree, and parsers for the statements and expressions in it.
 * Expressions are parsed only when asked for, so a construct the reader does not know only fails
 * where it is needed.
 */
export class PythonSourceFile {
  readonly source: TokenizedPythonSource;
  readonly blocks: PyBlock[];

  constructor(
    text: string,
    readonly file: string,
  ) {
    this.source = tokenizePythonSource(text, file);
    this.blocks = buildBlocks(this.source);
  }

  get tokens(): readonly PythonToken[] {
    return this.source.tokens;
  }

  /** Throws a positioned {@link PythonLiteralError}. */
  fail(offset: number, reason: string): never {
    return this.source.fail(offset, reason);
  }

  /** `file:line` of an offset, for messages. */
  where(offset: number): string {
    return `${this.file}:${this.source.position(offset).line}`;
  }

  /** The top-level classes, in order. */
  classes(): PyClassDef[] {
    return this.blocks.filter((block) => this.firstWord(block) === "class").map((block) => this.classDef(block));
  }

  /** The top-level class `name`, or undefined. */
  findClass(name: string): PyClassDef | undefined {
    const block = this.blocks.find((candidate) => this.firstWord(candidate) === "class" && this.tokens[candidate.line.start + 1].text === name);
    return block && this.classDef(block);
  }

  /** The top-level functions, in order. */
  functions(): PyFunctionDef[] {
    return this.functionsIn(this.blocks);
  }

  /** The functions defined directly among `blocks` (with their decorators), in order. */
  functionsIn(blocks: readonly PyBlock[]): PyFunctionDef[] {
    const result: PyFunctionDef[] = [];
    blocks.forEach((block, index) => {
      if (this.isDef(block)) result.push(this.functionDef(block, this.decoratorsBefore(blocks, index)));
    });
    return result;
  }

  /** Module-level assignments `NAME = value` / `NAME: T = value` (the last one of a name wins in lookups). */
  moduleAssignments(): PyAssignmentDef[] {
    return this.assignmentsIn(this.blocks);
  }

  /** The value assigned last to a module-level name, or undefined. */
  moduleValue(name: string): PyExpr | undefined {
    return this.moduleAssignments()
      .filter((assignment) => assignment.name === name)
      .at(-1)?.value;
  }

  /** `from X import a as b` bindings at module level: local name → module path and imported name. */
  imports(): Map<string, { module: string; level: number; imported: string }> {
    const bindings = new Map<string, { module: string; level: number; imported: string }>();
    for (const block of this.blocks) {
      const tokens = this.tokens;
      let index = block.line.start;
      if (tokens[index].text !== "from" || tokens[index].type !== "name") continue;
      index++;
      let level = 0;
      while (tokens[index].type === "op" && (tokens[index].text === "." || tokens[index].text === "...")) {
        level += tokens[index].text.length;
        index++;
      }
      const parts: string[] = [];
      while (tokens[index].type === "name" && tokens[index].text !== "import") {
        parts.push(tokens[index].text);
        index++;
        if (tokens[index].text === ".") index++;
      }
      index++; // import
      for (; index < block.line.end; index++) {
        const token = tokens[index];
        if (token.type !== "name" || token.text === "as") continue;
        const aliased = tokens[index + 1].type === "name" && tokens[index + 1].text === "as";
        const local = aliased ? tokens[index + 2].text : token.text;
        bindings.set(local, { module: parts.join("."), level, imported: token.text });
        if (aliased) index += 2;
      }
    }
    return bindings;
  }

  /** Assignments (`name = v`, `name: T = v`, `name: T`) directly among `blocks`, in order. */
  assignmentsIn(blocks: readonly PyBlock[]): PyAssignmentDef[] {
    const result: PyAssignmentDef[] = [];
    for (const block of blocks) {
      const { start, end } = block.line;
      const first = this.tokens[start];
      const second = this.tokens[start + 1];
      if (first.type !== "name" || STATEMENT_KEYWORDS.has(first.text) || second.type !== "op") continue;
      if (second.text === "=") {
        if (this.findTopLevel(start + 2, end, "=") !== undefined) continue; // chained `a = b = c`
        result.push(this.lazyAssignment(first, undefined, [start + 2, end]));
      } else if (second.text === ":") {
        const equals = this.findTopLevel(start + 2, end, "=");
        result.push(this.lazyAssignment(first, [start + 2, equals ?? end], equals === undefined ? undefined : [equals + 1, end]));
      }
    }
    return result;
  }

  private lazyAssignment(name: PythonToken, annotation: [number, number] | undefined, value: [number, number] | undefined): PyAssignmentDef {
    let parsedAnnotation: PyExpr | undefined;
    let parsedValue: PyExpr | undefined;
    const file = this;
    return {
      name: name.text,
      start: name.start,
      get annotation() {
        if (annotation && !parsedAnnotation) parsedAnnotation = file.expressionIn(annotation[0], annotation[1]);
        return parsedAnnotation;
      },
      get value() {
        if (value && !parsedValue) parsedValue = file.expressionIn(value[0], value[1]);
        return parsedValue;
      },
    };
  }

  /** The docstring of a body (its first statement when that is only string literals). */
  docstringOf(body: readonly PyBlock[]): string | undefined {
    const first = body[0];
    if (!first) return undefined;
    for (let index = first.line.start; index < first.line.end; index++) {
      const token = this.tokens[index];
      if (token.type !== "string" || token.kind !== "str") return undefined;
    }
    const value = this.expressionIn(first.line.start, first.line.end);
    return value.kind === "constant" && typeof value.value === "string" ? value.value : undefined;
  }

  /** The first word of a block's line (`class`, `def`, `if`, `return`, a name...). */
  firstWord(block: PyBlock): string {
    const token = this.tokens[block.line.start];
    return token.type === "name" ? token.text : token.text;
  }

  /** Parses the tokens `[start, end)` as one expression (a tuple if there are top-level commas). */
  expressionIn(start: number, end: number): PyExpr {
    const parser = new ExpressionParser(this, start, end);
    const expression = parser.tupleOrExpression();
    if (parser.position !== end) parser.unexpected();
    return expression;
  }

  /** The expression of a `return <expr>` or `<name> = <expr>` line (undefined for other lines). */
  returnValue(block: PyBlock): PyExpr | undefined {
    const { start, end } = block.line;
    if (this.tokens[start].text !== "return" || this.tokens[start].type !== "name") return undefined;
    return start + 1 < end ? this.expressionIn(start + 1, end) : undefined;
  }

  /** The condition of an `if`/`elif` line, undefined for an `else:` line. */
  conditionOf(block: PyBlock): PyExpr | undefined {
    const { start, end } = block.line;
    const word = this.firstWord(block);
    if (word !== "if" && word !== "elif") return undefined;
    return this.expressionIn(start + 1, end - 1);
  }

  private isDef(block: PyBlock): boolean {
    const word = this.firstWord(block);
    return word === "def" || (word === "async" && this.tokens[block.line.start + 1].text === "def");
  }

  private decoratorsBefore(blocks: readonly PyBlock[], index: number): PyDecorator[] {
    const decorators: PyDecorator[] = [];
    for (let cursor = index - 1; cursor >= 0; cursor--) {
      const line = blocks[cursor].line;
      if (!(this.tokens[line.start].type === "op" && this.tokens[line.start].text === "@")) break;
      const expression = this.expressionIn(line.start + 1, line.end);
      const callee = expression.kind === "call" ? expression.callee : expression;
      decorators.unshift({ name: dottedName(callee) ?? this.fail(expression.start, "unsupported decorator"), call: expression.kind === "call" ? expression : undefined });
    }
    return decorators;
  }

  private classDef(block: PyBlock): PyClassDef {
    const tokens = this.tokens;
    const nameToken = tokens[block.line.start + 1];
    const open = tokens[block.line.start + 2];
    const bases: PyExpr[] = [];
    const keywords: { name: string | null; value: PyExpr }[] = [];
    if (open.type === "op" && open.text === "(") {
      const call = new ExpressionParser(this, block.line.start + 2, open.match! + 1).callArguments(nameToken.start);
      bases.push(...call.positional);
      keywords.push(...call.keywords);
    }
    return {
      name: nameToken.text,
      bases,
      keywords,
      docstring: this.docstringOf(block.children),
      assignments: this.assignmentsIn(block.children),
      methods: this.functionsIn(block.children),
      start: nameToken.start,
    };
  }

  private functionDef(block: PyBlock, decorators: PyDecorator[]): PyFunctionDef {
    const tokens = this.tokens;
    let index = block.line.start;
    if (tokens[index].text === "async") index++;
    const nameToken = tokens[index + 1];
    const open = tokens[index + 2];
    if (open.text !== "(" || open.match === undefined) this.fail(nameToken.start, "expected '(' after the function name");
    const close = open.match;
    const colon = this.findTopLevel(close + 1, block.line.end, ":");
    if (colon === undefined) this.fail(nameToken.start, "function header without ':'");
    let parameters: PyParameterDef[] | undefined;
    let returns: PyExpr | undefined;
    const file = this;
    return {
      name: nameToken.text,
      decorators,
      get parameters() {
        parameters ??= file.parameters(index + 3, close);
        return parameters;
      },
      get returns() {
        if (returns === undefined && tokens[close + 1].text === "->") returns = file.expressionIn(close + 2, colon);
        return returns;
      },
      docstring: this.docstringOf(block.children),
      body: block.children,
      start: nameToken.start,
    };
  }

  private parameters(start: number, end: number): PyParameterDef[] {
    const result: PyParameterDef[] = [];
    let keywordOnly = false;
    for (const [from, to] of this.splitTopLevel(start, end, ",")) {
      if (from === to) continue;
      const first = this.tokens[from];
      if (first.text === "/" && to === from + 1) continue;
      if (first.text === "*" && to === from + 1) {
        keywordOnly = true;
        continue;
      }
      let kind: PyParameterDef["kind"] = keywordOnly ? "keyword-only" : "positional";
      let nameIndex = from;
      if (first.text === "*") {
        kind = "var-positional";
        keywordOnly = true;
        nameIndex++;
      } else if (first.text === "**") {
        kind = "var-keyword";
        nameIndex++;
      }
      const name = this.tokens[nameIndex];
      if (name.type !== "name") this.fail(name.start, "expected a parameter name");
      const equals = this.findTopLevel(nameIndex + 1, to, "=");
      const annotationEnd = equals ?? to;
      const annotation = this.tokens[nameIndex + 1]?.text === ":" && nameIndex + 1 < to ? this.expressionIn(nameIndex + 2, annotationEnd) : undefined;
      const value = equals === undefined ? undefined : this.expressionIn(equals + 1, to);
      result.push({ name: name.text, kind, annotation, default: value });
    }
    return result;
  }

  /** Index of the first `text` operator at the bracket depth of `start` within `[start, end)`. */
  findTopLevel(start: number, end: number, text: string): number | undefined {
    const depth = this.tokens[start]?.depth ?? 0;
    for (let index = start; index < end; index++) {
      const token = this.tokens[index];
      if (token.type === "op" && token.text === text && token.depth === depth) return index;
    }
    return undefined;
  }

  private splitTopLevel(start: number, end: number, separator: string): Array<[number, number]> {
    const parts: Array<[number, number]> = [];
    if (start >= end) return parts;
    const depth = this.tokens[start].depth;
    let from = start;
    for (let index = start; index < end; index++) {
      const token = this.tokens[index];
      if (token.type === "op" && token.text === separator && token.depth === depth) {
        parts.push([from, index]);
        from = index + 1;
      }
    }
    parts.push([from, end]);
    return parts;
  }
}

function buildBlocks(source: TokenizedPythonSource): PyBlock[] {
  const root: PyBlock[] = [];
  const stack: { indent: number; children: PyBlock[] }[] = [{ indent: -1, children: root }];
  for (const line of source.lines) {
    while (stack.length > 1 && stack[stack.length - 1].indent >= line.indent) stack.pop();
    const block: PyBlock = { line, children: [] };
    stack[stack.length - 1].children.push(block);
    const last = source.tokens[line.end - 1];
    if (last.type === "op" && last.text === ":" && last.depth === 0) stack.push({ indent: line.indent, children: block.children });
  }
  return root;
}

/** `a.b.c` for a name or attribute chain, else undefined. */
export function dottedName(expression: PyExpr): string | undefined {
  if (expression.kind === "name") return expression.name;
  if (expression.kind === "attribute") {
    const base = dottedName(expression.object);
    return base === undefined ? undefined : `${base}.${expression.name}`;
  }
  return undefined;
}

const BINARY_LEVELS: readonly (readonly string[])[] = [["|"], ["^"], ["&"], ["<<", ">>"], ["+", "-"], ["*", "/", "//", "%", "@"]];
const COMPARISONS = new Set(["==", "!=", "<", ">", "<=", ">="]);

class ExpressionParser {
  position: number;

  constructor(
    private readonly file: PythonSourceFile,
    start: number,
    private end: number,
  ) {
    this.position = start;
  }

  private get tokens(): readonly PythonToken[] {
    return this.file.tokens;
  }

  private get current(): PythonToken {
    return this.position < this.end ? this.tokens[this.position] : { type: "eof", text: "", start: this.tokens[this.end - 1]?.start ?? 0, depth: 0 };
  }

  private isOp(text: string): boolean {
    const token = this.current;
    return token.type === "op" && token.text === text;
  }

  private isWord(text: string): boolean {
    const token = this.current;
    return token.type === "name" && token.text === text;
  }

  unexpected(): never {
    const token = this.current;
    return this.file.fail(token.start, token.type === "eof" ? "unexpected end of expression" : `unexpected '${token.text}' in an expression the reader does not support`);
  }

  private expect(text: string): void {
    if (!this.isOp(text)) this.file.fail(this.current.start, `expected '${text}', found '${this.current.text || "end"}'`);
    this.position++;
  }

  tupleOrExpression(): PyExpr {
    const start = this.current.start;
    const first = this.expression();
    if (!this.isOp(",")) return first;
    const items = [first];
    while (this.isOp(",")) {
      this.position++;
      if (this.position >= this.end || this.isOp(")") || this.isOp("]")) break;
      items.push(this.expression());
    }
    return { kind: "tuple", items, start };
  }

  expression(): PyExpr {
    if (this.isWord("lambda")) this.unexpected();
    const body = this.orExpression();
    if (!this.isWord("if")) return body;
    this.position++;
    const test = this.orExpression();
    if (!this.isWord("else")) this.unexpected();
    this.position++;
    const orElse = this.expression();
    return { kind: "conditional", test, body, orElse, start: body.start };
  }

  private orExpression(): PyExpr {
    let left = this.andExpression();
    while (this.isWord("or")) {
      this.position++;
      left = { kind: "binary", operator: "or", left, right: this.andExpression(), start: left.start };
    }
    return left;
  }

  private andExpression(): PyExpr {
    let left = this.notExpression();
    while (this.isWord("and")) {
      this.position++;
      left = { kind: "binary", operator: "and", left, right: this.notExpression(), start: left.start };
    }
    return left;
  }

  private notExpression(): PyExpr {
    if (this.isWord("not")) {
      const start = this.current.start;
      this.position++;
      return { kind: "unary", operator: "not", operand: this.notExpression(), start };
    }
    return this.comparison();
  }

  private comparison(): PyExpr {
    let left = this.binary(0);
    for (;;) {
      let operator: string | undefined;
      const token = this.current;
      if (token.type === "op" && COMPARISONS.has(token.text)) {
        operator = token.text;
        this.position++;
      } else if (this.isWord("is")) {
        this.position++;
        operator = "is";
        if (this.isWord("not")) {
          this.position++;
          operator = "is not";
        }
      } else if (this.isWord("in")) {
        this.position++;
        operator = "in";
      } else if (this.isWord("not") && this.tokens[this.position + 1]?.text === "in") {
        this.position += 2;
        operator = "not in";
      }
      if (operator === undefined) return left;
      left = { kind: "compare", operator, left, right: this.binary(0), start: left.start };
    }
  }

  private binary(level: number): PyExpr {
    if (level >= BINARY_LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const token = this.current;
      if (!(token.type === "op" && BINARY_LEVELS[level].includes(token.text))) return left;
      this.position++;
      left = { kind: "binary", operator: token.text, left, right: this.binary(level + 1), start: left.start };
    }
  }

  private unary(): PyExpr {
    const token = this.current;
    if (token.type === "op" && (token.text === "-" || token.text === "+" || token.text === "~")) {
      this.position++;
      return { kind: "unary", operator: token.text, operand: this.unary(), start: token.start };
    }
    return this.power();
  }

  private power(): PyExpr {
    const base = this.postfix();
    if (!this.isOp("**")) return base;
    this.position++;
    return { kind: "binary", operator: "**", left: base, right: this.unary(), start: base.start };
  }

  private postfix(): PyExpr {
    let expression = this.atom();
    for (;;) {
      if (this.isOp(".")) {
        this.position++;
        const name = this.current;
        if (name.type !== "name") this.unexpected();
        this.position++;
        expression = { kind: "attribute", object: expression, name: name.text, start: expression.start };
      } else if (this.isOp("(")) {
        const call = this.callArguments(expression.start);
        expression = { kind: "call", callee: expression, positional: call.positional, keywords: call.keywords, start: expression.start };
      } else if (this.isOp("[")) {
        const open = this.current;
        this.position++;
        const index = this.withEnd(open.match!, () => this.tupleOrExpression());
        this.expect("]");
        expression = { kind: "subscript", object: expression, index, start: expression.start };
      } else {
        return expression;
      }
    }
  }

  /** Parses `( ... )` call arguments starting at the current `(`. */
  callArguments(start: number): { positional: PyExpr[]; keywords: { name: string | null; value: PyExpr }[]; start: number } {
    const open = this.current;
    if (!this.isOp("(")) this.unexpected();
    this.position++;
    const positional: PyExpr[] = [];
    const keywords: { name: string | null; value: PyExpr }[] = [];
    this.withEnd(open.match!, () => {
      while (this.position < open.match!) {
        const token = this.current;
        if (token.type === "op" && (token.text === "*" || token.text === "**")) {
          this.position++;
          if (token.text === "**") keywords.push({ name: null, value: this.expression() });
          else this.unexpected();
        } else if (token.type === "name" && this.tokens[this.position + 1]?.text === "=" && this.tokens[this.position + 1]?.type === "op") {
          this.position += 2;
          keywords.push({ name: token.text, value: this.expression() });
        } else {
          positional.push(this.expression());
        }
        if (this.position < open.match!) this.expect(",");
      }
    });
    this.expect(")");
    return { positional, keywords, start };
  }

  /** Runs `parse` with the end bound moved to `end` (a closing bracket), then restores it. */
  private withEnd<T>(end: number, parse: () => T): T {
    const saved = this.end;
    this.end = end;
    try {
      const result = parse();
      if (this.position !== end) this.unexpected();
      return result;
    } finally {
      this.end = saved;
    }
  }

  private atom(): PyExpr {
    const token = this.current;
    switch (token.type) {
      case "string":
        return this.strings();
      case "number":
        this.position++;
        return { kind: "constant", value: numberValue(token.text), start: token.start };
      case "name": {
        if (KEYWORD_OPERATORS.has(token.text)) this.unexpected();
        this.position++;
        if (token.text === "None") return { kind: "constant", value: null, start: token.start };
        if (token.text === "True") return { kind: "constant", value: true, start: token.start };
        if (token.text === "False") return { kind: "constant", value: false, start: token.start };
        return { kind: "name", name: token.text, start: token.start };
      }
      case "op":
        if (token.text === "...") {
          this.position++;
          return { kind: "ellipsis", start: token.start };
        }
        if (token.text === "(" || token.text === "[" || token.text === "{") return this.bracketed(token);
        return this.unexpected();
      default:
        return this.unexpected();
    }
  }

  private bracketed(open: PythonToken): PyExpr {
    const close = open.match!;
    this.position++;
    const items: PyExpr[] = [];
    const entries: { key: PyExpr; value: PyExpr }[] = [];
    let comma = false;
    this.withEnd(close, () => {
      while (this.position < close) {
        if (this.isWord("for")) this.unexpected();
        const item = this.expression();
        if (open.text === "{" && this.isOp(":")) {
          this.position++;
          entries.push({ key: item, value: this.expression() });
        } else {
          items.push(item);
        }
        if (this.position < close) {
          this.expect(",");
          comma = true;
        }
      }
    });
    this.position++;
    if (open.text === "(") return items.length === 1 && !comma ? items[0] : { kind: "tuple", items, start: open.start };
    if (open.text === "[") return { kind: "list", items, start: open.start };
    if (entries.length > 0 || items.length === 0) {
      if (items.length > 0) this.file.fail(open.start, "a dict display mixed with set items");
      return { kind: "dict", entries, start: open.start };
    }
    return { kind: "set", items, start: open.start };
  }

  /** Adjacent string literals, joined; an f-string among them makes the whole an f-string. */
  private strings(): PyExpr {
    const start = this.current.start;
    const parts: FStringPart[] = [];
    let formatted = false;
    while (this.current.type === "string") {
      const token = this.current;
      this.position++;
      if (token.kind === "bytes") this.file.fail(token.start, "bytes literals are not supported");
      if (token.kind === "fstring") {
        formatted = true;
        const raw = /^[A-Za-z]*[rR]/.test(token.text);
        parts.push(...fStringParts(this.file, token, raw));
      } else {
        parts.push({ text: token.value! });
      }
    }
    if (!formatted) return { kind: "constant", value: parts.map((part) => (part as { text: string }).text).join(""), start };
    return { kind: "fstring", parts: mergeText(parts), start };
  }
}

function mergeText(parts: FStringPart[]): FStringPart[] {
  const merged: FStringPart[] = [];
  for (const part of parts) {
    const last = merged.at(-1);
    if ("text" in part && last && "text" in last) merged[merged.length - 1] = { text: last.text + part.text };
    else if (!("text" in part) || part.text !== "") merged.push(part);
  }
  return merged;
}

/** Splits an f-string body into literal text (escapes decoded unless raw) and replacement fields. */
function fStringParts(file: PythonSourceFile, token: PythonToken, raw: boolean): FStringPart[] {
  const body = token.value ?? "";
  const parts: FStringPart[] = [];
  let text = "";
  const flush = (): void => {
    if (text !== "") parts.push({ text: raw ? text : decodePythonEscapes(text, file.file, token.start) });
    text = "";
  };
  let index = 0;
  while (index < body.length) {
    const char = body[index];
    if (char === "{" && body[index + 1] === "{") {
      text += "{";
      index += 2;
    } else if (char === "}" && body[index + 1] === "}") {
      text += "}";
      index += 2;
    } else if (char === "}") {
      file.fail(token.start, "f-string: single '}' is not allowed");
    } else if (char === "{") {
      flush();
      const field = readField(body, index + 1);
      if (!field) file.fail(token.start, "f-string: expecting '}'");
      parts.push(field.part);
      index = field.end;
    } else if (char === "\\" && !raw) {
      text += body.slice(index, index + 2);
      index += 2;
    } else {
      text += char;
      index++;
    }
  }
  flush();
  return parts;
}

function readField(body: string, start: number): { part: FStringPart; end: number } | undefined {
  let depth = 0;
  let quote: string | undefined;
  let expressionEnd = -1;
  let conversion: string | undefined;
  let specStart = -1;
  for (let index = start; index < body.length; index++) {
    const char = body[index];
    if (quote) {
      if (char === quote) quote = undefined;
      continue;
    }
    if (char === "'" || char === '"') quote = char;
    else if (char === "(" || char === "[" || char === "{") depth++;
    else if ((char === ")" || char === "]" || (char === "}" && depth > 0)) && depth > 0) depth--;
    else if (depth === 0 && char === "!" && body[index + 1] !== "=" && expressionEnd < 0) {
      expressionEnd = index;
      conversion = body[index + 1];
      index++;
    } else if (depth === 0 && char === ":" && specStart < 0) {
      if (expressionEnd < 0) expressionEnd = index;
      specStart = index + 1;
    } else if (depth === 0 && char === "}") {
      if (expressionEnd < 0) expressionEnd = index;
      const expression = body.slice(start, expressionEnd).trim();
      const part: FStringPart = { expression };
      if (conversion) part.conversion = conversion;
      if (specStart >= 0) part.formatSpec = body.slice(specStart, index);
      return { part, end: index + 1 };
    }
  }
  return undefined;
}

function numberValue(text: string): PyValue {
  const clean = text.replace(/_/g, "");
  if (/^0[xXoObB]/.test(clean)) return normalizeInt(BigInt(clean));
  if (/[.eE]/.test(clean)) return new PyFloat(Number(clean));
  return normalizeInt(BigInt(clean));
}
