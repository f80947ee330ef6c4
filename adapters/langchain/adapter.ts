/**
 * The LangChain.js / LangGraph.js adapter: drives an unmodified agent graph (langchain v1
 * `createAgent`, LangGraph's `createReactAgent`, or any runnable taking `{ messages }`) through a
 * τ-bench episode. Each user turn is one `agent.invoke({ messages: [...history, user] })`; the
 * graph calls the model at `--base-url` and its tools (through the patched
 * `StructuredTool.prototype.call`); the last AI message's text becomes the `respond` action and the
 * returned `messages` are the next turn's history.
 */
import { ConfigError } from "../../src/errors/error-tree.ts";
import type { ChatMessage } from "../../src/core/types.ts";
import type { ConversationContext, FrameworkAdapter, FrameworkConversation, TurnOutcome, UsageDelta } from "../common/driver.ts";
import type { UserAgentSource } from "../../src/participants/user-module.ts";
import { FRAMEWORK, langChainHook, patchReachableCopies } from "./patch.ts";
import { OPENAI_PUBLIC_API } from "../common/endpoint.ts";

type LcMessage = {
  content?: unknown;
  tool_calls?: Array<{ id?: string; name: string; args?: unknown }>;
  tool_call_id?: string;
  name?: string;
  usage_metadata?: { input_tokens?: number; output_tokens?: number };
  getType?: () => string;
  _getType?: () => string;
  type?: string;
  role?: string;
};

/** What the adapter needs from a LangChain/LangGraph agent. */
export interface MessagesRunnable {
  invoke(input: { messages: unknown[] }, config?: Record<string, unknown>): Promise<{ messages: LcMessage[] }>;
  options?: { systemPrompt?: unknown };
}

function isMessagesRunnable(value: unknown): value is MessagesRunnable {
  return !!value && typeof value === "object" && typeof (value as MessagesRunnable).invoke === "function";
}

/** The message kind: `ai`, `tool`, `human`, `system` (works for class instances and plain dicts). */
export function messageType(message: LcMessage): string {
  const type = message.getType?.() ?? message._getType?.() ?? message.type ?? message.role ?? "";
  return type === "assistant" ? "ai" : type === "user" ? "human" : type;
}

export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((part) => (typeof part === "string" ? part : part && typeof part === "object" && (part as { type?: string }).type === "text" ? String((part as { text?: unknown }).text ?? "") : ""))
      .join("");
  return content === undefined || content === null ? "" : JSON.stringify(content);
}

/** Converts LangChain messages (one turn's new messages) into τ-bench trajectory messages. */
export function trajectoryFromLangChain(messages: readonly LcMessage[]): ChatMessage[] {
  const result: ChatMessage[] = [];
  for (const message of messages) {
    const type = messageType(message);
    if (type === "ai") {
      const text = contentText(message.content);
      const calls = (message.tool_calls ?? []).map((call, index) => ({
        id: call.id ?? `call_${index}`,
        type: "function" as const,
        function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
      }));
      result.push(calls.length > 0 ? { role: "assistant", content: text || null, tool_calls: calls } : { role: "assistant", content: text });
    } else if (type === "tool") {
      result.push({ role: "tool", tool_call_id: String(message.tool_call_id ?? ""), name: String(message.name ?? ""), content: contentText(message.content) });
    }
  }
  return result;
}

function usageOf(messages: readonly LcMessage[]): UsageDelta {
  const usage = { calls: 0, promptTokens: 0, completionTokens: 0 };
  for (const message of messages) {
    if (messageType(message) !== "ai") continue;
    usage.calls += 1;
    usage.promptTokens += message.usage_metadata?.input_tokens ?? 0;
    usage.completionTokens += message.usage_metadata?.output_tokens ?? 0;
  }
  return usage;
}

class LangChainConversation implements FrameworkConversation {
  readonly system?: string;
  private history: unknown[] = [];

  constructor(
    private readonly agent: MessagesRunnable,
    private readonly recursionLimit: number,
  ) {
    const prompt = agent.options?.systemPrompt;
    if (typeof prompt === "string") this.system = prompt;
  }

  async turn(userMessage: string, signal: AbortSignal): Promise<TurnOutcome> {
    const input = [...this.history, { role: "user", content: userMessage }];
    const result = await this.agent.invoke({ messages: input }, { signal, recursionLimit: this.recursionLimit });
    const all = result?.messages ?? [];
    const added = all.slice(input.length);
    this.history = all;
    const lastAi = [...added].reverse().find((message) => messageType(message) === "ai");
    const messages = trajectoryFromLangChain(added);
    const last = messages[messages.length - 1];
    const trimmed = last && last.role === "assistant" && !last.tool_calls ? messages.slice(0, -1) : messages;
    return { text: lastAi && !lastAi.tool_calls?.length ? contentText(lastAi.content) : "", messages: trimmed, usage: usageOf(added) };
  }
}

/** The `langchain` strategy's framework half. */
export const langChainAdapter: FrameworkAdapter<MessagesRunnable> = {
  name: FRAMEWORK,
  // The user's module builds the chat model; --base-url reaches it only through its factory ({baseURL}).
  defaultEndpoint: () => `where your module's chat model points (ChatOpenAI defaults to OpenAI's public API, ${OPENAI_PUBLIC_API})`,
  hooks: [langChainHook],
  async prepare(candidate: unknown, source: UserAgentSource): Promise<MessagesRunnable> {
    if (!isMessagesRunnable(candidate)) {
      throw new ConfigError(
        `${source.modulePath}: export "${source.exportName}" is not a LangChain/LangGraph agent (an object with invoke({ messages }))${source.kind === "factory" ? "; the factory must return one" : ""}`,
      );
    }
    await patchReachableCopies(source.modulePath);
    return candidate;
  },
  converse(agent: MessagesRunnable, { maxTurns }: ConversationContext): FrameworkConversation {
    // A tool round is two graph steps (model, tools), plus middleware nodes; LangGraph's own
    // recursion limit must not cut the episode before `--max-steps` does.
    return new LangChainConversation(agent, 3 * maxTurns + 5);
  },
};
