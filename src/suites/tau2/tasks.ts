/**
 * τ²-bench's task data model (τ²: src/tau2/data_model/tasks.py, Task; message_history messages:
 * src/tau2/data_model/message.py): tasks, their initial state and evaluation criteria, the messages
 * of a `message_history`, and `split_tasks.json` (each domain's environment.py, get_tasks_split).
 *
 * Files are read with the lossless reader, so every number keeps its Python type: a tool-call
 * argument `2.0` stays a float (telecom's `refuel_data` echoes `2.0 GB`), and initialization data
 * keeps its key order. The structure is validated with zod on a plain view of that parse, in which
 * the Python-valued parts (`arguments`, `agent_data`, `user_data`) stay value-model dicts. A
 * validation error names the file, the task id and the field.
 */
import { existsSync } from "node:fs";
import { z } from "zod";
import { DataError } from "../../errors/error-tree.ts";
import { readPythonJsonFile } from "../../data/data-files.ts";
import { PyFloat, toJs, type PyDict, type PyValue } from "../../value/index.ts";

/** Keys whose values stay value-model dicts (Python values the tools consume). */
const PYTHON_VALUED = new Set(["arguments", "agent_data", "user_data"]);

const pyDict = z.custom<PyDict>((value) => value instanceof Map, { message: "expected an object" });
const optionalString = z.string().nullish();
const requestor = z.enum(["assistant", "user"]);

export const tau2ToolCallSchema = z.object({
  id: z.string().default(""),
  name: z.string(),
  arguments: pyDict,
  requestor: requestor.default("assistant"),
});

const messageCommon = { turn_idx: z.number().int().nullish(), timestamp: optionalString };

/** An assistant or user message: text and/or tool calls, with the generating call's cost and usage. */
function participantMessageSchema<Role extends "assistant" | "user">(role: Role) {
  return z
    .object({
      role: z.literal(role),
      content: optionalString,
      tool_calls: z.array(tau2ToolCallSchema).nullish(),
      cost: z.number().nullish(),
      usage: z.record(z.string(), z.unknown()).nullish(),
      raw_data: z.unknown().optional(),
      ...messageCommon,
    })
    .passthrough();
}

export const tau2MessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: optionalString, ...messageCommon }).passthrough(),
  participantMessageSchema("assistant"),
  participantMessageSchema("user"),
  z.object({ role: z.literal("tool"), id: z.string(), content: optionalString, requestor: requestor.default("assistant"), error: z.boolean().default(false), ...messageCommon }).passthrough(),
]);

const envFunctionCall = { env_type: requestor, func_name: z.string(), arguments: pyDict };

export const tau2EnvFunctionCallSchema = z.object(envFunctionCall);
export const tau2EnvAssertionSchema = z.object({ ...envFunctionCall, assert_value: z.boolean().default(true), message: optionalString });

export const tau2ActionSchema = z.object({
  action_id: z.string(),
  requestor: requestor.default("assistant"),
  name: z.string(),
  arguments: pyDict,
  info: optionalString,
  compare_args: z.array(z.string()).nullish(),
});

export const REWARD_TYPES = ["DB", "ENV_ASSERTION", "NL_ASSERTION", "ACTION", "COMMUNICATE"] as const;
export type Tau2RewardType = (typeof REWARD_TYPES)[number];

export const tau2EvaluationCriteriaSchema = z.object({
  actions: z.array(tau2ActionSchema).nullish(),
  env_assertions: z.array(tau2EnvAssertionSchema).nullish(),
  communicate_info: z.array(z.string()).nullish(),
  nl_assertions: z.array(z.string()).nullish(),
  reward_basis: z.array(z.enum(REWARD_TYPES)).default(["DB", "COMMUNICATE"]),
});

export const tau2StructuredInstructionsSchema = z.object({
  domain: z.string(),
  reason_for_call: z.string(),
  known_info: optionalString,
  unknown_info: optionalString,
  task_instructions: z.string(),
});

export const tau2TaskSchema = z.object({
  id: z.string(),
  description: z.record(z.string(), z.unknown()).nullish(),
  user_scenario: z.object({ persona: optionalString, instructions: z.union([z.string(), tau2StructuredInstructionsSchema]) }),
  ticket: optionalString,
  initial_state: z
    .object({
      initialization_data: z.object({ agent_data: pyDict.nullish(), user_data: pyDict.nullish() }).nullish(),
      initialization_actions: z.array(tau2EnvFunctionCallSchema).nullish(),
      message_history: z.array(tau2MessageSchema).nullish(),
    })
    .nullish(),
  evaluation_criteria: tau2EvaluationCriteriaSchema.nullish(),
  issues: z.array(z.unknown()).nullish(),
  required_documents: z.array(z.string()).nullish(),
  user_tools: z.array(z.string()).nullish(),
});

export type Tau2Task = z.infer<typeof tau2TaskSchema>;
export type Tau2Action = z.infer<typeof tau2ActionSchema>;
export type Tau2Message = z.infer<typeof tau2MessageSchema>;
export type Tau2EvaluationCriteria = z.infer<typeof tau2EvaluationCriteriaSchema>;

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

/** Validates parsed tasks; an error names the file, the task (by id when it has one) and the field. */
export function validateTau2Tasks(parsed: PyValue, fileName: string): Tau2Task[] {
  if (!Array.isArray(parsed)) throw new DataError(`${fileName}: expected a JSON array of tasks at the top level`);
  const seen = new Set<string>();
  return parsed.map((entry, index) => {
    const view = plainView(entry) as { id?: unknown };
    const result = tau2TaskSchema.safeParse(view);
    const label = typeof view?.id === "string" ? `task "${view.id}"` : `task ${index}`;
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new DataError(`${fileName}: ${label}: field ${fieldPath(issue.path)}: ${issue.message}`);
    }
    if (seen.has(result.data.id)) throw new DataError(`${fileName}: ${label}: duplicate task id`);
    seen.add(result.data.id);
    rawTasks.set(result.data, entry as PyDict);
    return result.data;
  });
}

/** Reads and validates a τ² `tasks.json`. */
export function readTau2Tasks(path: string): Tau2Task[] {
  return validateTau2Tasks(readPythonJsonFile(path), path);
}

const splitsSchema = z.record(z.string(), z.array(z.string()));

/** Reads `split_tasks.json` (split name → task ids); a missing file means no splits. */
export function readTau2Splits(path: string): Record<string, string[]> | null {
  if (!existsSync(path)) return null;
  const result = splitsSchema.safeParse(toJs(readPythonJsonFile(path)));
  if (!result.success) throw new DataError(`${path}: field ${fieldPath(result.error.issues[0].path)}: ${result.error.issues[0].message}`);
  return result.data;
}
