/**
 * Which model-backed retrieval backends a τ² run builds for τ³ banking_knowledge, from the run's
 * `--retrieval-config` and the `--embedder-*` / `--reranker-*` flags. Why a module of its own: the
 * domain may not import the model layer, and the run must decide before the domain is configured
 * whether an embedding or reranker variant has what it needs (else the domain refuses it in one
 * line, naming the offline variants).
 *
 * **Available** means: an embedder when `--embedder-base-url` is given (an OpenAI-compatible
 * endpoint; no key is needed unless `--embedder-api-key-env` names one) or when its key variable is
 * set (`--embedder-api-key-env`, else `OPENAI_API_KEY` for the `openai_*` variants and
 * `OPENROUTER_API_KEY` for the `qwen_*` ones); the reranker alike with `--reranker-base-url` /
 * `--reranker-api-key-env` / `OPENAI_API_KEY`. The embedder's kind and model come from the variant
 * (`variants.ts`); the flags override the model, the endpoint and the key variable.
 */
import { resolveRetrievalVariant, type RetrievalVariantSpec } from "./knowledge/variants.ts";
import type { EmbedderSettings, RerankerSettings, RetrievalBackends } from "./retrieval-backends.ts";
import type { Tau2RunOptions } from "./run-options.ts";

/** What the run records about its retrieval models (part of its identity: a resume with another embedder is a change). */
export interface Tau2RetrievalModels {
  embedder?: { kind: string; model: string; baseUrl?: string };
  reranker?: { model: string; baseUrl?: string };
}

/** The settings of the backends a run needs and has, or undefined when its variant needs none (or cannot run anyway). */
export interface RetrievalPlan {
  embedder?: EmbedderSettings;
  reranker?: RerankerSettings;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The variant a run names, when it is a known one that needs a model backend (an embedder or the reranker; AllTools too). */
function onlineVariant(retrievalConfig: string | undefined): RetrievalVariantSpec | undefined {
  if (retrievalConfig === undefined) return undefined;
  let variant: RetrievalVariantSpec;
  try {
    variant = resolveRetrievalVariant(retrievalConfig);
  } catch {
    return undefined; // the domain names the known variants
  }
  return !variant.needs.embedder && !variant.needs.reranker ? undefined : variant;
}

/** The run settings' text value of a flag. */
const textOf = (values: Record<string, unknown>, name: string) => (typeof values[name] === "string" ? (values[name] as string) : undefined);

/**
 * The embedder and reranker settings of a run from its flags (`values`: the run settings by
 * canonical name) and the environment; only the backends that are available (see the module
 * comment) and that the variant needs.
 */
export function retrievalPlan(retrievalConfig: string | undefined, values: Record<string, unknown>, env: Env = process.env): RetrievalPlan {
  const variant = onlineVariant(retrievalConfig);
  if (!variant) return {};
  const limits = {
    ...(typeof values.modelTimeout === "number" ? { timeoutMs: Math.round(values.modelTimeout * 1000) } : {}),
    ...(typeof values.modelMaxAttempts === "number" ? { maxAttempts: values.modelMaxAttempts } : {}),
  };
  const plan: RetrievalPlan = {};
  const spec = variant.needs.embedder;
  if (spec) {
    const baseUrl = textOf(values, "embedderBaseUrl");
    const keyVariable = textOf(values, "embedderApiKeyEnv");
    const defaultVariable = spec.type === "openai" ? "OPENAI_API_KEY" : "OPENROUTER_API_KEY";
    if (baseUrl || env[keyVariable ?? defaultVariable]) {
      plan.embedder = {
        kind: spec.type,
        model: textOf(values, "embedderModel") ?? spec.model,
        ...(baseUrl ? { baseUrl, provider: "openai-compatible" } : {}),
        ...(keyVariable ? { apiKeyVariable: keyVariable } : {}),
        ...limits,
      };
    }
  }
  if (variant.needs.reranker) {
    const baseUrl = textOf(values, "rerankerBaseUrl");
    const keyVariable = textOf(values, "rerankerApiKeyEnv");
    const model = textOf(values, "rerankerModel");
    if (baseUrl || env[keyVariable ?? "OPENAI_API_KEY"]) {
      plan.reranker = {
        ...(model ? { model } : {}),
        ...(baseUrl ? { baseUrl, provider: "openai-compatible" } : {}),
        ...(keyVariable ? { apiKeyVariable: keyVariable } : {}),
        ...limits,
      };
    }
  }
  return plan;
}

/** What a results file's identity records of a plan (models and endpoints, never keys). */
export function retrievalModels(plan: RetrievalPlan, defaultRerankerModel: string): Tau2RetrievalModels | undefined {
  if (!plan.embedder && !plan.reranker) return undefined;
  return {
    ...(plan.embedder ? { embedder: { kind: plan.embedder.kind, model: plan.embedder.model, ...(plan.embedder.baseUrl ? { baseUrl: plan.embedder.baseUrl } : {}) } } : {}),
    ...(plan.reranker ? { reranker: { model: plan.reranker.model ?? defaultRerankerModel, ...(plan.reranker.baseUrl ? { baseUrl: plan.reranker.baseUrl } : {}) } } : {}),
  };
}

/**
 * The run's options with the retrieval backends its variant needs and has (clients built and keys
 * read now, so a bad URL or a missing named key is a one-line ConfigError before any episode);
 * unchanged when it needs none. The model SDK is loaded only then. `defaultRetrievalConfig` is the
 * domain's variant when the run names none (τ³ banking: `alltools`, as τ²'s RunConfig forces it).
 */
export async function withRetrievalBackends(
  options: Tau2RunOptions,
  values: Record<string, unknown>,
  warn?: (message: string) => void,
  env: Env = process.env,
  defaultRetrievalConfig?: string,
): Promise<Tau2RunOptions> {
  if (options.retrievalBackends) return options; // given by the caller (the API)
  const plan = retrievalPlan(options.retrievalConfig ?? defaultRetrievalConfig, values, env);
  if (!plan.embedder && !plan.reranker) return options;
  const { createRetrievalBackends, UPSTREAM_RERANKER_MODEL } = await import("./retrieval-backends.ts");
  const backends: RetrievalBackends = createRetrievalBackends({ dataRoot: options.dataDir, ...plan, ...(warn ? { warn } : {}), env: { ...env } });
  return { ...options, retrievalBackends: backends, retrievalModels: retrievalModels(plan, UPSTREAM_RERANKER_MODEL) };
}
