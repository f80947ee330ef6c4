/**
 * The sentences τ²'s tools answer with (results and error texts), read at run time from the tool
 * sources in the data directory, never written into this project. A domain names each message in
 * its own words and says where the original writes it: the method and the literal's position among
 * that method's string literals (see `stringLiteralsOf`). Positions are only meaningful for the
 * pinned sources, so loading checks the file's SHA-256 against the τ² data manifest first.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DataError } from "../../../errors/error-tree.ts";
import { decodeUtf8 } from "../../../data/data-files.ts";
import { cachedDerivation, derivedCacheKey } from "../../../data/derived-cache.ts";
import { pinnedHashes, sha256Hex } from "../../../data/manifest.ts";
import { fillTemplate, stringLiteralsOf, stringValueOf, templateFields, type StringTemplate } from "../../../data/python-source/strings.ts";
import { PythonSourceFile } from "../../../data/python-source/syntax.ts";
import { cleandoc } from "../../../data/python-source/docstring.ts";
import { TAU2_SOURCE_HINT, tau2SourceRoot } from "./extract/sources.ts";

/** Where a message stands in the source: `Class.method` (or a module function's name) and the literal's index in it. */
export interface UpstreamMessageSource {
  readonly in: string;
  readonly at: number;
}

/**
 * A domain's messages from one τ² source file (`domains/retail/tools.py`, relative to
 * `upstream-src/src/tau2/`). {@link load} (called by `loadTau2Domain`) reads them; {@link text}
 * and {@link format} give them to the tools.
 */
export class UpstreamMessages<Key extends string> {
  private templates: ReadonlyMap<Key, StringTemplate> | undefined;
  /** The messages without fields, as text (tools ask for them on every call). */
  private plain = new Map<Key, string>();
  private loadedFrom: string | undefined;

  constructor(
    readonly sourceFile: string,
    readonly sources: Readonly<Record<Key, UpstreamMessageSource>>,
  ) {}

  /**
   * Reads every message from `<dataRoot>/upstream-src/src/tau2/<sourceFile>` (once per data root).
   * What is read is kept in the derived cache (`data/derived-cache.ts`) under the file's SHA-256
   * and this table, so a later run does not parse the Python again.
   */
  load(dataRoot: string): void {
    const path = join(tau2SourceRoot(dataRoot), "tau2", this.sourceFile);
    if (this.loadedFrom === path) return;
    const { text, sha256 } = readPinnedSource(path, this.sourceFile);
    const keys = Object.keys(this.sources) as Key[];
    const isTable = (value: unknown): value is Record<Key, StringTemplate> => isTemplateTable(value, keys);
    const table = cachedDerivation(MESSAGES_KIND, derivedCacheKey(sha256, JSON.stringify(this.sources)), isTable, () => this.extract(text, path));
    const templates = new Map<Key, StringTemplate>(keys.map((key) => [key, table[key]]));
    this.templates = templates;
    this.plain = new Map([...templates].filter(([, template]) => templateFields(template).length === 0).map(([key, template]) => [key, fillTemplate(template, () => "")]));
    this.loadedFrom = path;
  }

  /** Every message's template, parsed from the source text. */
  private extract(text: string, path: string): Record<Key, StringTemplate> {
    const file = new PythonSourceFile(text, path);
    const table = {} as Record<Key, StringTemplate>;
    const literalsByMethod = new Map<string, StringTemplate[]>();
    for (const [key, source] of Object.entries(this.sources) as Array<[Key, UpstreamMessageSource]>) {
      let literals = literalsByMethod.get(source.in);
      if (!literals) {
        literals = stringLiteralsOf(file, findFunction(file, source.in));
        literalsByMethod.set(source.in, literals);
      }
      const template = literals[source.at];
      if (!template) throw new DataError(`${path}: ${source.in} has ${literals.length} string literals, none at ${source.at} (message "${key}")`);
      table[key] = template;
    }
    return table;
  }

  /** A message without fields, as the original writes it. */
  text(key: Key): string {
    const text = this.plain.get(key);
    if (text !== undefined) return text;
    this.template(key); // not loaded: says so
    throw new Error(`upstream message "${key}" has fields: use format()`);
  }

  /**
   * An f-string message with its fields filled: `values` maps each field's expression as written
   * upstream (`order_id`, `line.line_id`) to its text, formatted by the caller as Python would.
   */
  format(key: Key, values: Readonly<Record<string, string>>): string {
    return fillTemplate(this.template(key), (field) => {
      if (!Object.hasOwn(values, field.expression)) throw new Error(`upstream message "${key}": no value for the field {${field.expression}}`);
      return values[field.expression];
    });
  }

  /**
   * An f-string message with its fields filled in order: for fields whose upstream expressions are
   * long (`{'ON' if new_state else 'OFF'}`). The number of values must match the fields.
   */
  formatInOrder(key: Key, ...values: string[]): string {
    const template = this.template(key);
    const count = templateFields(template).length;
    if (count !== values.length) throw new Error(`upstream message "${key}" has ${count} fields; ${values.length} values given`);
    let next = 0;
    return fillTemplate(template, () => values[next++]);
  }

  private template(key: Key): StringTemplate {
    if (!this.templates) throw new Error(`the messages of ${this.sourceFile} are not loaded: load the domain with loadTau2Domain first`);
    return this.templates.get(key)!;
  }
}

/**
 * A module-level string constant of a τ² source file (`NAME = "…"`, implicit concatenation and
 * triple quotes included), read from the pinned file under `<dataRoot>/upstream-src/src/tau2/`. Why:
 * some of the original's texts (a reranker's prompt, an embedder's instruction) are module constants
 * rather than literals inside a function; they are read, never written into this project.
 */
export function readUpstreamConstant(dataRoot: string, sourceFile: string, name: string): string {
  const path = join(tau2SourceRoot(dataRoot), "tau2", sourceFile);
  const file = new PythonSourceFile(readPinnedSource(path, sourceFile).text, path);
  const value = file.moduleValue(name);
  if (!value) throw new DataError(`${path}: no module-level ${name}; ${TAU2_SOURCE_HINT}`);
  return stringValueOf(file, value);
}

/** Target path → SHA-256 of the τ² manifest (its source files), read once. */
let pinned: Map<string, string> | undefined;

/** The file's text and SHA-256, after checking it is the version the manifest pins (positions depend on it). */
function readPinnedSource(path: string, sourceFile: string): { text: string; sha256: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new DataError(`τ²'s source file ${path} is missing from the data directory; ${TAU2_SOURCE_HINT}`, { cause: error });
  }
  const target = `upstream-src/src/tau2/${sourceFile}`;
  pinned ??= pinnedHashes("tau2-bench", "upstream-src/src/tau2/");
  const pinnedHash = pinned.get(target);
  if (!pinnedHash) throw new Error(`${target} is not in the τ² data manifest`);
  const sha256 = sha256Hex(bytes);
  if (sha256 !== pinnedHash) {
    throw new DataError(`${path} differs from the pinned τ²-bench sources (the tools' messages are read from it by position); ${TAU2_SOURCE_HINT}`);
  }
  return { text: decodeUtf8(bytes, path), sha256 };
}

const MESSAGES_KIND = "tau2-upstream-messages-v1";

/** A cached table of templates: every key, each a list of f-string parts (`{text}` or `{expression, conversion?, formatSpec?}`). */
function isTemplateTable(value: unknown, keys: readonly string[]): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const table = value as Record<string, unknown>;
  return keys.every((key) => Array.isArray(table[key]) && (table[key] as unknown[]).every(isTemplatePart));
}

function isTemplatePart(part: unknown): boolean {
  if (part === null || typeof part !== "object") return false;
  const { text, expression, conversion, formatSpec, ...rest } = part as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return false;
  if (text !== undefined) return typeof text === "string" && expression === undefined && conversion === undefined && formatSpec === undefined;
  return typeof expression === "string" && (conversion === undefined || typeof conversion === "string") && (formatSpec === undefined || typeof formatSpec === "string");
}

function findFunction(file: PythonSourceFile, name: string) {
  const [owner, method] = name.includes(".") ? name.split(".") : [undefined, name];
  const functions = owner === undefined ? file.functions() : file.findClass(owner)?.methods;
  const found = functions?.find((candidate) => candidate.name === method);
  if (!found) throw new DataError(`${file.file}: no ${owner ? `method ${name}` : `function ${name}`}; ${TAU2_SOURCE_HINT}`);
  return found;
}

/**
 * Every string literal of one τ² source file, addressed by function (`Class.method` or a module
 * function) and position, for a domain whose tools hold hundreds of sentences (τ³ banking's
 * `tools.py`): the call site names where the sentence stands instead of a key table. Loaded and
 * pinned like {@link UpstreamMessages}.
 */
export class UpstreamLiterals {
  private literals: ReadonlyMap<string, StringTemplate[]> | undefined;
  private docstrings = new Map<string, string>();
  private loadedFrom: string | undefined;

  constructor(readonly sourceFile: string) {}

  /** Reads the file's literals (once per data root; kept in the derived cache under the source's SHA-256). */
  load(dataRoot: string): void {
    const path = join(tau2SourceRoot(dataRoot), "tau2", this.sourceFile);
    if (this.loadedFrom === path) return;
    const { text, sha256 } = readPinnedSource(path, this.sourceFile);
    const table = cachedDerivation(LITERALS_KIND, derivedCacheKey(sha256, this.sourceFile), isLiteralTable, () => extractLiterals(text, path));
    this.literals = new Map(Object.entries(table.literals));
    this.docstrings = new Map(Object.entries(table.docstrings));
    this.loadedFrom = path;
  }

  /** `inspect.getdoc` of a method (`Class.method`): its docstring, cleaned; empty when it has none. */
  docstring(where: string): string {
    if (!this.literals) throw new Error(`the literals of ${this.sourceFile} are not loaded: load the domain with loadTau2Domain first`);
    return this.docstrings.get(where) ?? "";
  }

  /** The literal at `at` in `where`, its f-string fields filled in order with `values`. */
  say(where: string, at: number, ...values: string[]): string {
    if (!this.literals) throw new Error(`the literals of ${this.sourceFile} are not loaded: load the domain with loadTau2Domain first`);
    const template = this.literals.get(where)?.[at];
    if (!template) throw new DataError(`${this.sourceFile}: ${where} has no string literal at ${at}; ${TAU2_SOURCE_HINT}`);
    const count = templateFields(template).length;
    if (count !== values.length) throw new Error(`${this.sourceFile} ${where}[${at}] has ${count} fields; ${values.length} values given`);
    let next = 0;
    return fillTemplate(template, () => values[next++]);
  }
}

const LITERALS_KIND = "tau2-upstream-literals-v1";

/** Every function's and method's string literals (by position) and every method's cleaned docstring. */
interface LiteralTable {
  literals: Record<string, StringTemplate[]>;
  docstrings: Record<string, string>;
}

function extractLiterals(text: string, path: string): LiteralTable {
  const file = new PythonSourceFile(text, path);
  const literals: Record<string, StringTemplate[]> = {};
  for (const definition of file.functions()) literals[definition.name] = stringLiteralsOf(file, definition);
  const docstrings: Record<string, string> = {};
  for (const owner of file.classes()) {
    for (const definition of owner.methods) {
      literals[`${owner.name}.${definition.name}`] = stringLiteralsOf(file, definition);
      docstrings[`${owner.name}.${definition.name}`] = cleandoc(definition.docstring ?? "");
    }
  }
  return { literals, docstrings };
}

/** A cached literal table, checked part by part before it is trusted. */
function isLiteralTable(value: unknown): value is LiteralTable {
  if (value === null || typeof value !== "object") return false;
  const { literals, docstrings } = value as Record<string, unknown>;
  if (literals === null || typeof literals !== "object" || docstrings === null || typeof docstrings !== "object") return false;
  if (!Object.values(literals).every((list) => Array.isArray(list) && list.every((template) => Array.isArray(template) && template.every(isTemplatePart)))) return false;
  return Object.values(docstrings).every((text) => typeof text === "string");
}
