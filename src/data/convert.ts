/**
 * Converts an upstream τ-bench tree into the data-directory layout the harness loads
 * (`retail/{users,orders,products}.json, wiki.md, tasks_*.json, tools_info.json`, `airline/...`,
 * `few_shot_data/*.jsonl`, `LICENSE`).
 *
 * Why a converter: upstream keeps the data JSON verbatim but the task lists and tool schemas as
 * Python source. We read those literals (never execute them) and write JSON whose text matches
 * what Python's `json.dumps(..., indent=2)` gives for the same values, so a pulled data directory
 * is byte-identical to the reference export and ints/floats keep their distinction.
 *
 * The converter works from a file reader, so the same code serves a local checkout and a set of
 * downloaded files.
 */
import { posix } from "node:path";
import { DataError } from "../errors/error-tree.ts";
import { PyFloat, isPyInt, pyFloatRepr, pyJsonString, type PyDict, type PyValue } from "../value/index.ts";
import type { DataManifest, ManifestFile } from "./manifest.ts";
import type { CallArguments, CallHandler, EvaluateOptions } from "./python-literal.ts";
import { PythonModule } from "./python-module.ts";

/** Reads one upstream file by its repository path. */
export type UpstreamReader = (path: string) => Promise<string | Uint8Array>;

/** One file of the converted data directory. */
export interface ConvertedFile {
  /** Path inside the data directory. */
  target: string;
  content: Buffer;
  /** Upstream paths it was made from. */
  sources: string[];
}

// ---------------------------------------------------------------------------------------------
// JSON text
// ---------------------------------------------------------------------------------------------

/**
 * Python `json.dumps(value, indent=indent)` (ensure_ascii, `", "`-free separators `","` and `": "`
 * as Python uses with an indent). Floats print with Python's repr (`100.0`), ints as integers.
 */
export function pythonJsonIndented(value: PyValue, indent = 2): string {
  const parts: string[] = [];
  const write = (item: PyValue, level: number): void => {
    if (item === null) parts.push("null");
    else if (typeof item === "boolean") parts.push(item ? "true" : "false");
    else if (typeof item === "string") parts.push(pyJsonString(item));
    else if (item instanceof PyFloat) {
      const number = item.value;
      parts.push(Number.isNaN(number) ? "NaN" : number === Infinity ? "Infinity" : number === -Infinity ? "-Infinity" : pyFloatRepr(number));
    } else if (isPyInt(item)) parts.push(String(item));
    else if (Array.isArray(item)) {
      if (item.length === 0) return void parts.push("[]");
      const inner = `\n${" ".repeat(indent * (level + 1))}`;
      parts.push("[");
      item.forEach((element, index) => {
        parts.push(index === 0 ? inner : `,${inner}`);
        write(element, level + 1);
      });
      parts.push(`\n${" ".repeat(indent * level)}]`);
    } else {
      if (item.size === 0) return void parts.push("{}");
      const inner = `\n${" ".repeat(indent * (level + 1))}`;
      parts.push("{");
      let first = true;
      for (const [key, element] of item) {
        parts.push(first ? inner : `,${inner}`, pyJsonString(key), ": ");
        first = false;
        write(element, level + 1);
      }
      parts.push(`\n${" ".repeat(indent * level)}}`);
    }
  };
  write(value, 0);
  return parts.join("");
}

// ---------------------------------------------------------------------------------------------
// Task(...) and Action(...)
// ---------------------------------------------------------------------------------------------

function keywordsOnly(call: CallArguments, allowed: readonly string[], required: readonly string[]): void {
  if (call.positional.length > 0) call.fail("positional arguments are not supported (the model takes keywords only)");
  for (const key of call.keywords.keys()) if (!allowed.includes(key)) call.fail(`unexpected keyword '${key}'`);
  for (const key of required) if (!call.keywords.has(key)) call.fail(`missing keyword '${key}'`);
}

function isStringList(value: PyValue | undefined): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function actionFrom(value: PyValue, fail: (reason: string) => never): PyDict {
  // pydantic accepts a plain dict for an Action too.
  if (!(value instanceof Map)) return fail("every action must be Action(...) or a dict");
  const name = value.get("name");
  const kwargs = value.get("kwargs");
  if (typeof name !== "string") fail("action name must be a string");
  if (!(kwargs instanceof Map)) fail("action kwargs must be a dict");
  for (const key of value.keys()) if (key !== "name" && key !== "kwargs") fail(`unexpected action field '${key}'`);
  return new Map<string, PyValue>([
    ["name", name],
    ["kwargs", kwargs],
  ]);
}

/**
 * Call handlers turning `Task(...)` / `Action(...)` into the task JSON objects, with keys in the
 * order `user_id, actions, instruction, outputs, annotator` (the model's field order, then the
 * annotator that upstream writes but the pydantic model drops).
 */
export const TASK_CALLS: Readonly<Record<string, CallHandler>> = {
  Action(call: CallArguments) {
    keywordsOnly(call, ["name", "kwargs"], ["name", "kwargs"]);
    return actionFrom(new Map(call.keywords), call.fail);
  },
  Task(call: CallArguments) {
    keywordsOnly(call, ["annotator", "user_id", "instruction", "actions", "outputs"], ["user_id", "instruction", "actions", "outputs"]);
    const get = (key: string): PyValue | undefined => call.keywords.get(key);
    const userId = get("user_id");
    const instruction = get("instruction");
    const actions = get("actions");
    const outputs = get("outputs");
    const annotator = get("annotator");
    if (typeof userId !== "string") call.fail("user_id must be a string");
    if (typeof instruction !== "string") call.fail("instruction must be a string");
    if (!Array.isArray(actions)) call.fail("actions must be a list");
    if (!isStringList(outputs)) call.fail("outputs must be a list of strings");
    if (annotator !== undefined && typeof annotator !== "string") call.fail("annotator must be a string");
    const task: PyDict = new Map<string, PyValue>([
      ["user_id", userId],
      ["actions", actions.map((action) => actionFrom(action, call.fail))],
      ["instruction", instruction],
      ["outputs", outputs],
    ]);
    if (annotator !== undefined) task.set("annotator", annotator);
    return task;
  },
};

// ---------------------------------------------------------------------------------------------
// Conversion
// ---------------------------------------------------------------------------------------------

const utf8 = new TextDecoder("utf-8", { fatal: true });

function asText(content: string | Uint8Array, path: string): string {
  if (typeof content === "string") return content;
  try {
    return utf8.decode(content);
  } catch (error) {
    throw new DataError(`${path}: not valid UTF-8`, { cause: error });
  }
}

function asBuffer(content: string | Uint8Array): Buffer {
  return typeof content === "string" ? Buffer.from(content, "utf8") : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
}

function jsonFile(value: PyValue): Buffer {
  return Buffer.from(`${pythonJsonIndented(value, 2)}\n`, "utf8");
}

/** The repository path a relative `from .module import Name` in `fromFile` refers to (package or module). */
function resolveRelativeModule(fromFile: string, level: number, module: string): string[] {
  let directory = posix.dirname(fromFile);
  for (let up = 1; up < level; up++) directory = posix.dirname(directory);
  const base = module === "" ? directory : posix.join(directory, ...module.split("."));
  return [`${base}.py`, posix.join(base, "__init__.py")];
}

async function convertTaskModule(file: ManifestFile, read: UpstreamReader): Promise<PyValue> {
  const module = new PythonModule(asText(await read(file.path), file.path), file.path);
  const tasks = module.evaluateAssignment(file.symbol!, { calls: TASK_CALLS });
  if (!Array.isArray(tasks) || !tasks.every((task) => task instanceof Map && task.has("user_id"))) {
    throw new DataError(`${file.path}: ${file.symbol} must be a list of Task(...) calls`);
  }
  return tasks;
}

async function convertToolIndex(index: ManifestFile, toolModules: ManifestFile[], read: UpstreamReader): Promise<PyValue> {
  const modules = new Map<string, PythonModule>();
  for (const file of toolModules) modules.set(file.path, new PythonModule(asText(await read(file.path), file.path), file.path));
  const indexModule = new PythonModule(asText(await read(index.path), index.path), index.path);
  const bindings = new Map(indexModule.imports().map((binding) => [binding.local, binding]));
  const used = new Set<string>();
  const options: EvaluateOptions = {
    resolveName(name, fail) {
      const binding = bindings.get(name);
      if (!binding) return fail(`name '${name}' is not imported in ${index.path}`);
      if (binding.level === 0) return fail(`'${name}' is imported from '${binding.module}', not from a module of this package`);
      const candidates = resolveRelativeModule(index.path, binding.level, binding.module);
      const path = candidates.find((candidate) => modules.has(candidate));
      if (!path) return fail(`'${name}' comes from ${candidates[0]}, which the manifest does not list as a tool-module for ${index.target}`);
      used.add(path);
      const info = modules.get(path)!.evaluateFunctionReturn("get_info", { className: binding.imported });
      if (!(info instanceof Map)) return fail(`${path}: ${binding.imported}.get_info() must return a dict`);
      return info;
    },
  };
  const tools = indexModule.evaluateAssignment(index.symbol!, options);
  if (!Array.isArray(tools)) throw new DataError(`${index.path}: ${index.symbol} must be a list of tool classes`);
  const unused = toolModules.filter((file) => !used.has(file.path)).map((file) => file.path);
  if (unused.length > 0) throw new DataError(`${index.path}: ${index.symbol} does not use the listed tool modules ${unused.join(", ")}`);
  return tools;
}

/**
 * Converts every manifest file into the data-directory files, in manifest order. Reads each
 * upstream file once through `read`; throws a {@link DataError} (naming file, line and column for
 * Python syntax) on anything unexpected. Checksums are the caller's job (see pull.ts).
 */
export async function convertUpstream(manifest: DataManifest, read: UpstreamReader, onProgress?: (message: string) => void): Promise<ConvertedFile[]> {
  const out: ConvertedFile[] = [];
  for (const file of manifest.files) {
    switch (file.kind) {
      case "copy":
        out.push({ target: file.target, content: asBuffer(await read(file.path)), sources: [file.path] });
        break;
      case "task-module": {
        const tasks = await convertTaskModule(file, read);
        onProgress?.(`converted ${file.path} → ${file.target} (${(tasks as PyValue[]).length} tasks)`);
        out.push({ target: file.target, content: jsonFile(tasks), sources: [file.path] });
        break;
      }
      case "tool-index": {
        const toolModules = manifest.files.filter((other) => other.kind === "tool-module" && other.target === file.target);
        const tools = await convertToolIndex(file, toolModules, read);
        onProgress?.(`converted ${file.path} → ${file.target} (${(tools as PyValue[]).length} tools)`);
        out.push({ target: file.target, content: jsonFile(tools), sources: [file.path, ...toolModules.map((module) => module.path)] });
        break;
      }
      case "tool-module":
        break; // consumed by its tool-index
    }
  }
  return out;
}
