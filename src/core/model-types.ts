/**
 * Request and response shapes of the model layer. They are plain JSON (OpenAI chat-completions
 * shapes), so they can be cached on disk, stored in trajectories and compared in tests without
 * depending on SDK classes.
 */
import type { ChatMessage, ToolCallRecord } from "./types.ts";

/**
 * The roles that call chat models; each gets its own client and its own usage totals. `reranker`
 * is τ³ banking_knowledge's pointwise LLM reranker (its own model, endpoint and key).
 */
export const MODEL_ROLES = ["agent", "user", "judge", "reranker"] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

/** A tool offered to the model, in OpenAI function-tool form (τ-bench's `tools_info`). */
export interface ToolDefinition {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

/** OpenAI `tool_choice`. */
export type ToolChoice = "auto" | "none" | "required" | { type: "function"; function: { name: string } };

/** The assistant message a completion returns (OpenAI shape; `tool_calls` only when non-empty). */
export interface AssistantMessage {
  role: "assistant";
  content: string | null;
  tool_calls?: ToolCallRecord[];
}

/** Token counts as reported by the provider (never estimated). */
export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens served from the provider's prompt cache (a subset of `promptTokens`). */
  cachedPromptTokens?: number;
  /** False when the server reported no usage; the counts are then 0 and the cost is `null`. */
  reported?: boolean;
}

export interface CompletionRequest {
  messages: readonly ChatMessage[];
  tools?: readonly ToolDefinition[];
  /** Overrides the client's configured temperature for this call; `undefined` = provider default. */
  temperature?: number;
  toolChoice?: ToolChoice;
  /** Cancels the call (and any retry wait); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Extra request-body fields for this call only, after the client's own `params` (τ²'s per-trial
   * `seed`, a participant's LLM arguments). May not set the fields the client sets itself.
   */
  params?: Record<string, unknown>;
  /**
   * Extra text mixed into the response-cache key. Pass the trial number (e.g. `"trial:3"`) so that
   * repeated trials of the same task do not all replay the first trial's cached answers.
   */
  cacheNamespace?: string;
}

/** Where a cost figure came from. */
export type CostSource = "price-file" | "genai-prices";

export interface CompletionResult {
  message: AssistantMessage;
  usage: ModelUsage;
  /** US dollars; `null` when the model has no known price (never a made-up 0). */
  cost: number | null;
  costSource: CostSource | null;
  /** Wall time of this call, retries and retry waits included (a cache hit takes ~0 ms). */
  latencyMs: number;
  /** True when the response was replayed from the response cache (no request was sent). */
  cached: boolean;
  /** HTTP attempts made (0 for a cache hit). */
  attempts: number;
  finishReason: string | null;
}

/**
 * An embeddings endpoint as a run hands it to what retrieves by meaning (τ³ banking's dense
 * retrieval): its space, without secrets (caches key on it), and one vector per text, in order.
 */
export interface EmbeddingModel {
  readonly identity: { readonly model: string; readonly endpoint: string; readonly encodingFormat: "base64" | "float" };
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}
