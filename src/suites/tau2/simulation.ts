/**
 * τ²-bench simulation data (τ²: src/tau2/data_model/message.py; src/tau2/data_model/simulation.py,
 * SimulationRun, TerminationReason and RewardInfo): the messages of a trajectory, termination
 * reasons and reward info, in memory and in τ²'s own JSON form (what `results.json` stores and the
 * original's `Results` model loads).
 *
 * Tool-call arguments stay value-model dicts so `2.0` and `2` survive a round trip; rewards are
 * Python floats (`1.0`), so the JSON text is τ²'s.
 */
import type { Tau2ToolCall, Tau2ToolResult } from "./engine/environment.ts";
import { PyFloat, type PyDict, type PyValue } from "../../value/index.ts";
import type { Tau2Action, Tau2Message, Tau2RewardType } from "./tasks.ts";

/** τ²'s `TerminationReason` values. */
export const TAU2_TERMINATION_REASONS = [
  "user_stop",
  "agent_stop",
  "max_steps",
  "too_many_errors",
  "timeout",
  "agent_error",
  "user_error",
  "infrastructure_error",
  "context_window_exceeded",
  "unexpected_error",
] as const;
export type Tau2TerminationReason = (typeof TAU2_TERMINATION_REASONS)[number];

/** Token usage of one generated message, as τ² records it. */
export interface Tau2Usage {
  completion_tokens: number;
  prompt_tokens: number;
}

/** An assistant or user message: text, tool calls, or both. */
export interface Tau2ParticipantMessage {
  role: "assistant" | "user";
  content: string | null;
  tool_calls: Tau2ToolCall[] | null;
  timestamp: string;
  cost: number | null;
  usage: Tau2Usage | null;
  raw_data: unknown;
  turn_idx?: number | null;
}

/** A tool result message. */
export interface Tau2ToolMessage extends Tau2ToolResult {
  role: "tool";
  timestamp: string;
  turn_idx?: number | null;
}

export interface Tau2SystemMessage {
  role: "system";
  content: string | null;
  timestamp: string;
  turn_idx?: number | null;
}

export type Tau2SimulationMessage = Tau2ParticipantMessage | Tau2ToolMessage | Tau2SystemMessage;

/** "Has text content": not null and not whitespace only. */
export function hasTextContent(message: { content: string | null }): boolean {
  return message.content !== null && message.content.trim() !== "";
}

export function isToolCallMessage(message: Tau2SimulationMessage): message is Tau2ParticipantMessage & { tool_calls: Tau2ToolCall[] } {
  return message.role !== "tool" && message.role !== "system" && (message.tool_calls?.length ?? 0) > 0;
}

/** A task's `message_history` entry as a simulation message (timestamps are assigned by the orchestrator). */
export function fromTaskMessage(message: Tau2Message, timestamp: string): Tau2SimulationMessage {
  if (message.role === "tool") return { role: "tool", id: message.id, content: message.content ?? "", requestor: message.requestor, error: message.error, timestamp };
  if (message.role === "system") return { role: "system", content: message.content ?? null, timestamp };
  return {
    role: message.role,
    content: message.content ?? null,
    tool_calls: message.tool_calls?.length ? message.tool_calls.map((call) => ({ ...call })) : null,
    timestamp,
    cost: message.cost ?? null,
    usage: (message.usage as Tau2Usage | null | undefined) ?? null,
    raw_data: message.raw_data ?? null,
  };
}

// ─── Reward info ────────────────────────────────────────────────────────────────────────────────

/** τ²'s `RewardInfo`, field order as it serializes. Rewards are Python floats. */
export interface Tau2RewardInfo {
  reward: PyFloat;
  db_check: { db_match: boolean; db_reward: PyFloat } | null;
  env_assertions: Array<{ env_assertion: Record<string, unknown>; met: boolean; reward: PyFloat }> | null;
  action_checks: Array<{ action: Record<string, unknown>; action_match: boolean; action_reward: PyFloat; tool_type: string | null }> | null;
  nl_assertions: Array<{ nl_assertion: string; met: boolean; justification: string }> | null;
  communicate_checks: Array<{ info: string; met: boolean; justification: string }> | null;
  reward_basis: Tau2RewardType[] | null;
  reward_breakdown: Partial<Record<Tau2RewardType, PyFloat>> | null;
  info: Record<string, unknown> | null;
}

/** A reward info with every component absent (pydantic's defaults). */
export function emptyRewardInfo(reward: number, info: Record<string, unknown> | null): Tau2RewardInfo {
  return { reward: new PyFloat(reward), db_check: null, env_assertions: null, action_checks: null, nl_assertions: null, communicate_checks: null, reward_basis: null, reward_breakdown: null, info };
}

/** An `Action` as τ² dumps it. */
export function actionDump(action: Tau2Action): Record<string, unknown> {
  return { action_id: action.action_id, requestor: action.requestor, name: action.name, arguments: action.arguments, info: action.info ?? null, compare_args: action.compare_args ?? null };
}

// ─── τ²'s JSON form of messages ─────────────────────────────────────────────────────────────────

/** Fields τ² (HEAD) writes for every assistant/user message beyond the text-mode ones; a text harness leaves them at their defaults. */
const VOICE_DEFAULTS = {
  generation_time_seconds: null,
  audio_format: null,
  audio_path: null,
  audio_script_gold: null,
  speech_effects: null,
  source_effects: null,
  channel_effects: null,
  turn_taking_action: null,
  utterance_ids: null,
  chunk_id: null,
  is_final_chunk: true,
  source: null,
  contains_speech: true,
};

function toolCallJson(call: Tau2ToolCall): Record<string, unknown> {
  return { id: call.id, name: call.name, arguments: call.arguments, requestor: call.requestor };
}

/** `Message.model_dump(mode="json")` of a simulation message, as `results.json` stores it. */
export function messageToJson(message: Tau2SimulationMessage): Record<string, unknown> {
  if (message.role === "tool") {
    return { id: message.id, role: "tool", content: message.content, requestor: message.requestor, error: message.error, turn_idx: message.turn_idx ?? null, timestamp: message.timestamp };
  }
  if (message.role === "system") return { role: "system", content: message.content, turn_idx: message.turn_idx ?? null, timestamp: message.timestamp };
  return {
    role: message.role,
    content: message.content,
    tool_calls: message.tool_calls?.map(toolCallJson) ?? null,
    is_audio: false,
    turn_idx: message.turn_idx ?? null,
    timestamp: message.timestamp,
    cost: message.cost === null ? null : new PyFloat(message.cost),
    usage: message.usage,
    raw_data: message.raw_data ?? null,
    // generation_time_seconds (VOICE_DEFAULTS's first key), then the voice fields: one spread of the constant, no rest copy per message.
    ...VOICE_DEFAULTS,
  };
}

function text(value: PyValue | undefined): string | null {
  return typeof value === "string" ? value : null;
}

function number(value: PyValue | undefined): number | null {
  if (value instanceof PyFloat) return value.value;
  if (typeof value === "number") return value;
  return null;
}

/** Reads one stored message (HEAD or June-2025 schema; unknown fields ignored) from a lossless parse. */
export function messageFromJson(value: PyDict): Tau2SimulationMessage {
  const role = value.get("role");
  const timestamp = text(value.get("timestamp")) ?? "";
  const turnIndex = value.get("turn_idx");
  const turn_idx = typeof turnIndex === "number" ? turnIndex : null;
  if (role === "tool") {
    return {
      role: "tool",
      id: text(value.get("id")) ?? "",
      content: text(value.get("content")) ?? "",
      requestor: value.get("requestor") === "user" ? "user" : "assistant",
      error: value.get("error") === true,
      timestamp,
      turn_idx,
    };
  }
  if (role === "system") return { role: "system", content: text(value.get("content")), timestamp, turn_idx };
  if (role !== "assistant" && role !== "user") throw new Error(`unknown message role ${String(role)}`);
  const calls = value.get("tool_calls");
  const usage = value.get("usage");
  return {
    role,
    content: text(value.get("content")),
    tool_calls: Array.isArray(calls) && calls.length > 0 ? calls.map((call) => readToolCall(call as PyDict)) : null,
    timestamp,
    turn_idx,
    cost: number(value.get("cost")),
    usage: usage instanceof Map ? { completion_tokens: number(usage.get("completion_tokens")) ?? 0, prompt_tokens: number(usage.get("prompt_tokens")) ?? 0 } : null,
    raw_data: null,
  };
}

function readToolCall(call: PyDict): Tau2ToolCall {
  const args = call.get("arguments");
  return { id: text(call.get("id")) ?? "", name: text(call.get("name")) ?? "", arguments: args instanceof Map ? args : new Map(), requestor: call.get("requestor") === "user" ? "user" : "assistant" };
}
