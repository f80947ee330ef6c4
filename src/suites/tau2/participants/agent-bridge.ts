/**
 * Any taubridge agent on a τ² domain: the framework adapters, the function agent and the τ-bench
 * model strategies, none of them changed. The wrapper turns the τ² conversation into the agent's
 * turn-level contract (`AgentSession.turn`) and back:
 *
 * - the user's words arrive as a `user` input; the agent's `respond` becomes its message to the user;
 * - a `tool_call` turn (model strategies) becomes an assistant message with that one tool call,
 *   which the τ² orchestrator sends to the environment as a hop; the result comes back as a
 *   `tool_result` input;
 * - a framework that runs tools inside its own turn steps through the orchestrator's step path
 *   (`context.steps`): each bridged call is recorded as an assistant tool-call message and its
 *   result, counted as two hops, and can end the episode;
 * - an `invalid` turn (a malformed call) is sent as a tool call of that name with no arguments, so
 *   τ²'s environment answers it with its own error text, as it would a model's bad call.
 *
 * Cost: the agent's model calls are priced as they happen; each τ² message carries the cost of the
 * calls made since the previous one (null when any was unpriced).
 */
import type { Agent, AgentInput, AgentSession, AgentTurn, DomainView, MessageRecorder, Tau2Incoming, Tau2Participant, Tau2ParticipantContext, Tau2Turn } from "../../../core/contracts.ts";
import { ConfigError } from "../../../core/errors.ts";
import type { ChatMessage, Task } from "../../../core/types.ts";
import type { Tau2Task } from "../tasks.ts";

/** Spend since the last τ² message, from the agent's recorder. */
class TurnCosts implements MessageRecorder {
  readonly messages: ChatMessage[] = [];
  private cost: number | null = 0;
  private promptTokens = 0;
  private completionTokens = 0;
  readonly agentUsage = {
    add: (result: { usage: { promptTokens: number; completionTokens: number }; cost: number | null }) => {
      this.promptTokens += result.usage.promptTokens;
      this.completionTokens += result.usage.completionTokens;
      this.cost = this.cost === null || result.cost === null ? null : this.cost + result.cost;
    },
    addUnpriced: (_calls: number, promptTokens: number, completionTokens: number) => {
      this.promptTokens += promptTokens;
      this.completionTokens += completionTokens;
      this.cost = null;
    },
  };

  addMessage(message: ChatMessage): void {
    this.messages.push(message);
  }

  /** The spend since the last call, reset. */
  take(): Pick<Tau2Turn, "cost" | "usage"> {
    const taken = { cost: this.cost, usage: { prompt_tokens: this.promptTokens, completion_tokens: this.completionTokens } };
    this.cost = 0;
    this.promptTokens = 0;
    this.completionTokens = 0;
    return taken;
  }
}

function inputFrom(incoming: Tau2Incoming): AgentInput {
  if (incoming.type === "text") return { type: "user", content: incoming.content ?? "" };
  const [result, ...rest] = incoming.results;
  if (!result || rest.length > 0) throw new ConfigError("an agent that makes one call per turn received several tool results at once");
  return { type: "tool_result", name: result.name, content: result.content, toolCallId: result.id };
}

function turnFrom(turn: AgentTurn, index: number): Tau2Turn {
  if (turn.type === "respond") return { content: turn.content ?? "", toolCalls: [] };
  if (turn.type === "tool_call") return { content: null, toolCalls: [{ id: turn.toolCallId ?? `call_${index}`, name: turn.action.name, arguments: turn.action.kwargs }] };
  return { content: null, toolCalls: [{ id: turn.toolCallId ?? `call_${index}`, name: turn.name, arguments: new Map() }] };
}

/** The τ-bench task shape agents receive: τ² tasks carry no τ-bench instruction or outputs. */
function taskFor(task: Tau2Task): Task {
  return {
    user_id: "",
    actions: [],
    instruction: typeof task.user_scenario.instructions === "string" ? task.user_scenario.instructions : task.user_scenario.instructions.task_instructions,
    outputs: [],
  };
}

/**
 * Wraps a taubridge {@link Agent} as a τ² agent. `view` gives the domain as the agent sees it (the
 * policy and τ²'s tool schemas for the agent's tools).
 */
export function tau2AgentFrom(agent: Agent, view: (context: Tau2ParticipantContext<Tau2Task>) => DomainView): Tau2Participant<Tau2Task> {
  return {
    name: agent.name,
    close: agent.close?.bind(agent),
    async start(context) {
      if (!context.steps) throw new ConfigError("the τ² orchestrator gave no step path to the agent");
      const recorder = new TurnCosts();
      const session: AgentSession = await agent.start({
        domain: view(context),
        task: taskFor(context.task),
        episode: { taskIndex: 0, trial: context.episode.trial },
        steps: context.steps,
        recorder,
        maxSteps: context.maxSteps ?? 200,
        signal: context.signal,
      });
      let calls = 0;
      return {
        async next(incoming, signal) {
          if (incoming === null) throw new ConfigError(`${agent.name} cannot open a solo conversation (it answers a user)`);
          const turn = await session.turn(inputFrom(incoming), signal);
          return { ...turnFrom(turn, ++calls), ...recorder.take() };
        },
        close: session.close?.bind(session),
      };
    },
  };
}
