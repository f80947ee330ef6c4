/**
 * τ²'s model-driven agents (τ²: src/tau2/agent/llm_agent.py, LLMAgent, LLMGTAgent and
 * LLMSoloAgent): `llm_agent`, `llm_agent_gt` (the ground-truth plan in its prompt) and
 * `llm_agent_solo` (a ticket instead of a user, every tool plus `done`, tool calls required). One
 * loop serves all three: the state is the system prompt plus the agent's view of the conversation;
 * each turn appends what arrived (a user message, or the results of its tool calls), asks the model
 * with the agent's tools, and returns its message. The prompts and tool schemas come from a
 * {@link Tau2AgentSetup}, built from τ²'s own sources in the data directory.
 */
import type { ChatModel, Incoming, Participant, ParticipantContext, ParticipantSession, Turn } from "../../../core/contracts.ts";
import { TaubridgeError, errorMarker } from "../../../errors/error-tree.ts";
import type { ToolDefinition } from "../../../core/model-types.ts";
import type { ChatMessage } from "../../../core/types.ts";
import type { Tau2Task } from "../tasks.ts";
import { type PyDict, parsePythonJson, pyJsonDumps } from "../../../value/index.ts";

/** What an agent kind sends the model: system prompt, tools, tool choice. */
export interface Tau2AgentSetup {
  systemPrompt: string;
  tools: readonly ToolDefinition[];
  toolChoice: "auto" | "required";
  /** Solo mode: a call to this tool ends the run (`###STOP###`). */
  stopTool?: { name: string; token: string };
}

/** A model answered with tool-call arguments that are not a JSON object (τ² parses them strictly: the attempt crashes). */
export class Tau2ToolArgumentsError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("Tau2ToolArgumentsError");
}

/**
 * Freezes a value and everything in it, and returns it. The τ² model participants freeze the
 * messages and tool lists they send: the model client's body writer (`src/model/chat-transport.ts`)
 * then knows they cannot change, serialises each once and reuses its bytes on every later turn
 * without checking it again (a conversation's history is sent on every call).
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}

const systemMessages = new WeakMap<object, ChatMessage>();

/**
 * A setup's system message, one frozen object per setup object: a factory that hands every
 * simulation of a task (or of a policy) the same setup thus gives them the same message, which the
 * model client's body writer serialises once per run instead of once per simulation (a τ² system
 * prompt is ~14 KB: formatting, freezing and serialising it per simulation was a visible share of
 * what a thousand concurrent simulations allocate).
 */
export function systemMessage(setup: { readonly systemPrompt: string }): ChatMessage {
  let message = systemMessages.get(setup);
  if (message === undefined) {
    message = deepFreeze({ role: "system", content: setup.systemPrompt });
    systemMessages.set(setup, message);
  }
  return message;
}

/** A frozen copy of tool schemas (made once per run: the originals stay as they are). */
export function frozenTools<T>(schemas: readonly T[]): readonly T[] {
  return deepFreeze(structuredClone(schemas) as T[]);
}

/** A history or incoming message in chat-completions form (assistant tool-call arguments as Python's `json.dumps`). */
export function chatFromTurn(role: "assistant" | "user", content: string | null, toolCalls: readonly { id: string; name: string; arguments: PyDict }[] | undefined): ChatMessage {
  if (role === "user") return deepFreeze({ role: "user", content: content ?? "" });
  const calls = (toolCalls ?? []).map((call) => ({ id: call.id, type: "function" as const, function: { name: call.name, arguments: pyJsonDumps(call.arguments) } }));
  return deepFreeze(calls.length > 0 ? { role: "assistant", content, tool_calls: calls } : { role: "assistant", content });
}

/** A tool result in chat-completions form (the agent's and the role-flipped user's histories share it). */
export function toolMessage(id: string, content: string): ChatMessage {
  return deepFreeze({ role: "tool", tool_call_id: id, content } as ChatMessage);
}

/** Parses the model's reply into a τ² turn (arguments strictly as JSON objects, losslessly). */
export function turnFromCompletion(
  message: { content: string | null; tool_calls?: readonly { id: string; function: { name: string; arguments: string } }[] },
  cost: number | null,
  usage: { promptTokens: number; completionTokens: number },
  raw?: unknown,
): Turn {
  const toolCalls = (message.tool_calls ?? []).map((call) => {
    let args: unknown;
    try {
      args = parsePythonJson(call.function.arguments || "{}");
    } catch (error) {
      throw new Tau2ToolArgumentsError(`the model's arguments for ${call.function.name} are not JSON: ${call.function.arguments.slice(0, 200)}`, { cause: error });
    }
    if (!(args instanceof Map)) throw new Tau2ToolArgumentsError(`the model's arguments for ${call.function.name} are not a JSON object`);
    return { id: call.id, name: call.function.name, arguments: args as PyDict };
  });
  return { content: message.content, toolCalls, cost, usage: { completion_tokens: usage.completionTokens, prompt_tokens: usage.promptTokens }, raw };
}

class Tau2LlmAgentSession implements ParticipantSession {
  private readonly messages: ChatMessage[];

  constructor(
    private readonly model: ChatModel,
    private readonly setup: Tau2AgentSetup,
    private readonly params: Record<string, unknown>,
    private readonly temperature: number | undefined,
    context: ParticipantContext<Tau2Task>,
  ) {
    this.messages = [systemMessage(setup)];
    for (const entry of context.history) {
      if (entry.role === "tool") this.messages.push(toolMessage(entry.id ?? "", entry.content ?? ""));
      else this.messages.push(chatFromTurn(entry.role, entry.content, entry.toolCalls));
    }
  }

  async next(incoming: Incoming | null, signal: AbortSignal): Promise<Turn> {
    if (incoming?.type === "text") this.messages.push(deepFreeze({ role: "user", content: incoming.content ?? "" }));
    else if (incoming?.type === "tool_results") for (const result of incoming.results) this.messages.push(toolMessage(result.id, result.content));
    const completion = await this.model.complete({ messages: this.messages, tools: this.setup.tools, toolChoice: this.setup.toolChoice, temperature: this.temperature, params: this.params, signal });
    let turn = turnFromCompletion(completion.message, completion.cost, completion.usage);
    // The history keeps the model's own message with its tool calls (parsed once: a solo agent's stop only changes the turn returned).
    this.messages.push(chatFromTurn("assistant", completion.message.content, turn.toolCalls));
    if (this.setup.stopTool && turn.toolCalls.some((call) => call.name === this.setup.stopTool?.name)) turn = { ...turn, content: this.setup.stopTool.token, toolCalls: [] };
    return turn;
  }

  isStop(turn: Turn): boolean {
    return this.setup.stopTool !== undefined && (turn.content ?? "").includes(this.setup.stopTool.token);
  }
}

/** Splits τ²'s LLM arguments into the client's temperature and the other request-body fields; the trial's seed overrides any given one, as in τ². */
export function requestArguments(llmArgs: Record<string, unknown>, seed: number | null): { temperature: number | undefined; params: Record<string, unknown> } {
  // The endpoint's settings (`api_base`, `api_version`: the client's), the key and litellm's retry count are not request-body fields.
  const { temperature, api_base: _apiBase, api_key: _apiKey, api_version: _apiVersion, num_retries: _retries, ...rest } = llmArgs;
  const params: Record<string, unknown> = { ...rest };
  if (seed !== null) params.seed = seed;
  return { temperature: typeof temperature === "number" ? temperature : undefined, params };
}

/** A τ² model agent; `setupFor` builds the kind's prompt and tools for an episode. */
export function tau2LlmAgent(name: string, model: () => ChatModel, llmArgs: Record<string, unknown>, setupFor: (context: ParticipantContext<Tau2Task>) => Tau2AgentSetup): Participant<Tau2Task> {
  return {
    name,
    trusted: true,
    start: (context) => {
      const { temperature, params } = requestArguments(llmArgs, context.seed);
      return new Tau2LlmAgentSession(model(), setupFor(context), params, temperature, context);
    },
  };
}
