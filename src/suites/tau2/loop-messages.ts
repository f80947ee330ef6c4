/**
 * τ²'s message rules for one episode, as its `orchestrator.py` applies them: what a participant's
 * turn becomes in the trajectory, which messages each side sees of a task's history, and the
 * checks a message and a history must pass.
 */
import type { HistoryEntry, ToolCall, Turn } from "../../core/contracts.ts";
import { TaubridgeError, errorMarker } from "../../errors/error-tree.ts";
import type { SuiteRules } from "../../core/suite-rules.ts";
import { orchestratorMessages } from "./engine/engine-messages.ts";
import type { Tau2Requestor } from "./engine/environment.ts";
import { type Tau2ParticipantMessage, type Tau2SimulationMessage, hasTextContent, isToolCallMessage } from "./simulation.ts";

/** A participant broke τ²'s message protocol (a message with neither text nor tool calls, or an inconsistent history). */
export class Tau2ProtocolError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("Tau2ProtocolError");
}

export function validate(turn: Turn, role: "assistant" | "user"): void {
  if (!hasTextContent(turn) && turn.toolCalls.length === 0) {
    throw new Tau2ProtocolError(`${role === "assistant" ? "AssistantMessage" : "UserMessage"} must have either content or tool calls`);
  }
}

export function participantMessage(turn: Turn, role: "assistant" | "user", timestamp: string): Tau2ParticipantMessage {
  const requestor: Tau2Requestor = role;
  return {
    role,
    content: turn.content,
    tool_calls: turn.toolCalls.length > 0 ? turn.toolCalls.map((call: ToolCall) => ({ id: call.id, name: call.name, arguments: call.arguments, requestor })) : null,
    timestamp,
    cost: turn.cost ?? null,
    usage: turn.usage ?? null,
    raw_data: turn.raw ?? null,
  };
}

/** The user's stop: a text message containing a stop token (tool-call messages never stop). */
export function isUserStop(message: Tau2ParticipantMessage, rules: SuiteRules): boolean {
  return message.tool_calls === null && message.content !== null && rules.stopTokens.some((token) => (message.content as string).includes(token));
}

export function historyView(messages: readonly Tau2SimulationMessage[], side: "assistant" | "user"): HistoryEntry[] {
  const view: HistoryEntry[] = [];
  for (const message of messages) {
    if (message.role === "system") continue;
    if (message.role === "tool") {
      if (message.requestor === side) view.push({ role: "tool", content: message.content, id: message.id, error: message.error });
      continue;
    }
    const mine = message.role === side;
    if (!mine && message.tool_calls !== null) continue; // the other side's tool calls are never shown
    view.push({ role: message.role, content: message.content, toolCalls: mine ? (message.tool_calls ?? []).map(({ id, name, arguments: args }) => ({ id, name, arguments: args })) : undefined });
  }
  return view;
}

/** τ²'s `validate_message_history`: n tool calls are followed by exactly n tool messages of that requestor. */
export function validateHistory(messages: readonly Tau2SimulationMessage[]): void {
  let expected = 0;
  let requestor: string | null = null;
  for (const message of messages) {
    if (message.role === "tool") {
      if (expected === 0 || requestor === null) throw new Tau2ProtocolError(orchestratorMessages.text("noToolMessagesExpected"));
      if (requestor !== message.requestor) throw new Tau2ProtocolError(orchestratorMessages.format("toolMessageFromOtherSide", { "msg.requestor": String(message.requestor), requestor }));
      expected--;
    } else if (message.role !== "system") {
      if (!hasTextContent(message) && !isToolCallMessage(message)) throw new Tau2ProtocolError("a history message has neither content nor tool calls");
      if (isToolCallMessage(message)) {
        if (expected > 0) throw new Tau2ProtocolError(orchestratorMessages.format("toolMessagesMissing", { num_expected_tool_messages: String(expected), "msg.role": message.role }));
        expected = message.tool_calls.length;
        requestor = message.role;
      } else {
        requestor = null;
      }
    }
  }
}
