/**
 * Model clients for a τ² run, from τ²'s own way of naming models: litellm model strings
 * (`gpt-4.1-2025-04-14`, `openai/gpt-4o`, `anthropic/claude-…`, `hosted_vllm/Qwen/…`,
 * `ollama/llama3`, `openrouter/…`) and LLM-argument JSON whose `api_base` (litellm's key for a
 * custom OpenAI-compatible endpoint) means what it means to τ²'s users. Our `--agent-base-url`-style
 * flags win over `api_base`.
 */
import type { ModelSettings } from "../../run/model-clients.ts";

/** litellm prefixes → our providers (the model name is sent without the prefix). */
const LITELLM_PREFIXES: Record<string, string> = {
  openai: "openai",
  anthropic: "anthropic",
  openrouter: "openrouter",
  hosted_vllm: "vllm",
  ollama: "ollama",
  ollama_chat: "ollama",
  lm_studio: "lmstudio",
};

export interface Tau2RoleModelOptions {
  /** τ²'s model string (`--agent-llm`). */
  llm: string;
  /** τ²'s LLM arguments (`--agent-llm-args`): `api_base` names the endpoint. */
  llmArgs: Record<string, unknown>;
  /** Ours: `--agent-base-url` etc. */
  baseUrl?: string;
  provider?: string;
}

/** Our provider, model name and endpoint for a τ² model string and its arguments. */
export function resolveTau2Model(options: Tau2RoleModelOptions): { provider: string; model: string; baseURL: string | undefined } {
  const slash = options.llm.indexOf("/");
  const prefix = slash > 0 ? options.llm.slice(0, slash) : "";
  const mapped = LITELLM_PREFIXES[prefix];
  const model = mapped ? options.llm.slice(slash + 1) : options.llm;
  const apiBase = typeof options.llmArgs.api_base === "string" ? options.llmArgs.api_base : undefined;
  const baseURL = options.baseUrl ?? apiBase;
  const provider = options.provider ?? mapped ?? (baseURL ? "openai-compatible" : "openai");
  return { provider, model, baseURL };
}

/** The run flags a τ² run's model clients are made from (τ²'s names resolved to the canonical ones). */
export interface Tau2ModelFlags {
  agentLlm: string;
  userLlm: string;
  agentLlmArgs: Record<string, unknown>;
  userLlmArgs: Record<string, unknown>;
  maxConcurrency: number;
  /** The other run settings by canonical name (`baseUrl`, `modelProvider`, `apiKeyEnv`, `judgeModel`, `modelTimeout`, …). */
  values: Record<string, unknown>;
}

/**
 * The run layer's model settings for a τ² run: litellm model strings and `api_base` resolved to
 * provider, model and endpoint, so τ²'s model clients are the same as τ-bench's (per-endpoint
 * queues, response cache, price table, timeouts and retries, a dead endpoint stopping the run).
 * A judge with `--judge-base-url` and no provider is OpenAI-compatible: a local one needs no key.
 */
export function tau2ModelSettings(flags: Tau2ModelFlags): ModelSettings {
  const text = (name: string) => flags.values[name] as string | undefined;
  const agent = resolveTau2Model({ llm: flags.agentLlm, llmArgs: flags.agentLlmArgs, baseUrl: text("baseUrl"), provider: text("modelProvider") });
  const user = resolveTau2Model({ llm: flags.userLlm, llmArgs: flags.userLlmArgs, baseUrl: text("userBaseUrl"), provider: text("userModelProvider") });
  const judgeBaseUrl = text("judgeBaseUrl");
  return {
    model: agent.model,
    modelProvider: agent.provider,
    baseUrl: agent.baseURL,
    apiKeyEnv: text("apiKeyEnv"),
    userModel: user.model,
    userModelProvider: user.provider,
    userBaseUrl: user.baseURL,
    userApiKeyEnv: text("userApiKeyEnv"),
    judgeModel: text("judgeModel"),
    judgeProvider: text("judgeProvider") ?? (judgeBaseUrl ? "openai-compatible" : "openai"),
    judgeBaseUrl,
    judgeApiKeyEnv: text("judgeApiKeyEnv"),
    endpointSettings: { agent: "api_base in --agent-llm-args (or --agent-base-url)", user: "api_base in --user-llm-args (or --user-base-url)", judge: "--judge-base-url" },
    modelTimeoutMs: Math.round(((flags.values.modelTimeout as number | undefined) ?? 120) * 1000),
    modelMaxAttempts: (flags.values.modelMaxAttempts as number | undefined) ?? 6,
    priceFile: text("priceFile"),
    cacheDir: text("cacheDir"),
    maxConcurrency: flags.maxConcurrency,
  };
}
