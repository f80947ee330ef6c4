/**
 * The OpenAI Agents SDK adapter: drives an unmodified `@openai/agents` `Agent` through a τ-bench
 * episode. Each user turn is one `Runner.run(agent, history)` (the SDK's own loop: model call, tool
 * calls through the bridge, repeat); its final output becomes the `respond` action.
 */
import type * as Sdk from "@openai/agents";
import { ConfigError } from "../../src/errors/error-tree.ts";
import type { ChatMessage } from "../../src/core/types.ts";
import type { ConversationContext, FrameworkAdapter, FrameworkConversation, TurnOutcome, UsageDelta } from "../common/driver.ts";
import type { UserAgentSource } from "../../src/participants/user-module.ts";
import { FRAMEWORK, openAIAgentsHook, prepareOpenAIAgent } from "./patch.ts";
import { openAIClientDefault } from "../common/endpoint.ts";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type SdkAgent = Sdk.Agent<any, any>;
type Item = Record<string, unknown>;

/**
 * The SDK, imported lazily: a static import would load it before our hooks are installed, and
 * import-in-the-middle cannot patch a module that is already in the ESM cache.
 */
async function loadSdk(): Promise<{ sdk: typeof Sdk; OpenAI: typeof import("openai").default }> {
  const [sdk, openai] = await Promise.all([import("@openai/agents"), import("openai")]);
  return { sdk, OpenAI: openai.default };
}

function isAgentLike(sdk: typeof Sdk, value: unknown): value is SdkAgent {
  return (
    value instanceof sdk.Agent ||
    (!!value && typeof value === "object" && typeof (value as { getAllTools?: unknown }).getAllTools === "function" && typeof (value as { name?: unknown }).name === "string")
  );
}

function textOfContent(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (part && typeof part === "object" && typeof (part as Item).text === "string" ? ((part as Item).text as string) : "")).join("");
  if (content && typeof content === "object" && typeof (content as Item).text === "string") return (content as Item).text as string;
  return content === undefined || content === null ? "" : JSON.stringify(content);
}

/**
 * Converts the SDK's protocol items (one turn's new history) into τ-bench trajectory messages:
 * consecutive `function_call`s become one assistant message with `tool_calls` (carrying any text
 * the model said just before them), `function_call_result`s become `tool` messages, assistant
 * text becomes an assistant message. Reasoning and handoff bookkeeping items are left out.
 */
export function trajectoryFromItems(items: readonly Item[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const names = new Map<string, string>();
  for (const item of items) {
    if (item.type === "function_call") {
      const id = String(item.callId ?? item.id ?? "");
      names.set(id, String(item.name));
      const call = { id, type: "function" as const, function: { name: String(item.name), arguments: String(item.arguments ?? "") } };
      // Calls of one model response follow its text (if any): they share one assistant message.
      const last = messages[messages.length - 1];
      if (last && last.role === "assistant") {
        last.tool_calls = [...(last.tool_calls ?? []), call];
      } else {
        messages.push({ role: "assistant", content: null, tool_calls: [call] });
      }
    } else if (item.type === "function_call_result") {
      const id = String(item.callId ?? "");
      const output = item.output;
      const content = typeof output === "string" ? output : output && typeof output === "object" && (output as Item).type === "text" ? String((output as Item).text ?? "") : textOfContent(output);
      messages.push({ role: "tool", tool_call_id: id, name: String(item.name ?? names.get(id) ?? ""), content });
    } else if (item.role === "assistant") {
      messages.push({ role: "assistant", content: textOfContent(item.content) });
    }
  }
  return messages;
}

function usageOf(result: { rawResponses?: Array<{ usage?: { requests?: number; inputTokens?: number; outputTokens?: number } }> }): UsageDelta {
  const usage = { calls: 0, promptTokens: 0, completionTokens: 0 };
  for (const response of result.rawResponses ?? []) {
    usage.calls += response.usage?.requests || 1;
    usage.promptTokens += response.usage?.inputTokens ?? 0;
    usage.completionTokens += response.usage?.outputTokens ?? 0;
  }
  return usage;
}

/** Drops the final assistant text (the driver records it with the `respond` action). */
export function withoutFinalText(messages: ChatMessage[]): ChatMessage[] {
  const last = messages[messages.length - 1];
  return last && last.role === "assistant" && !last.tool_calls ? messages.slice(0, -1) : messages;
}

class OpenAIAgentsConversation implements FrameworkConversation {
  readonly system?: string;
  private history: Sdk.AgentInputItem[] = [];
  private current: SdkAgent;

  constructor(
    private readonly sdk: typeof Sdk,
    agent: SdkAgent,
    private readonly runner: Sdk.Runner,
    private readonly maxTurns: number,
  ) {
    this.current = agent;
    if (typeof agent.instructions === "string") this.system = agent.instructions;
  }

  async turn(userMessage: string, signal: AbortSignal): Promise<TurnOutcome> {
    const input: Sdk.AgentInputItem[] = [...this.history, this.sdk.user(userMessage)];
    const result = await this.runner.run(this.current, input, { signal, maxTurns: this.maxTurns });
    const history = result.history;
    const newItems = history.slice(input.length) as unknown as Item[];
    this.history = history;
    if (result.lastAgent) this.current = result.lastAgent;
    const output = result.finalOutput;
    const text = typeof output === "string" ? output : output === undefined || output === null ? "" : JSON.stringify(output);
    return { text, messages: withoutFinalText(trajectoryFromItems(newItems)), usage: usageOf(result as never) };
  }
}

/** The `openai-agents` strategy's framework half. */
export const openAIAgentsAdapter: FrameworkAdapter<SdkAgent> = {
  name: FRAMEWORK,
  // converse() builds the Runner's own `openai` client, with --base-url when given.
  defaultEndpoint: () => openAIClientDefault(),
  agentOptions: ["openaiApi"],
  hooks: [openAIAgentsHook],
  async prepare(candidate: unknown, source: UserAgentSource): Promise<SdkAgent> {
    const { sdk } = await loadSdk();
    if (!isAgentLike(sdk, candidate)) {
      throw new ConfigError(`${source.modulePath}: export "${source.exportName}" is not an @openai/agents Agent${source.kind === "factory" ? " (the factory must return one)" : ""}`);
    }
    prepareOpenAIAgent(candidate);
    return candidate;
  },
  async converse(agent: SdkAgent, { settings, maxTurns }: ConversationContext): Promise<FrameworkConversation> {
    const { sdk, OpenAI } = await loadSdk();
    const useResponses = settings.options.openaiApi === "responses";
    const client = new OpenAI({ apiKey: settings.apiKey, ...(settings.baseURL ? { baseURL: settings.baseURL } : {}), maxRetries: 2 });
    const modelProvider = new sdk.OpenAIProvider({ openAIClient: client as never, useResponses });
    const runner = new sdk.Runner({ modelProvider, ...(settings.model ? { model: settings.model } : {}), tracingDisabled: true, workflowName: "taubridge" });
    return new OpenAIAgentsConversation(sdk, agent, runner, maxTurns);
  },
};
