import { RESPOND_ACTION_NAME, type Action, type ChatMessage, type StepResult } from "../core/types.ts";
import { pyJsonDumps } from "../value/index.ts";
import type { Agent, AgentEpisodeContext, AgentEpisodeResult } from "./agent.ts";

/**
 * The ground-truth agent: it replays the task's actions, then says the task's required outputs.
 * With the scripted user it must score 1.0 on every official task; it is how we check that the
 * environment, tasks and reward agree with the reference, and the offline default of the main job.
 *
 * Trajectories use the tool-calling agent's message shape, so `rescore` and reports treat oracle
 * results like any other.
 */
export class OracleAgent implements Agent {
  readonly name = "oracle";

  async solve({ env, recorder, maxSteps, signal }: AgentEpisodeContext): Promise<AgentEpisodeResult> {
    const reset = await env.reset();
    recorder.addMessage({ role: "system", content: env.domain.policy });
    recorder.addMessage({ role: "user", content: reset.observation });
    let info: Record<string, unknown> = { ...reset.info };
    let last: StepResult | undefined;
    const plan: Action[] = env.task.actions.filter((action) => action.name !== RESPOND_ACTION_NAME);
    const terminate = env.domain.definition.terminateTools;
    let steps = 0;
    const say = (content: string): Action => ({ name: RESPOND_ACTION_NAME, kwargs: new Map([["content", content]]) });
    const queue: Action[] = [];
    for (const action of plan) {
      if (terminate.includes(action.name) && env.task.outputs.length > 0) break; // say the outputs instead; the replay skips terminate tools
      queue.push(action);
    }
    const closing = env.task.outputs.length > 0 ? `Here is what you asked for: ${env.task.outputs.join("; ")}` : "Your request has been handled. Is there anything else?";
    if (!queue.some((action) => terminate.includes(action.name))) queue.push(say(closing));
    for (const action of queue) {
      if (signal.aborted || steps >= maxSteps) break;
      steps++;
      last = await env.step(action);
      recordTurn(recorder, action, last, steps);
      recorder.addStep({ action, observation: last.observation, reward: last.reward, done: last.done, origin: "agent" }, last);
      info = { ...info, ...last.info };
      if (last.done) break;
    }
    const done = last?.done ?? false;
    return {
      reward: last?.reward ?? 0,
      termination: done ? (last?.info.source === "user" ? "user_stop" : "agent_stop") : "max_steps",
      info,
      usage: null,
    };
  }
}

function recordTurn(recorder: AgentEpisodeContext["recorder"], action: Action, result: StepResult, turn: number): void {
  if (action.name === RESPOND_ACTION_NAME) {
    recorder.addMessage({ role: "assistant", content: String(action.kwargs.get("content") ?? "") });
    recorder.addMessage({ role: "user", content: result.observation });
    return;
  }
  const id = `call_oracle_${turn}`;
  const message: ChatMessage = {
    role: "assistant",
    content: null,
    tool_calls: [{ id, type: "function", function: { name: action.name, arguments: pyJsonDumps(action.kwargs) } }],
  };
  recorder.addMessage(message);
  recorder.addMessage({ role: "tool", tool_call_id: id, name: action.name, content: result.observation });
}
