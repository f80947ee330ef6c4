/**
 * The model providers taubridge can talk to. Every provider is reached through its
 * OpenAI-compatible chat-completions endpoint with the `openai` SDK's wire behaviour (the SDK's
 * `OpenAI`, or its `AzureOpenAI` / `BedrockOpenAI` subclasses for the two hosts that address and
 * authenticate differently); a provider entry only supplies defaults (base URL, the variables the
 * key and the base URL are read from, headers a provider asks for), how the model is named on the
 * wire and how a call is priced.
 *
 * τ² names its models the way litellm does (`anthropic/claude-…`, `hosted_vllm/Qwen/…`, bare
 * `gpt-4.1`): {@link resolveLitellmModel} turns such a string into a provider and a model name with
 * litellm's routing rules (`get_llm_provider`: a known prefix names the provider and is cut off;
 * a bare name is looked up by what it starts with), and refuses an unknown prefix.
 */
import { ConfigError, UnknownNameError } from "../errors/error-tree.ts";

/** Provider names accepted in `--model-provider` / `provider:` config fields. */
export const PROVIDER_NAMES = [
  "openai",
  "openai-compatible",
  "vllm",
  "ollama",
  "llamacpp",
  "lmstudio",
  "openrouter",
  "anthropic",
  "gemini",
  "azure",
  "deepseek",
  "mistral",
  "groq",
  "together_ai",
  "fireworks_ai",
  "xai",
  "bedrock",
] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** litellm's spellings of our providers, accepted wherever a provider is named (`--model-provider hosted_vllm`). */
const PROVIDER_ALIASES: Readonly<Record<string, ProviderName>> = { hosted_vllm: "vllm", ollama_chat: "ollama", lm_studio: "lmstudio" };

/**
 * How the cost of a call on this provider is looked up in `@pydantic/genai-prices`:
 * - `{ providerId }`: the provider's own list prices (hosted APIs);
 * - `"by-base-url"`: match the base URL against the catalogue's API patterns (an
 *   OpenAI-compatible endpoint may be a hosted API such as Groq or Together);
 * - `"none"`: local servers run user-supplied weights that have no list price, so only a user
 *   price file can price them (otherwise the cost is unknown, `null`).
 */
export type CatalogueLookup = { providerId: string } | "by-base-url" | "none";

/** Which `openai` SDK class speaks to the provider: the plain client, or the subclass for a host that addresses and authenticates its own way. */
export type ProviderClient = "openai" | "azure" | "bedrock";

export interface ProviderInfo {
  name: ProviderName;
  /** Used when neither the config nor {@link ProviderInfo.baseUrlEnv} gives a base URL; `undefined` means one is required. */
  defaultBaseURL: string | undefined;
  /** Variables a base URL is read from when the config gives none (litellm's names: `HOSTED_VLLM_API_BASE`, …), first set wins. */
  baseUrlEnv: readonly string[];
  /** Environment variable holding the API key when the config names none (the first of {@link ProviderInfo.apiKeyEnvs}). */
  defaultApiKeyEnv: string | undefined;
  /** Every variable litellm reads the key from, first set wins (`TOGETHER_API_KEY`, `TOGETHERAI_API_KEY`, …). */
  apiKeyEnvs: readonly string[];
  /** True when calls cannot work without a real key (hosted APIs); local servers accept a dummy. */
  requiresApiKey: boolean;
  catalogue: CatalogueLookup;
  client: ProviderClient;
  /** The model name as the provider's endpoint wants it (Fireworks: `accounts/fireworks/models/<name>`, as litellm sends it). */
  wireModel?: (model: string) => string;
  /** Headers the provider reads from the environment when set (OpenRouter's app attribution): `[header, variable]`. */
  headersFromEnv?: ReadonlyArray<readonly [string, string]>;
  /** Completes a base URL given the way litellm takes it (Ollama's `http://host:11434` → `…/v1`). */
  normalizeBaseURL?: (url: string) => string;
}

/**
 * The placeholder key sent to servers that do not check keys (Ollama, vLLM, llama.cpp, LM Studio):
 * the `openai` SDK refuses to run without one.
 */
export const PLACEHOLDER_API_KEY = "taubridge-no-key";

/** `http://host:11434` → `http://host:11434/v1`: litellm's `ollama_chat` base is the server's root, its OpenAI-compatible API lives under `/v1`. */
function withV1Path(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.pathname === "/" || parsed.pathname === "") {
      parsed.pathname = "/v1";
      return parsed.toString();
    }
  } catch {
    // Not a URL: left for the config check to refuse.
  }
  return url;
}

const hosted = (name: ProviderName, defaultBaseURL: string, apiKeyEnvs: readonly string[], providerId: string, baseUrlEnv: readonly string[] = []): ProviderInfo => ({
  name,
  defaultBaseURL,
  baseUrlEnv,
  defaultApiKeyEnv: apiKeyEnvs[0],
  apiKeyEnvs,
  requiresApiKey: true,
  catalogue: { providerId },
  client: "openai",
});

const local = (name: ProviderName, defaultBaseURL: string, baseUrlEnv: readonly string[] = [], apiKeyEnvs: readonly string[] = []): ProviderInfo => ({
  name,
  defaultBaseURL,
  baseUrlEnv,
  defaultApiKeyEnv: undefined,
  apiKeyEnvs,
  requiresApiKey: false,
  catalogue: "none",
  client: "openai",
});

const PROVIDERS: Record<ProviderName, ProviderInfo> = {
  openai: hosted("openai", "https://api.openai.com/v1", ["OPENAI_API_KEY"], "openai"),
  "openai-compatible": {
    name: "openai-compatible",
    defaultBaseURL: undefined,
    baseUrlEnv: [],
    defaultApiKeyEnv: undefined,
    apiKeyEnvs: [],
    requiresApiKey: false,
    catalogue: "by-base-url",
    client: "openai",
  },
  vllm: local("vllm", "http://localhost:8000/v1", ["HOSTED_VLLM_API_BASE"], ["HOSTED_VLLM_API_KEY"]),
  ollama: { ...local("ollama", "http://localhost:11434/v1", ["OLLAMA_API_BASE"]), normalizeBaseURL: withV1Path },
  llamacpp: local("llamacpp", "http://localhost:8080/v1"),
  lmstudio: local("lmstudio", "http://localhost:1234/v1", ["LM_STUDIO_API_BASE"], ["LM_STUDIO_API_KEY"]),
  openrouter: {
    ...hosted("openrouter", "https://openrouter.ai/api/v1", ["OPENROUTER_API_KEY", "OR_API_KEY"], "openrouter", ["OPENROUTER_API_BASE", "OR_API_BASE"]),
    // OpenRouter's optional app attribution, from litellm's variables; sent only when set.
    headersFromEnv: [
      ["HTTP-Referer", "OR_SITE_URL"],
      ["X-Title", "OR_APP_NAME"],
    ],
  },
  // Anthropic's OpenAI-compatible endpoint (chat completions with tools).
  anthropic: hosted("anthropic", "https://api.anthropic.com/v1/", ["ANTHROPIC_API_KEY"], "anthropic"),
  // Gemini's OpenAI-compatible endpoint of the Gemini API (an API key, as litellm's `gemini/`; not Vertex AI).
  gemini: hosted("gemini", "https://generativelanguage.googleapis.com/v1beta/openai/", ["GEMINI_API_KEY", "GOOGLE_API_KEY"], "google"),
  // Azure OpenAI: the base URL is the resource's endpoint; the model is the deployment (the SDK's AzureOpenAI addresses and authenticates it).
  azure: {
    ...hosted("azure", "", ["AZURE_API_KEY", "AZURE_OPENAI_API_KEY"], "azure", ["AZURE_API_BASE", "AZURE_OPENAI_ENDPOINT"]),
    defaultBaseURL: undefined,
    client: "azure",
  },
  // litellm's default DeepSeek base (`/beta`, which serves every chat model and the beta features).
  deepseek: hosted("deepseek", "https://api.deepseek.com/beta", ["DEEPSEEK_API_KEY"], "deepseek", ["DEEPSEEK_API_BASE"]),
  mistral: hosted("mistral", "https://api.mistral.ai/v1", ["MISTRAL_API_KEY"], "mistral", ["MISTRAL_API_BASE"]),
  groq: hosted("groq", "https://api.groq.com/openai/v1", ["GROQ_API_KEY"], "groq", ["GROQ_API_BASE"]),
  together_ai: hosted("together_ai", "https://api.together.xyz/v1", ["TOGETHER_API_KEY", "TOGETHER_AI_API_KEY", "TOGETHERAI_API_KEY", "TOGETHER_AI_TOKEN"], "together", ["TOGETHER_AI_API_BASE"]),
  fireworks_ai: {
    ...hosted("fireworks_ai", "https://api.fireworks.ai/inference/v1", ["FIREWORKS_API_KEY", "FIREWORKS_AI_API_KEY", "FIREWORKSAI_API_KEY", "FIREWORKS_AI_TOKEN"], "fireworks", ["FIREWORKS_API_BASE"]),
    wireModel: (model) => (model.startsWith("accounts/") ? model : `accounts/fireworks/models/${model}`),
  },
  xai: hosted("xai", "https://api.x.ai/v1", ["XAI_API_KEY"], "x-ai", ["XAI_API_BASE"]),
  // Amazon Bedrock's OpenAI-compatible endpoint (bedrock-mantle) with a Bedrock API key; the base URL comes from the region when not given.
  bedrock: {
    ...hosted("bedrock", "", ["AWS_BEARER_TOKEN_BEDROCK"], "aws", ["AWS_BEDROCK_BASE_URL"]),
    defaultBaseURL: undefined,
    client: "bedrock",
  },
};

/**
 * Looks up a provider by name (or litellm's spelling of it: `hosted_vllm`, `ollama_chat`,
 * `lm_studio`). Throws {@link UnknownNameError} listing the known names, so a typo fails before
 * any model call.
 */
export function getProvider(name: string): ProviderInfo {
  if (Object.hasOwn(PROVIDERS, name)) return PROVIDERS[name as ProviderName];
  if (Object.hasOwn(PROVIDER_ALIASES, name)) return PROVIDERS[PROVIDER_ALIASES[name] as ProviderName];
  throw new UnknownNameError("model provider", name, PROVIDER_NAMES);
}

/** The first non-empty value among `variables` in `env`, with the variable it came from. */
export function firstSetVariable(variables: readonly string[], env: Readonly<Record<string, string | undefined>>): { variable: string; value: string } | undefined {
  for (const variable of variables) {
    const value = env[variable]?.trim();
    if (value) return { variable, value };
  }
  return undefined;
}

/** The AWS region Bedrock is reached in: `AWS_REGION`, `AWS_DEFAULT_REGION` (the SDK's), `AWS_REGION_NAME` (litellm's). */
const BEDROCK_REGION_VARIABLES = ["AWS_REGION", "AWS_DEFAULT_REGION", "AWS_REGION_NAME"];

/**
 * The base URL a provider is called at when the config gives none: its variables (litellm's
 * `*_API_BASE`), then its default; Bedrock's from the region (`https://bedrock-mantle.<region>.api.aws/openai/v1`,
 * the endpoint the SDK's `BedrockOpenAI` derives). `undefined` when nothing names one.
 */
export function providerBaseURL(provider: ProviderInfo, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const fromEnv = firstSetVariable(provider.baseUrlEnv, env)?.value;
  if (fromEnv) return fromEnv;
  if (provider.name === "bedrock") {
    const region = firstSetVariable(BEDROCK_REGION_VARIABLES, env)?.value;
    return region ? `https://bedrock-mantle.${region}.api.aws/openai/v1` : undefined;
  }
  return provider.defaultBaseURL;
}

/** What a provider needs besides a model name, for the "no base URL" message. */
export function missingBaseURLHint(provider: ProviderInfo): string {
  if (provider.name === "azure") return "set the resource's endpoint (https://<resource>.openai.azure.com) as its base URL or in AZURE_API_BASE";
  if (provider.name === "bedrock") return "set AWS_REGION (or AWS_BEDROCK_BASE_URL, or its base URL)";
  const variables = provider.baseUrlEnv.length > 0 ? ` (or ${provider.baseUrlEnv.join(" / ")})` : "";
  return `set baseURL${variables}`;
}

/** litellm's provider prefixes (`<prefix>/<model>`) and the provider each means here. */
export const LITELLM_PREFIXES: Readonly<Record<string, ProviderName>> = {
  openai: "openai",
  anthropic: "anthropic",
  gemini: "gemini",
  azure: "azure",
  deepseek: "deepseek",
  mistral: "mistral",
  groq: "groq",
  together_ai: "together_ai",
  fireworks_ai: "fireworks_ai",
  xai: "xai",
  openrouter: "openrouter",
  ollama: "ollama",
  ollama_chat: "ollama",
  hosted_vllm: "vllm",
  lm_studio: "lmstudio",
  bedrock: "bedrock",
};

/**
 * Bare model names litellm routes by name (its model lists: OpenAI's chat models, Anthropic's,
 * Gemini's), as patterns on the name's start. A bare `gemini-*` goes to the Gemini API here
 * (litellm sends it to Vertex AI, which needs Google Cloud credentials this client does not speak).
 */
const BARE_MODEL_PROVIDERS: ReadonlyArray<readonly [RegExp, ProviderName]> = [
  [/^(gpt-|chatgpt-|ft:gpt-|o1($|-)|o3($|-)|o4($|-)|codex-|computer-use-|text-embedding-)/, "openai"],
  [/^claude-/, "anthropic"],
  [/^gemini-/, "gemini"],
];

/** The known prefixes, for messages: `openai/, anthropic/, …`. */
export function knownLitellmPrefixes(): string {
  return Object.keys(LITELLM_PREFIXES)
    .map((prefix) => `${prefix}/`)
    .join(", ");
}

export interface LitellmModelOptions {
  /** Our provider, when the user named one (`--agent-provider`): the string is then a model name, a matching prefix cut off. */
  provider?: string;
  /** Whether a base URL is given (flag or `api_base`): a bare name nobody recognises then goes to that OpenAI-compatible endpoint. */
  hasBaseURL: boolean;
  /** What the user changes, for messages (`--agent-llm`). */
  setting: string;
  /** The flag that names the provider outright, for messages (`--agent-provider`). */
  providerSetting: string;
}

/**
 * A litellm model string as our provider and the model name sent. `prefix/name` with a known
 * prefix: that provider, the name after it (`hosted_vllm/Qwen/Qwen3-8B` → vllm, `Qwen/Qwen3-8B`);
 * an unknown prefix is refused listing the known ones. A bare name: the provider its name belongs
 * to (`gpt-*`, `o3*` → openai, `claude-*` → anthropic, `gemini-*` → gemini), else the given
 * endpoint (`openai-compatible`), else refused — litellm refuses it too.
 */
export function resolveLitellmModel(llm: string, options: LitellmModelOptions): { provider: string; model: string } {
  const slash = llm.indexOf("/");
  const prefix = slash > 0 ? llm.slice(0, slash) : undefined;
  const named = prefix !== undefined && Object.hasOwn(LITELLM_PREFIXES, prefix) ? LITELLM_PREFIXES[prefix] : undefined;
  if (options.provider !== undefined) {
    const provider = getProvider(options.provider).name;
    return { provider: options.provider, model: named === provider ? llm.slice(slash + 1) : llm };
  }
  if (named) {
    const model = llm.slice(slash + 1);
    if (model === "") throw new ConfigError(`${options.setting} "${llm}" names no model after the provider prefix`);
    return { provider: named, model };
  }
  if (prefix !== undefined) {
    throw new ConfigError(
      `${options.setting} "${llm}": unknown provider prefix "${prefix}/" (known: ${knownLitellmPrefixes()}); to send the whole name to an OpenAI-compatible server, give its base URL with a known prefix (openai/${llm}, hosted_vllm/${llm}) or the provider (${options.providerSetting} openai-compatible)`,
    );
  }
  for (const [pattern, provider] of BARE_MODEL_PROVIDERS) if (pattern.test(llm)) return { provider: options.hasBaseURL ? "openai-compatible" : provider, model: llm };
  if (options.hasBaseURL) return { provider: "openai-compatible", model: llm };
  throw new ConfigError(
    `${options.setting} "${llm}": no provider serves a model of that name (litellm knows gpt-*, o1*/o3*/o4*, claude-*, gemini-* without a prefix); name its provider (${knownLitellmPrefixes()}) or give an OpenAI-compatible base URL (api_base)`,
  );
}
