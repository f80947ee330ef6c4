/**
 * Choosing the tasks of a τ² run as `tau2 run` does: a task set (the domain's `tasks.json`, or
 * telecom's `tasks_small.json` / `tasks_full.json`), filtered by split (`split_tasks.json`, default
 * `base`; the file's order is kept, not the split's), then by `--task-ids`, then the first
 * `--num-tasks`.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, DataError } from "../../errors/error-tree.ts";
import { type Tau2Task, readTau2Splits, readTau2TaskDirectory, readTau2Tasks } from "./tasks.ts";

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
  /** The files the tasks were read from (the file; τ³: every `task_*.json` of the folder), for a run's identity. */
  files?: string[];
  splitApplied: string | null;
}

export function loadTau2TaskSet(dataRoot: string, selection: Tau2TaskSelection): Tau2TaskSet {
  const entry = TASK_SET_FILES[selection.taskSetName];
  if (!entry) throw new ConfigError(`Unknown task set "${selection.taskSetName}"; known: ${TAU2_TASK_SET_NAMES.join(", ")}`);
  const file = join(dataRoot, entry.folder, entry.file);
  if (!existsSync(file)) throw new DataError(`τ² task file not found: ${file} (run \`taubridge data pull tau2-bench\` or pass --data-dir)`);
  let tasks = entry.directory ? readTau2TaskDirectory(file) : readTau2Tasks(file);
  let splitApplied: string | null = null;
  const splitFile = join(dataRoot, entry.folder, `split_${entry.file}`);
  const splits = selection.split !== null && !entry.directory && existsSync(splitFile) ? readTau2Splits(splitFile) : null;
  if (splits && selection.split !== null) {
    const ids = splits[selection.split];
    if (!ids) throw new ConfigError(`Invalid task split name "${selection.split}" for ${selection.taskSetName}; known: ${Object.keys(splits).join(", ")}`);
    const wanted = new Set(ids);
    tasks = tasks.filter((task) => wanted.has(task.id));
    splitApplied = selection.split;
  }
  if (selection.taskIds && selection.taskIds.length > 0) {
    const known = new Set(tasks.map((task) => task.id));
    const missing = selection.taskIds.filter((id) => !known.has(id));
    if (missing.length > 0) throw new ConfigError(`task ids not in ${selection.taskSetName}${splitApplied ? ` (split ${splitApplied})` : ""}: ${missing.join(", ")}`);
    const wanted = new Set(selection.taskIds);
    tasks = tasks.filter((task) => wanted.has(task.id));
  }
  if (selection.numTasks !== undefined) tasks = tasks.slice(0, selection.numTasks);
  const files = entry.directory
    ? readdirSync(file)
        .filter((name) => /^task_.*\.json$/.test(name))
        .sort()
        .map((name) => join(file, name))
    : [file];
  return { tasks, file, files, splitApplied };
}
