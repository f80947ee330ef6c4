import { ConfigError, DataError } from "../../errors/error-tree.ts";
import { duplicateTaskIdProblem } from "../../run/run-flags.ts";
import type { Task } from "../../core/types.ts";
import { readUtf8File } from "../../data/data-files.ts";
import { parseTaskFile, type TaskFileDomain } from "../../data/tau-bench-task-file.ts";

export { parseTaskFile, quickTaskFileEntry, taskFileEntrySchema, type TaskFileDomain } from "../../data/tau-bench-task-file.ts";

/** Reads and parses a task file from disk. */
export function loadTaskFile(path: string, domain?: TaskFileDomain): Task[] {
  return parseTaskFile(readUtf8File(path, "task file"), path, domain);
}

/**
 * Selects task indices the way τ-bench's run.py does: explicit ids win; otherwise
 * `range(start, end)` with `end = -1` meaning all and larger ends clamped. An id given twice is
 * refused (run.py would run it twice as one trial and count it twice in pass^k), as is an
 * empty selection: `source` ("the test split", "task file x.json") names where the tasks came from.
 */
export function selectTaskIndices(taskCount: number, options: { taskIds?: readonly number[]; startIndex?: number; endIndex?: number }, source = "the split"): number[] {
  if (taskCount === 0) throw new ConfigError(`no task selected: ${source} has no tasks`);
  if (options.taskIds && options.taskIds.length > 0) {
    const seen = new Set<number>();
    for (const id of options.taskIds) {
      if (!Number.isInteger(id) || id < 0 || id >= taskCount) {
        throw new DataError(`task id ${id} is out of range: ${source} has ${taskCount} task${taskCount === 1 ? "" : "s"} (0-${taskCount - 1})`);
      }
      if (seen.has(id)) throw new ConfigError(`--task-ids: ${duplicateTaskIdProblem(id)}`);
      seen.add(id);
    }
    return [...options.taskIds];
  }
  const start = options.startIndex ?? 0;
  const end = options.endIndex === undefined || options.endIndex === -1 ? taskCount : Math.min(options.endIndex, taskCount);
  const indices: number[] = [];
  for (let index = start; index < end; index++) indices.push(index);
  if (indices.length === 0) throw new ConfigError(`no task selected: --start-index ${start} --end-index ${options.endIndex ?? -1} selects none of the ${taskCount} tasks of ${source}`);
  return indices;
}
