/**
 * An embeddings client for any OpenAI-compatible endpoint (`POST /embeddings`), through the real
 * `openai` SDK (`client.embeddings.create`). τ³'s dense retrieval (`knowledge/embedders/*.py`)
 * embeds through OpenAI (`text-embedding-3-large`) or OpenRouter (`qwen/qwen3-embedding-8b`); this
 * client serves both and any local server (vLLM, Ollama, the scripted server of `taubridge/testing`).
 *
 * What it keeps from the chat client (`model-client.ts`), for the same reasons: the API key comes
 * from an environment variable and stays in a closure (never a field, never in a message, never in
 * {@link EmbeddingClient.identity}), one retry layer (ours; the SDK runs with `maxRetries: 0`), a
 * refused connection is not retried, and every failure is a {@link ModelCallError} naming the model
 * and the (redacted) URL.
 *
 * **Numbers.** The original's `OpenAIEmbedder` passes no `encoding_format`, so the Python SDK asks
 * for `base64` and decodes the bytes as little-endian float32: every value is a float32. Its
 * `OpenRouterEmbedder` asks for `"float"`: the values are the JSON decimals, parsed as float64.
 * `encodingFormat` chooses the same here (`"base64"`, the default, or `"float"`); the request always
 * names its format explicitly and the answer is decoded here, so a server that ignores `base64` and
 * sends arrays is still read right (as the Python SDK does: it only decodes strings).
 *
 * **Order.** The vectors are taken in the order of `response.data`, as the original does
 * (`[item.embedding for item in response.data]`), not re-sorted by `index`.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { z } from "zod";
import { ConfigError, TaubridgeError, errorMarker } from "../errors/error-tree.ts";
import { ModelCallError, ModelEndpointRefusedError, ModelResponseError, ModelTimeoutError } from "./errors.ts";
import { keepAliveFetch, type FetchFunction } from "./http-transport.ts";
import { getProvider, type ProviderInfo } from "./providers.ts";
import { computeCost, priceTableSchema } from "./pricing.ts";
import { UsageTotals } from "./usage.ts";
import type { ModelUsage } from "./types.ts";
import { resolveEndpoint } from "./endpoint.ts";
import { redactText, redactValue } from "../secrets/redact.ts";
import { AttemptTimeoutError, attemptSignal, DEFAULT_BACKOFF, errorStatus, isRetryableError, RetriesFailed, unreachableCode, withRetries } from "./retry.ts";
import { endpointConfigFields } from "./endpoint-schema.ts";

/** Validates an embeddings-client config (defaults: provider `openai`, base64 float32 answers, one request for all texts). */
export const embeddingClientConfigSchema = z.strictObject({
  ...endpointConfigFields,
  /** `base64` (float32 values, the OpenAI SDKs' default) or `float` (JSON decimals, float64). */
  encodingFormat: z.enum(["base64", "float"]).default("base64"),
  /** Texts per request; none = all texts in one request, as the original's `EmbeddingIndexer` (batch_size None). */
  batchSize: z.number().int().positive().optional(),
  retry: z.strictObject({ initialDelayMs: z.number().nonnegative(), maxDelayMs: z.number().nonnegative() }).optional(),
  /** User prices (from `loadPriceFile`), consulted before the genai-prices catalogue. */
  prices: priceTableSchema.optional(),
});

/** What callers pass to {@link createEmbeddingClient}. */
export type EmbeddingClientConfig = z.input<typeof embeddingClientConfigSchema>;

/** Injectable environment and transport (tests need not mutate `process.env`). */
export interface EmbeddingClientDependencies {
  env?: Record<string, string | undefined>;
  fetch?: FetchFunction;
  /** Told before each retry's wait (the run layer logs it). */
  onRetry?: (info: { attempt: number; error: unknown; delayMs: number }) => void;
}

/**
 * What distinguishes one embedding space from another, without any secret: the model as sent, the
 * endpoint (redacted URL: no credentials, no query) and the number format. Disk caches key on it.
 */
export interface EmbeddingIdentity {
  readonly model: string;
  readonly endpoint: string;
  readonly encodingFormat: "base64" | "float";
}

/** An embeddings endpoint. */
export interface EmbeddingClient {
  readonly identity: EmbeddingIdentity;
  /** The provider's name (`openai`, `openrouter`, …). */
  readonly provider: string;
  /** Base URL as configured (may hold credentials: for connecting only), and its copy for display. */
  readonly baseURL: string;
  readonly displayURL: string;
  /** Running totals of every request (tokens as the endpoint reports them; cost from the price file or the catalogue, `null` when unknown). */
  readonly usage: UsageTotals;
  /** One vector per text, in order (several requests when `batchSize` is set). An empty list is an error. */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}

/** `data[i].embedding`: a base64 string of float32s or an array of numbers. */
const embeddingResponseSchema = z.object({
  data: z.array(z.object({ embedding: z.union([z.string(), z.array(z.number())]) }).loose()),
  usage: z.object({ prompt_tokens: z.number().optional() }).loose().nullish(),
});

/** Little-endian float32s of a base64 string, as float64 numbers (what numpy's frombuffer(..., "float32").tolist() gives). */
function decodeFloat32(base64: string): number[] {
  const bytes = Buffer.from(base64, "base64");
  if (bytes.byteLength % 4 !== 0) throw new Error(`a base64 embedding of ${bytes.byteLength} bytes is not a float32 array`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values = new Array<number>(bytes.byteLength / 4);
  for (let index = 0; index < values.length; index++) values[index] = view.getFloat32(index * 4, true);
  return values;
}

/** The vectors of a parsed answer, checked against the number of texts asked for. */
function vectorsOf(body: unknown, expected: number): { vectors: number[][]; promptTokens: number | undefined } {
  const parsed = embeddingResponseSchema.safeParse(body);
  if (!parsed.success) throw new MalformedEmbeddings(`not an embeddings answer: ${z.prettifyError(parsed.error)}`);
  const vectors = parsed.data.data.map(({ embedding }) => (typeof embedding === "string" ? decodeFloat32(embedding) : embedding));
  if (vectors.length !== expected) throw new MalformedEmbeddings(`${vectors.length} embeddings for ${expected} texts`);
  const dimensions = vectors[0]?.length ?? 0;
  if (dimensions === 0 || vectors.some((vector) => vector.length !== dimensions)) throw new MalformedEmbeddings("the embeddings are empty or of different lengths");
  return { vectors, promptTokens: parsed.data.usage?.prompt_tokens };
}

/** A 2xx answer that is not usable; never retried. */
class MalformedEmbeddings extends TaubridgeError {
  static readonly marker: symbol = errorMarker("MalformedEmbeddings");
}

interface EmbeddingCore {
  options: z.output<typeof embeddingClientConfigSchema>;
  openai: OpenAI;
  /** The model name as sent. */
  wireModel: string;
  secrets: string[];
  displayURL: string;
  prefix: string;
  answered: boolean;
  provider: ProviderInfo;
  baseURL: string;
  usage: UsageTotals;
  onRetry: EmbeddingClientDependencies["onRetry"];
}

/**
 * Builds the client: validates the config, resolves the provider's default base URL and key
 * variable and reads the key, all before any request (a missing key is a {@link ConfigError}).
 */
export function createEmbeddingClient(config: EmbeddingClientConfig, dependencies: EmbeddingClientDependencies = {}): EmbeddingClient {
  getProvider(config.provider ?? "openai");
  const parsed = embeddingClientConfigSchema.safeParse(config);
  if (!parsed.success) throw new ConfigError(`Invalid embeddings model config:\n${z.prettifyError(parsed.error)}`);
  const options = parsed.data;
  const endpoint = resolveEndpoint(
    { role: "embeddings", provider: options.provider, model: options.model, baseURL: options.baseURL, apiKeyEnv: options.apiKeyEnv, apiVersion: options.apiVersion, timeoutMs: options.timeoutMs },
    dependencies.env ?? process.env,
    dependencies.fetch ?? keepAliveFetch,
  );
  const { secrets, displayURL } = endpoint;
  const core: EmbeddingCore = {
    options,
    openai: endpoint.sdk,
    wireModel: endpoint.wireModel,
    secrets,
    displayURL,
    prefix: `embeddings model "${options.model}" (${endpoint.provider.name} at ${displayURL})`,
    answered: false,
    provider: endpoint.provider,
    baseURL: endpoint.baseURL,
    usage: new UsageTotals(),
    onRetry: dependencies.onRetry,
  };
  return {
    identity: { model: options.model, endpoint: endpointIdentity(displayURL), encodingFormat: options.encodingFormat },
    provider: endpoint.provider.name,
    baseURL: endpoint.baseURL,
    displayURL,
    usage: core.usage,
    embed: (texts, embedOptions = {}) => embedAll(core, texts, embedOptions.signal),
  };
}

/** The endpoint part of an identity: the redacted URL without query, fragment or trailing slash. */
function endpointIdentity(displayURL: string): string {
  try {
    const url = new URL(displayURL);
    url.search = "";
    url.hash = "";
    url.username = "";
    url.password = "";
    return url.toString().replace(/\/+$/, "");
  } catch {
    return displayURL;
  }
}

/** All texts, in batches of `batchSize` (one request when unset). */
async function embedAll(core: EmbeddingCore, texts: readonly string[], signal: AbortSignal | undefined): Promise<number[][]> {
  if (texts.length === 0) throw new ConfigError(`${core.prefix}: no text to embed`);
  const size = core.options.batchSize ?? texts.length;
  const vectors: number[][] = [];
  for (let start = 0; start < texts.length; start += size) vectors.push(...(await embedBatch(core, texts.slice(start, start + size), signal)));
  return vectors;
}

/** One request, retried within the configured bounds. */
async function embedBatch(core: EmbeddingCore, texts: readonly string[], signal: AbortSignal | undefined): Promise<number[][]> {
  try {
    const { value } = await withRetries(() => attemptOnce(core, texts, signal), {
      maxAttempts: core.options.maxAttempts,
      backoff: core.options.retry ?? DEFAULT_BACKOFF,
      signal,
      ...(core.onRetry ? { onRetry: (info) => core.onRetry?.({ ...info, error: toError(core, info.error, info.attempt) }) } : {}),
    });
    const usage: ModelUsage = value.promptTokens === undefined ? { promptTokens: 0, completionTokens: 0, reported: false } : { promptTokens: value.promptTokens, completionTokens: 0 };
    const { cost } = computeCost({
      provider: core.provider.name,
      model: core.options.model,
      ...(core.wireModel !== core.options.model ? { catalogueModel: core.wireModel } : {}),
      baseURL: core.baseURL,
      catalogue: core.provider.catalogue,
      usage,
      prices: core.options.prices,
    });
    core.usage.add({ usage, cost, cached: false });
    return value.vectors;
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    core.usage.addFailure();
    if (RetriesFailed.isInstance(error)) throw toError(core, error.lastError, Math.max(1, error.attempts));
    throw toError(core, error, 1);
  }
}

async function attemptOnce(core: EmbeddingCore, texts: readonly string[], signal: AbortSignal | undefined): Promise<{ vectors: number[][]; promptTokens: number | undefined }> {
  const { timeoutMs, encodingFormat } = core.options;
  const model = core.wireModel;
  const attempt = attemptSignal(signal, timeoutMs);
  try {
    const body = await core.openai.embeddings.create({ model, input: [...texts], encoding_format: encodingFormat }, { signal: attempt.signal, timeout: timeoutMs, maxRetries: 0 });
    core.answered = true;
    return vectorsOf(body, texts.length);
  } catch (error) {
    if (errorStatus(error) !== undefined) core.answered = true;
    if (attempt.timedOut() && !signal?.aborted) throw new AttemptTimeoutError(timeoutMs);
    throw error;
  } finally {
    attempt.dispose();
  }
}

/** The last failure as a redacted {@link ModelCallError} naming the model and the URL. */
function toError(core: EmbeddingCore, error: unknown, attempts: number): ModelCallError {
  const { prefix, secrets, displayURL, options } = core;
  const plural = attempts === 1 ? "attempt" : "attempts";
  const message = redactText(error instanceof Error ? error.message : String(error), secrets);
  const details = (extra: { status?: number; retryable: boolean; responseBody?: unknown }) => ({
    role: "embedder",
    provider: options.provider,
    model: options.model,
    baseURL: displayURL,
    attempts,
    ...extra,
  });
  const cause = new Error(message);
  if (AttemptTimeoutError.isInstance(error) || error instanceof APIConnectionTimeoutError) {
    return new ModelTimeoutError(`${prefix}: timed out after ${options.timeoutMs} ms (${attempts} ${plural})`, details({ retryable: true }), options.timeoutMs, { cause });
  }
  if (MalformedEmbeddings.isInstance(error)) return new ModelResponseError(`${prefix}: unusable response: ${message}`, details({ retryable: false }), { cause });
  const status = errorStatus(error);
  if (status !== undefined) {
    const responseBody = error instanceof APIError ? redactValue(error.error, secrets) : undefined;
    return new ModelCallError(`${prefix}: HTTP ${status} after ${attempts} ${plural}: ${message}`, details({ status, retryable: isRetryableError(error), responseBody }), { cause });
  }
  const unreachable = unreachableCode(error);
  if (unreachable) {
    const what = unreachable === "ECONNREFUSED" ? "connection refused (nothing is listening there)" : "the host name does not resolve";
    return new ModelEndpointRefusedError(`${prefix}: ${what} (${unreachable}; not retried)`, details({ retryable: false }), unreachable, !core.answered, { cause });
  }
  const reason = error instanceof APIConnectionError && error.cause instanceof Error ? `: ${redactText(error.cause.message, secrets)}` : "";
  return new ModelCallError(`${prefix}: failed after ${attempts} ${plural}: ${message}${reason}`, details({ retryable: isRetryableError(error) }), { cause });
}
