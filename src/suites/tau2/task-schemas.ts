/**
 * The shapes of τ²'s tasks, messages and split files, twice: as zod schemas (built on first use,
 * for the error a bad file gets: see `data/lazy-zod.ts`) and as quick checks that build the same
 * values for valid input without loading zod (`data/quick-shapes.ts`). The two must describe one
 * shape; `test/tau2/tau2-task-schemas.test.ts` compares them on every task of the shared data.
 */
import type * as Zod from "zod";
import { lazySchema } from "../../data/lazy-zod.ts";
import { type QuickCheck, quick } from "../../data/quick-shapes.ts";
import type { PyDict } from "../../value/index.ts";

export const REWARD_TYPES = ["DB", "ENV_ASSERTION", "NL_ASSERTION", "ACTION", "COMMUNICATE"] as const;
export type Tau2RewardType = (typeof REWARD_TYPES)[number];

const REQUESTORS = ["assistant", "user"] as const;

function buildSchemas(z: typeof Zod.z) {
  const pyDict = z.custom<PyDict>((value) => value instanceof Map, { message: "expected an object" });
  const optionalString = z.string().nullish();
  const requestor = z.enum(REQUESTORS);
  const toolCall = z.object({
    id: z.string().default(""),
    name: z.string(),
    arguments: pyDict,
    requestor: requestor.default("assistant"),
  });
  const messageCommon = { turn_idx: z.number().int().nullish(), timestamp: optionalString };
  /** An assistant or user message: text and/or tool calls, with the generating call's cost and usage. */
  const participantMessage = <Role extends "assistant" | "user">(role: Role) =>
    z
      .object({
        role: z.literal(role),
        content: optionalString,
        tool_calls: z.array(toolCall).nullish(),
        cost: z.number().nullish(),
        usage: z.record(z.string(), z.unknown()).nullish(),
        raw_data: z.unknown().optional(),
        ...messageCommon,
      })
      .passthrough();
  const message = z.discriminatedUnion("role", [
    z.object({ role: z.literal("system"), content: optionalString, ...messageCommon }).passthrough(),
    participantMessage("assistant"),
    participantMessage("user"),
    z.object({ role: z.literal("tool"), id: z.string(), content: optionalString, requestor: requestor.default("assistant"), error: z.boolean().default(false), ...messageCommon }).passthrough(),
  ]);
  const envFunctionCall = { env_type: requestor, func_name: z.string(), arguments: pyDict };
  const envCall = z.object(envFunctionCall);
  const envAssertion = z.object({ ...envFunctionCall, assert_value: z.boolean().default(true), message: optionalString });
  const action = z.object({
    action_id: z.string(),
    requestor: requestor.default("assistant"),
    name: z.string(),
    arguments: pyDict,
    info: optionalString,
    compare_args: z.array(z.string()).nullish(),
  });
  const criteria = z.object({
    actions: z.array(action).nullish(),
    env_assertions: z.array(envAssertion).nullish(),
    communicate_info: z.array(z.string()).nullish(),
    nl_assertions: z.array(z.string()).nullish(),
    reward_basis: z.array(z.enum(REWARD_TYPES)).default(["DB", "COMMUNICATE"]),
  });
  const structuredInstructions = z.object({
    domain: z.string(),
    reason_for_call: z.string(),
    known_info: optionalString,
    unknown_info: optionalString,
    task_instructions: z.string(),
  });
  const task = z.object({
    id: z.string(),
    description: z.record(z.string(), z.unknown()).nullish(),
    user_scenario: z.object({ persona: optionalString, instructions: z.union([z.string(), structuredInstructions]) }),
    ticket: optionalString,
    initial_state: z
      .object({
        initialization_data: z.object({ agent_data: pyDict.nullish(), user_data: pyDict.nullish() }).nullish(),
        initialization_actions: z.array(envCall).nullish(),
        message_history: z.array(message).nullish(),
      })
      .nullish(),
    evaluation_criteria: criteria.nullish(),
    issues: z.array(z.unknown()).nullish(),
    required_documents: z.array(z.string()).nullish(),
    user_tools: z.array(z.string()).nullish(),
  });
  const splits = z.record(z.string(), z.array(z.string()));
  return { toolCall, message, envCall, envAssertion, action, criteria, task, splits };
}

/** The zod schemas (zod is loaded on the first call). */
export const tau2Schemas = lazySchema(buildSchemas);

type Schemas = ReturnType<typeof buildSchemas>;
export type Tau2Task = Zod.infer<Schemas["task"]>;
export type Tau2Action = Zod.infer<Schemas["action"]>;
export type Tau2Message = Zod.infer<Schemas["message"]>;
export type Tau2EvaluationCriteria = Zod.infer<Schemas["criteria"]>;

// ─── The same shapes as quick checks ────────────────────────────────────────────────────────────

const q = quick;
const pyDictCheck = q.custom((value) => value instanceof Map);
const optionalString = q.nullish(q.string());
const requestor = q.oneOf(...REQUESTORS);
const toolCall = q.object({ id: q.withDefault(q.string(), () => ""), name: q.string(), arguments: pyDictCheck, requestor: q.withDefault(requestor, () => "assistant") });
const messageCommon = { turn_idx: q.nullish(q.number({ int: true })), timestamp: optionalString };
const participantMessage = (role: string): QuickCheck =>
  q.object(
    {
      role: q.oneOf(role),
      content: optionalString,
      tool_calls: q.nullish(q.array(toolCall)),
      cost: q.nullish(q.number()),
      usage: q.nullish(q.record()),
      raw_data: q.optional(q.unknown()),
      ...messageCommon,
    },
    { passthrough: true },
  );
const message = q.byKey("role", {
  system: q.object({ role: q.oneOf("system"), content: optionalString, ...messageCommon }, { passthrough: true }),
  assistant: participantMessage("assistant"),
  user: participantMessage("user"),
  tool: q.object(
    { role: q.oneOf("tool"), id: q.string(), content: optionalString, requestor: q.withDefault(requestor, () => "assistant"), error: q.withDefault(q.boolean(), () => false), ...messageCommon },
    { passthrough: true },
  ),
});
const envFunctionCall = { env_type: requestor, func_name: q.string(), arguments: pyDictCheck };
const envAssertion = q.object({ ...envFunctionCall, assert_value: q.withDefault(q.boolean(), () => true), message: optionalString });
const action = q.object({
  action_id: q.string(),
  requestor: q.withDefault(requestor, () => "assistant"),
  name: q.string(),
  arguments: pyDictCheck,
  info: optionalString,
  compare_args: q.nullish(q.array(q.string())),
});
const criteria = q.object({
  actions: q.nullish(q.array(action)),
  env_assertions: q.nullish(q.array(envAssertion)),
  communicate_info: q.nullish(q.array(q.string())),
  nl_assertions: q.nullish(q.array(q.string())),
  reward_basis: q.withDefault(q.array(q.oneOf(...REWARD_TYPES)), () => ["DB", "COMMUNICATE"]),
});
const structuredInstructions = q.object({ domain: q.string(), reason_for_call: q.string(), known_info: optionalString, unknown_info: optionalString, task_instructions: q.string() });

/** Quick checks of a task (on its plain view) and of a split file's content; see `data/quick-shapes.ts`. */
export const tau2Quick = {
  task: q.object({
    id: q.string(),
    description: q.nullish(q.record()),
    user_scenario: q.object({ persona: optionalString, instructions: q.union(q.string(), structuredInstructions) }),
    ticket: optionalString,
    initial_state: q.nullish(
      q.object({
        initialization_data: q.nullish(q.object({ agent_data: q.nullish(pyDictCheck), user_data: q.nullish(pyDictCheck) })),
        initialization_actions: q.nullish(q.array(q.object(envFunctionCall))),
        message_history: q.nullish(q.array(message)),
      }),
    ),
    evaluation_criteria: q.nullish(criteria),
    issues: q.nullish(q.array(q.unknown())),
    required_documents: q.nullish(q.array(q.string())),
    user_tools: q.nullish(q.array(q.string())),
  }),
  message,
  splits: q.record(q.array(q.string())),
};
