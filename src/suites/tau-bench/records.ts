/**
 * τ-bench results entries as canonical episode records (`src/core/episode-record.ts`), for
 * taubridge's files (which add a `taubridge` block: termination, steps with their origin, plans,
 * usage, errors) and the original's (which carry only `task_id`, `reward`, `info`, `traj`, `trial`:
 * the tool calls are read from the trajectory, and what it does not say is null).
 */
import type { EpisodeRecord, ProtocolLog, RecordMessage, RecordStep } from "../../core/episode-record.ts";
import { RESPOND_ACTION_NAME, type RoleUsage, type TerminationReason } from "../../core/types.ts";
import { toJs } from "../../value/index.ts";
import type { LoadedResultEntry } from "./codec.ts";
import { actionsFromEntry } from "./replay.ts";

type Plain = Record<string, unknown>;

function plain(value: unknown): Plain {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Plain) : {};
}

/** A tool call's argument text as JSON, or the text itself when it is not JSON. */
function argumentsOf(text: unknown): unknown {
  if (typeof text !== "string") return text ?? {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function messagesOf(traj: readonly Plain[]): RecordMessage[] {
  return traj.map((message) => {
    const role = message.role === "system" || message.role === "assistant" || message.role === "tool" ? message.role : "user";
    const content = typeof message.content === "string" || message.content === null ? message.content : JSON.stringify(message.content);
    const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Plain[]) : [];
    return {
      role,
      content: content ?? null,
      ...(calls.length > 0
        ? {
            toolCalls: calls.map((call) => ({
              id: String(call.id ?? ""),
              name: String(plain(call.function).name ?? ""),
              arguments: argumentsOf(plain(call.function).arguments),
              requestor: "agent" as const,
            })),
          }
        : {}),
      ...(role === "tool" ? { toolCallId: String(message.tool_call_id ?? ""), requestor: "agent" as const } : {}),
    };
  });
}

/** The observation a trajectory's tool message gives for a call id. */
function resultsById(traj: readonly Plain[]): Map<string, string> {
  const results = new Map<string, string>();
  for (const message of traj) if (message.role === "tool" && typeof message.tool_call_id === "string") results.set(message.tool_call_id, String(message.content ?? ""));
  return results;
}

function stepOf(step: Plain, results: Map<string, string>, origin?: string): RecordStep {
  const action = plain(step.action);
  const id = typeof step.toolCallId === "string" ? step.toolCallId : null;
  return {
    name: String(action.name ?? ""),
    arguments: action.kwargs ?? {},
    requestor: "agent",
    origin: origin ?? String(step.origin ?? "agent"),
    toolCallId: id,
    frameworkToolName: typeof step.frameworkToolName === "string" ? step.frameworkToolName : null,
    result: id !== null ? (results.get(id) ?? null) : null,
    error: null,
  };
}

/** The trajectory's tool calls in order: id and name. */
function trajectoryCalls(traj: readonly Plain[]): Array<{ id: string; name: string }> {
  return traj.flatMap((message) =>
    message.role === "assistant" && Array.isArray(message.tool_calls)
      ? (message.tool_calls as Plain[]).map((call) => ({ id: String(call.id ?? ""), name: String(plain(call.function).name ?? "") }))
      : [],
  );
}

/**
 * Recorded steps with the trajectory's call id where the step has none (agents that step without
 * one, like the oracle): the next call of the same name in the trajectory, in order.
 */
function withCallIds(steps: readonly Plain[], traj: readonly Plain[]): Plain[] {
  const calls = trajectoryCalls(traj);
  let cursor = 0;
  return steps.map((step) => {
    if (typeof step.toolCallId === "string") return step;
    const name = plain(step.action).name;
    const at = calls.findIndex((call, index) => index >= cursor && call.name === name);
    if (at < 0) return step;
    cursor = at + 1;
    return { ...step, toolCallId: calls[at].id };
  });
}

/** The executed tool calls of an entry: taubridge's recorded steps, else those read from the trajectory. */
function stepsOf(entry: LoadedResultEntry, block: Plain, traj: readonly Plain[]): RecordStep[] {
  const results = resultsById(traj);
  if (Array.isArray(block.steps)) {
    const executed = (block.steps as Plain[]).filter((step) => plain(step.action).name !== RESPOND_ACTION_NAME);
    return withCallIds(executed, traj).map((step) => stepOf(step, results));
  }
  const extracted = actionsFromEntry(entry);
  if ("error" in extracted) return [];
  const steps = extracted.actions.filter((action) => action.name !== RESPOND_ACTION_NAME).map((action): Plain => ({ action: { name: action.name, kwargs: toJs(action.kwargs) }, origin: "agent" }));
  return withCallIds(steps, traj).map((step) => stepOf(step, results));
}

/** The reward by component: taubridge's breakdown, else what τ-bench's reward info says. */
function breakdownOf(block: Plain, info: Plain): Record<string, number> {
  if (block.rewardBreakdown && typeof block.rewardBreakdown === "object") return block.rewardBreakdown as Record<string, number>;
  const detail = plain(plain(info.reward_info).info);
  const breakdown: Record<string, number> = {};
  if (typeof detail.r_actions === "number") breakdown.actions = detail.r_actions;
  if (typeof detail.r_outputs === "number") breakdown.outputs = detail.r_outputs;
  return breakdown;
}

function errorOf(block: Plain, info: Plain): EpisodeRecord["error"] {
  const recorded = plain(block.error);
  if (typeof recorded.message === "string") return { kind: (recorded.kind as TerminationReason | undefined) ?? "error", message: recorded.message };
  return typeof info.error === "string" ? { kind: "error", message: info.error } : null;
}

/** A remote agent's measured exchanges (`taubridge.extra.protocol`), when the agent was one. */
function protocolOf(block: Plain): { protocol?: ProtocolLog } {
  const protocol = plain(block.extra).protocol;
  return protocol && typeof protocol === "object" ? { protocol: protocol as ProtocolLog } : {};
}

/** One entry as a canonical record. */
export function tauBenchRecord(entry: LoadedResultEntry, domain: string | null): EpisodeRecord {
  const raw = entry.plain as unknown as Plain;
  const block = plain(raw.taubridge);
  const info = plain(raw.info);
  const traj = Array.isArray(raw.traj) ? (raw.traj as Plain[]) : [];
  const usage = (entry.usage ?? { agent: null, user: null }) as { agent: RoleUsage | null; user: RoleUsage | null };
  const userCost = usage.user ? usage.user.cost : typeof info.user_cost === "number" ? info.user_cost : null;
  return {
    schemaVersion: 1,
    suite: "tau-bench",
    domain,
    taskId: String(entry.taskId),
    trial: entry.trial,
    seed: null,
    termination: entry.termination,
    reward: entry.reward,
    rewardBreakdown: breakdownOf(block, info),
    messages: messagesOf(traj),
    steps: stepsOf(entry, block, traj),
    planned: Array.isArray(block.plannedOnly) ? (block.plannedOnly as Plain[]).map((step) => stepOf(step, new Map(), "dry-run")) : [],
    unmappedTools: entry.unmappedTools ?? [],
    usage,
    cost: { agent: usage.agent ? usage.agent.cost : null, user: userCost },
    error: errorOf(block, info),
    durationSeconds: typeof block.durationMs === "number" ? block.durationMs / 1000 : null,
    ...protocolOf(block),
    native: raw,
  };
}

/** Every entry of a τ-bench results file as canonical records. */
export function tauBenchRecords(_path: string, entries: readonly LoadedResultEntry[], domain: string | null): EpisodeRecord[] {
  return entries.map((entry) => tauBenchRecord(entry, domain));
}
