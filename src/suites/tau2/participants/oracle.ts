/**
 * The τ² offline oracle: a deterministic agent that performs a task's ground truth
 * (`evaluation_criteria.actions`) and says its `communicate_info`, with no model.
 *
 * Assistant-side actions become tool calls, one per message; a run of user-side actions (telecom's
 * device fixes, mock's inbox) becomes one request to the user, which the scripted τ² user answers
 * by performing them with its own tools. When the plan is done the oracle sends one message
 * carrying every `communicate_info` string; the user then ends the conversation. This is how the
 * reference fixtures drove the original code, so it checks a whole task set's environments,
 * evaluators and ground truth end to end.
 */
import { createHash } from "node:crypto";
import type { Participant, ParticipantSession, Turn } from "../../../core/contracts.ts";
import { ConfigError } from "../../../errors/error-tree.ts";
import type { Tau2Action, Tau2Task } from "../tasks.ts";
import { pyRepr } from "../../../value/index.ts";

/** The plan: assistant actions one by one, and runs of consecutive user actions as one request each. */
export type Tau2OraclePlanStep = { side: "assistant"; action: Tau2Action } | { side: "user"; actions: Tau2Action[] };

export function tau2OraclePlan(task: Tau2Task): Tau2OraclePlanStep[] {
  const plan: Tau2OraclePlanStep[] = [];
  for (const action of task.evaluation_criteria?.actions ?? []) {
    const last = plan[plan.length - 1];
    if (action.requestor === "assistant") plan.push({ side: "assistant", action });
    else if (last?.side === "user") last.actions.push(action);
    else plan.push({ side: "user", actions: [action] });
  }
  return plan;
}

function describeCall(action: Tau2Action): string {
  const args = [...action.arguments].map(([key, value]) => `${key}=${pyRepr(value)}`).join(", ");
  return `${action.name}(${args})`;
}

/** The oracle's closing message: every string the task requires the agent to communicate. */
export function tau2OracleClosing(task: Tau2Task): string {
  const info = task.evaluation_criteria?.communicate_info ?? [];
  return info.length > 0 ? `All done. To confirm: ${info.join("; ")}.` : "All done, your request has been handled.";
}

class OracleSession implements ParticipantSession {
  private position = 0;
  private calls = 0;
  private closed = false;

  constructor(
    private readonly task: Tau2Task,
    private readonly plan: Tau2OraclePlanStep[],
    /** What each turn costs (0 unless `cost_per_turn` is set). */
    private readonly turnCost = 0,
  ) {}

  async next(): Promise<Turn> {
    const cost = this.turnCost;
    const step = this.plan[this.position];
    if (step === undefined) {
      if (this.closed) return { content: "Is there anything else I can help you with?", toolCalls: [], cost };
      this.closed = true;
      return { content: tau2OracleClosing(this.task), toolCalls: [], cost };
    }
    this.position++;
    if (step.side === "assistant") {
      this.calls++;
      return { content: null, toolCalls: [{ id: `call_${String(this.calls).padStart(3, "0")}`, name: step.action.name, arguments: step.action.arguments }], cost };
    }
    return { content: `Please do the following on your side: ${step.actions.map(describeCall).join("; ")}.`, toolCalls: [], cost };
  }
}

/**
 * The oracle's test knobs, from τ²'s `--agent-llm-args` (unused otherwise: the oracle calls no
 * model): `failure_rate` (0–1) fails that share of episodes, chosen by a hash of the trial's seed
 * and the task id, by leaving out the plan's last step (so the evaluator scores a real miss);
 * `cost_per_turn` (USD) gives each turn a cost of 1–4 times it (by the same hash), so runs have
 * failed trials and varied costs, deterministically — what leaderboard-submission tests need.
 */
export interface OracleKnobs {
  failureRate: number;
  costPerTurn: number;
}

export function oracleKnobs(llmArgs: Record<string, unknown>): OracleKnobs {
  const number = (key: string, max: number) => {
    const value = llmArgs[key];
    if (value === undefined) return 0;
    if (typeof value !== "number" || !(value >= 0 && value <= max)) throw new ConfigError(`--agent-llm-args ${key}: expected a number from 0 to ${max} for the oracle (got ${JSON.stringify(value)})`);
    return value;
  };
  return { failureRate: number("failure_rate", 1), costPerTurn: number("cost_per_turn", Number.MAX_VALUE) };
}

/** A number in [0, 1) from the trial's seed and the task id (the same on every machine). */
function episodeDraw(seed: number | null, taskId: string, salt: string): number {
  return (
    createHash("sha256")
      .update(`${seed ?? ""}\0${taskId}\0${salt}`)
      .digest()
      .readUInt32BE(0) /
    2 ** 32
  );
}

/** The oracle with its knobs (`--agent oracle`, `--agent-llm-args '{"failure_rate": 0.2, "cost_per_turn": 0.001}'`). */
export function tau2OracleWith(knobs: OracleKnobs): Participant<Tau2Task> {
  return {
    name: "oracle",
    start: (context) => {
      const plan = tau2OraclePlan(context.task);
      const fails = knobs.failureRate > 0 && episodeDraw(context.seed, context.task.id, "fail") < knobs.failureRate;
      const cost = knobs.costPerTurn * (1 + Math.floor(episodeDraw(context.seed, context.task.id, "cost") * 4));
      return new OracleSession(context.task, fails ? plan.slice(0, -1) : plan, cost);
    },
  };
}

/** `--agent oracle`: replays the task's ground truth. */
export const tau2OracleAgent: Participant<Tau2Task> = tau2OracleWith({ failureRate: 0, costPerTurn: 0 });
