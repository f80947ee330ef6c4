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
  return { tasks: source.tasks(positions), file, ...(source.sha256 ? { fileSha256: source.sha256 } : {}), files: source.files, splitApplied };
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
