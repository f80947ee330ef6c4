import { readFileSync } from "node:fs";
import { DataError } from "../../errors/error-tree.ts";
import type { Task } from "../../core/types.ts";
import { parseTaskFile, type TaskFileDomain } from "../../data/tau-bench-task-file.ts";

export { parseTaskFile, quickTaskFileEntry, taskFileEntrySchema, type TaskFileDomain } from "../../data/tau-bench-task-file.ts";

/** Reads and parses a task file from disk. */
export function loadTaskFile(path: string, domain?: TaskFileDomain): Task[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new DataError(`cannot read task file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
  return parseTaskFile(text, path, domain);
}

/**
 * Selects task indices the way τ-bench's run.py does: explicit ids win; otherwise
 * `range(start, end)` with `end = -1` meaning all and larger ends clamped.
 */
export function selectTaskIndices(taskCount: number, options: { taskIds?: readonly number[]; startIndex?: number; endIndex?: number }): number[] {
  if (options.taskIds && options.taskIds.length > 0) {
    for (const id of options.taskIds) {
      if (!Number.isInteger(id) || id < 0 || id >= taskCount) {
        throw new DataError(`task id ${id} is out of range: the split has ${taskCount} tasks (0-${taskCount - 1})`);
      }
    }
    return [...options.taskIds];
  }
  const start = options.startIndex ?? 0;
  const end = options.endIndex === undefined || options.endIndex === -1 ? taskCount : Math.min(options.endIndex, taskCount);
  const indices: number[] = [];
  for (let index = start; index < end; index++) indices.push(index);
  return indices;
}
