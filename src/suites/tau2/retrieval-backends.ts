/**
 * The model-backed retrieval pieces of τ³ banking_knowledge over real clients: dense retrieval
 * through any OpenAI-compatible embeddings endpoint (`src/model/embedding-client.ts`) with the
 * document embeddings cached on disk, and the pointwise LLM reranker on a chat client of the
 * `reranker` role (`src/model/model-client.ts`). Why here and not in `knowledge/`: that folder is
 * kept free of HTTP clients and of the data layer (its dependency rule); this module is where the
 * suite joins them, and the domain receives only the objects it builds.
 *
 * The original's embedders, as `retrieval.py`'s variants name them (`embedder_type`, `model`):
 * - `openai`: `OpenAIEmbedder` — the model name as given (`text-embedding-3-large`), OpenAI's
 *   endpoint and `OPENAI_API_KEY`, no `encoding_format` (so base64 float32 values), queries as is;
 * - `openrouter`: `OpenRouterEmbedder` — short names mapped to OpenRouter ids
 *   (`qwen3-embedding-8b` → `qwen/qwen3-embedding-8b`), OpenRouter's endpoint and
 *   `OPENROUTER_API_KEY`, `encoding_format="float"`, and for Qwen models the query (never a
 *   document) prefixed with `DEFAULT_QWEN_QUERY_INSTRUCTION` in `_format_text`'s format.
 * Every endpoint setting can be overridden (a local server, another key variable).
 */
import { join } from "node:path";
import { defaultCacheDir } from "../../data/locations.ts";
import { ModelCallError, ModelEndpointRefusedError } from "../../model/errors.ts";
import { createEmbeddingClient, type EmbeddingClient } from "../../model/embedding-client.ts";
import type { FetchFunction } from "../../model/http-transport.ts";
import { createModelClient, type ModelClient } from "../../model/model-client.ts";
import type { ChatModel } from "../../core/contracts.ts";
import type { EmbeddingModel } from "../../core/model-types.ts";
import { DenseRetriever, DocumentEmbeddingCache, type KnowledgeBase, PointwiseReranker, qwenQueryFormatter, type RetrievalBackends as DomainRetrievalBackends } from "./knowledge/index.ts";

/** The original's default reranker model (`PointwiseLLMReranker(model="gpt-5.2")`; no variant overrides it). */
export const UPSTREAM_RERANKER_MODEL = "gpt-5.2";

/** `OpenRouterEmbedder.SUPPORTED_MODELS`: short name → OpenRouter id and whether queries need the instruction. */
const OPENROUTER_MODELS: Readonly<Record<string, { id: string; instruction: boolean }>> = {
  "qwen3-embedding-4b": { id: "qwen/qwen3-embedding-4b", instruction: true },
  "qwen3-embedding-8b": { id: "qwen/qwen3-embedding-8b", instruction: true },
  "gemini-embedding-001": { id: "google/gemini-embedding-001", instruction: false },
};

/** Which embedder, as a variant names it, and where to reach it. */
export interface EmbedderSettings {
  /** The original's `embedder_type`. */
  readonly kind: "openai" | "openrouter";
  /** The variant's `embedder_model` (`text-embedding-3-large`, `qwen3-embedding-8b`, or any id). */
  readonly model: string;
  /** Provider of `src/model/providers.ts` (default: `openai` / `openrouter` by kind). */
  readonly provider?: string;
  /** Default: the provider's. */
  readonly baseUrl?: string;
  /** The NAME of the variable holding the key (default: the provider's). */
  readonly apiKeyVariable?: string;
  /** Texts per request (default: all documents in one request, as the original). */
  readonly batchSize?: number;
  readonly timeoutMs?: number;
  readonly maxAttempts?: number;
}

/** The reranker's chat endpoint and settings. */
export interface RerankerSettings {
  /** Default {@link UPSTREAM_RERANKER_MODEL}. */
  readonly model?: string;
  /** Default `openai` (the original's `OpenAI()` client). */
  readonly provider?: string;
  readonly baseUrl?: string;
  readonly apiKeyVariable?: string;
  /** Default `"low"` (sent to `gpt-5*` models only); `null` sends none. */
  readonly reasoningEffort?: string | null;
  /** Calls in flight per search (default 20). */
  readonly maxConcurrency?: number;
  readonly timeoutMs?: number;
  readonly maxAttempts?: number;
}

/** What {@link createRetrievalBackends} needs. */
export interface RetrievalBackendOptions {
  /** The τ² data directory (the original's texts are read from its sources). */
  readonly dataRoot: string;
  readonly embedder?: EmbedderSettings;
  readonly reranker?: RerankerSettings;
  /**
   * The run's own clients for these roles (`src/run/model-clients.ts`: response cache, prices,
   * per-endpoint queue, usage per role, logs, a dead endpoint stopping the run). Without them the
   * clients are made here from the settings (a caller with no run layer).
   */
  readonly clients?: { readonly embedder?: EmbeddingModel; readonly reranker?: ChatModel };
  /** The taubridge cache directory (default `defaultCacheDir()`); embeddings go to `<cacheDir>/embeddings`. */
  readonly cacheDir?: string;
  /** Where cache warnings go (default stderr). */
  readonly warn?: (message: string) => void;
  /** Environment the keys are read from (default `process.env`) and HTTP transport, for tests. */
  readonly env?: Record<string, string | undefined>;
  readonly fetch?: FetchFunction;
}

/** The pieces a banking_knowledge environment plugs in (the domain's hook, {@link DomainRetrievalBackends}), and the clients behind them. */
export interface RetrievalBackends extends DomainRetrievalBackends {
  /** Present with `embedder`: the dense retriever over a knowledge base (one per knowledge base and `topK`, shared). */
  readonly dense?: (knowledgeBase: KnowledgeBase, options?: { topK?: number }) => Promise<DenseRetriever>;
  /** Present with `reranker`: a reranker with the variant's `reranker_min_score` (default 5). */
  readonly reranker?: (options?: { minScore?: number }) => PointwiseReranker;
  /** The clients, for usage accounting and run manifests. */
  readonly embeddingClient?: EmbeddingClient;
  readonly rerankerClient?: ModelClient;
}

/**
 * Builds the clients (validated, keys read) before any request: a missing key or a bad URL is a
 * `ConfigError` here, not in the middle of an episode.
 */
export function createRetrievalBackends(options: RetrievalBackendOptions): RetrievalBackends {
  const dependencies = { ...(options.env ? { env: options.env } : {}), ...(options.fetch ? { fetch: options.fetch } : {}) };
  const backends: { -readonly [K in keyof RetrievalBackends]: RetrievalBackends[K] } = {};
  if (options.embedder) {
    const own = options.clients?.embedder;
    const { client, formatQuery } = own
      ? { client: own, formatQuery: embedderEndpoint(options.embedder).instructed ? qwenQueryFormatter(options.dataRoot) : undefined }
      : embedderFor(options.embedder, options.dataRoot, dependencies);
    const cache = new DocumentEmbeddingCache(join(options.cacheDir ?? defaultCacheDir(), "embeddings"), options.warn);
    const built = new WeakMap<KnowledgeBase, Map<number, Promise<DenseRetriever>>>();
    if (!own) backends.embeddingClient = client as EmbeddingClient;
    backends.dense = (knowledgeBase, denseOptions = {}) => {
      const topK = denseOptions.topK ?? 10;
      let byTopK = built.get(knowledgeBase);
      if (!byTopK) built.set(knowledgeBase, (byTopK = new Map()));
      let retriever = byTopK.get(topK);
      if (!retriever) {
        retriever = DenseRetriever.create(knowledgeBase, client, { dataRoot: options.dataRoot, topK, cache, ...(formatQuery ? { formatQuery } : {}) });
        byTopK.set(topK, retriever);
        retriever.catch(() => byTopK.delete(topK));
      }
      return retriever;
    };
  }
  if (options.reranker) {
    const settings = options.reranker;
    const model = settings.model ?? UPSTREAM_RERANKER_MODEL;
    const chat: ChatModel =
      options.clients?.reranker ??
      createModelClient(
        {
          role: "reranker",
          model,
          provider: settings.provider ?? "openai",
          ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
          ...(settings.apiKeyVariable ? { apiKeyEnv: settings.apiKeyVariable } : {}),
          ...(settings.timeoutMs ? { timeoutMs: settings.timeoutMs } : {}),
          ...(settings.maxAttempts ? { maxAttempts: settings.maxAttempts } : {}),
        },
        dependencies,
      );
    if (!options.clients?.reranker) backends.rerankerClient = chat as ModelClient;
    backends.reranker = (rerankerOptions = {}) =>
      new PointwiseReranker({
        dataRoot: options.dataRoot,
        chat,
        model,
        ...(rerankerOptions.minScore !== undefined ? { minScore: rerankerOptions.minScore } : {}),
        ...(settings.reasoningEffort !== undefined ? { reasoningEffort: settings.reasoningEffort } : {}),
        ...(settings.maxConcurrency !== undefined ? { maxConcurrency: settings.maxConcurrency } : {}),
        isFatal: isMisconfiguredEndpoint,
      });
  }
  return backends;
}

/**
 * Where and how a variant's embedder is called: the model as sent (OpenRouter's id for a short
 * name), the provider, the number format the original asks for, and whether queries carry Qwen's
 * instruction.
 */
export function embedderEndpoint(settings: EmbedderSettings): {
  model: string;
  provider: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  encodingFormat: "base64" | "float";
  batchSize?: number;
  instructed: boolean;
} {
  const known = settings.kind === "openrouter" ? OPENROUTER_MODELS[settings.model] : undefined;
  return {
    model: known?.id ?? settings.model,
    provider: settings.provider ?? settings.kind,
    encodingFormat: settings.kind === "openrouter" ? "float" : "base64",
    ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    ...(settings.apiKeyVariable ? { apiKeyEnv: settings.apiKeyVariable } : {}),
    ...(settings.batchSize ? { batchSize: settings.batchSize } : {}),
    instructed: settings.kind === "openrouter" && (known ? known.instruction : settings.model.toLowerCase().includes("qwen")),
  };
}

/** The embeddings client of a variant's embedder, and its query formatting (Qwen's instruction). */
function embedderFor(
  settings: EmbedderSettings,
  dataRoot: string,
  dependencies: { env?: Record<string, string | undefined>; fetch?: FetchFunction },
): { client: EmbeddingClient; formatQuery?: (query: string) => string } {
  const endpoint = embedderEndpoint(settings);
  const client = createEmbeddingClient(
    {
      model: endpoint.model,
      provider: endpoint.provider,
      encodingFormat: endpoint.encodingFormat,
      ...(endpoint.baseUrl ? { baseURL: endpoint.baseUrl } : {}),
      ...(endpoint.apiKeyEnv ? { apiKeyEnv: endpoint.apiKeyEnv } : {}),
      ...(endpoint.batchSize ? { batchSize: endpoint.batchSize } : {}),
      ...(settings.timeoutMs ? { timeoutMs: settings.timeoutMs } : {}),
      ...(settings.maxAttempts ? { maxAttempts: settings.maxAttempts } : {}),
    },
    dependencies,
  );
  return endpoint.instructed ? { client, formatQuery: qwenQueryFormatter(dataRoot) } : { client };
}

/** A reranker failure that is the endpoint's configuration, not one document's: nothing listening, a rejected key, an unknown model. */
function isMisconfiguredEndpoint(error: unknown): boolean {
  if (ModelEndpointRefusedError.isInstance(error)) return true;
  return ModelCallError.isInstance(error) && (error.status === 401 || error.status === 403 || error.status === 404);
}
