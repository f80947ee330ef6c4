import { RESPOND_ACTION_NAME, type Action, type ChatMessage, type Task } from "../../../core/types.ts";
import type { LoadedDomain } from "../engine/domain.ts";
import { pyJsonDumps } from "../../../value/index.ts";
import { incomingText, type Incoming, type Participant, type ParticipantContext, type ParticipantSession, type Turn } from "../../../core/contracts.ts";

/**
 * The ground-truth agent: it replays the task's actions, then says the task's required outputs.
 * With the scripted user it must score 1.0 on every official task; it is how we check that the
 * environment, tasks and reward agree with the reference, and the offline default of the main job.
 *
 * Trajectories use the tool-calling agent's message shape, so `rescore` and reports treat oracle
 * results like any other.
 */
export class OracleAgent implements Participant<Task> {
  readonly name = "oracle";
  readonly trusted = true;

  constructor(private readonly domain: LoadedDomain) {}

  start(context: ParticipantContext<Task>): ParticipantSession {
    return new OracleSession(oraclePlan(this.domain, context.task), this.domain.policy, context);
  }
}

/** The oracle's actions for a task: the ground truth up to a terminate tool, then the closing words. */
export function oraclePlan(domain: LoadedDomain, task: Task): Action[] {
  const terminate = domain.definition.terminateTools;
  const queue: Action[] = [];
  for (const action of task.actions) {
    if (action.name === RESPOND_ACTION_NAME) continue;
    if (terminate.includes(action.name) && task.outputs.length > 0) break; // say the outputs instead; the replay skips terminate tools
    queue.push(action);
  }
  const closing = task.outputs.length > 0 ? `Here is what you asked for: ${task.outputs.join("; ")}` : "Your request has been handled. Is there anything else?";
  if (!queue.some((action) => terminate.includes(action.name))) queue.push({ name: RESPOND_ACTION_NAME, kwargs: new Map([["content", closing]]) });
  return queue;
}

class OracleSession implements ParticipantSession {
  private turns = 0;
  private last: Action | undefined;

  constructor(
    private readonly plan: Action[],
    policy: string,
    private readonly context: ParticipantContext<Task>,
  ) {
    context.transcript.addMessage({ role: "system", content: policy });
  }

  private receive(incoming: Incoming): void {
    const content = incomingText(incoming);
    if (!this.last || this.last.name === RESPOND_ACTION_NAME) this.context.transcript.addMessage({ role: "user", content });
    else this.context.transcript.addMessage({ role: "tool", tool_call_id: `call_oracle_${this.turns}`, name: this.last.name, content });
  }

  async next(incoming: Incoming | null): Promise<Turn> {
    if (incoming) this.receive(incoming);
    const action = this.plan[this.turns];
    // The plan always ends the episode (closing words to the scripted user, or a terminate tool); past it, keep talking.
    this.last = action ?? { name: RESPOND_ACTION_NAME, kwargs: new Map([["content", ""]]) };
    this.turns++;
    if (this.last.name === RESPOND_ACTION_NAME) {
      this.context.transcript.addMessage({ role: "assistant", content: String(this.last.kwargs.get("content") ?? "") });
      return { content: null, toolCalls: [{ id: "", name: this.last.name, arguments: this.last.kwargs }] };
    }
    const id = `call_oracle_${this.turns}`;
    const message: ChatMessage = { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: this.last.name, arguments: pyJsonDumps(this.last.kwargs) } }] };
    this.context.transcript.addMessage(message);
    return { content: null, toolCalls: [{ id, name: this.last.name, arguments: this.last.kwargs }] };
  }

  finish(incoming: Incoming): void {
    this.receive(incoming);
  }
}
