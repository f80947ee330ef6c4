/**
 * Deterministic request routing (no LLM): the first user message of a request is read, in order, as
 *
 * 1. a data part `{"tool": "<skill>", "arguments": {…}}` (`skill` for `tool` and `params` for
 *    `arguments` are accepted too);
 * 2. a text part holding the same as JSON, or `{"tool_call": {"name", "arguments"}}`;
 * 3. the AgentBeats assessment request `{"participants": {"agent": "<url>"}, "config": {…}}`, as a
 *    data part or JSON text → `run_evaluation`.
 *
 * Anything else is refused with the accepted forms. Arguments are checked with zod (every field
 * error listed), and credentials are never accepted inside a message: the SDK keeps the request in
 * the task's history, where `GetTask` would show it.
 */
import { z } from "zod";
import { isSecretName } from "../../secrets/redact.ts";

export const SKILL_NAMES = ["run_evaluation", "list_domains", "get_evaluation_results"] as const;
export type SkillName = (typeof SKILL_NAMES)[number];

const taskId = z.union([z.string().min(1), z.number().int().nonnegative()]);

/** `run_evaluation`'s arguments (the AgentBeats `config` keys, plus the agent's URL). */
export const runEvaluationSchema = z.strictObject({
  agent_url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
  suite: z.enum(["tau2", "tau-bench"]).optional(),
  domain: z.string().min(1),
  task_split: z.string().min(1).optional(),
  task_set_name: z.string().min(1).optional(),
  task_ids: z.array(taskId).min(1).optional(),
  num_tasks: z.number().int().positive().optional(),
  num_trials: z.number().int().min(1).max(100).optional(),
  max_steps: z.number().int().positive().optional(),
  max_errors: z.number().int().positive().optional(),
  /** A litellm-style name (`openai/gpt-4.1`); its endpoint in `user_llm_args.api_base`. */
  user_llm: z.string().min(1).optional(),
  user_llm_args: z.record(z.string(), z.unknown()).optional(),
  /** The user simulator: τ²'s `user_simulator` (default) or `scripted`; τ-bench's `llm` (with user_llm, default), `scripted`, `react`, … */
  user: z.string().min(1).optional(),
  seed: z.number().int().optional(),
  max_concurrency: z.number().int().positive().optional(),
  /** How to talk to the agent under test. */
  a2a: z
    .strictObject({
      profile: z.enum(["agentbeats", "agentbeats-tutorial", "agentify", "wutims"]).optional(),
      version: z.enum(["auto", "0.3", "1.0"]).optional(),
      mode: z.enum(["send", "poll", "stream"]).optional(),
      timeout_s: z.number().positive().max(3600).optional(),
      rpc_url: z.url({ protocol: /^https?$/ }).optional(),
    })
    .optional(),
  /** A credential the server holds for the agent (`TAUBRIDGE_A2A_CREDENTIAL_<NAME>`), never the credential itself. */
  agent_credential: z
    .string()
    .regex(/^[A-Za-z0-9_]+$/, "must be a credential NAME (letters, digits, _)")
    .optional(),
});
export type RunEvaluationArguments = z.infer<typeof runEvaluationSchema>;

export const getResultsSchema = z.union([
  z.strictObject({
    evaluation_id: z.string().min(1),
    include_simulations: z.boolean().optional(),
    offset: z.number().int().nonnegative().optional(),
    limit: z.number().int().positive().max(1000).optional(),
  }),
  z.strictObject({ list: z.literal(true) }),
]);
export type GetResultsArguments = z.infer<typeof getResultsSchema>;

export type SkillCall =
  | { skill: "run_evaluation"; arguments: RunEvaluationArguments }
  | { skill: "list_domains"; arguments: Record<string, never> }
  | { skill: "get_evaluation_results"; arguments: GetResultsArguments };

/** A request the server cannot route or whose arguments are wrong: the reason, and what is accepted. */
export interface Refusal {
  refused: string;
  /** Field errors (`config.num_trials: must be ≥ 1`), when the arguments were the problem. */
  errors?: string[];
}

/** The accepted request forms, for refusals. */
export const ACCEPTED_FORMS = [
  '{"tool": "run_evaluation" | "list_domains" | "get_evaluation_results", "arguments": {…}} as a data part or JSON text',
  '{"tool_call": {"name": "<skill>", "arguments": {…}}} as JSON text',
  '{"participants": {"agent": "<agent URL>"}, "config": {"domain": …, "task_ids"?, "num_tasks"?, "num_trials"?, "max_steps"?, "user_llm"?, "user_llm_args"?, "suite"?}} (AgentBeats)',
];

/** One part of a request, as the routing reads it (text or data). */
export type RequestPart = { text: string } | { data: unknown };

function parsedText(text: string): unknown {
  try {
    return JSON.parse(text.trim());
  } catch {
    return undefined;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The secret-named keys anywhere in a value (`user_llm_args.api_key`). */
function secretKeys(value: unknown, path: string, found: string[]): string[] {
  if (Array.isArray(value)) value.forEach((item, index) => secretKeys(item, `${path}[${index}]`, found));
  else if (isRecord(value))
    for (const [key, item] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (isSecretName(key) && key !== "agent_credential") found.push(at);
      else secretKeys(item, at, found);
    }
  return found;
}

function fieldErrors(error: z.ZodError, prefix: string): string[] {
  return error.issues.map((issue) => `${[prefix, ...issue.path.map(String)].filter(Boolean).join(".") || "(arguments)"}: ${issue.message}`);
}

/** A skill and raw arguments from one candidate object, or undefined when it is not a request form. */
function candidate(value: unknown): { skill: string; arguments: unknown; prefix: string } | undefined {
  if (!isRecord(value)) return undefined;
  const tool = value.tool ?? value.skill;
  if (typeof tool === "string") return { skill: tool, arguments: value.arguments ?? value.params ?? {}, prefix: "arguments" };
  if (isRecord(value.tool_call) && typeof value.tool_call.name === "string") return { skill: value.tool_call.name, arguments: value.tool_call.arguments ?? {}, prefix: "tool_call.arguments" };
  if (isRecord(value.participants) && "config" in value) {
    const config = isRecord(value.config) ? value.config : {};
    const agent = value.participants.agent;
    return { skill: "run_evaluation", arguments: { ...config, ...(agent !== undefined ? { agent_url: agent } : {}) }, prefix: "config" };
  }
  return undefined;
}

/** Routes a request's parts to a skill with checked arguments, or refuses it saying why. */
export function routeRequest(parts: readonly RequestPart[]): SkillCall | Refusal {
  const candidates = [
    ...parts.filter((part) => "data" in part).map((part) => (part as { data: unknown }).data),
    ...parts.filter((part) => "text" in part).map((part) => parsedText((part as { text: string }).text)),
  ];
  const found = candidates.map(candidate).find((item) => item !== undefined);
  if (!found) return { refused: "the request is not one this server understands (it routes by content, with no model)" };
  const secrets = secretKeys(found.arguments, found.prefix, []);
  if (secrets.length > 0)
    return {
      refused: `credentials are never accepted inside messages (they would be stored in the task's history): remove ${secrets.join(", ")}; the server reads keys from its own environment, and agent_credential names one it holds`,
    };
  if (!(SKILL_NAMES as readonly string[]).includes(found.skill)) return { refused: `unknown skill "${found.skill}"; known: ${SKILL_NAMES.join(", ")}` };
  if (found.skill === "list_domains") return { skill: "list_domains", arguments: {} };
  if (found.skill === "get_evaluation_results") {
    const checked = getResultsSchema.safeParse(found.arguments);
    return checked.success
      ? { skill: "get_evaluation_results", arguments: checked.data }
      : { refused: "invalid arguments for get_evaluation_results", errors: fieldErrors(checked.error, found.prefix) };
  }
  const checked = runEvaluationSchema.safeParse(found.arguments);
  if (!checked.success)
    return { refused: "invalid arguments for run_evaluation", errors: fieldErrors(checked.error, found.prefix).map((line) => line.replace(/^config\.agent_url/, "participants.agent")) };
  return { skill: "run_evaluation", arguments: checked.data };
}
