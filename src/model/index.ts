/**
 * The model layer: one OpenAI-SDK-based client per role, pricing, usage totals, the response
 * cache (redaction is `src/secrets/`).
 */
export {
  createModelClient,
  modelClientConfigSchema,
  type ModelClient,
  type ModelClientConfig,
  type ModelClientDependencies,
  type ModelClientDescription,
} from "./model-client.ts";
export { keepAliveFetch, type FetchFunction } from "./http-transport.ts";
export { ModelCallError, ModelResponseError, ModelTimeoutError, type ModelCallErrorDetails } from "./errors.ts";
export {
  computeCost,
  findPriceEntry,
  loadPriceFile,
  parsePriceTable,
  priceEntrySchema,
  priceTableSchema,
  type CostInput,
  type CostResult,
  type PriceEntry,
  type PriceTable,
} from "./pricing.ts";
export {
  getProvider,
  knownLitellmPrefixes,
  LITELLM_PREFIXES,
  PLACEHOLDER_API_KEY,
  PROVIDER_NAMES,
  resolveLitellmModel,
  type CatalogueLookup,
  type LitellmModelOptions,
  type ProviderClient,
  type ProviderInfo,
  type ProviderName,
} from "./providers.ts";
export { AZURE_DEFAULT_API_VERSION } from "./endpoint.ts";
export { cacheKey, canonicalJson, CACHE_SCHEMA_VERSION, ResponseCache, type CachedResponse, type CacheKeyInput, type CacheStats } from "./response-cache.ts";
export { backoffDelay, DEFAULT_BACKOFF, isRetryableError, MAX_RETRY_AFTER_MS, parseRetryAfter, type BackoffOptions } from "./retry.ts";
export {
  MODEL_ROLES,
  type AssistantMessage,
  type CompletionRequest,
  type CompletionResult,
  type CostSource,
  type ModelRole,
  type ModelUsage,
  type ToolChoice,
  type ToolDefinition,
} from "./types.ts";
export { UsageTotals, type UsageSummary } from "./usage.ts";
