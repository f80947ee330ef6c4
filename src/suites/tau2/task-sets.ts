/**
 * Choosing the tasks of a τ² run as `tau2 run` does: a task set (the domain's `tasks.json`, or
 * telecom's `tasks_small.json` / `tasks_full.json`), filtered by split (`split_tasks.json`, default
 * `base`; the file's order is kept, not the split's), then by `--task-ids`, then the first
 * `--num-tasks`.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, DataError } from "../../errors/error-tree.ts";
import { duplicateTaskIdProblem } from "../../run/run-flags.ts";
import { type Tau2Task, openTau2TaskFile, readTau2Splits, readTau2TaskDirectory } from "./tasks.ts";

/** Task sets by name → data folder and file. */
const TASK_SET_FILES: Record<string, { folder: string; file: string; directory?: true }> = {
  mock: { folder: "mock", file: "tasks.json" },
  airline: { folder: "airline", file: "tasks.json" },
  retail: { folder: "retail", file: "tasks.json" },
  telecom: { folder: "telecom", file: "tasks.json" },
  telecom_full: { folder: "telecom", file: "tasks_full.json" },
  telecom_small: { folder: "telecom", file: "tasks_small.json" },
  /** τ³: one file per task under `tasks/` (`get_tasks`: sorted glob; the stale `tasks.json` is not read; no split file). */
  banking_knowledge: { folder: "banking_knowledge", file: "tasks", directory: true },
};

export const TAU2_TASK_SET_NAMES = Object.keys(TASK_SET_FILES);

export interface Tau2TaskSelection {
  taskSetName: string;
  /** null: no split applied (the task set has no split file). */
  split: string | null;
  taskIds?: readonly string[];
  numTasks?: number;
}

export interface Tau2TaskSet {
  tasks: Tau2Task[];
  /** Every task of the file, before filtering (results files record the run's tasks only); τ³: the task folder. */
  file: string;
  /** SHA-256 (hex) of that file, as read for this selection (a task folder: undefined; its files are hashed one by one). */
  fileSha256?: string;
  /** The files the tasks were read from (the file; τ³: every `task_*.json` of the folder), for a run's identity. */
  files: string[];
  splitApplied: string | null;
}

/** Selects the tasks; only the selected ones are parsed and validated (an invalid task elsewhere in the file is not read). */
export function loadTau2TaskSet(dataRoot: string, selection: Tau2TaskSelection): Tau2TaskSet {
  const { tasks, file, fileSha256, files, splitApplied } = selectTau2Tasks(dataRoot, selection);
  return { tasks: tasks(), file, ...(fileSha256 ? { fileSha256 } : {}), files, splitApplied };
}

/** A selection of a task set before any of its tasks is parsed: see {@link selectTau2Tasks}. */
export interface Tau2SelectedTasks extends Omit<Tau2TaskSet, "tasks"> {
  /** The selected entries' ids in run order (undefined: an entry with no string id, an error once parsed). */
  ids: ReadonlyArray<string | undefined>;
  /** Every selected task, parsed and validated (an error names the first invalid one, as {@link loadTau2TaskSet}'s). */
  tasks(): Tau2Task[];
  /** One selected task, parsed and validated when first asked for; undefined when the selection has no such id. */
  task(id: string): Tau2Task | undefined;
}

/**
 * The same selection as {@link loadTau2TaskSet} (same errors for a bad set, split or id list, or an
 * empty selection), its tasks parsed when asked for. Why: a worker process (`--workers`, `--queue`)
 * runs only some of a run's units and, once it knows the selection valid, parses only their tasks.
 */
export function selectTau2Tasks(dataRoot: string, selection: Tau2TaskSelection): Tau2SelectedTasks {
  const entry = TASK_SET_FILES[selection.taskSetName];
  if (!entry) throw new ConfigError(`Unknown task set "${selection.taskSetName}"; known: ${TAU2_TASK_SET_NAMES.join(", ")}`);
  const file = join(dataRoot, entry.folder, entry.file);
  if (!existsSync(file)) throw new DataError(`τ² task file not found: ${file} (run \`taubridge data pull tau2-bench\` or pass --data-dir)`);
  const source = entry.directory ? taskFolder(file) : taskFile(file);
  const ids = source.ids;
  let positions = ids.map((_, position) => position);
  let splitApplied: string | null = null;
  const splitFile = join(dataRoot, entry.folder, `split_${entry.file}`);
  const splits = selection.split !== null && !entry.directory && existsSync(splitFile) ? readTau2Splits(splitFile) : null;
  if (splits && selection.split !== null) {
    const splitIds = splits[selection.split];
    if (!splitIds) throw new ConfigError(`Invalid task split name "${selection.split}" for ${selection.taskSetName}; known: ${Object.keys(splits).join(", ")}`);
    const wanted = new Set(splitIds);
    positions = positions.filter((position) => wanted.has(ids[position] as string));
    splitApplied = selection.split;
  }
  if (selection.taskIds && selection.taskIds.length > 0) {
    const repeated = selection.taskIds.find((id, index) => selection.taskIds!.indexOf(id) !== index);
    if (repeated !== undefined) throw new ConfigError(`--task-ids: ${duplicateTaskIdProblem(repeated)}`);
    const known = new Set(positions.map((position) => ids[position]));
    const missing = selection.taskIds.filter((id) => !known.has(id));
    if (missing.length > 0) throw new ConfigError(`task ids not in ${selection.taskSetName}${splitApplied ? ` (split ${splitApplied})` : ""}: ${missing.join(", ")}`);
    const wanted = new Set(selection.taskIds);
    positions = positions.filter((position) => wanted.has(ids[position] as string));
  }
  if (selection.numTasks !== undefined) positions = positions.slice(0, selection.numTasks);
  if (positions.length === 0) {
    const where = splitApplied && ids.length > 0 ? `split ${splitApplied} of ${selection.taskSetName} (${splitFile})` : `${selection.taskSetName}'s task file ${file}`;
    throw new ConfigError(`no task selected: ${where} has no tasks`);
  }
  const chosen = positions;
  // Ids are unique in a task file (`openTau2TaskFile` refuses a repeated one) and in a task folder's tasks.
  const positionOf = new Map(chosen.flatMap((position) => (ids[position] === undefined ? [] : [[ids[position] as string, position] as const])));
  const parsed = new Map<string, Tau2Task>();
  return {
    ids: chosen.map((position) => ids[position]),
    tasks: () => source.tasks(chosen),
    task: (id) => {
      const position = positionOf.get(id);
      if (position === undefined) return undefined;
      let task = parsed.get(id);
      if (!task) {
        task = source.tasks([position])[0] as Tau2Task;
        parsed.set(id, task);
      }
      return task;
    },
    file,
    ...(source.sha256 ? { fileSha256: source.sha256 } : {}),
    files: source.files,
    splitApplied,
  };
}

/** Where a task set's tasks come from: their ids in order, the files read, and the tasks at positions (parsed on demand). */
interface TaskSource {
  readonly ids: ReadonlyArray<string | undefined>;
  readonly files: string[];
  /** The one file's SHA-256, when there is one file. */
  readonly sha256?: string;
  tasks(positions: number[]): Tau2Task[];
}

/** A `tasks.json`: only the selected tasks are parsed and validated. */
function taskFile(file: string): TaskSource {
  const opened = openTau2TaskFile(file);
  return { ids: opened.ids, files: [file], sha256: opened.sha256, tasks: (positions) => opened.tasks(positions) };
}

/** A τ³ task folder: every `task_*.json`, read and validated up front (97 small files). */
function taskFolder(folder: string): TaskSource {
  const tasks = readTau2TaskDirectory(folder);
  const files = readdirSync(folder)
    .filter((name) => /^task_.*\.json$/.test(name))
    .sort()
    .map((name) => join(folder, name));
  return { ids: tasks.map((task) => task.id), files, tasks: (positions) => positions.map((position) => tasks[position]) };
}
