/**
 * τ-bench's task file format (a JSON array of tasks: `user_id`, `actions`, `instruction`,
 * `outputs`): what `data pull` checks a converted task module against, and what τ-bench's suite
 * loads its tasks with.
 */
import { DataError } from "../errors/error-tree.ts";
import type { Action, Task } from "../core/types.ts";
import { parsePythonJsonText } from "./data-files.ts";
import { lazySchema } from "./lazy-zod.ts";
import { UNSURE, quick } from "./quick-shapes.ts";
import { toJs, type PyDict, type PyValue } from "../value/index.ts";

/** The shape of one τ-bench task in a task file (validated on a plain-JS view of the lossless parse); zod is loaded only to word an error. */
export const taskFileEntrySchema = lazySchema((z) =>
  z.object({
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
  }),
);

/** The same shape as a quick check (see `quick-shapes.ts`). */
export const quickTaskFileEntry = quick.object({
  user_id: quick.string(),
  actions: quick.array(quick.object({ name: quick.string(1), kwargs: quick.record() })),
  instruction: quick.string(),
  outputs: quick.array(quick.string()),
  annotator: quick.optional(quick.string()),
});

type TaskFileEntry = { user_id: string; actions: Array<{ name: string; kwargs: Record<string, unknown> }>; instruction: string; outputs: string[]; annotator?: string };

/** A task entry's plain view, validated: by the quick check, else by zod (a DataError naming the field). */
function taskFileEntry(view: unknown, fileName: string, index: number): TaskFileEntry {
  const checked = quickTaskFileEntry(view);
  if (checked !== UNSURE) return checked as TaskFileEntry;
  const result = taskFileEntrySchema().safeParse(view);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new DataError(`${fileName}: task ${index}: field ${formatPath(issue.path)}: ${issue.message}`);
  }
  return result.data;
}

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
    const checked = taskFileEntry(toJs(entry), fileName, index);
    if (domain) {
      checked.actions.forEach((action, position) => {
        if (!domain.actionNames.has(action.name)) {
          throw new DataError(`${fileName}: task ${index}: field actions[${position}].name: "${action.name}" is not a tool of ${domain.name} (known: ${[...domain.actionNames].join(", ")})`);
        }
      });
    }
    const record = entry as PyDict;
    const actions = (record.get("actions") as PyValue[]).map((action): Action => ({ name: (action as PyDict).get("name") as string, kwargs: (action as PyDict).get("kwargs") as PyDict }));
    const task: Task = {
      user_id: checked.user_id,
      actions,
      instruction: checked.instruction,
      outputs: checked.outputs,
    };
    if (checked.annotator !== undefined) task.annotator = checked.annotator;
    return task;
  });
}
