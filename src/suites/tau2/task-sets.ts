/**
 * Choosing the tasks of a τ² run as `tau2 run` does: a task set (the domain's `tasks.json`, or
 * telecom's `tasks_small.json` / `tasks_full.json`), filtered by split (`split_tasks.json`, default
 * `base`; the file's order is kept, not the split's), then by `--task-ids`, then the first
 * `--num-tasks`.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, DataError } from "../../errors/error-tree.ts";
import { type Tau2Task, openTau2TaskFile, readTau2Splits } from "./tasks.ts";

/** Task sets by name → data folder and file. */
const TASK_SET_FILES: Record<string, { folder: string; file: string }> = {
  mock: { folder: "mock", file: "tasks.json" },
  airline: { folder: "airline", file: "tasks.json" },
  retail: { folder: "retail", file: "tasks.json" },
  telecom: { folder: "telecom", file: "tasks.json" },
  telecom_full: { folder: "telecom", file: "tasks_full.json" },
  telecom_small: { folder: "telecom", file: "tasks_small.json" },
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
  /** Every task of the file, before filtering (results files record the run's tasks only). */
  file: string;
  /** SHA-256 (hex) of that file, as read for this selection. */
  fileSha256: string;
  splitApplied: string | null;
}

/** Selects the tasks; only the selected ones are parsed and validated (an invalid task elsewhere in the file is not read). */
export function loadTau2TaskSet(dataRoot: string, selection: Tau2TaskSelection): Tau2TaskSet {
  const entry = TASK_SET_FILES[selection.taskSetName];
  if (!entry) throw new ConfigError(`Unknown task set "${selection.taskSetName}"; known: ${TAU2_TASK_SET_NAMES.join(", ")}`);
  const file = join(dataRoot, entry.folder, entry.file);
  if (!existsSync(file)) throw new DataError(`τ² task file not found: ${file} (run \`taubridge data pull tau2-bench\` or pass --data-dir)`);
  const taskFile = openTau2TaskFile(file);
  const ids = taskFile.ids;
  let positions = ids.map((_, position) => position);
  let splitApplied: string | null = null;
  const splitFile = join(dataRoot, entry.folder, `split_${entry.file}`);
  const splits = selection.split !== null && existsSync(splitFile) ? readTau2Splits(splitFile) : null;
  if (splits && selection.split !== null) {
    const splitIds = splits[selection.split];
    if (!splitIds) throw new ConfigError(`Invalid task split name "${selection.split}" for ${selection.taskSetName}; known: ${Object.keys(splits).join(", ")}`);
    const wanted = new Set(splitIds);
    positions = positions.filter((position) => wanted.has(ids[position] as string));
    splitApplied = selection.split;
  }
  if (selection.taskIds && selection.taskIds.length > 0) {
    const known = new Set(positions.map((position) => ids[position]));
    const missing = selection.taskIds.filter((id) => !known.has(id));
    if (missing.length > 0) throw new ConfigError(`task ids not in ${selection.taskSetName}${splitApplied ? ` (split ${splitApplied})` : ""}: ${missing.join(", ")}`);
    const wanted = new Set(selection.taskIds);
    positions = positions.filter((position) => wanted.has(ids[position] as string));
  }
  if (selection.numTasks !== undefined) positions = positions.slice(0, selection.numTasks);
  return { tasks: taskFile.tasks(positions), file, fileSha256: taskFile.sha256, splitApplied };
}
