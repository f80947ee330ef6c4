/**
 * Model clients for the three roles that call LLMs (agent, user simulator, judge). One client per
 * role, built on the `openai` SDK so every OpenAI-compatible server works (OpenAI, OpenRouter,
 * Anthropic's compatibility endpoint, vLLM, Ollama, llama.cpp, LM Studio…).
 *
 * Design points:
 * - exactly one retry layer (ours, p-retry; the SDK runs with `maxRetries: 0`), bounded attempts,
 *   honouring `retry-after(-ms)`, and a per-attempt timeout;
 * - API keys come from environment variables only and live in a closure: they are never fields of
 *   the returned object, never in error messages (everything is redacted), never in cache keys;
 * - cost is `number | null` (unknown is never 0), usage is summed per role in {@link UsageTotals};
 * - an optional on-disk {@link ResponseCache} replays identical requests without any network.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { z } from "zod";
import type { ChatModel } from "../core/contracts.ts";
import { ConfigError, TaubridgeError, errorMarker } from "../errors/error-tree.ts";
import type { ToolCallRecord } from "../core/types.ts";
import { ModelCallError, ModelEndpointRefusedError, ModelResponseError, ModelTimeoutError, type ModelCallErrorDetails } from "./errors.ts";
import { CostCalculator, priceTableSchema, type PriceTable } from "./pricing.ts";
import { keepAliveFetch, type FetchFunction } from "./http-transport.ts";
import { getProvider, type ProviderInfo, type ProviderName } from "./providers.ts";
import { resolveEndpoint } from "./endpoint.ts";
import { ChatBodyWriter, chatTarget, postChat, type ChatTarget } from "./chat-transport.ts";
import { redactText, redactValue, secretsIn } from "../secrets/redact.ts";
import { cacheKey, ResponseCache, type CacheKeyInput } from "./response-cache.ts";
import { AttemptTimeoutError, attemptSignal, DEFAULT_BACKOFF, errorStatus, isRetryableError, RetriesFailed, retryAfterFirst, unreachableCode, type BackoffOptions } from "./retry.ts";
import { MODEL_ROLES, type AssistantMessage, type CompletionRequest, type CompletionResult, type ModelRole, type ModelUsage } from "./types.ts";
import { UsageTotals } from "./usage.ts";
import { endpointConfigFields } from "./endpoint-schema.ts";

/** Request-body fields the client sets itself; `params` may not override them. */
const RESERVED_PARAMS = ["model", "messages", "tools", "tool_choice", "temperature", "stream", "stream_options", "n"];

/** Validates a model-client config; defaults: provider `openai`, 120 s timeout, 6 attempts (`./defaults.ts`). */
export const modelClientConfigSchema = z.strictObject({
  role: z.enum(MODEL_ROLES).default("agent"),
  ...endpointConfigFields,
  temperature: z.number().min(0).max(2).optional(),
  /** A cache directory or a shared {@link ResponseCache}. */
  cache: z.union([z.string().min(1), z.instanceof(ResponseCache)]).optional(),
  /** User prices (from `loadPriceFile`), consulted before the genai-prices catalogue. */
  prices: priceTableSchema.optional(),
  /** Extra request-body fields (e.g. `max_tokens`, `reasoning_effort`, `seed`); part of the cache key. */
  params: z
    .record(z.string(), z.unknown())
    .refine((params) => !RESERVED_PARAMS.some((name) => Object.hasOwn(params, name)), {
      message: `may not set ${RESERVED_PARAMS.join(", ")}`,
    })
    .optional(),
  /** Backoff used when the server sends no usable retry-after. */
  retry: z
    .strictObject({
      initialDelayMs: z.number().nonnegative().default(DEFAULT_BACKOFF.initialDelayMs),
      maxDelayMs: z.number().nonnegative().default(DEFAULT_BACKOFF.maxDelayMs),
    })
    .optional(),
});

/** What callers pass to {@link createModelClient} (defaults applied by the schema). */
export type ModelClientConfig = z.input<typeof modelClientConfigSchema>;

/** Injectable environment, so tests and embedders need not mutate `process.env`. */
export interface ModelClientDependencies {
  env?: Record<string, string | undefined>;
  /** The HTTP `fetch` under the SDK; defaults to {@link keepAliveFetch} (a pooled undici transport). */
  fetch?: FetchFunction;
  /**
   * `pool` (the default without `fetch`): chat completions over the client's own undici `Pool` path
   * with the SDK's URL, headers and body; `sdk`: through `chat.completions.create` (the default when
   * `fetch` is given). Embeddings always go through the SDK.
   */
  transport?: "pool" | "sdk";
  /** Told before each retry's wait (the run layer logs it at `--log-level WARNING`); receives no secret beyond a redacted error. */
  onRetry?: (info: { attempt: number; error: unknown; delayMs: number }) => void;
}

/** A redacted, JSON-safe description of a client, for run manifests and logs. */
export interface ModelClientDescription {
  role: ModelRole;
  provider: ProviderName;
  model: string;
  baseURL: string;
  /** The variable the key is read from (its name only), or `null` when a placeholder key is used. */
  apiKeyEnv: string | null;
  timeoutMs: number;
  maxAttempts: number;
  temperature: number | null;
  params: Record<string, unknown> | null;
  cacheDirectory: string | null;
  userPrices: boolean;
}

export interface ModelClient extends ChatModel {
  readonly role: ModelRole;
  readonly provider: ProviderName;
  readonly model: string;
  /** Base URL as configured (may be shown to users; use `describe()` for a redacted copy). */
  readonly baseURL: string;
  /** Running totals of every call made through this client (cache hits included, flagged). */
  readonly usage: UsageTotals;
  readonly cache: ResponseCache | undefined;
  /** One chat completion, retried within the configured bounds. */
  complete(request: CompletionRequest): Promise<CompletionResult>;
  describe(): ModelClientDescription;
}

function parseConfig(config: ModelClientConfig) {
  // Resolve the provider before zod so a typo gets UnknownNameError listing the known names.
  getProvider(config.provider ?? "openai");
  const parsed = modelClientConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new ConfigError(`Invalid ${config.role ?? "agent"} model config:\n${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

function toAssistantMessage(message: OpenAI.Chat.Completions.ChatCompletionMessage): AssistantMessage {
  const result: AssistantMessage = { role: "assistant", content: message.content ?? null };
  const toolCalls: ToolCallRecord[] = [];
  for (const call of message.tool_calls ?? []) {
    if (call.type !== "function") continue;
    toolCalls.push({ id: call.id, type: "function", function: { name: call.function.name, arguments: call.function.arguments } });
  }
  if (toolCalls.length > 0) result.tool_calls = toolCalls;
  return result;
}

function toUsage(usage: OpenAI.Completions.CompletionUsage | undefined): ModelUsage {
  if (!usage) return { promptTokens: 0, completionTokens: 0, reported: false };
  const result: ModelUsage = { promptTokens: usage.prompt_tokens ?? 0, completionTokens: usage.completion_tokens ?? 0 };
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (typeof cached === "number" && cached > 0) result.cachedPromptTokens = cached;
  return result;
}

/** Internal: a 2xx answer that is not a usable completion. Not retried. */
class MalformedResponse extends TaubridgeError {
  static readonly marker: symbol = errorMarker("MalformedResponse");
}

/** What one client's calls share: its settings, provider, SDK instance (which holds the key: never exposed) and state. */
interface ClientCore {
  options: ReturnType<typeof parseConfig>;
  provider: ProviderInfo;
  baseURL: string;
  displayURL: string;
  secrets: string[];
  openai: OpenAI;
  /** The model name as sent (the provider's spelling, e.g. Fireworks' account path). */
  wireModel: string;
  backoff: BackoffOptions;
  cache: ResponseCache | undefined;
  usage: UsageTotals;
  /** `<role> model "<name>" (<provider> at <url>)`, the start of every error message. */
  prefix: string;
  /** Whether the endpoint has ever answered over HTTP (any status): a refusal before that means it was never up. */
  answered: boolean;
  onRetry: ModelClientDependencies["onRetry"];
  /** The client's own chat-completions path (`chat-transport.ts`), unless the SDK's `fetch` was asked for: its body writer … */
  writer: ChatBodyWriter | undefined;
  /** … and the URL and headers the SDK builds for the model, made on the first call … */
  target: Promise<ChatTarget> | undefined;
  /** … and once made: later calls use it without awaiting the promise again (a microtask turn per call). */
  madeTarget: ChatTarget | undefined;
  /** What every call is priced by ({@link priceInput}). */
  pricing: CostCalculator;
}

function errorDetails(core: ClientCore, extra: { status?: number; attempts: number; retryable: boolean; responseBody?: unknown }): ModelCallErrorDetails {
  return { role: core.options.role, provider: core.provider.name, model: core.options.model, baseURL: core.displayURL, ...extra };
}

/** Turns the last failure into a redacted ModelCallError (`secrets`: the client's and the request's); the SDK error is not kept as-is. */
function toModelError(core: ClientCore, error: unknown, attempts: number, secrets: readonly string[] = core.secrets): ModelCallError {
  const { prefix, options } = core;
  const plural = attempts === 1 ? "attempt" : "attempts";
  const message = redactText(error instanceof Error ? error.message : String(error), secrets);
  const cause = new Error(message);
  cause.name = error instanceof Error ? error.name : "Error";
  const retryable = isRetryableError(error);
  if (AttemptTimeoutError.isInstance(error) || error instanceof APIConnectionTimeoutError) {
    return new ModelTimeoutError(`${prefix}: timed out after ${options.timeoutMs} ms (${attempts} ${plural})`, errorDetails(core, { attempts, retryable: true }), options.timeoutMs, { cause });
  }
  if (MalformedResponse.isInstance(error)) return new ModelResponseError(`${prefix}: unusable response: ${message}`, errorDetails(core, { attempts, retryable: false }), { cause });
  const status = errorStatus(error);
  if (status !== undefined) {
    const body = error instanceof APIError ? redactValue(error.error, secrets) : undefined;
    return new ModelCallError(`${prefix}: HTTP ${status} after ${attempts} ${plural}: ${message}`, errorDetails(core, { status, attempts, retryable, responseBody: body }), { cause });
  }
  const unreachable = unreachableCode(error);
  if (unreachable) {
    const what = unreachable === "ECONNREFUSED" ? "connection refused (nothing is listening there)" : "the host name does not resolve";
    return new ModelEndpointRefusedError(`${prefix}: ${what} (${unreachable}; not retried)`, errorDetails(core, { attempts, retryable: false }), unreachable, !core.answered, { cause });
  }
  if (error instanceof APIConnectionError) {
    const reason = error.cause instanceof Error ? `: ${redactText(error.cause.message, secrets)}` : "";
    return new ModelCallError(`${prefix}: connection failed after ${attempts} ${plural}: ${message}${reason}`, errorDetails(core, { attempts, retryable }), { cause });
  }
  return new ModelCallError(`${prefix}: failed after ${attempts} ${plural}: ${message}`, errorDetails(core, { attempts, retryable }), { cause });
}

type ChatBody = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
type ChatAnswer = { choices?: OpenAI.Chat.Completions.ChatCompletion["choices"]; usage?: OpenAI.Completions.CompletionUsage } | null | undefined;

/**
 * One HTTP attempt with its own timeout, through the client's own path or the SDK: its answer
 * (see {@link answered}). Not an `async` function on the client's own path once its target is
 * made: the call's promise is `postChat`'s, so no frame of this function waits with it.
 */
function send(core: ClientCore, body: ChatBody | Buffer, signal: AbortSignal | undefined): Promise<ChatAnswer> {
  if (core.madeTarget !== undefined && Buffer.isBuffer(body)) return postChat(core.madeTarget, body, signal, core.options.timeoutMs) as Promise<ChatAnswer>;
  return sendFirst(core, body, signal);
}

/** {@link send} through the SDK, or on the client's own path before its target is made (the SDK builds it once). */
async function sendFirst(core: ClientCore, body: ChatBody | Buffer, signal: AbortSignal | undefined): Promise<ChatAnswer> {
  const { timeoutMs } = core.options;
  if (!Buffer.isBuffer(body)) return sdkAttempt(core, body, signal);
  const target = core.madeTarget ?? (core.madeTarget = await (core.target ??= chatTarget(core.openai, core.wireModel, timeoutMs)));
  return (await postChat(target, body, signal, timeoutMs)) as ChatAnswer;
}

/** An attempt's answer read: the endpoint answered, and with a usable completion (else {@link MalformedResponse}). */
function answered(core: ClientCore, response: ChatAnswer) {
  core.answered = true;
  const choice = Array.isArray(response?.choices) ? response.choices[0] : undefined;
  if (!choice || !choice.message) throw new MalformedResponse("the response has no choices[0].message");
  return { choice, usage: response?.usage };
}

/** An attempt's failure: an HTTP status means the endpoint answered (a refusal later is then not "never up"). */
function failed(core: ClientCore, error: unknown): void {
  if (errorStatus(error) !== undefined) core.answered = true;
}

/** One attempt, as the retry layer makes it from the second on: sent, and its answer read; notes whether the endpoint answered at all. */
async function attemptOnce(core: ClientCore, body: ChatBody | Buffer, signal: AbortSignal | undefined) {
  try {
    return answered(core, await send(core, body, signal));
  } catch (error) {
    failed(core, error);
    throw error;
  }
}

/** One attempt through the SDK's `chat.completions.create`, with a signal of its own that the timeout aborts. */
async function sdkAttempt(core: ClientCore, body: ChatBody, signal: AbortSignal | undefined): Promise<ChatAnswer> {
  const { timeoutMs } = core.options;
  const attempt = attemptSignal(signal, timeoutMs);
  try {
    return await core.openai.chat.completions.create(body, { signal: attempt.signal, timeout: timeoutMs, maxRetries: 0 });
  } catch (error) {
    if (attempt.timedOut() && !signal?.aborted) throw new AttemptTimeoutError(timeoutMs);
    throw error;
  } finally {
    attempt.dispose();
  }
}

/** A request's settings with the client's applied: what the body and the cache key are made of. */
interface RequestParts {
  temperature: number | undefined;
  tools: CompletionRequest["tools"] | undefined;
  params: Record<string, unknown> | undefined;
}

function requestParts(core: ClientCore, request: CompletionRequest): RequestParts {
  const { options } = core;
  const temperature = request.temperature ?? options.temperature;
  const tools = request.tools && request.tools.length > 0 ? request.tools : undefined;
  const reserved = request.params ? RESERVED_PARAMS.find((name) => Object.hasOwn(request.params as object, name)) : undefined;
  if (reserved) throw new ConfigError(`a request's params may not set ${reserved} (the client sets it)`);
  const params = options.params && request.params ? { ...options.params, ...request.params } : (request.params ?? options.params);
  return { temperature, tools, params };
}

/**
 * The body sent: the bytes the client's own path posts (built by its {@link ChatBodyWriter}, the
 * history serialised once), or the object the SDK serialises — the same bytes either way:
 * `{ ...params, model, messages, tools?, temperature?, tool_choice? }`.
 */
function requestBody(core: ClientCore, request: CompletionRequest, parts: RequestParts): ChatBody | Buffer {
  const { params, tools, temperature } = parts;
  if (core.writer) return core.writer.write({ params, model: core.wireModel, messages: request.messages, tools, temperature, toolChoice: request.toolChoice });
  return {
    ...(params ?? {}),
    model: core.wireModel,
    messages: request.messages,
    ...(tools ? { tools } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(request.toolChoice !== undefined ? { tool_choice: request.toolChoice } : {}),
  } as unknown as ChatBody;
}

/**
 * The cache key's parts. They hold no secret: the base URL without credentials, the parameters
 * redacted (a changed key or header does not change the answer, and a hash of a secret is not
 * written either).
 */
function cacheKeyInput(core: ClientCore, request: CompletionRequest, parts: RequestParts): CacheKeyInput {
  const { params, tools, temperature } = parts;
  return {
    provider: core.provider.name,
    model: core.options.model,
    baseURL: core.displayURL,
    messages: request.messages,
    ...(tools ? { tools } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(request.toolChoice !== undefined ? { toolChoice: request.toolChoice } : {}),
    ...(params ? { params: redactValue(params, core.secrets) } : {}),
    ...(request.cacheNamespace !== undefined ? { namespace: request.cacheNamespace } : {}),
  };
}

/** What a client's calls are priced by: made once per client (its price entry and catalogue key decided then). */
function priceInput(core: Omit<ClientCore, "pricing">): CostCalculator {
  const { provider, options } = core;
  return new CostCalculator({
    provider: provider.name,
    model: options.model,
    ...(core.wireModel !== options.model ? { catalogueModel: core.wireModel } : {}),
    baseURL: core.baseURL,
    catalogue: provider.catalogue,
    prices: options.prices as PriceTable | undefined,
  });
}

function priceOf(core: ClientCore, recorded: ModelUsage) {
  return core.pricing.cost(recorded);
}

/** The cached answer to an identical request, priced now, or undefined. */
async function fromCache(core: ClientCore, key: string, started: number): Promise<CompletionResult | undefined> {
  const hit = await core.cache?.get(key);
  if (!hit) return undefined;
  const { cost, source } = priceOf(core, hit.usage);
  return { message: hit.message, usage: hit.usage, cost, costSource: source, latencyMs: performance.now() - started, cached: true, attempts: 0, finishReason: hit.finishReason };
}

/** The client's secrets and those of a request's parameters (τ²'s LLM arguments: an `api_key`, `extra_headers`): never in an error or a cache entry. */
function requestSecrets(core: ClientCore, request: CompletionRequest): readonly string[] {
  return request.params ? [...core.secrets, ...secretsIn(request.params)] : core.secrets;
}

/** The attempts after a failed first one (the retry layer's waits and decisions), as `withRetries` makes them. */
function retried(core: ClientCore, request: CompletionRequest, body: ChatBody | Buffer, first: unknown): Promise<{ value: Awaited<ReturnType<typeof attemptOnce>>; attempts: number }> {
  return retryAfterFirst(first, () => attemptOnce(core, body, request.signal), {
    maxAttempts: core.options.maxAttempts,
    backoff: core.backoff,
    signal: request.signal,
    ...(core.onRetry ? { onRetry: (info) => core.onRetry?.({ ...info, error: toModelError(core, info.error, info.attempt, requestSecrets(core, request)) }) } : {}),
  });
}

/**
 * One chat completion: from the cache, else over HTTP with the retry layer; usage summed, the answer cached.
 *
 * The first attempt is made here, not through `withRetries`: the retry layer's closure, options
 * and `async` frame are made only once it failed. Whatever a call makes before its answer lives as
 * long as it waits for the model (~500 ms at a thousand concurrent simulations: long enough for the
 * garbage collector to copy it twice and promote it), so a call keeps as little as it can across
 * that wait. The request's secrets are looked for only when needed (an error, a cache entry):
 * looking through the parameters on every call was a visible share of its CPU.
 */
async function complete(core: ClientCore, request: CompletionRequest): Promise<CompletionResult> {
  const started = performance.now();
  const parts = requestParts(core, request);
  const keyInput = core.cache ? cacheKeyInput(core, request, parts) : undefined;
  const key = keyInput ? cacheKey(keyInput) : undefined;
  const cached = key ? await fromCache(core, key, started) : undefined;
  if (cached) {
    core.usage.add(cached);
    return cached;
  }
  const body = requestBody(core, request, parts);
  let outcome: Awaited<ReturnType<typeof attemptOnce>>;
  let attempts = 1;
  try {
    try {
      // The first attempt, as `attemptOnce` makes it, with one `async` frame (this one) waiting for the answer.
      outcome = answered(core, await send(core, body, request.signal));
    } catch (first) {
      failed(core, first);
      ({ value: outcome, attempts } = await retried(core, request, body, first));
    }
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason;
    core.usage.addFailure();
    if (RetriesFailed.isInstance(error)) throw toModelError(core, error.lastError, Math.max(1, error.attempts), requestSecrets(core, request));
    throw toModelError(core, error, 1, requestSecrets(core, request));
  }
  // The call has its answer, so the server has read the request: the conversation's next body may be written over this one.
  if (core.writer && Buffer.isBuffer(body)) core.writer.release(request.messages, body);
  const message = toAssistantMessage(outcome.choice.message);
  const recordedUsage = toUsage(outcome.usage);
  const { cost, source } = priceOf(core, recordedUsage);
  const latencyMs = performance.now() - started;
  const finishReason = outcome.choice.finish_reason ?? null;
  if (core.cache && key && keyInput) {
    try {
      await core.cache.set(key, keyInput, { message, usage: recordedUsage, cost, finishReason, latencyMs }, requestSecrets(core, request));
    } catch {
      // A full disk must not fail the evaluation; the miss is counted in cache.stats.writeErrors.
    }
  }
  const result: CompletionResult = { message, usage: recordedUsage, cost, costSource: source, latencyMs, cached: false, attempts, finishReason };
  core.usage.add(result);
  return result;
}

/**
 * Whether chat completions go through the client's own path over an undici `Pool`
 * (`chat-transport.ts`, the SDK's wire behaviour at a fraction of its CPU), or through the SDK's
 * `chat.completions.create`: when a `fetch` is given (the caller wants to see the SDK's requests),
 * when `transport: "sdk"` is asked for, or with `TAUBRIDGE_MODEL_TRANSPORT=sdk` in the environment.
 */
function usesOwnPath(dependencies: ModelClientDependencies): boolean {
  const transport = dependencies.transport ?? ((dependencies.env ?? process.env).TAUBRIDGE_MODEL_TRANSPORT === "sdk" ? "sdk" : undefined);
  if (transport) return transport === "pool";
  return dependencies.fetch === undefined;
}

/** The shared state of one client, with its provider's defaults and the API key read from the environment. */
function clientCore(config: ModelClientConfig, dependencies: ModelClientDependencies): { core: ClientCore; apiKeyVariable: string | null } {
  const options = parseConfig(config);
  const role = options.role;
  const endpoint = resolveEndpoint(
    {
      role,
      provider: options.provider,
      model: options.model,
      baseURL: options.baseURL,
      apiKeyEnv: options.apiKeyEnv,
      apiVersion: options.apiVersion,
      timeoutMs: options.timeoutMs,
      params: options.params,
    },
    dependencies.env ?? process.env,
    dependencies.fetch ?? keepAliveFetch,
  );
  const { provider, baseURL, displayURL, secrets } = endpoint;
  const cache = typeof options.cache === "string" ? new ResponseCache(options.cache) : options.cache;
  const core: Omit<ClientCore, "pricing"> = {
    options,
    provider,
    baseURL,
    displayURL,
    secrets,
    openai: endpoint.sdk,
    wireModel: endpoint.wireModel,
    backoff: options.retry ?? DEFAULT_BACKOFF,
    cache,
    usage: new UsageTotals(),
    prefix: `${role} model "${options.model}" (${provider.name} at ${displayURL})`,
    answered: false,
    onRetry: dependencies.onRetry,
    writer: usesOwnPath(dependencies) ? new ChatBodyWriter() : undefined,
    target: undefined,
    madeTarget: undefined,
  };
  return { core: { ...core, pricing: priceInput(core) }, apiKeyVariable: endpoint.apiKeyVariable };
}

/**
 * Builds the client for one role. Validates the config (zod), resolves the provider's defaults
 * and reads the API key from the environment, all before any request, so misconfiguration fails
 * fast with a {@link ConfigError} / `UnknownNameError`.
 */
export function createModelClient(config: ModelClientConfig, dependencies: ModelClientDependencies = {}): ModelClient {
  const { core, apiKeyVariable } = clientCore(config, dependencies);
  const { options, provider, cache, secrets } = core;
  return {
    role: options.role,
    provider: provider.name,
    model: options.model,
    baseURL: core.baseURL,
    usage: core.usage,
    cache,
    complete: (request) => complete(core, request),
    describe: () => ({
      role: options.role,
      provider: provider.name,
      model: options.model,
      baseURL: core.displayURL,
      apiKeyEnv: apiKeyVariable,
      timeoutMs: options.timeoutMs,
      maxAttempts: options.maxAttempts,
      temperature: options.temperature ?? null,
      params: options.params ? redactValue(options.params, secrets) : null,
      cacheDirectory: cache?.directory ?? null,
      userPrices: options.prices !== undefined,
    }),
  };
}
