/**
 * τ² simulations as canonical episode records (`src/core/episode-record.ts`), for taubridge's
 * `results.json` and the original's alike: the messages with each tool call's requestor, the
 * executed calls with their results (decision-only calls marked as the harness's), dry-run plans, the reward and its
 * breakdown, costs, the termination in the kernel's vocabulary.
 */
import type { EpisodeRecord, ProtocolLog, RecordMessage, RecordStep, Requestor } from "../../core/episode-record.ts";
import { pyJsonDumpsLine, toJs, type PyValue } from "../../value/index.ts";
import { canonicalTermination, rewardOf, simulationToJson, tau2Summary, type Tau2SimulationRecord } from "./codec.ts";
import type { Tau2SimulationMessage } from "./simulation.ts";

type Plain = Record<string, unknown>;

const requestorOf = (side: string | null | undefined): Requestor => (side === "user" ? "user" : "agent");

function messageOf(message: Tau2SimulationMessage): RecordMessage {
  if (message.role === "tool") return { role: "tool", content: message.content, toolCallId: message.id, requestor: requestorOf(message.requestor), error: message.error, timestamp: message.timestamp };
  if (message.role === "system") return { role: "system", content: message.content, timestamp: message.timestamp };
  return {
    role: message.role,
    content: message.content,
    ...(message.tool_calls?.length ? { toolCalls: message.tool_calls.map((call) => ({ id: call.id, name: call.name, arguments: toJs(call.arguments), requestor: requestorOf(call.requestor) })) } : {}),
    cost: message.cost,
    timestamp: message.timestamp,
  };
}

/** The decisions a framework handed to the harness (decision-only), by tool call id: their framework tool name. */
function decisionsOf(info: Plain | null): Map<string, string> {
  const decided = new Map<string, string>();
  for (const entry of Array.isArray(info?.decisions) ? (info.decisions as unknown[]) : []) {
    const call = (entry && typeof entry === "object" ? entry : {}) as Plain;
    if (typeof call.tool_call_id === "string") decided.set(call.tool_call_id, typeof call.framework_tool_name === "string" ? call.framework_tool_name : String(call.name ?? ""));
  }
  return decided;
}

/** The executed calls: each tool call of a message, with the tool message that answered it (a decision-only call marked as the harness's). */
function stepsOf(messages: readonly Tau2SimulationMessage[], info: Plain | null): RecordStep[] {
  const answers = new Map<string, { content: string; error: boolean }>();
  for (const message of messages) if (message.role === "tool") answers.set(`${message.requestor}\u0000${message.id}`, { content: message.content, error: message.error });
  const decided = decisionsOf(info);
  const steps: RecordStep[] = [];
  for (const message of messages) {
    if (message.role === "tool" || message.role === "system") continue;
    for (const call of message.tool_calls ?? []) {
      const answer = answers.get(`${call.requestor}\u0000${call.id}`);
      const framework = decided.get(call.id);
      steps.push({
        name: call.name,
        arguments: toJs(call.arguments),
        requestor: requestorOf(call.requestor),
        origin: framework !== undefined ? "harness" : call.id.startsWith("bridge_") ? "bridge" : requestorOf(call.requestor),
        toolCallId: call.id || null,
        frameworkToolName: framework !== undefined && framework !== call.name ? framework : null,
        result: answer?.content ?? null,
        error: answer?.error ?? null,
      });
    }
  }
  return steps;
}

/** Plans a framework made in dry-run mode (never executed), from the simulation's info. */
function plannedOf(info: Plain | null): RecordStep[] {
  return (Array.isArray(info?.planned_actions) ? (info.planned_actions as unknown[]) : []).map((entry) => {
    const call = (entry && typeof entry === "object" ? entry : {}) as Plain;
    return {
      name: String(call.name ?? ""),
      arguments: call.arguments ?? {},
      requestor: "agent",
      origin: "dry-run",
      toolCallId: typeof call.tool_call_id === "string" ? call.tool_call_id : null,
      frameworkToolName: null,
      result: null,
      error: null,
    };
  });
}

function breakdownOf(rewardInfo: Tau2SimulationRecord["reward_info"]): Record<string, number> {
  const breakdown = rewardInfo instanceof Map ? rewardInfo.get("reward_breakdown") : rewardInfo?.reward_breakdown;
  if (!breakdown) return {};
  const plainBreakdown = toJs((breakdown instanceof Map ? breakdown : new Map(Object.entries(breakdown))) as PyValue) as Record<string, number>;
  return plainBreakdown;
}

/** One simulation as a canonical record. */
export function tau2Record(simulation: Tau2SimulationRecord, domain: string | null): EpisodeRecord {
  const summary = tau2Summary(simulation);
  const info = simulation.info as Plain | null;
  return {
    schemaVersion: 1,
    suite: "tau2",
    domain,
    taskId: simulation.task_id,
    trial: simulation.trial,
    seed: simulation.seed,
    termination: canonicalTermination(simulation.termination_reason),
    reward: rewardOf(simulation.reward_info),
    rewardBreakdown: breakdownOf(simulation.reward_info),
    messages: simulation.messages.map(messageOf),
    steps: stepsOf(simulation.messages, info),
    planned: plannedOf(info),
    unmappedTools: summary.unmappedTools ?? [],
    usage: summary.usage ?? { agent: null, user: null },
    cost: { agent: simulation.agent_cost, user: simulation.user_cost },
    error: typeof info?.error === "string" ? { kind: canonicalTermination(simulation.termination_reason), message: info.error } : null,
    durationSeconds: simulation.duration,
    ...(info?.protocol && typeof info.protocol === "object" ? { protocol: info.protocol as ProtocolLog } : {}),
    native: JSON.parse(pyJsonDumpsLine(simulationToJson(simulation))),
  };
}
