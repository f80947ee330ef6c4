/**
 * τ² simulations as canonical episode records (`src/core/episode-record.ts`), for taubridge's
 * `results.json` and the original's alike: the messages with each tool call's requestor, the
 * executed calls with their results (decision-only calls marked as the harness's), dry-run plans, the reward and its
 * breakdown, costs, the termination in the kernel's vocabulary.
 */
import type { EpisodeRecord, ProtocolLog, RecordExpectations, RecordMessage, RecordReview, RecordStep, Requestor } from "../../core/episode-record.ts";
import { pyJsonDumpsLine, toJs, type PyDict, type PyValue } from "../../value/index.ts";
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

const list = (value: unknown): Plain[] => (Array.isArray(value) ? (value.filter((item) => item && typeof item === "object") as Plain[]) : []);
const object = (value: unknown): Plain => (value && typeof value === "object" && !Array.isArray(value) ? (value as Plain) : {});

/** The scenario's instructions as one text (a structured scenario's fields, one a line). */
function instructionOf(task: Plain): string | null {
  const instructions = object(task.user_scenario).instructions;
  if (typeof instructions === "string") return instructions;
  if (!instructions || typeof instructions !== "object") return null;
  return Object.entries(instructions as Plain)
    .filter(([, value]) => typeof value === "string" && value !== "")
    .map(([key, value]) => `${key}: ${value}`)
    .join("\n");
}

/** An env assertion as one line: `env_type.func_name(arguments) == assert_value`. */
function assertionText(assertion: Plain): string {
  const expected = assertion.assert_value === false ? " is False" : "";
  return `${String(assertion.env_type ?? "")}.${String(assertion.func_name ?? "")}(${JSON.stringify(assertion.arguments ?? {})})${expected}`;
}

/**
 * What the task expected (`evaluation_criteria`) with the evaluator's verdicts from the reward
 * info: each gold action matched or not (τ²'s action checks, by position), each communicate item
 * and assertion met or not, the database check.
 */
export function tau2Expectations(task: PyDict | null | undefined, rewardInfo: Tau2SimulationRecord["reward_info"]): RecordExpectations | null {
  if (!task) return null;
  const plainTask = toJs(task) as Plain;
  const criteria = object(plainTask.evaluation_criteria);
  const info = rewardInfo ? (JSON.parse(pyJsonDumpsLine(rewardInfo as PyValue)) as Plain) : {};
  const actionChecks = list(info.action_checks);
  const communicate = list(info.communicate_checks);
  const envChecks = list(info.env_assertions);
  const nlChecks = list(info.nl_assertions);
  const metOf = (checks: Plain[], index: number, key: string): boolean | null => (typeof checks[index]?.[key] === "boolean" ? (checks[index][key] as boolean) : null);
  return {
    instruction: instructionOf(plainTask),
    actions: list(criteria.actions).map((action, index) => ({
      name: String(action.name ?? ""),
      arguments: action.arguments ?? {},
      requestor: requestorOf(typeof action.requestor === "string" ? action.requestor : "assistant"),
      compareArgs: Array.isArray(action.compare_args) ? action.compare_args.map(String) : null,
      matched: metOf(actionChecks, index, "action_match"),
      toolType: typeof actionChecks[index]?.tool_type === "string" ? String(actionChecks[index].tool_type) : null,
    })),
    outputs: (Array.isArray(criteria.communicate_info) ? criteria.communicate_info.map(String) : []).map((text, index) => ({ text, met: metOf(communicate, index, "met") })),
    assertions: [
      ...list(criteria.env_assertions).map((assertion, index) => ({ kind: "env" as const, text: assertionText(assertion), met: metOf(envChecks, index, "met"), justification: null })),
      ...(Array.isArray(criteria.nl_assertions) ? criteria.nl_assertions.map(String) : []).map((text, index) => ({
        kind: "nl" as const,
        text,
        met: metOf(nlChecks, index, "met"),
        justification: typeof nlChecks[index]?.justification === "string" ? String(nlChecks[index].justification) : null,
      })),
    ],
    databaseMatch: typeof object(info.db_check).db_match === "boolean" ? (object(info.db_check).db_match as boolean) : null,
    rewardBasis: Array.isArray(criteria.reward_basis) ? criteria.reward_basis.map(String) : null,
  };
}

/** The review a simulation records (`--auto-review`), or null. */
function reviewOf(native: Plain): RecordReview | null {
  const review = object(native.review);
  if (!Array.isArray(review.errors)) return null;
  return {
    summary: typeof review.summary === "string" ? review.summary : "",
    errors: list(review.errors).map((error) => ({
      source: String(error.source ?? "unknown"),
      severity: typeof error.severity === "string" ? error.severity : null,
      tags: Array.isArray(error.error_tags) ? error.error_tags.map(String) : [],
      turnIndex: typeof error.turn_idx === "number" ? error.turn_idx : null,
      reasoning: typeof error.reasoning === "string" ? error.reasoning : "",
    })),
  };
}

/** One simulation as a canonical record; `task` (the results file's task of the simulation) gives the ground truth. */
export function tau2Record(simulation: Tau2SimulationRecord, domain: string | null, task?: PyDict | null): EpisodeRecord {
  const summary = tau2Summary(simulation);
  const info = simulation.info as Plain | null;
  const native = JSON.parse(pyJsonDumpsLine(simulationToJson(simulation))) as Plain;
  return {
    schemaVersion: 2,
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
    expected: tau2Expectations(task, simulation.reward_info),
    review: reviewOf(native),
    native,
  };
}
