/**
 * The module-level structure of a Python file, read without running it: top-level assignments,
 * `from … import …` bindings, and functions whose body returns a literal — enough to find the
 * literal data τ-bench keeps in its task and tool modules (see `python-literal.ts`).
 */
import type { PyValue } from "../value/index.ts";
import { type EvaluateOptions, Evaluator } from "./python-literal.ts";
import { type LogicalLine, PythonLiteralError, type SourceMap, type Token, prepare, tokenize } from "./python-tokenizer.ts";

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
