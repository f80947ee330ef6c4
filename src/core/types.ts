/**
 * Core types shared by the suites' engines and loops, the episode kernel, the run layer, agents,
 * user simulators, bridge and adapters.
 * This module imports no framework: every adapter converts into these shapes.
 */
import type { PyDict, PyValue } from "../value/index.ts";

/** τ-bench's respond action: the agent says `kwargs.content` to the user. */
export const RESPOND_ACTION_NAME = "respond";
export const RESPOND_ACTION_FIELD_NAME = "content";
/** The user simulator's stop token; matched as a substring, as in the original. */
export const STOP_TOKEN = "###STOP###";

/**
 * One benchmark action. `kwargs` are Python-faithful values because the tools store them in the
 * database that gets hashed (`100.0` must stay a float).
 */
export interface Action {
  name: string;
  kwargs: PyDict;
}

/** A τ-bench task (the array index in its file is the task id). */
export interface Task {
  user_id: string;
  actions: Action[];
  instruction: string;
  outputs: string[];
  /** Present in the task files; the original pydantic model drops it, so results never show it. */
  annotator?: string;
}

/** τ-bench `RewardResult` info when graded on the database hash. */
export interface RewardActionInfo {
  r_actions: number;
  gt_data_hash: string;
}

/** τ-bench `RewardResult` info when the task also requires outputs (replaces the action info). */
export interface RewardOutputInfo {
  r_outputs: number;
  outputs: Record<string, boolean>;
}

export interface RewardResult {
  reward: number;
  info: RewardActionInfo | RewardOutputInfo;
  actions: Action[];
}

/** τ-bench `EnvInfo` as it is dumped into results. */
export interface EnvInfo {
  task: Task;
  source: string | null;
  user_cost: number | null;
  reward_info: RewardResult | null;
}

/**
 * Why an episode ended. Data, never an exception: metrics count each reason and infra errors stay
 * visible (and in the pass^k denominator).
 */
export const TERMINATION_REASONS = ["user_stop", "agent_stop", "max_steps", "max_errors", "timeout", "agent_error", "user_error", "infra_error"] as const;
export type TerminationReason = (typeof TERMINATION_REASONS)[number];

/** An OpenAI-style chat message as stored in τ-bench trajectories. */
export interface ToolCallRecord {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCallRecord[]; [extra: string]: unknown }
  | { role: "tool"; tool_call_id: string; name: string; content: string };

/** Token usage and cost of one role. Unknown cost is `null`, never 0. */
export interface RoleUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cost: number | null;
}

/**
 * Where an environment step came from: the agent's own turn, a bridge in a framework, the harness
 * in decision-only mode, a dry-run plan, or the user's own turn (τ²'s user tools).
 */
export type StepOrigin = "agent" | "user" | "bridge" | "harness" | "dry-run";

/** A step event, recorded into the trajectory (bridge contract (e)). */
export interface StepEvent {
  action: Action;
  observation: string;
  reward: number;
  done: boolean;
  origin: StepOrigin;
  /** The framework's tool-call id, when there is one. */
  toolCallId?: string;
  /** The framework tool name, when it differs from the benchmark action name. */
  frameworkToolName?: string;
  /** Whose call it was (τ-bench: always the agent's; τ²: either side's). */
  requestor?: "agent" | "user";
  /** The tool reported an error. */
  error?: boolean;
}

/** Plain JSON for our own result files. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type { PyDict, PyValue };
