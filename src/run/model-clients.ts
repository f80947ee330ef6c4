import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RunModels } from "../core/strategies.ts";
import type { EmbeddingModel } from "../core/model-types.ts";
import type { RoleUsage } from "../core/types.ts";
import { createEmbeddingClient, type EmbeddingClient } from "../model/embedding-client.ts";
import { writeFileAtomic } from "./atomic-file.ts";
import { ConfigError, fileErrorText } from "../errors/error-tree.ts";
import { ModelEndpointRefusedError, ModelEndpointUnreachableError } from "../model/errors.ts";
import { createModelClient, type ModelClient } from "../model/model-client.ts";
import { unreachableEndpoint } from "../model/endpoint-probe.ts";
import { parsePriceTable, type PriceTable } from "../model/pricing.ts";
import { ResponseCache } from "../model/response-cache.ts";
import { runSecrets } from "../secrets/redact.ts";
import type { CompletionRequest, CompletionResult } from "../model/types.ts";
import { callLogActive, recordModelCall, recordRetry } from "./call-log.ts";
import type { FetchFunction } from "../model/http-transport.ts";

/** Which flag sets each role's endpoint, for the run-stopping message (a suite may name its own). */
const BASE_URL_FLAGS: Record<EndpointRole, string> = {
  agent: "--base-url",
  user: "--user-base-url",
  judge: "--judge-base-url",
  reranker: "--reranker-base-url",
  embedder: "--embedder-base-url",
};

type ModelRoleName = "agent" | "user" | "judge" | "reranker";
type EndpointRole = ModelRoleName | "embedder";

/** The pointwise reranker rates up to 20 documents at once per search (the original's thread pool): its queue takes that many per running episode. */
const RERANKER_CALLS_PER_SEARCH = 20;

function loadPrices(path: string | undefined): PriceTable | undefined {
  if (!path) return undefined;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`cannot read price file ${path}: ${fileErrorText(error)}`, { cause: error });
  }
  try {
    return parsePriceTable(JSON.parse(text), path);
  } catch (error) {
    throw new ConfigError(`${path}: ${(error as Error).message}`);
  }
}

/**
 * At most `limit` calls at once to one endpoint; the others wait and start in the order they came,
 * each as one ends. Not p-queue: its per-task bookkeeping (an options copy, an id, a symbol, a
 * running-task record, events) lived as long as each model call (~500 ms at a thousand
 * simulations), so the collector copied and promoted it, and with `--max-concurrency` = the
 * simulations it never made a call wait.
 */
export class EndpointLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  /**
   * Takes a slot: `undefined` when one was free, else a promise that resolves once a slot passes
   * to this call. Every slot taken is given back with {@link leave}, whatever the call's outcome.
   */
  enter(): Promise<void> | undefined {
    if (this.running < this.limit) {
      this.running++;
      return undefined;
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Gives a slot back: it passes to the first waiting call, else it is freed. */
  leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  async run<T>(operation: () => Promise<T>): Promise<T> {
    const entered = this.enter();
    if (entered) await entered;
    try {
      return await operation();
    } finally {
      this.leave();
    }
  }
}

/**
 * Limits concurrent calls per model endpoint (base URL + model): agent and user calls to the same
 * server share one queue, so `--max-concurrency` bounds the load each server sees. A call made
 * inside a logging episode (`call-log.ts`: `--log-level DEBUG`, `--verbose-logs`) is logged when it ends.
 *
 * The limit is taken and given back in the wrapper's own `async` function (not `limit.run` with a
 * closure per call), and the wrapper is an object whose prototype is the client (not a `Proxy`):
 * each suspended `async` frame and closure of a call lives as long as it waits for the model, and
 * a `Proxy` made every participant's `model.complete` a trap call.
 */
function limited(client: ModelClient, limit: EndpointLimit, onRefused: (error: ModelEndpointRefusedError) => void): ModelClient {
  const endpoint = { provider: client.provider, model: client.model, baseURL: client.describe().baseURL };
  const logged = (request: CompletionRequest, startedAt: number, outcome: { result: CompletionResult } | { error: unknown }) =>
    recordModelCall({
      role: client.role,
      endpoint,
      request: { messages: request.messages, tools: request.tools, toolChoice: request.toolChoice, temperature: request.temperature, params: request.params },
      ...outcome,
      startedAt,
    });
  const complete = async (request: CompletionRequest): Promise<CompletionResult> => {
    const startedAt = callLogActive() ? Date.now() : 0;
    try {
      const entered = limit.enter();
      if (entered) await entered;
      let result: CompletionResult;
      try {
        result = await client.complete(request);
      } finally {
        limit.leave();
      }
      if (startedAt) logged(request, startedAt, { result });
      return result;
    } catch (error) {
      if (startedAt) logged(request, startedAt, { error });
      if (ModelEndpointRefusedError.isInstance(error)) onRefused(error);
      throw error;
    }
  };
  const wrapped = Object.create(client) as ModelClient;
  Object.defineProperty(wrapped, "complete", { value: complete, enumerable: true });
  return wrapped;
}

/** What the per-role clients are made from: the model flags of a run (the same for both suites). */
export interface ModelSettings {
  model?: string;
  modelProvider?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  /** Azure's `api-version` for the agent's model (τ²: `api_version` in its LLM arguments). */
  apiVersion?: string;
  userModel?: string;
  userModelProvider?: string;
  userBaseUrl?: string;
  userApiKeyEnv?: string;
  userApiVersion?: string;
  /** τ²'s NL-assertion judge. */
  judgeModel?: string;
  judgeProvider?: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  /** τ³ retrieval's pointwise reranker (a chat model of the `reranker` role), when the run's variant needs one. */
  reranker?: { model: string; provider: string; baseUrl?: string; apiKeyEnv?: string };
  /** τ³ retrieval's embeddings endpoint, when the run's variant needs one (the model as sent, its number format, texts per request). */
  embedder?: { model: string; provider: string; baseUrl?: string; apiKeyEnv?: string; encodingFormat: "base64" | "float"; batchSize?: number };
  /** What the user changes to point a role elsewhere, when the suite spells it differently (τ²: `api_base` in `--agent-llm-args`). */
  endpointSettings?: Partial<Record<EndpointRole, string>>;
  /** The agent's sampling temperature (τ-bench's `--temperature`; τ²'s is in its LLM arguments). */
  temperature?: number;
  modelTimeoutMs: number;
  modelMaxAttempts: number;
  priceFile?: string;
  cacheDir?: string;
  /** Calls in flight per endpoint (the run's concurrency). */
  maxConcurrency: number;
  /** What the run knows to be secret beyond these settings (τ²: its LLM arguments), never written to the cache (`src/secrets`). */
  secrets?: readonly string[];
  /**
   * The HTTP `fetch` a role's client sends its requests through (default: the pooled transport).
   * A queue worker passes one that holds the limits shared by every worker (`--provider-limit`,
   * `--rate-limit`, a 429's pause) around each request.
   */
  fetchFor?: (endpoint: ModelEndpoint) => FetchFunction | undefined;
  /** Where the run's warnings go (a response cache that stops working in the middle of the run). */
  warn?: (message: string) => void;
}

/** Which endpoint a role's client calls, for {@link ModelSettings.fetchFor}. */
export interface ModelEndpoint {
  role: ModelRoleName;
  provider: string;
  model: string;
  /** As configured (undefined: the provider's default). */
  baseURL: string | undefined;
}

/** Builds the per-role clients from the run's model settings (validated before the first episode). */
export function createRunModels(config: ModelSettings): RunModels {
  const prices = loadPrices(config.priceFile);
  // The cache writes every answer to disk: it is told what the run knows to be secret (src/secrets).
  const cache = config.cacheDir ? new ResponseCache(config.cacheDir, { secrets: [...runSecrets(config), ...(config.secrets ?? [])], ...(config.warn ? { warn: config.warn } : {}) }) : undefined;
  const queues = new Map<string, EndpointLimit>();
  const clients = new Map<string, ModelClient>();
  let unreachable: ModelEndpointUnreachableError | undefined;
  const onRefused = (error: ModelEndpointRefusedError) => {
    if (unreachable || !error.neverAnswered) return;
    const role = error.role as EndpointRole;
    const setting = config.endpointSettings?.[role] ?? (BASE_URL_FLAGS[role] as string | undefined);
    unreachable = new ModelEndpointUnreachableError(error, setting ?? `the ${error.role} model's base URL`);
  };
  const make = (role: ModelRoleName): ModelClient => {
    const cached = clients.get(role);
    if (cached) return cached;
    const settings = roleConfig(config, role);
    const fetch = config.fetchFor?.({ role, provider: settings.provider, model: settings.model, baseURL: settings.baseURL });
    const client = createModelClient(
      {
        ...settings,
        timeoutMs: config.modelTimeoutMs,
        maxAttempts: config.modelMaxAttempts,
        ...(cache ? { cache } : {}),
        ...(prices ? { prices } : {}),
      },
      { onRetry: (info) => recordRetry(role, settings.model, info), ...(fetch ? { fetch } : {}) },
    );
    const wrapped = limited(client, queueFor(`${client.baseURL}\0${client.model}`, role === "reranker" ? config.maxConcurrency * RERANKER_CALLS_PER_SEARCH : config.maxConcurrency), onRefused);
    clients.set(role, wrapped);
    return wrapped;
  };
  const queueFor = (endpoint: string, concurrency: number): EndpointLimit => {
    let queue = queues.get(endpoint);
    if (!queue) {
      queue = new EndpointLimit(concurrency);
      queues.set(endpoint, queue);
    }
    return queue;
  };
  let embedder: { model: EmbeddingModel; client: EmbeddingClient } | undefined;
  const makeEmbedder = (): EmbeddingModel => {
    if (embedder) return embedder.model;
    const settings = config.embedder;
    if (!settings) throw new ConfigError("this run's retrieval variant has no embedder (--embedder-base-url, --embedder-api-key-env)");
    const client = createEmbeddingClient(
      {
        model: settings.model,
        provider: settings.provider,
        encodingFormat: settings.encodingFormat,
        ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
        ...(settings.apiKeyEnv ? { apiKeyEnv: settings.apiKeyEnv } : {}),
        ...(settings.batchSize ? { batchSize: settings.batchSize } : {}),
        timeoutMs: config.modelTimeoutMs,
        maxAttempts: config.modelMaxAttempts,
        ...(prices ? { prices } : {}),
      },
      { onRetry: (info) => recordRetry("embedder", settings.model, info) },
    );
    const queue = queueFor(`${client.identity.endpoint}\0${settings.model}\0embeddings`, config.maxConcurrency);
    const queries = config.cacheDir ? new EmbeddingQueryCache(join(config.cacheDir, "embeddings", "queries"), client.identity) : undefined;
    embedder = { client, model: limitedEmbedder(client, queue, onRefused, queries) };
    return embedder.model;
  };
  return {
    agent: () => make("agent"),
    user: () => make("user"),
    judge: () => make("judge"),
    ...(config.reranker ? { reranker: () => make("reranker") } : {}),
    ...(config.embedder ? { embedder: makeEmbedder } : {}),
    roleUsage: () => {
      const usage: Record<string, RoleUsage> = {};
      const reranker = clients.get("reranker");
      if (reranker) usage.reranker = roleUsageOf(reranker.usage.toJSON());
      if (embedder) usage.embedder = roleUsageOf(embedder.client.usage.toJSON());
      return usage;
    },
    preflight: async () => {
      // The retrieval roles are called deep inside an episode, if at all: their endpoints are probed before the first one.
      const probes: Array<{ role: EndpointRole; provider: string; model: string; baseURL: string; displayURL: string }> = [];
      const reranker = config.reranker ? make("reranker") : undefined;
      if (reranker) probes.push({ role: "reranker", provider: reranker.provider, model: reranker.model, baseURL: reranker.baseURL, displayURL: reranker.describe().baseURL });
      if (config.embedder) {
        makeEmbedder();
        const client = (embedder as { client: EmbeddingClient }).client;
        probes.push({ role: "embedder", provider: client.provider, model: client.identity.model, baseURL: client.baseURL, displayURL: client.displayURL });
      }
      const codes = await Promise.all(probes.map((probe) => unreachableEndpoint(probe.baseURL)));
      for (const [index, code] of codes.entries()) {
        if (!code || unreachable) continue;
        const probe = probes[index];
        const what = code === "ECONNREFUSED" ? "connection refused (nothing is listening there)" : "the host name does not resolve";
        const details = { role: probe.role, provider: probe.provider, model: probe.model, baseURL: probe.displayURL, attempts: 0, retryable: false };
        const refused = new ModelEndpointRefusedError(`${probe.role} model "${probe.model}" (${probe.provider} at ${probe.displayURL}): ${what} (${code})`, details, code, true);
        unreachable = new ModelEndpointUnreachableError(refused, config.endpointSettings?.[probe.role] ?? BASE_URL_FLAGS[probe.role], "before the first episode");
      }
      if (unreachable) throw unreachable;
    },
    unreachable: () => unreachable,
  };
}

function roleUsageOf(totals: { calls: number; promptTokens: number; completionTokens: number; cost: number | null }): RoleUsage {
  return { calls: totals.calls, promptTokens: totals.promptTokens, completionTokens: totals.completionTokens, cost: totals.cost };
}

/**
 * An embeddings client as the run hands it out: its requests share the endpoint's queue, a refusal
 * before any answer stops the run (exit 2, naming the URL and the flag), each request is logged like
 * a chat call (`--log-level DEBUG`, `--verbose-logs`), and small requests (a search's query) are
 * answered from `--cache-dir` when asked before. Document sets are cached by the retrieval layer.
 */
function limitedEmbedder(client: EmbeddingClient, queue: EndpointLimit, onRefused: (error: ModelEndpointRefusedError) => void, queries: EmbeddingQueryCache | undefined): EmbeddingModel {
  const endpoint = { provider: client.provider, model: client.identity.model, baseURL: client.identity.endpoint };
  return {
    identity: client.identity,
    embed: async (texts, options = {}) => {
      const hit = queries?.read(texts);
      if (hit) return hit;
      const startedAt = callLogActive() ? Date.now() : 0;
      try {
        const vectors = await queue.run(() => client.embed(texts, options));
        if (startedAt) {
          const summary = { role: "assistant", content: `${vectors.length} vector(s) of ${vectors[0]?.length ?? 0} dimensions` };
          recordModelCall({
            role: "embedder",
            endpoint,
            request: { messages: texts },
            result: { message: summary, usage: { promptTokens: 0, completionTokens: 0 }, cost: null, latencyMs: Date.now() - startedAt, attempts: 1, cached: false },
            startedAt,
          });
        }
        queries?.write(texts, vectors);
        return vectors;
      } catch (error) {
        if (startedAt) recordModelCall({ role: "embedder", endpoint, request: { messages: texts }, error, startedAt });
        if (ModelEndpointRefusedError.isInstance(error)) onRefused(error);
        throw error;
      }
    },
  };
}

/** Texts per request up to which an embeddings answer is kept in `--cache-dir` (queries; document sets have their own cache). */
const QUERY_CACHE_MAX_TEXTS = 16;

/**
 * `--cache-dir`'s embeddings of small requests: one JSON file per request, keyed on the embedding
 * space (model, endpoint, number format) and the texts; written atomically, a corrupt or foreign
 * file is a miss. The vectors round-trip exactly (JSON holds every float64).
 */
class EmbeddingQueryCache {
  constructor(
    private readonly directory: string,
    private readonly identity: EmbeddingModel["identity"],
  ) {}

  private pathOf(texts: readonly string[]): string {
    const key = createHash("sha256")
      .update(JSON.stringify({ version: 1, model: this.identity.model, endpoint: this.identity.endpoint, encodingFormat: this.identity.encodingFormat, texts }))
      .digest("hex");
    return join(this.directory, key.slice(0, 2), `${key}.json`);
  }

  read(texts: readonly string[]): number[][] | undefined {
    if (texts.length > QUERY_CACHE_MAX_TEXTS) return undefined;
    try {
      const stored = JSON.parse(readFileSync(this.pathOf(texts), "utf8")) as { texts?: unknown; vectors?: unknown };
      if (JSON.stringify(stored.texts) !== JSON.stringify(texts) || !Array.isArray(stored.vectors) || stored.vectors.length !== texts.length) return undefined;
      return stored.vectors as number[][];
    } catch {
      return undefined;
    }
  }

  write(texts: readonly string[], vectors: number[][]): void {
    if (texts.length > QUERY_CACHE_MAX_TEXTS) return;
    try {
      writeFileAtomic(this.pathOf(texts), JSON.stringify({ model: this.identity.model, endpoint: this.identity.endpoint, texts, vectors }));
    } catch {
      // A cache that cannot be written only costs a request next time.
    }
  }
}

/** One role's client settings from the run's model settings (a role without a model is a one-line error naming the flag). */
function roleConfig(config: ModelSettings, role: ModelRoleName) {
  const byRole = {
    agent: { model: config.model, provider: config.modelProvider, baseURL: config.baseUrl, apiKeyEnv: config.apiKeyEnv, apiVersion: config.apiVersion, missing: "this agent strategy needs --model" },
    user: {
      model: config.userModel,
      provider: config.userModelProvider,
      baseURL: config.userBaseUrl,
      apiKeyEnv: config.userApiKeyEnv,
      apiVersion: config.userApiVersion,
      missing: "this user strategy needs --user-model",
    },
    judge: {
      model: config.judgeModel,
      provider: config.judgeProvider,
      baseURL: config.judgeBaseUrl,
      apiKeyEnv: config.judgeApiKeyEnv,
      apiVersion: undefined,
      missing: "the NL-assertion judge needs --judge-model",
    },
    reranker: {
      model: config.reranker?.model,
      provider: config.reranker?.provider,
      baseURL: config.reranker?.baseUrl,
      apiKeyEnv: config.reranker?.apiKeyEnv,
      apiVersion: undefined,
      missing: "this run's retrieval variant has no reranker (--reranker-base-url, --reranker-api-key-env)",
    },
  }[role];
  if (!byRole.model) throw new ConfigError(byRole.missing);
  return {
    role,
    model: byRole.model,
    provider: byRole.provider ?? "openai",
    baseURL: byRole.baseURL,
    apiKeyEnv: byRole.apiKeyEnv,
    ...(byRole.apiVersion !== undefined ? { apiVersion: byRole.apiVersion } : {}),
    ...(role === "agent" ? { temperature: config.temperature } : {}),
  };
}
