/**
 * The scripted τ² user for offline runs with the oracle: it greets (also after a task's message
 * history, as the reference fixtures' scripted user does), performs the task's user-side
 * ground-truth actions with its own tools when the agent asks for them (one tool call per message,
 * as a person on a phone would), confirms, and ends the conversation with τ²'s stop token once the
 * plan has nothing left for it.
 */
import type { Incoming, Participant, ParticipantSession, Turn } from "../../../core/contracts.ts";
import { tau2OraclePlan } from "./oracle.ts";
import type { Tau2Action, Tau2Task } from "../tasks.ts";

const GREETING = "Hi, I need some help with my request.";
const DONE = "Done, I did that.";
const STOP = "Thank you, that's all. ###STOP###";

class ScriptedUserSession implements ParticipantSession {
  private greeted = false;
  private pending: Tau2Action[] = [];
  private calls = 0;

  constructor(private readonly blocks: Tau2Action[][]) {}

  async next(incoming: Incoming | null): Promise<Turn> {
    if (incoming?.type === "tool_results") return this.performNext();
    if (!this.greeted) {
      this.greeted = true;
      return { content: GREETING, toolCalls: [], cost: 0 };
    }
    const block = this.blocks.shift();
    if (block === undefined) return { content: STOP, toolCalls: [], cost: 0 };
    this.pending = [...block];
    return this.performNext();
  }

  private performNext(): Turn {
    const action = this.pending.shift();
    if (action === undefined) return { content: DONE, toolCalls: [], cost: 0 };
    this.calls++;
    return { content: null, toolCalls: [{ id: `user_call_${String(this.calls).padStart(3, "0")}`, name: action.name, arguments: action.arguments }], cost: 0 };
  }
}

/** `--user scripted`: the oracle's counterpart. */
export const tau2ScriptedUser: Participant<Tau2Task> = {
  name: "scripted",
  start: (context) => {
    const blocks = tau2OraclePlan(context.task).flatMap((step) => (step.side === "user" ? [step.actions] : []));
    return new ScriptedUserSession(blocks);
  },
};
