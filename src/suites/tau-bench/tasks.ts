import { readFileSync } from "node:fs";
import { z } from "zod";
import { DataError } from "../../core/errors.ts";
import type { Action, Task } from "../../core/types.ts";
import { parsePythonJsonText } from "../../data/data-files.ts";
import { toJs, type PyDict, type PyValue } from "../../value/index.ts";

/** The shape of one τ-bench task in a task file (validated on a plain-JS view of the lossless parse). */
export const taskFileEntrySchema = z.object({
  user_id: z.string(),
  actions: z.array(
    z.object({
      name: z.string().min(1),
      kwargs: z.record(z.string(), z.unknown()),
    }),
  ),
  instruction: z.string(),
  outputs: z.array(z.string()),
  annotator: z.string().optional(),
});

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || "(task)";
}

/** What a task file is checked against: the domain whose tasks it holds. */
export interface TaskFileDomain {
  name: string;
  /** Every action name a ground-truth action may use (the domain's tools, plus `respond`). */
  actionNames: ReadonlySet<string>;
}

/**
 * Parses a τ-bench task file (a JSON array of tasks). Numbers keep their Python type, so a float
 * kwarg like `100.0` stays a float in the database it is written to. Errors name the file, the
 * task index and the field; with a domain, a ground-truth action whose tool the domain does not
 * have is an error too (it would otherwise observe `Unknown action` and still score).
 */
export function parseTaskFile(text: string, fileName: string, domain?: TaskFileDomain): Task[] {
  const parsed = parsePythonJsonText(text, fileName);
  if (!Array.isArray(parsed)) throw new DataError(`${fileName}: expected a JSON array of tasks at the top level`);
  return parsed.map((entry, index) => {
    const result = taskFileEntrySchema.safeParse(toJs(entry));
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new DataError(`${fileName}: task ${index}: field ${formatPath(issue.path)}: ${issue.message}`);
    }
    if (domain) {
      result.data.actions.forEach((action, position) => {
        if (!domain.actionNames.has(action.name)) {
          throw new DataError(`${fileName}: task ${index}: field actions[${position}].name: "${action.name}" is not a tool of ${domain.name} (known: ${[...domain.actionNames].join(", ")})`);
        }
      });
    }
    const record = entry as PyDict;
    const actions = (record.get("actions") as PyValue[]).map((action): Action => ({ name: (action as PyDict).get("name") as string, kwargs: (action as PyDict).get("kwargs") as PyDict }));
    const task: Task = {
      user_id: result.data.user_id,
      actions,
      instruction: result.data.instruction,
      outputs: result.data.outputs,
    };
    if (result.data.annotator !== undefined) task.annotator = result.data.annotator;
    return task;
  });
}

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
