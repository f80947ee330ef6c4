/**
 * A tree of Python source files under one root (`<root>/tau2/...` for module `tau2....`), read
 * lazily and cached, with module-level name resolution through `from X import Y`.
 *
 * Why: a tool signature names types defined in other modules (`from tau2.domains.airline.data_model
 * import FlightInfo`), so turning it into a JSON schema means following imports the way Python
 * would, over only the files the data directory has. Names imported from modules outside the tree
 * (pydantic, typing, enum, or project modules that were not fetched) resolve to
 * `{kind: "external"}` and the caller decides what it knows about them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DataError, errorMarker } from "../../errors/error-tree.ts";
import { PythonLiteralError } from "../python-tokenizer.ts";
import { type PyClassDef, type PyExpr, type PyFunctionDef, PythonSourceFile } from "./syntax.ts";

/** A source file or symbol the extraction needs is missing or not of the expected form. */
export class PythonSourceError extends DataError {
  static readonly marker: symbol = errorMarker("PythonSourceError");
}

/** What a module-level name stands for. */
export type ResolvedName =
  | { kind: "class"; module: string; file: PythonSourceFile; definition: PyClassDef }
  | { kind: "value"; module: string; file: PythonSourceFile; expression: PyExpr }
  | { kind: "function"; module: string; file: PythonSourceFile; definition: PyFunctionDef }
  | { kind: "external"; qualifiedName: string }
  | { kind: "builtin"; name: string };

const BUILTINS = new Set(["str", "int", "float", "bool", "bytes", "dict", "list", "tuple", "set", "frozenset", "object", "type", "None", "property", "staticmethod", "classmethod"]);

/** The Python files below `root`, addressed by dotted module name. */
export class PythonSourceTree {
  private readonly files = new Map<string, PythonSourceFile | null>();

  /**
   * @param root directory holding the top-level packages
   * @param hint appended to "missing file" errors (how to get the sources)
   */
  constructor(
    readonly root: string,
    readonly hint: string,
  ) {}

  /** The path of a module's file (`a.b.c` → `<root>/a/b/c.py`). */
  pathOf(module: string): string {
    return join(this.root, ...module.split(".")) + ".py";
  }

  /**
   * The file paths this tree has tried to read so far, present or not (what was derived from it
   * depends on exactly these files: one that was missing and appears later can change a name's
   * resolution). Callers that cache a derivation check these files' bytes before reusing it.
   */
  readPaths(): string[] {
    return [...this.files.keys()].map((module) => this.pathOf(module));
  }

  /** The module's parsed file, or undefined when the tree does not have it. */
  tryModule(module: string): PythonSourceFile | undefined {
    if (!this.files.has(module)) {
      let text: string | undefined;
      try {
        text = readFileSync(this.pathOf(module), "utf8");
      } catch {
        text = undefined;
      }
      this.files.set(module, text === undefined ? null : new PythonSourceFile(text, this.pathOf(module)));
    }
    return this.files.get(module) ?? undefined;
  }

  /** The module's parsed file; a missing file is a {@link PythonSourceError} naming it and the hint. */
  module(module: string, neededFor?: string): PythonSourceFile {
    const file = this.tryModule(module);
    if (!file) throw new PythonSourceError(`${this.pathOf(module)} is missing${neededFor ? ` (needed for ${neededFor})` : ""}; ${this.hint}`);
    return file;
  }

  /** Resolves a module-level name of `module` (classes, assignments, imports), like Python's lookup. */
  resolve(module: string, name: string): ResolvedName {
    const file = this.module(module);
    const definition = file.findClass(name);
    if (definition) return { kind: "class", module, file, definition };
    const value = file.moduleValue(name);
    if (value) return { kind: "value", module, file, expression: value };
    const definedFunction = file.functions().find((candidate) => candidate.name === name);
    if (definedFunction) return { kind: "function", module, file, definition: definedFunction };
    const imported = file.imports().get(name);
    if (imported) {
      const target = imported.level === 0 ? imported.module : relativeModule(module, imported.level, imported.module);
      if (this.tryModule(target)) return this.resolve(target, imported.imported);
      return { kind: "external", qualifiedName: `${target}.${imported.imported}` };
    }
    if (BUILTINS.has(name)) return { kind: "builtin", name };
    throw new PythonSourceError(`${file.file}: cannot resolve the name '${name}'; ${this.hint}`);
  }

  /** Resolves a name or dotted attribute chain (`typing.Optional`, `ToolType.WRITE` is not a type). */
  resolveDotted(module: string, dotted: string): ResolvedName {
    const [head, ...rest] = dotted.split(".");
    const resolved = this.resolve(module, head);
    if (rest.length === 0) return resolved;
    if (resolved.kind === "external") return { kind: "external", qualifiedName: `${resolved.qualifiedName}.${rest.join(".")}` };
    const file = this.module(module);
    throw new PythonSourceError(`${file.file}: unexpected dotted name '${dotted}'`);
  }
}

function relativeModule(module: string, level: number, target: string): string {
  const parts = module.split(".");
  const base = parts.slice(0, parts.length - level);
  return [...base, ...(target ? [target] : [])].join(".");
}

/** Re-throws a syntax error of the reader as a {@link PythonSourceError} that names what was being read. */
export function describeFailure<T>(what: string, hint: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (PythonLiteralError.isInstance(error)) throw new PythonSourceError(`${error.message} (while reading ${what}); ${hint}`, { cause: error });
    throw error;
  }
}
