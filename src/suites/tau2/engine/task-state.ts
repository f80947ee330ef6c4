/**
 * Bringing a τ² environment to a task's starting point, and the environment hop the orchestrator
 * performs for one tool call. Both are shared by episodes, the evaluator's replays and `replay`.
 */
import type { Tau2Message, Tau2Task } from "../tasks.ts";
import type { Tau2Environment, Tau2ReplayMessage, Tau2ToolCall, Tau2ToolResult } from "./environment.ts";

/** A task message as `set_state` replays it. */
export function toReplayMessage(message: Tau2Message): Tau2ReplayMessage {
  if (message.role === "tool") return { role: "tool", id: message.id, content: message.content ?? "", requestor: message.requestor, error: message.error };
  return { role: message.role, tool_calls: (message as { tool_calls?: Tau2ToolCall[] | null }).tool_calls ?? null };
}

/**
 * What the orchestrator does before the first turn: `set_state(initialization_data,
 * initialization_actions, message_history)` on the fresh environment, then `sync_tools()`.
 * Extra messages (a recorded trajectory) are replayed after the history, as the evaluator does.
 */
export function applyTaskInitialState(environment: Tau2Environment, task: Tau2Task, trajectory: readonly Tau2ReplayMessage[] = [], strict = true): void {
  const state = task.initial_state;
  const history = (state?.message_history ?? []).map(toReplayMessage);
  environment.setState(state?.initialization_data, state?.initialization_actions, [...history, ...trajectory], strict);
  environment.sync();
}

/** One orchestrator hop to the environment for one tool call: `get_response`, then the end-of-step `sync_tools()`. */
export function environmentHop(environment: Tau2Environment, call: Tau2ToolCall): Tau2ToolResult {
  const result = environment.getResponse(call);
  environment.sync();
  return result;
}

/** {@link environmentHop} for a tool that may wait on something outside the process (`get_response` on the orchestrator's path). */
export async function environmentHopAsync(environment: Tau2Environment, call: Tau2ToolCall): Promise<Tau2ToolResult> {
  const result = await environment.getResponseAsync(call);
  environment.sync();
  return result;
}
