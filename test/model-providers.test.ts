/**
 * Every provider a τ² user names (litellm's prefixes) reaches its OpenAI-compatible endpoint with the
 * path, headers, body, key variable and pricing it needs: each one is called for real through the
 * model client against the scripted server (its base URL pointed there through the provider's own
 * variable or base URL, in the provider's path shape), and litellm's routing of bare names and
 * refusal of unknown prefixes are checked on the strings τ² users write.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../src/errors/error-tree.ts";
import { createModelClient, getProvider, LITELLM_PREFIXES, PROVIDER_NAMES, resolveLitellmModel } from "../src/model/index.ts";
import { AZURE_DEFAULT_API_VERSION } from "../src/model/endpoint.ts";
import { resolveTau2Model, tau2ModelSettings } from "../src/suites/tau2/models.ts";
import { startScriptedModelServer, type ScriptedModelServer } from "../src/testing/index.ts";

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await startScriptedModelServer({ responder: () => ({ content: "ok", usage: { prompt_tokens: 1000, completion_tokens: 100 } }) });
});
afterAll(async () => {
  await server.close();
});

const KEY = "provider-test-key-0123456789";

interface ProviderCase {
  /** The τ² model string. */
  llm: string;
  /** Variables of the run's environment: the key and where the scripted server stands in for the provider. */
  env: (url: string) => Record<string, string>;
  /** The base URL given (`api_base`), when the provider has no base-URL variable. */
  baseURL?: (url: string) => string;
  /** Extra LLM arguments. */
  llmArgs?: Record<string, unknown>;
  provider: string;
  path: string;
  query?: Record<string, string>;
  /** The credential header the provider authenticates with. */
  credential: "authorization" | "api-key";
  /** Headers the provider asks for besides the SDK's own. */
  headers?: Record<string, string>;
  /** The model name sent. */
  wireModel: string;
  /** Whether the catalogue prices the call (hosted providers' list prices; local servers never). */
  priced: boolean;
  /** The base URL when nothing names one. */
  defaultBaseURL?: string;
}

const CASES: Record<string, ProviderCase> = {
  openai: {
    llm: "openai/gpt-4o",
    env: () => ({ OPENAI_API_KEY: KEY }),
    baseURL: (url) => `${url}/v1`,
    provider: "openai",
    path: "/v1/chat/completions",
    credential: "authorization",
    wireModel: "gpt-4o",
    priced: true,
    defaultBaseURL: "https://api.openai.com/v1",
  },
  anthropic: {
    llm: "anthropic/claude-sonnet-4-5",
    env: () => ({ ANTHROPIC_API_KEY: KEY }),
    baseURL: (url) => `${url}/v1/`,
    provider: "anthropic",
    path: "/v1/chat/completions",
    credential: "authorization",
    wireModel: "claude-sonnet-4-5",
    priced: true,
    defaultBaseURL: "https://api.anthropic.com/v1/",
  },
  gemini: {
    llm: "gemini/gemini-2.5-pro",
    env: () => ({ GEMINI_API_KEY: KEY }),
    baseURL: (url) => `${url}/v1beta/openai/`,
    provider: "gemini",
    path: "/v1beta/openai/chat/completions",
    credential: "authorization",
    wireModel: "gemini-2.5-pro",
    priced: true,
    defaultBaseURL: "https://generativelanguage.googleapis.com/v1beta/openai/",
  },
  azure: {
    llm: "azure/gpt-4o",
    env: (url) => ({ AZURE_API_KEY: KEY, AZURE_API_BASE: url }),
    provider: "azure",
    path: "/openai/deployments/gpt-4o/chat/completions",
    query: { "api-version": AZURE_DEFAULT_API_VERSION },
    credential: "api-key",
    wireModel: "gpt-4o",
    priced: true,
  },
  deepseek: {
    llm: "deepseek/deepseek-chat",
    env: (url) => ({ DEEPSEEK_API_KEY: KEY, DEEPSEEK_API_BASE: `${url}/beta` }),
    provider: "deepseek",
    path: "/beta/chat/completions",
    credential: "authorization",
    wireModel: "deepseek-chat",
    priced: true,
    defaultBaseURL: "https://api.deepseek.com/beta",
  },
  mistral: {
    llm: "mistral/mistral-large-latest",
    env: (url) => ({ MISTRAL_API_KEY: KEY, MISTRAL_API_BASE: `${url}/v1` }),
    provider: "mistral",
    path: "/v1/chat/completions",
    credential: "authorization",
    wireModel: "mistral-large-latest",
    priced: true,
    defaultBaseURL: "https://api.mistral.ai/v1",
  },
  groq: {
    llm: "groq/llama-3.3-70b-versatile",
    env: (url) => ({ GROQ_API_KEY: KEY, GROQ_API_BASE: `${url}/openai/v1` }),
    provider: "groq",
    path: "/openai/v1/chat/completions",
    credential: "authorization",
    wireModel: "llama-3.3-70b-versatile",
    priced: true,
    defaultBaseURL: "https://api.groq.com/openai/v1",
  },
  together_ai: {
    llm: "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
    // litellm reads several spellings of the key; the third is enough.
    env: (url) => ({ TOGETHERAI_API_KEY: KEY, TOGETHER_AI_API_BASE: `${url}/v1` }),
    provider: "together_ai",
    path: "/v1/chat/completions",
    credential: "authorization",
    wireModel: "meta-llama/Llama-3.3-70B-Instruct-Turbo",
    priced: true,
    defaultBaseURL: "https://api.together.xyz/v1",
  },
  fireworks_ai: {
    llm: "fireworks_ai/llama-v3p1-8b-instruct",
    env: (url) => ({ FIREWORKS_AI_API_KEY: KEY, FIREWORKS_API_BASE: `${url}/inference/v1` }),
    provider: "fireworks_ai",
    path: "/inference/v1/chat/completions",
    credential: "authorization",
    wireModel: "accounts/fireworks/models/llama-v3p1-8b-instruct",
    priced: true,
    defaultBaseURL: "https://api.fireworks.ai/inference/v1",
  },
  xai: {
    llm: "xai/grok-3",
    env: (url) => ({ XAI_API_KEY: KEY, XAI_API_BASE: `${url}/v1` }),
    provider: "xai",
    path: "/v1/chat/completions",
    credential: "authorization",
    wireModel: "grok-3",
    priced: true,
    defaultBaseURL: "https://api.x.ai/v1",
  },
  openrouter: {
    llm: "openrouter/qwen/qwen3-235b-a22b",
    env: (url) => ({ OPENROUTER_API_KEY: KEY, OPENROUTER_API_BASE: `${url}/api/v1`, OR_SITE_URL: "https://example.org/evals", OR_APP_NAME: "my-evals" }),
    provider: "openrouter",
    path: "/api/v1/chat/completions",
    credential: "authorization",
    headers: { "http-referer": "https://example.org/evals", "x-title": "my-evals" },
    wireModel: "qwen/qwen3-235b-a22b",
    priced: true,
    defaultBaseURL: "https://openrouter.ai/api/v1",
  },
  ollama: {
    llm: "ollama/llama3.1",
    env: (url) => ({ OLLAMA_API_BASE: url }),
    provider: "ollama",
    path: "/v1/chat/completions",
    credential: "authorization",
    wireModel: "llama3.1",
    priced: false,
    defaultBaseURL: "http://localhost:11434/v1",
  },
  // litellm's ollama_chat base is the server's root: its OpenAI-compatible API is under /v1.
  ollama_chat: {
    llm: "ollama_chat/qwen3:8b",
    env: () => ({}),
    baseURL: (url) => url,
    provider: "ollama",
    path: "/v1/chat/completions",
    credential: "authorization",
    wireModel: "qwen3:8b",
    priced: false,
  },
  hosted_vllm: {
    llm: "hosted_vllm/Qwen/Qwen3-8B",
    env: (url) => ({ HOSTED_VLLM_API_BASE: `${url}/v1`, HOSTED_VLLM_API_KEY: KEY }),
    provider: "vllm",
    path: "/v1/chat/completions",
    credential: "authorization",
    wireModel: "Qwen/Qwen3-8B",
    priced: false,
    defaultBaseURL: "http://localhost:8000/v1",
  },
  lm_studio: {
    llm: "lm_studio/qwen3-8b",
    env: (url) => ({ LM_STUDIO_API_BASE: `${url}/v1` }),
    provider: "lmstudio",
    path: "/v1/chat/completions",
    credential: "authorization",
    wireModel: "qwen3-8b",
    priced: false,
    defaultBaseURL: "http://localhost:1234/v1",
  },
  bedrock: {
    llm: "bedrock/openai.gpt-oss-120b-1:0",
    env: (url) => ({ AWS_BEARER_TOKEN_BEDROCK: KEY, AWS_BEDROCK_BASE_URL: `${url}/openai/v1` }),
    provider: "bedrock",
    path: "/openai/v1/chat/completions",
    credential: "authorization",
    wireModel: "openai.gpt-oss-120b-1:0",
    priced: true,
  },
};

const messages = [{ role: "user" as const, content: "Where is my order?" }];

describe("litellm provider prefixes against the scripted server", () => {
  it("covers every prefix the router knows", () => {
    expect(Object.keys(CASES).sort()).toEqual(Object.keys(LITELLM_PREFIXES).sort());
  });

  for (const [prefix, expected] of Object.entries(CASES)) {
    it(`${prefix}/: path, headers, body, key and price`, async () => {
      const llmArgs = { temperature: 0.0, ...(expected.baseURL ? { api_base: expected.baseURL(server.url) } : {}), ...expected.llmArgs };
      const route = resolveTau2Model({ llm: expected.llm, llmArgs });
      expect(route.provider).toBe(expected.provider);
      const client = createModelClient({ role: "agent", model: route.model, provider: route.provider, baseURL: route.baseURL, timeoutMs: 5_000, maxAttempts: 1 }, { env: expected.env(server.url) });
      const before = server.requests.length;
      const result = await client.complete({ messages, temperature: 0, params: { seed: 7 } });
      expect(result.message.content).toBe("ok");
      const request = server.requests[before];
      expect(request?.path).toBe(expected.path);
      expect(request?.query).toEqual(expected.query ?? {});
      expect(request?.credentialHeaders).toEqual([expected.credential]);
      expect(request?.body).toEqual({ seed: 7, model: expected.wireModel, messages, temperature: 0 });
      expect(request?.headers["content-type"]).toBe("application/json");
      expect(request?.headers["user-agent"]).toMatch(/^(Azure|Bedrock)?OpenAI\/JS /);
      for (const [name, value] of Object.entries(expected.headers ?? {})) expect(request?.headers[name]).toBe(value);
      if (!expected.headers) expect(request?.headers["x-title"]).toBeUndefined();
      // Hosted providers price from the catalogue under their own id; local weights have no list price.
      if (expected.priced) expect(result.cost).toBeGreaterThan(0);
      else expect(result.cost).toBeNull();
      expect(client.describe().model).toBe(route.model);
    });
  }

  it("Azure takes api_version from the LLM arguments, then AZURE_API_VERSION", async () => {
    const env = { AZURE_API_KEY: KEY, AZURE_API_BASE: server.url, AZURE_API_VERSION: "2024-10-21" };
    for (const [llmArgs, version] of [
      [{}, "2024-10-21"],
      [{ api_version: "2024-06-01" }, "2024-06-01"],
    ] as const) {
      const route = resolveTau2Model({ llm: "azure/my-deployment", llmArgs });
      const client = createModelClient({ model: route.model, provider: route.provider, ...(route.apiVersion ? { apiVersion: route.apiVersion } : {}), maxAttempts: 1 }, { env });
      const before = server.requests.length;
      await client.complete({ messages });
      expect(server.requests[before]).toMatchObject({ path: "/openai/deployments/my-deployment/chat/completions", query: { "api-version": version } });
    }
  });

  it("uses each provider's default endpoint and key variable when nothing else is named", () => {
    for (const [prefix, expected] of Object.entries(CASES)) {
      if (!expected.defaultBaseURL) continue;
      const provider = getProvider(LITELLM_PREFIXES[prefix] as string);
      const env = provider.requiresApiKey ? { [provider.apiKeyEnvs[0] as string]: KEY } : {};
      const client = createModelClient({ model: "m", provider: provider.name }, { env });
      expect(client.baseURL, prefix).toBe(expected.defaultBaseURL);
      expect(client.describe().apiKeyEnv, prefix).toBe(provider.requiresApiKey ? provider.apiKeyEnvs[0] : null);
    }
    // Bedrock's endpoint comes from the region, as the SDK's BedrockOpenAI derives it; Azure needs the resource's endpoint.
    expect(createModelClient({ model: "m", provider: "bedrock" }, { env: { AWS_BEARER_TOKEN_BEDROCK: KEY, AWS_REGION: "us-west-2" } }).baseURL).toBe(
      "https://bedrock-mantle.us-west-2.api.aws/openai/v1",
    );
    expect(() => createModelClient({ model: "m", provider: "bedrock" }, { env: { AWS_BEARER_TOKEN_BEDROCK: KEY } })).toThrow(/AWS_REGION/);
    expect(() => createModelClient({ model: "m", provider: "azure" }, { env: { AZURE_API_KEY: KEY } })).toThrow(/AZURE_API_BASE/);
    // A hosted provider without its key is refused before any request, naming every variable litellm reads.
    expect(() => createModelClient({ model: "m", provider: "together_ai" }, { env: {} })).toThrow(/TOGETHER_API_KEY or TOGETHER_AI_API_KEY or TOGETHERAI_API_KEY or TOGETHER_AI_TOKEN/);
    expect(() => createModelClient({ model: "m", provider: "gemini" }, { env: {} })).toThrow(/GEMINI_API_KEY/);
  });
});

describe("litellm model strings", () => {
  const route = (llm: string, hasBaseURL = false, provider?: string) =>
    resolveLitellmModel(llm, { hasBaseURL, setting: "--agent-llm", providerSetting: "--agent-provider", ...(provider ? { provider } : {}) });

  it("routes bare names as litellm does, and to a given endpoint otherwise", () => {
    expect(route("gpt-4.1-2025-04-14")).toEqual({ provider: "openai", model: "gpt-4.1-2025-04-14" });
    expect(route("o3-mini")).toEqual({ provider: "openai", model: "o3-mini" });
    expect(route("o4-mini-2025-04-16")).toEqual({ provider: "openai", model: "o4-mini-2025-04-16" });
    expect(route("claude-3-7-sonnet-20250219")).toEqual({ provider: "anthropic", model: "claude-3-7-sonnet-20250219" });
    expect(route("gemini-2.5-flash")).toEqual({ provider: "gemini", model: "gemini-2.5-flash" });
    expect(route("my-finetune", true)).toEqual({ provider: "openai-compatible", model: "my-finetune" });
    expect(route("gpt-4o", true)).toEqual({ provider: "openai-compatible", model: "gpt-4o" });
    expect(() => route("my-finetune")).toThrow(ConfigError);
    expect(() => route("my-finetune")).toThrow(/--agent-llm "my-finetune": no provider serves/);
  });

  it("refuses an unknown prefix in one line listing the known ones", () => {
    let error: unknown;
    try {
      route("vertex_ai/gemini-2.5-pro");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain("\n");
    expect(message).toContain('unknown provider prefix "vertex_ai/"');
    for (const prefix of Object.keys(LITELLM_PREFIXES)) expect(message).toContain(`${prefix}/`);
    // A slash inside a local model's name is an unknown prefix too (litellm refuses it): the message says how to send it whole.
    expect(() => route("Qwen/Qwen3-8B", true)).toThrow(/hosted_vllm\/Qwen\/Qwen3-8B/);
  });

  it("takes a named provider at its word, cutting only its own prefix", () => {
    expect(route("Qwen/Qwen3-8B", true, "openai-compatible")).toEqual({ provider: "openai-compatible", model: "Qwen/Qwen3-8B" });
    expect(route("openrouter/openai/gpt-4o", false, "openrouter")).toEqual({ provider: "openrouter", model: "openai/gpt-4o" });
    expect(route("hosted_vllm/Qwen/Qwen3-8B", false, "hosted_vllm")).toEqual({ provider: "hosted_vllm", model: "Qwen/Qwen3-8B" });
    expect(() => route("x", false, "bogus")).toThrow(/known: openai, openai-compatible/);
    expect(PROVIDER_NAMES).toEqual(expect.arrayContaining(["gemini", "azure", "deepseek", "mistral", "groq", "together_ai", "fireworks_ai", "xai", "bedrock"]));
  });

  it("resolves only the roles a run calls a model for, and the judge as the agent", () => {
    const flags = { agentLlm: "vertex_ai/x", userLlm: "gemini/gemini-2.5-flash", agentLlmArgs: {}, userLlmArgs: {}, maxConcurrency: 1, values: { judgeModel: "anthropic/claude-sonnet-4-5" } };
    // An oracle agent's model string is never used, so it is not refused.
    const settings = tau2ModelSettings(flags, { agent: false, user: true });
    expect(settings).toMatchObject({ model: undefined, userModel: "gemini-2.5-flash", userModelProvider: "gemini", judgeModel: "claude-sonnet-4-5", judgeProvider: "anthropic" });
    expect(() => tau2ModelSettings(flags)).toThrow(/vertex_ai/);
  });
});
