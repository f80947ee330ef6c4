/**
 * Model clients for a τ² run, from τ²'s own way of naming models: litellm model strings
 * (`gpt-4.1-2025-04-14`, `openai/gpt-4o`, `anthropic/claude-…`, `hosted_vllm/Qwen/…`,
 * `ollama/llama3`, `openrouter/…`) and LLM-argument JSON whose `api_base` (litellm's key for a
 * custom OpenAI-compatible endpoint) and `api_key` mean what they mean to τ²'s users. Our
 * `--agent-base-url`-style flags win over `api_base`.
 */
import type { ChatModel } from "../../core/contracts.ts";
import { ConfigError } from "../../core/errors.ts";
import type { Tau2RunModels } from "./build.ts";

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

export interface Tau2ModelSettings {
  agent: Tau2RoleModelOptions;
  user: Tau2RoleModelOptions;
  judge: Tau2RoleModelOptions | null;
}

/** Lazily created clients (the OpenAI SDK loads only when a model-driven participant or the judge needs it). */
export async function createTau2Models(settings: Tau2ModelSettings): Promise<Tau2RunModels> {
  const { createModelClient } = await import("../../model/model-client.ts");
  const cache = new Map<string, ChatModel>();
  const make = (role: "agent" | "user" | "judge", options: Tau2RoleModelOptions | null) => () => {
    if (!options) throw new ConfigError(`no ${role} model configured`);
    const existing = cache.get(role);
    if (existing) return existing;
    const { provider, model, baseURL } = resolveTau2Model(options);
    const client = createModelClient({ role, model, provider, baseURL });
    cache.set(role, client);
    return client;
  };
  return { agent: make("agent", settings.agent), user: make("user", settings.user), judge: make("judge", settings.judge) };
}
