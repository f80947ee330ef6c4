/**
 * Model clients for a τ² run, from τ²'s own way of naming models: litellm model strings
 * (`gpt-4.1-2025-04-14`, `openai/gpt-4o`, `anthropic/claude-…`, `hosted_vllm/Qwen/…`,
 * `ollama/llama3`, `openrouter/…`) and LLM-argument JSON whose `api_base` (litellm's key for a
 * custom OpenAI-compatible endpoint) means what it means to τ²'s users. Our `--agent-base-url`-style
 * flags win over `api_base`.
 */
import type { ModelSettings } from "../../run/model-clients.ts";
import { resolveLitellmModel } from "../../model/providers.ts";

export interface Tau2RoleModelOptions {
  /** τ²'s model string (`--agent-llm`). */
  llm: string;
  /** τ²'s LLM arguments (`--agent-llm-args`): `api_base` names the endpoint, `api_version` Azure's API version. */
  llmArgs: Record<string, unknown>;
  /** Ours: `--agent-base-url` etc. */
  baseUrl?: string;
  provider?: string;
  /** The flags a user changes, for messages (default: the agent's). */
  settings?: { llm: string; provider: string };
}

/**
 * Our provider, model name and endpoint for a τ² model string and its arguments, routed as litellm
 * routes it (`src/model/providers.ts`, `resolveLitellmModel`): a known prefix names the provider,
 * an unknown one is refused, a bare name goes by what it starts with (or to the given endpoint).
 */
export function resolveTau2Model(options: Tau2RoleModelOptions): { provider: string; model: string; baseURL: string | undefined; apiVersion?: string } {
  const apiBase = typeof options.llmArgs.api_base === "string" ? options.llmArgs.api_base : undefined;
  const baseURL = options.baseUrl ?? apiBase;
  const settings = options.settings ?? { llm: "--agent-llm", provider: "--agent-provider" };
  const { provider, model } = resolveLitellmModel(options.llm, { provider: options.provider, hasBaseURL: baseURL !== undefined, setting: settings.llm, providerSetting: settings.provider });
  const apiVersion = typeof options.llmArgs.api_version === "string" ? options.llmArgs.api_version : undefined;
  return { provider, model, baseURL, ...(apiVersion !== undefined ? { apiVersion } : {}) };
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
export function tau2ModelSettings(flags: Tau2ModelFlags, needs: { agent: boolean; user: boolean } = { agent: true, user: true }): ModelSettings {
  const text = (name: string) => flags.values[name] as string | undefined;
  // A role no participant calls a model for is not resolved: an oracle run is not refused for a model string it never uses.
  const agent = needs.agent ? resolveTau2Model({ llm: flags.agentLlm, llmArgs: flags.agentLlmArgs, baseUrl: text("baseUrl"), provider: text("modelProvider") }) : undefined;
  const user = needs.user
    ? resolveTau2Model({
        llm: flags.userLlm,
        llmArgs: flags.userLlmArgs,
        baseUrl: text("userBaseUrl"),
        provider: text("userModelProvider"),
        settings: { llm: "--user-llm", provider: "--user-provider" },
      })
    : undefined;
  const judgeBaseUrl = text("judgeBaseUrl");
  return {
    model: agent?.model,
    modelProvider: agent?.provider,
    baseUrl: agent?.baseURL,
    apiKeyEnv: text("apiKeyEnv"),
    apiVersion: agent?.apiVersion,
    userModel: user?.model,
    userModelProvider: user?.provider,
    userBaseUrl: user?.baseURL,
    userApiKeyEnv: text("userApiKeyEnv"),
    userApiVersion: user?.apiVersion,
    ...tau2JudgeSettings(text("judgeModel"), flags.values),
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

/**
 * The judge's model and provider: a litellm model string (`--judge-model`, or τ²'s default from
 * its config.py once read) routed as the agent's is; `--judge-provider` names it outright; with
 * `--judge-base-url` and no provider a bare name is OpenAI-compatible (a local judge needs no key).
 */
export function tau2JudgeSettings(judgeModel: string | undefined, values: Record<string, unknown>): { judgeModel?: string; judgeProvider: string } {
  const provider = values.judgeProvider as string | undefined;
  const hasBaseURL = values.judgeBaseUrl !== undefined;
  if (judgeModel === undefined) return { judgeProvider: provider ?? (hasBaseURL ? "openai-compatible" : "openai") };
  const resolved = resolveLitellmModel(judgeModel, { provider, hasBaseURL, setting: "--judge-model", providerSetting: "--judge-provider" });
  return { judgeModel: resolved.model, judgeProvider: resolved.provider };
}
