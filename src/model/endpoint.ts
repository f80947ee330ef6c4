/**
 * One OpenAI-compatible endpoint as both clients (chat, embeddings) reach it: the provider's
 * defaults applied, the key read from the environment, the secrets collected for redaction, and
 * the `openai` SDK instance (plain, Azure or Bedrock) that holds the key. One function, so the two
 * clients resolve a provider alike and the chat client's own HTTP path (`chat-transport.ts`) can
 * take its URL and headers from the same SDK instance.
 */
import OpenAI, { AzureOpenAI } from "openai";
import { BedrockOpenAI } from "openai/bedrock";
import { ConfigError } from "../errors/error-tree.ts";
import { redactUrl, secretsIn } from "../secrets/redact.ts";
import type { FetchFunction } from "./http-transport.ts";
import { firstSetVariable, getProvider, missingBaseURLHint, PLACEHOLDER_API_KEY, providerBaseURL, type ProviderInfo } from "./providers.ts";

/** The Azure OpenAI API version used when neither the config nor `AZURE_API_VERSION` / `OPENAI_API_VERSION` names one (litellm's default). */
export const AZURE_DEFAULT_API_VERSION = "2025-02-01-preview";

type Environment = Readonly<Record<string, string | undefined>>;

export interface EndpointSettings {
  /** `agent`, `user`, `judge`, `embedder`, `reranker`: the start of messages. */
  role: string;
  provider: string;
  model: string;
  baseURL?: string;
  apiKeyEnv?: string;
  /** Azure's `api-version`. */
  apiVersion?: string;
  timeoutMs: number;
  /** Request parameters that may hold secrets (collected for redaction). */
  params?: Record<string, unknown>;
}

export interface Endpoint {
  provider: ProviderInfo;
  /** The model as configured (what prices, caches and messages name). */
  model: string;
  /** The model as sent (Fireworks prefixes its account path). */
  wireModel: string;
  /** The base URL as configured or resolved from the provider (may hold credentials: shown only as {@link Endpoint.displayURL}). */
  baseURL: string;
  displayURL: string;
  /** The variable the key came from, or `null` when a placeholder key is sent. */
  apiKeyVariable: string | null;
  /** Everything secret this endpoint knows: the key, a base URL's credentials, secret parameters. */
  secrets: string[];
  /** The SDK instance (holds the key; never exposed on a client object). */
  sdk: OpenAI;
}

function readApiKey(provider: ProviderInfo, apiKeyEnv: string | undefined, env: Environment, role: string): { key: string; variable: string | null } {
  const variables = apiKeyEnv ? [apiKeyEnv] : provider.apiKeyEnvs;
  const found = firstSetVariable(variables, env);
  if (found) return { key: found.value, variable: found.variable };
  if (apiKeyEnv || provider.requiresApiKey) {
    const names = variables.join(" or ");
    throw new ConfigError(
      `The ${role} model (provider ${provider.name}) needs an API key in the environment variable ${names} (set it, or give the role an OpenAI-compatible base URL that needs none)`,
    );
  }
  return { key: PLACEHOLDER_API_KEY, variable: null };
}

/** A base URL without its query, and the query's parameters (undefined when there are none). */
function withoutQuery(baseURL: string): { url: string; query?: Record<string, string> } {
  const cut = baseURL.indexOf("?");
  if (cut < 0) return { url: baseURL };
  const [rest, fragment = ""] = baseURL.slice(cut + 1).split("#", 2);
  const query = Object.fromEntries(new URLSearchParams(rest));
  return { url: baseURL.slice(0, cut) + (fragment ? `#${fragment}` : ""), ...(Object.keys(query).length > 0 ? { query } : {}) };
}

/** Headers the provider takes from the environment when set (OpenRouter's attribution). */
function environmentHeaders(provider: ProviderInfo, env: Environment): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  for (const [header, variable] of provider.headersFromEnv ?? []) {
    const value = env[variable]?.trim();
    if (value) headers[header] = value;
  }
  return Object.keys(headers).length > 0 ? headers : undefined;
}

/** The SDK instance for the provider: `AzureOpenAI` (deployment path, `api-version`, `api-key` header), `BedrockOpenAI`, or the plain client. */
function sdkFor(provider: ProviderInfo, settings: EndpointSettings, baseURL: string, apiKey: string, env: Environment, fetch: FetchFunction): OpenAI {
  const { url, query } = withoutQuery(baseURL);
  const common = {
    apiKey,
    maxRetries: 0,
    timeout: settings.timeoutMs,
    fetch,
    // A query in the base URL (`?api-key=…`) goes on every request, as the URL's own: the SDK appends paths to the base URL as text.
    ...(query ? { defaultQuery: query } : {}),
    ...(environmentHeaders(provider, env) ? { defaultHeaders: environmentHeaders(provider, env) } : {}),
    // Do not forward OPENAI_ORG_ID / OPENAI_PROJECT_ID headers to other providers.
    ...(provider.name === "openai" ? {} : { organization: null, project: null }),
  };
  if (provider.client === "azure") {
    const apiVersion = settings.apiVersion ?? firstSetVariable(["AZURE_API_VERSION", "OPENAI_API_VERSION"], env)?.value ?? AZURE_DEFAULT_API_VERSION;
    // litellm's `api_base` for Azure is the resource's endpoint, under which the SDK's base URL is `<endpoint>/openai` (what
    // `AzureOpenAI` builds from `endpoint`; given as `baseURL` so an OPENAI_BASE_URL in the environment cannot clash); a URL
    // that already holds `/openai` is taken as the base URL itself.
    const azureBase = /\/openai(\/|$)/.test(new URL(url).pathname) ? url : `${url.replace(/\/+$/, "")}/openai`;
    return new AzureOpenAI({ ...common, baseURL: azureBase, apiVersion });
  }
  if (provider.client === "bedrock") return new BedrockOpenAI({ ...common, baseURL: url });
  return new OpenAI({ ...common, baseURL: url });
}

/**
 * Resolves one endpoint before any request: the provider (an unknown name lists the known ones),
 * the base URL (config, then the provider's variables, then its default), the key from the
 * environment (a missing one is a {@link ConfigError} naming the variable), the secrets.
 */
export function resolveEndpoint(settings: EndpointSettings, env: Environment, fetch: FetchFunction): Endpoint {
  const provider = getProvider(settings.provider);
  const configured = settings.baseURL ?? providerBaseURL(provider, env);
  if (!configured) throw new ConfigError(`The ${settings.role} model uses provider ${provider.name}, which has no default base URL: ${missingBaseURLHint(provider)}`);
  const baseURL = provider.normalizeBaseURL ? provider.normalizeBaseURL(configured) : configured;
  const { key, variable } = readApiKey(provider, settings.apiKeyEnv, env, settings.role);
  // The key, and whatever the base URL and the configured parameters hold in secret places (a URL's password, an `api-key` query value, an `Authorization` header).
  const secrets = [key, ...secretsIn({ baseURL, params: settings.params })];
  const displayURL = redactUrl(baseURL, secrets);
  return {
    provider,
    model: settings.model,
    wireModel: provider.wireModel ? provider.wireModel(settings.model) : settings.model,
    baseURL,
    displayURL,
    apiKeyVariable: variable,
    secrets,
    sdk: sdkFor(provider, settings, baseURL, key, env, fetch),
  };
}
