/**
 * τ²-bench's task data model (τ²: src/tau2/data_model/tasks.py, Task; message_history messages:
 * src/tau2/data_model/message.py): tasks, their initial state and evaluation criteria, the messages
 * of a `message_history`, and `split_tasks.json` (each domain's environment.py, get_tasks_split).
 *
 * Files are read with the lossless reader, so every number keeps its Python type: a tool-call
 * argument `2.0` stays a float (telecom's `refuel_data` echoes `2.0 GB`), and initialization data
 * keeps its key order. The structure is validated on a plain view of that parse, in which the
 * Python-valued parts (`arguments`, `agent_data`, `user_data`) stay value-model dicts: by the quick
 * checks, or by the zod schemas when those are unsure (`task-schemas.ts`). A validation error names
 * the file, the task id and the field.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { DataError } from "../../errors/error-tree.ts";
import { readPythonJsonFile, readUtf8File } from "../../data/data-files.ts";
import { openJsonArrayFile } from "../../data/json-array-file.ts";
import { UNSURE } from "../../data/quick-shapes.ts";
import { PyFloat, toJs, type PyDict, type PyValue } from "../../value/index.ts";
import { type Tau2Task, tau2Quick, tau2Schemas } from "./task-schemas.ts";

/** Keys whose values stay value-model dicts (Python values the tools consume). */
const PYTHON_VALUED = new Set(["arguments", "agent_data", "user_data"]);

export { REWARD_TYPES, tau2Schemas, type Tau2Action, type Tau2EvaluationCriteria, type Tau2Message, type Tau2RewardType, type Tau2Task } from "./task-schemas.ts";

/** A plain view of a lossless parse for zod; Python-valued subtrees stay value-model dicts. */
export function plainView(value: PyValue, key = ""): unknown {
  if (PYTHON_VALUED.has(key) && value instanceof Map) return value;
  if (value instanceof PyFloat) return value.value;
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map((item) => plainView(item));
  if (value instanceof Map) {
    const object: Record<string, unknown> = {};
    for (const [entryKey, item] of value) object[entryKey] = plainView(item, entryKey);
    return object;
  }
  return value;
}

function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) out += typeof part === "number" ? `[${part}]` : out ? `.${String(part)}` : String(part);
  return out || "(task)";
}

const rawTasks = new WeakMap<Tau2Task, PyDict>();

/** The task exactly as its file holds it (lossless: key order, ints vs floats), for results files. */
export function rawTau2Task(task: Tau2Task): PyDict | undefined {
  return rawTasks.get(task);
}

/** Validates one parsed task, the file's `index`-th; an error names the file, the task (by id when it has one) and the field. */
export function validateTau2Task(entry: PyValue, index: number, fileName: string): Tau2Task {
  const view = plainView(entry) as { id?: unknown };
  let task = tau2Quick.task(view) as Tau2Task | typeof UNSURE;
  if (task === UNSURE) {
    const result = tau2Schemas().task.safeParse(view);
    const label = typeof view?.id === "string" ? `task "${view.id}"` : `task ${index}`;
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new DataError(`${fileName}: ${label}: field ${fieldPath(issue.path)}: ${issue.message}`);
    }
    task = result.data;
  }
  rawTasks.set(task, entry as PyDict);
  return task;
}

/** Validates parsed tasks; an error names the file, the task (by id when it has one) and the field. */
export function validateTau2Tasks(parsed: PyValue, fileName: string): Tau2Task[] {
  if (!Array.isArray(parsed)) throw new DataError(`${fileName}: expected a JSON array of tasks at the top level`);
  const seen = new Set<string>();
  return parsed.map((entry, index) => {
    const task = validateTau2Task(entry, index, fileName);
    if (seen.has(task.id)) throw new DataError(`${fileName}: task "${task.id}": duplicate task id`);
    seen.add(task.id);
    return task;
  });
}

/** A τ² task file whose tasks are parsed and validated when asked for (a run validates the tasks it selected). */
export interface Tau2TaskFile {
  readonly path: string;
  /** SHA-256 (hex) of the file (a run's identity records it). */
  readonly sha256: string;
  /** Each entry's id, in file order (undefined: an entry that is not an object with a string id). */
  readonly ids: ReadonlyArray<string | undefined>;
  /** The tasks at these positions of the file, validated, in the order given. */
  tasks(positions: readonly number[]): Tau2Task[];
}

/**
 * Opens a τ² task file: the file is read and checked as JSON, and two entries with one id are an
 * error, but a task is parsed and validated only when {@link Tau2TaskFile.tasks} asks for it.
 */
export function openTau2TaskFile(path: string): Tau2TaskFile {
  const file = openJsonArrayFile(path, "expected a JSON array of tasks at the top level");
  const seen = new Set<string>();
  for (const id of file.ids) {
    if (id === undefined) continue;
    if (seen.has(id)) throw new DataError(`${path}: task "${id}": duplicate task id`);
    seen.add(id);
  }
  return {
    path,
    sha256: file.sha256,
    ids: file.ids,
    tasks: (positions) => file.elements(positions).map((entry, at) => validateTau2Task(entry, positions[at]!, path)),
  };
}

/** Reads and validates a τ² `tasks.json` (every task; see {@link openTau2TaskFile} for a selection). */
export function readTau2Tasks(path: string): Tau2Task[] {
  const file = openTau2TaskFile(path);
  return file.tasks(file.ids.map((_, index) => index));
}

/**
 * Reads a task directory as τ³ banking's `get_tasks` does: every `task_*.json` (one task object
 * each) in sorted file-name order; ids may have gaps. Other files (the stale `tasks.json` beside
 * the folder) are not read.
 */
export function readTau2TaskDirectory(directory: string): Tau2Task[] {
  let names: string[];
  try {
    names = readdirSync(directory).filter((name) => /^task_.*\.json$/.test(name));
  } catch (error) {
    throw new DataError(`cannot read the task folder ${directory}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
  names.sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
  const parsed = names.map((name) => readPythonJsonFile(join(directory, name)));
  return validateTau2Tasks(parsed, directory);
}

/** Reads `split_tasks.json` (split name → task ids); a missing file means no splits. */
export function readTau2Splits(path: string): Record<string, string[]> | null {
  if (!existsSync(path)) return null;
  const native = nativeSplits(path);
  if (native !== undefined) return native;
  const value: unknown = toJs(readPythonJsonFile(path));
  const quickSplits = tau2Quick.splits(value);
  if (quickSplits !== UNSURE) return quickSplits as Record<string, string[]>;
  const result = tau2Schemas().splits.safeParse(value);
  if (!result.success) throw new DataError(`${path}: field ${fieldPath(result.error.issues[0].path)}: ${result.error.issues[0].message}`);
  return result.data;
}

/**
 * A split file read by `JSON.parse` when that gives what the lossless read gives: an object of
 * string lists is the same plain object either way (strings, key order and repeated keys alike;
 * a `"__proto__"` key is not, so such a text takes the lossless read). Anything else (invalid
 * JSON, `NaN`, another shape) is undefined here and read losslessly, with the same error as
 * before. Why: telecom's split file is 356 KB of ids, and the lossless parser was ~2% of a whole
 * telecom run.
 */
function nativeSplits(path: string): Record<string, string[]> | undefined {
  let value: unknown;
  try {
    const text = readUtf8File(path);
    if (text.includes("__proto__")) return undefined;
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const quickSplits = tau2Quick.splits(value);
  return quickSplits === UNSURE ? undefined : (quickSplits as Record<string, string[]>);
}
