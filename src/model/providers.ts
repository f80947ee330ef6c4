/**
 * The model providers taubridge can talk to. Every provider is reached through the `openai` SDK,
 * because all of them expose (or can expose) the OpenAI chat-completions API; a provider entry only
 * supplies defaults (base URL, API-key variable) and the pricing lookup to use.
 */
import { UnknownNameError } from "../errors/error-tree.ts";

/** Provider names accepted in `--model-provider` / `provider:` config fields. */
export const PROVIDER_NAMES = ["openai", "openai-compatible", "vllm", "ollama", "llamacpp", "lmstudio", "openrouter", "anthropic"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/**
 * How the cost of a call on this provider is looked up in `@pydantic/genai-prices`:
 * - `{ providerId }`: the provider's own list prices (hosted APIs);
 * - `"by-base-url"`: match the base URL against the catalogue's API patterns (an
 *   OpenAI-compatible endpoint may be a hosted API such as Groq or Together);
 * - `"none"`: local servers run user-supplied weights that have no list price, so only a user
 *   price file can price them (otherwise the cost is unknown, `null`).
 */
export type CatalogueLookup = { providerId: string } | "by-base-url" | "none";

export interface ProviderInfo {
  name: ProviderName;
  /** Used when the config gives no `baseURL`; `undefined` means a base URL is required. */
  defaultBaseURL: string | undefined;
  /** Environment variable holding the API key when the config names none. */
  defaultApiKeyEnv: string | undefined;
  /** True when calls cannot work without a real key (hosted APIs); local servers accept a dummy. */
  requiresApiKey: boolean;
  catalogue: CatalogueLookup;
}

/**
 * The placeholder key sent to servers that do not check keys (Ollama, vLLM, llama.cpp, LM Studio):
 * the `openai` SDK refuses to run without one.
 */
export const PLACEHOLDER_API_KEY = "taubridge-no-key";

const PROVIDERS: Record<ProviderName, ProviderInfo> = {
  openai: {
    name: "openai",
    defaultBaseURL: "https://api.openai.com/v1",
    defaultApiKeyEnv: "OPENAI_API_KEY",
    requiresApiKey: true,
    catalogue: { providerId: "openai" },
  },
  "openai-compatible": {
    name: "openai-compatible",
    defaultBaseURL: undefined,
    defaultApiKeyEnv: undefined,
    requiresApiKey: false,
    catalogue: "by-base-url",
  },
  vllm: {
    name: "vllm",
    defaultBaseURL: "http://localhost:8000/v1",
    defaultApiKeyEnv: undefined,
    requiresApiKey: false,
    catalogue: "none",
  },
  ollama: {
    name: "ollama",
    defaultBaseURL: "http://localhost:11434/v1",
    defaultApiKeyEnv: undefined,
    requiresApiKey: false,
    catalogue: "none",
  },
  llamacpp: {
    name: "llamacpp",
    defaultBaseURL: "http://localhost:8080/v1",
    defaultApiKeyEnv: undefined,
    requiresApiKey: false,
    catalogue: "none",
  },
  lmstudio: {
    name: "lmstudio",
    defaultBaseURL: "http://localhost:1234/v1",
    defaultApiKeyEnv: undefined,
    requiresApiKey: false,
    catalogue: "none",
  },
  openrouter: {
    name: "openrouter",
    defaultBaseURL: "https://openrouter.ai/api/v1",
    defaultApiKeyEnv: "OPENROUTER_API_KEY",
    requiresApiKey: true,
    catalogue: { providerId: "openrouter" },
  },
  anthropic: {
    // Anthropic's OpenAI-compatible endpoint (chat completions with tools).
    name: "anthropic",
    defaultBaseURL: "https://api.anthropic.com/v1/",
    defaultApiKeyEnv: "ANTHROPIC_API_KEY",
    requiresApiKey: true,
    catalogue: { providerId: "anthropic" },
  },
};

/**
 * Looks up a provider by name. Throws {@link UnknownNameError} listing the known names, so a typo
 * fails before any model call.
 */
export function getProvider(name: string): ProviderInfo {
  if (Object.hasOwn(PROVIDERS, name)) return PROVIDERS[name as ProviderName];
  throw new UnknownNameError("model provider", name, PROVIDER_NAMES);
}
