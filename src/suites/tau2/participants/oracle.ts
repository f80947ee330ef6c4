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
import type { Participant, ParticipantSession, Turn } from "../../../core/contracts.ts";
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
  ) {}

  async next(): Promise<Turn> {
    const step = this.plan[this.position];
    if (step === undefined) {
      if (this.closed) return { content: "Is there anything else I can help you with?", toolCalls: [], cost: 0 };
      this.closed = true;
      return { content: tau2OracleClosing(this.task), toolCalls: [], cost: 0 };
    }
    this.position++;
    if (step.side === "assistant") {
      this.calls++;
      return { content: null, toolCalls: [{ id: `call_${String(this.calls).padStart(3, "0")}`, name: step.action.name, arguments: step.action.arguments }], cost: 0 };
    }
    return { content: `Please do the following on your side: ${step.actions.map(describeCall).join("; ")}.`, toolCalls: [], cost: 0 };
  }
}

/** `--agent oracle`: replays the task's ground truth. */
export const tau2OracleAgent: Participant<Tau2Task> = {
  name: "oracle",
  trusted: true,
  start: (context) => new OracleSession(context.task, tau2OraclePlan(context.task)),
};
