/**
 * What a framework adapter provides (load-time hooks, how to recognise and patch the user's agent,
 * how to hand one user turn to the framework's own run loop) and the chat-model contract agents and
 * user simulators call. No framework is imported here: each adapter converts into these shapes.
 */
import type { ChatMessage } from "./types.ts";
import type { CompletionRequest, CompletionResult, ModelRole } from "./model-types.ts";

/** A load-time hook: patches a framework's exports as the module loads (ESM or CJS). */
export interface ModuleHook {
  /** Unique id; installing the same id twice is a no-op. */
  readonly id: string;
  /** Package names or exported subpaths (`@langchain/core/tools`). Never internal file paths. */
  readonly modules: readonly string[];
  onLoad(exports: Record<string, unknown>, info: ModuleLoadInfo): Record<string, unknown> | void;
}

export interface ModuleLoadInfo {
  /** The matched module name or specifier. */
  module: string;
  /** Which module system loaded this copy (dual packages load one of each). */
  system: "esm" | "cjs";
  baseDir?: string;
}

/** A loaded user module and the export chosen from it. */
export interface UserAgentSource {
  modulePath: string;
  exportName: string;
  /** A factory (called once per episode, so episodes never share agent state) or a ready agent (shared). */
  kind: "factory" | "instance";
  value: unknown;
}

/** Token usage of one framework turn (what the framework reports). */
export interface UsageDelta {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/** One user turn handed to the framework's own run loop. */
export interface TurnOutcome {
  /** The agent's final text for this turn; it becomes a `respond` action. */
  text: string;
  /** The turn's assistant/tool messages in τ-bench's trajectory shape (not the user message). */
  messages: ChatMessage[];
  usage?: UsageDelta;
}

/** A conversation with one framework agent, for one episode; it keeps the history in the framework's own shape. */
export interface FrameworkConversation {
  /** The agent's system prompt, when it can be read, for the trajectory's first message. */
  readonly system?: string;
  turn(userMessage: string, signal: AbortSignal): Promise<TurnOutcome>;
}

/** What an adapter may read of the run's settings to build the framework's model client. */
export interface FrameworkSettings {
  apiKey: string;
  baseURL?: string;
  model?: string;
  /** Every `--agent-option` as a string. */
  options: Readonly<Record<string, string>>;
}

export interface ConversationContext {
  settings: FrameworkSettings;
  /** The episode's step budget (`--max-steps`). */
  maxSteps: number;
  /**
   * The framework's own loop limit per user turn (model calls), where it takes one per call:
   * `--agent-option maxTurns`, else one more than `maxSteps`, so the step budget (which ends the
   * episode as `max_steps`) always trips before the framework's own limit (an error).
   */
  maxTurns: number;
}

/**
 * What each framework adapter provides: its load-time hooks, how to recognise and patch the user's
 * agent object, and how to hand one user turn to the framework's run loop. Everything else (bridge
 * session, modes, recording, budgets, termination) is shared by the adapter driver, the episode kernel
 * (`src/kernel/episode-kernel.ts`) and each suite's loop.
 */
export interface FrameworkAdapter<A = unknown> {
  readonly name: string;
  /** `--agent-option` keys this adapter reads beyond the common ones (any other key is rejected as a typo). */
  readonly agentOptions?: readonly string[];
  readonly hooks: readonly ModuleHook[];
  /**
   * Where the framework sends model calls when the run gives no `--base-url`, in words for messages
   * (e.g. OpenAI's public API): errors and the run's notice name it, so a failure says where it went.
   */
  defaultEndpoint?(): string;
  /** Checks the user's export is this framework's agent and patches what can be reached from it (idempotent). */
  prepare(candidate: unknown, source: UserAgentSource): A | Promise<A>;
  converse(agent: A, context: ConversationContext): FrameworkConversation | Promise<FrameworkConversation>;
}

/**
 * A chat model as agents and user simulators use it: one completion per call, in OpenAI
 * chat-completions shapes (`model-types.ts`, no SDK types). The model layer's `ModelClient` (retries,
 * pricing, cache, per-endpoint queues) and the in-process scripted client both implement it.
 */
export interface ChatModel {
  readonly role: ModelRole;
  readonly model: string;
  complete(request: CompletionRequest): Promise<CompletionResult>;
}
