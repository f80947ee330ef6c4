/**
 * τ²'s user simulator (τ²: src/tau2/user/user_simulator.py, UserSimulator): a model playing the
 * customer. Its system prompt is τ²'s global guidelines (with or without tools) plus the task's
 * rendered scenario; the conversation is sent with the roles flipped — its own messages as the
 * assistant's (tool calls included), the agent's words as the user's, its own tool results as tool
 * messages; the agent's tool calls are never shown to it. The model's tool calls become the user's
 * tool calls on its own device. Also τ²'s `dummy_user` (`DummyUser`, same file), the silent
 * counterpart of a solo agent.
 */
import type { ChatModel, Incoming, Participant, ParticipantContext, ParticipantSession, Turn } from "../../../core/contracts.ts";
import { ConfigError } from "../../../errors/error-tree.ts";
import type { ToolDefinition } from "../../../core/model-types.ts";
import type { ChatMessage } from "../../../core/types.ts";
import { chatFromTurn, deepFreeze, requestArguments, systemMessage, toolMessage, turnFromCompletion } from "./llm-agent.ts";
import type { Tau2Task } from "../tasks.ts";

/** What the simulator sends the model: its system prompt and (for dual-control domains) its tools. */
export interface Tau2UserSetup {
  systemPrompt: string;
  tools: readonly ToolDefinition[];
}

class Tau2UserSession implements ParticipantSession {
  private readonly messages: ChatMessage[];

  constructor(
    private readonly model: ChatModel,
    private readonly setup: Tau2UserSetup,
    private readonly params: Record<string, unknown>,
    private readonly temperature: number | undefined,
    context: ParticipantContext<Tau2Task>,
  ) {
    this.messages = [systemMessage(setup)];
    for (const entry of context.history) {
      if (entry.role === "tool") this.messages.push(toolMessage(entry.id ?? "", entry.content ?? ""));
      else if (entry.role === "user")
        this.messages.push(chatFromTurn("assistant", entry.content, entry.toolCalls)); // its own words, flipped
      else this.messages.push(deepFreeze({ role: "user", content: entry.content ?? "" }));
    }
  }

  async next(incoming: Incoming | null, signal: AbortSignal): Promise<Turn> {
    if (incoming?.type === "tool_results") for (const result of incoming.results) this.messages.push(toolMessage(result.id, result.content));
    else if (incoming?.type === "text" && incoming.content !== null && incoming.content !== "") this.messages.push(deepFreeze({ role: "user", content: incoming.content }));
    const tools = this.setup.tools.length > 0 ? this.setup.tools : undefined;
    const completion = await this.model.complete({ messages: this.messages, tools, toolChoice: tools ? "auto" : undefined, temperature: this.temperature, params: this.params, signal });
    const turn = turnFromCompletion(completion.message, completion.cost, completion.usage);
    this.messages.push(chatFromTurn("assistant", completion.message.content, turn.toolCalls));
    return turn;
  }
}

/** `--user user_simulator`; `setupFor` builds the prompt and tools for an episode. */
export function tau2UserSimulator(model: () => ChatModel, llmArgs: Record<string, unknown>, setupFor: (context: ParticipantContext<Tau2Task>) => Tau2UserSetup): Participant<Tau2Task> {
  return {
    name: "user_simulator",
    start: (context) => {
      const { temperature, params } = requestArguments(llmArgs, context.seed);
      return new Tau2UserSession(model(), setupFor(context), params, temperature, context);
    },
  };
}

/** τ²'s `dummy_user`: only valid with a solo agent, which never hands it a turn. */
export const tau2DummyUser: Participant<Tau2Task> = {
  name: "dummy_user",
  start: (context) => {
    if (!context.solo) throw new ConfigError("dummy_user is only valid with a solo agent (llm_agent_solo)");
    return {
      next: async () => {
        throw new ConfigError("dummy_user does not generate messages (a solo agent talks to no user)");
      },
    };
  },
};
