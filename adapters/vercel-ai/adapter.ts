/**
 * The Vercel AI SDK adapter: drives an unmodified AI SDK 6 agent (a `ToolLoopAgent`, or any object
 * with the same `generate({ messages, abortSignal })` contract) through a τ-bench episode. Each user
 * turn is one `agent.generate` with the whole history; the SDK's tool loop calls the model at
 * `--base-url` and the bridged tools; `result.text` becomes the `respond` action and
 * `result.response.messages` extends the history.
 */
import { ConfigError } from "../../src/errors/error-tree.ts";
import type { ChatMessage } from "../../src/core/types.ts";
import type { ConversationContext, FrameworkAdapter, FrameworkConversation, TurnOutcome } from "../common/driver.ts";
import type { UserAgentSource } from "../../src/participants/user-module.ts";
import { FRAMEWORK, patchToolLoopAgentPrototype, vercelAIHook } from "./patch.ts";
import { OPENAI_PUBLIC_API } from "../common/endpoint.ts";

type Part = Record<string, unknown>;
type ModelMessage = { role: string; content: unknown };

/** What the adapter needs from an AI SDK agent. */
export interface GenerateAgent {
  generate(options: { messages: ModelMessage[]; abortSignal?: AbortSignal }): Promise<{
    text: string;
    response: { messages: ModelMessage[] };
    steps?: unknown[];
    totalUsage?: { inputTokens?: number; outputTokens?: number };
  }>;
  settings?: { instructions?: unknown };
}

function isGenerateAgent(value: unknown): value is GenerateAgent {
  return !!value && typeof value === "object" && typeof (value as GenerateAgent).generate === "function";
}

function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (output && typeof output === "object") {
    const { type, value } = output as { type?: string; value?: unknown };
    if (type === "text" || type === "error-text") return String(value ?? "");
    if (type === "json" || type === "error-json") return JSON.stringify(value);
    if (type === "execution-denied") return `execution denied${(output as { reason?: string }).reason ? `: ${(output as { reason?: string }).reason}` : ""}`;
    if (type === "content" && Array.isArray(value)) return value.map((part) => (part && typeof part === "object" && typeof (part as Part).text === "string" ? (part as Part).text : "")).join("");
  }
  return JSON.stringify(output ?? "");
}

/** Converts AI SDK model messages (one turn's `response.messages`) into τ-bench trajectory messages. */
export function trajectoryFromModelMessages(messages: readonly ModelMessage[]): ChatMessage[] {
  const result: ChatMessage[] = [];
  for (const message of messages) {
    if (message.role === "assistant") {
      const parts: Part[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : ((message.content as Part[]) ?? []);
      const text = parts
        .filter((part) => part.type === "text")
        .map((part) => String(part.text ?? ""))
        .join("");
      const calls = parts
        .filter((part) => part.type === "tool-call")
        .map((part) => ({
          id: String(part.toolCallId),
          type: "function" as const,
          function: { name: String(part.toolName), arguments: typeof part.input === "string" ? part.input : JSON.stringify(part.input ?? {}) },
        }));
      result.push(calls.length > 0 ? { role: "assistant", content: text || null, tool_calls: calls } : { role: "assistant", content: text });
    } else if (message.role === "tool") {
      for (const part of (message.content as Part[]) ?? []) {
        if (part.type !== "tool-result" && part.type !== "tool-error") continue;
        result.push({ role: "tool", tool_call_id: String(part.toolCallId), name: String(part.toolName), content: outputText(part.output ?? part.error) });
      }
    }
  }
  return result;
}

class VercelConversation implements FrameworkConversation {
  readonly system?: string;
  private readonly history: ModelMessage[] = [];

  constructor(private readonly agent: GenerateAgent) {
    const instructions = agent.settings?.instructions;
    if (typeof instructions === "string") this.system = instructions;
  }

  async turn(userMessage: string, signal: AbortSignal): Promise<TurnOutcome> {
    this.history.push({ role: "user", content: userMessage });
    const result = await this.agent.generate({ messages: [...this.history], abortSignal: signal });
    const added = result.response?.messages ?? [];
    this.history.push(...added);
    const messages = trajectoryFromModelMessages(added);
    const last = messages[messages.length - 1];
    const trimmed = last && last.role === "assistant" && !last.tool_calls ? messages.slice(0, -1) : messages;
    return {
      text: result.text ?? "",
      messages: trimmed,
      usage: { calls: result.steps?.length ?? 1, promptTokens: result.totalUsage?.inputTokens ?? 0, completionTokens: result.totalUsage?.outputTokens ?? 0 },
    };
  }
}

/** The `vercel-ai` strategy's framework half. */
export const vercelAIAdapter: FrameworkAdapter<GenerateAgent> = {
  name: FRAMEWORK,
  // The user's module builds the model (and its provider); --base-url reaches it only through createAgent({baseURL}).
  defaultEndpoint: () => `where your module's model points (the AI SDK's OpenAI providers default to OpenAI's public API, ${OPENAI_PUBLIC_API})`,
  hooks: [vercelAIHook],
  prepare(candidate: unknown, source: UserAgentSource): GenerateAgent {
    if (!isGenerateAgent(candidate)) {
      throw new ConfigError(
        `${source.modulePath}: export "${source.exportName}" is not an AI SDK agent (a ToolLoopAgent, or an object with generate({ messages, abortSignal }))${source.kind === "factory" ? "; the factory must return one" : ""}`,
      );
    }
    patchToolLoopAgentPrototype(Object.getPrototypeOf(candidate) as object);
    return candidate;
  },
  converse(agent: GenerateAgent, _context: ConversationContext): FrameworkConversation {
    return new VercelConversation(agent);
  },
};
