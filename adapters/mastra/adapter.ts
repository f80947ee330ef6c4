/**
 * The Mastra adapter: drives an unmodified Mastra 0.24 `Agent` through a τ-bench episode. Each user
 * turn is one `agent.generate(history, { maxSteps, abortSignal })` (Mastra's own agentic loop over
 * an AI SDK v5 model); `result.text` becomes the `respond` action and `result.response.messages`
 * extends the history. No Mastra memory is used by the adapter: the history is passed each turn.
 */
import { EventEmitter } from "node:events";
import { ConfigError } from "../../src/errors/error-tree.ts";
import type { ConversationContext, FrameworkAdapter, FrameworkConversation, TurnOutcome } from "../common/driver.ts";
import type { UserAgentSource } from "../../src/participants/user-module.ts";
import { trajectoryFromModelMessages } from "../vercel-ai/adapter.ts";
import { FRAMEWORK, mastraHook, patchMastraAgentPrototype } from "./patch.ts";
import { OPENAI_PUBLIC_API } from "../common/endpoint.ts";

type ModelMessage = { role: string; content: unknown };

/** What the adapter needs from a Mastra agent. */
export interface MastraAgentLike {
  generate(
    messages: ModelMessage[],
    options?: Record<string, unknown>,
  ): Promise<{
    text: string;
    error?: unknown;
    response?: { messages?: ModelMessage[] };
    steps?: unknown[];
    totalUsage?: { inputTokens?: number; outputTokens?: number };
    usage?: { inputTokens?: number; outputTokens?: number };
  }>;
  getTools: unknown;
  getInstructions?: (...args: unknown[]) => unknown;
}

function isMastraAgent(value: unknown): value is MastraAgentLike {
  return !!value && typeof value === "object" && typeof (value as MastraAgentLike).generate === "function" && typeof (value as MastraAgentLike).getTools === "function";
}

/**
 * Mastra's agentic loop (`Workflow.execute` in @mastra/core 0.24) adds an abort listener to its
 * run's own signal for every step and removes none until the run ends, so a turn of more than ten
 * steps made Node print `MaxListenersExceededWarning` on the user's terminal — not a leak of ours,
 * nor one the user can act on. Node gives an `AbortSignal` the default limit in force when the
 * signal is made, so while a Mastra turn runs the default is raised (counted, restored when the
 * last concurrent turn ends): the signals Mastra makes then take up to {@link STEP_LISTENERS}.
 */
const STEP_LISTENERS = 1000;
let turnsRunning = 0;
let savedDefault = EventEmitter.defaultMaxListeners;

async function withListenerHeadroom<T>(turn: () => Promise<T>): Promise<T> {
  if (turnsRunning++ === 0) {
    savedDefault = EventEmitter.defaultMaxListeners;
    EventEmitter.defaultMaxListeners = Math.max(savedDefault, STEP_LISTENERS);
  }
  try {
    return await turn();
  } finally {
    if (--turnsRunning === 0) EventEmitter.defaultMaxListeners = savedDefault;
  }
}

class MastraConversation implements FrameworkConversation {
  system?: string;
  private readonly history: ModelMessage[] = [];

  constructor(
    private readonly agent: MastraAgentLike,
    private readonly maxSteps: number,
  ) {}

  async init(): Promise<this> {
    try {
      const instructions = await this.agent.getInstructions?.();
      if (typeof instructions === "string") this.system = instructions;
    } catch {
      // dynamic instructions that need a runtime context: the trajectory just has no system message
    }
    return this;
  }

  async turn(userMessage: string, signal: AbortSignal): Promise<TurnOutcome> {
    this.history.push({ role: "user", content: userMessage });
    const result = await withListenerHeadroom(() => this.agent.generate([...this.history], { maxSteps: this.maxSteps, abortSignal: signal }));
    // Mastra reports model failures in the result instead of throwing.
    if (result.error) throw result.error instanceof Error ? result.error : new Error(String(result.error));
    const added = result.response?.messages ?? [];
    this.history.push(...added);
    const messages = trajectoryFromModelMessages(added);
    const last = messages[messages.length - 1];
    const trimmed = last && last.role === "assistant" && !last.tool_calls ? messages.slice(0, -1) : messages;
    const usage = result.totalUsage ?? result.usage;
    return {
      text: result.text ?? "",
      messages: trimmed,
      usage: { calls: result.steps?.length ?? 1, promptTokens: usage?.inputTokens ?? 0, completionTokens: usage?.outputTokens ?? 0 },
    };
  }
}

/** The `mastra` strategy's framework half. */
export const mastraAdapter: FrameworkAdapter<MastraAgentLike> = {
  name: FRAMEWORK,
  // The user's module builds the model; --base-url reaches it only through createAgent({baseURL}).
  defaultEndpoint: () => `where your module's model points (Mastra sends "openai/…" models to OpenAI's public API, ${OPENAI_PUBLIC_API})`,
  hooks: [mastraHook],
  prepare(candidate: unknown, source: UserAgentSource): MastraAgentLike {
    if (!isMastraAgent(candidate)) {
      throw new ConfigError(`${source.modulePath}: export "${source.exportName}" is not a Mastra Agent${source.kind === "factory" ? " (the factory must return one)" : ""}`);
    }
    patchMastraAgentPrototype(Object.getPrototypeOf(candidate) as object);
    return candidate;
  },
  converse(agent: MastraAgentLike, { maxTurns }: ConversationContext): Promise<FrameworkConversation> {
    return new MastraConversation(agent, maxTurns).init();
  },
};
