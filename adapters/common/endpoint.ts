/**
 * Which model endpoint a framework adapter talks to, in words a user can act on: the base URL the
 * framework was given (`--base-url`, handed to the user's module and to the framework's client), or,
 * without one, what the framework does by default (`FrameworkAdapter.defaultEndpoint`). Used in the
 * errors the driver raises for a framework failure and in the run's warning when no `--base-url`
 * was given, because "connection refused" or "401" means little until you know where the calls went.
 */
import type { FrameworkAdapter } from "../../src/core/contracts.ts";
import { redactUrl } from "../../src/secrets/redact.ts";

/** OpenAI's public API: the default base URL of the `openai` client (and of most frameworks' OpenAI providers). */
export const OPENAI_PUBLIC_API = "https://api.openai.com/v1";

/**
 * The default of a framework that builds its own `openai` client (it reads `OPENAI_BASE_URL`, else
 * uses OpenAI's public API), for `defaultEndpoint`.
 */
export function openAIClientDefault(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const fromEnvironment = env.OPENAI_BASE_URL?.trim();
  return fromEnvironment ? `${redactUrl(fromEnvironment)} (from OPENAI_BASE_URL)` : `${OPENAI_PUBLIC_API} (OpenAI's public API, the OpenAI client's default)`;
}

/** The endpoint an adapter uses: the given base URL (credentials removed), else the framework's default. */
export function frameworkEndpoint(adapter: Pick<FrameworkAdapter, "defaultEndpoint">, settings: { baseURL?: string; apiKey?: string }): string {
  if (settings.baseURL) return redactUrl(settings.baseURL, [settings.apiKey]);
  return adapter.defaultEndpoint?.() ?? "the framework's default endpoint";
}

/** The one line a run prints when a framework adapter runs without `--base-url`. */
export function defaultEndpointNotice(adapter: Pick<FrameworkAdapter, "name" | "defaultEndpoint">): string {
  return `${adapter.name}: no --base-url given, so its model calls go to ${frameworkEndpoint(adapter, {})}; pass --base-url to use another endpoint`;
}
