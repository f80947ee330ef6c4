/**
 * The A2A client strategy's work: its options (from `--agent-endpoint`, `--agent-a2a-*`,
 * `--agent-option`), discovery and the connection. Loaded by `register.ts` only when a run uses the
 * strategy, so a run that does not (every offline run) never loads the A2A client's modules.
 */
import { ConfigError } from "../../errors/error-tree.ts";
import { A2AAgent, type A2AAgentSettings } from "./a2a-agent.ts";
import { discoverAgent } from "./discovery.ts";
import { A2AHttp } from "./http.ts";
import { hostPolicy } from "./host-policy.ts";
import { PROFILES, type Profile } from "./prompts.ts";
import { A2AConnection } from "./rpc.ts";

/** Default seconds an agent has for one turn. */
export const DEFAULT_A2A_TIMEOUT_SECONDS = 120;

/** The agent options this strategy reads (the `--agent-a2a-*` flags fold into the first four). */
export const A2A_OPTION_KEYS = ["endpoint", "timeout", "tokenEnv", "debug", "version", "profile", "mode", "rpcUrl", "retries", "retryDelay", "pollInterval", "allowHosts"] as const;

/** A numeric option: `positive` ones must be > 0, the others ≥ 0. */
function numberOption(options: Record<string, unknown>, key: string, flag: string, fallback: number, positive: boolean): number {
  const raw = options[key];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || (positive ? value <= 0 : value < 0) || String(raw).trim() === "") throw new ConfigError(`${flag}: must be a number ${positive ? "> 0" : "≥ 0"}, got "${String(raw)}"`);
  return value;
}

function choice<T extends string>(options: Record<string, unknown>, key: string, allowed: readonly T[], fallback: T): T {
  const raw = options[key];
  if (raw === undefined) return fallback;
  if (!allowed.includes(raw as T)) throw new ConfigError(`--agent-option ${key}: must be one of ${allowed.join(", ")}, got "${String(raw)}"`);
  return raw as T;
}

/** The client's settings from the run's agent options; a wrong option is a one-line ConfigError. */
export function a2aSettings(options: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): A2AAgentSettings & { version: "auto" | "0.3" | "1.0"; rpcUrl?: string } {
  for (const key of Object.keys(options)) {
    if (!(A2A_OPTION_KEYS as readonly string[]).includes(key)) throw new ConfigError(`unknown --agent-option ${key} for --agent-strategy a2a; known: ${A2A_OPTION_KEYS.join(", ")}`);
  }
  const endpoint = options.endpoint;
  if (typeof endpoint !== "string" || endpoint === "")
    throw new ConfigError("--agent-strategy a2a needs --agent-endpoint <url> (τ²: --agent-a2a-endpoint): the remote agent's base URL or agent-card URL");
  try {
    const url = new URL(endpoint);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http");
  } catch {
    throw new ConfigError(`--agent-endpoint: must be an http(s) URL, got "${endpoint}"`);
  }
  let token: string | null = null;
  const tokenEnv = options.tokenEnv;
  if (tokenEnv !== undefined) {
    if (typeof tokenEnv !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv))
      throw new ConfigError("--agent-a2a-token-env: must be the NAME of an environment variable (never the token itself)");
    token = env[tokenEnv]?.trim() || null;
    if (!token) throw new ConfigError(`--agent-a2a-token-env ${tokenEnv}: the variable is not set (it should hold the agent's bearer token)`);
  }
  const rpcUrl = typeof options.rpcUrl === "string" ? options.rpcUrl : undefined;
  if (rpcUrl !== undefined && !URL.canParse(rpcUrl)) throw new ConfigError(`--agent-option rpcUrl: must be a URL, got "${rpcUrl}"`);
  const allowHosts = typeof options.allowHosts === "string" ? options.allowHosts : undefined;
  return {
    endpoint,
    timeoutSeconds: numberOption(options, "timeout", "--agent-a2a-timeout", DEFAULT_A2A_TIMEOUT_SECONDS, true),
    token,
    profile: choice<Profile>(options, "profile", PROFILES, "agentbeats"),
    mode: choice(options, "mode", ["send", "poll", "stream"] as const, "send"),
    retries: Math.floor(numberOption(options, "retries", "--agent-option retries", 2, false)),
    retryDelayMs: numberOption(options, "retryDelay", "--agent-option retryDelay", 0.25, false) * 1000,
    pollIntervalMs: numberOption(options, "pollInterval", "--agent-option pollInterval", 0.025, true) * 1000,
    ...(allowHosts !== undefined ? { policy: hostPolicy([allowHosts]) } : {}),
    ...(options.debug === "true" || options.debug === true ? { debug: (line: string) => process.stderr.write(`${line}\n`) } : {}),
    version: choice(options, "version", ["auto", "0.3", "1.0"] as const, "auto"),
    ...(rpcUrl !== undefined ? { rpcUrl } : {}),
  };
}

/** Builds the run's remote agent: reads its card (a dead endpoint stops the run here, exit 2), opens its connection pool. */
export async function createA2AAgent(options: Record<string, unknown>, warn?: (message: string) => void): Promise<A2AAgent> {
  const settings = a2aSettings(options);
  const http = new A2AHttp({ headers: settings.token ? { authorization: `Bearer ${settings.token}` } : {}, ...(settings.policy ? { policy: settings.policy } : {}) });
  try {
    await settings.policy?.check(settings.endpoint, "the A2A agent");
    const card = await discoverAgent(http, settings.endpoint, {
      version: settings.version,
      ...(settings.rpcUrl ? { rpcUrl: settings.rpcUrl } : {}),
      ...(settings.policy ? { policy: settings.policy } : {}),
      timeoutMs: Math.min(10_000, settings.timeoutSeconds * 1000),
    });
    // The card may name another host than the endpoint (a gateway rewrote it): checked again, before anything is sent there.
    await settings.policy?.check(card.rpcUrl, "the A2A agent's RPC URL (from its card)");
    for (const note of card.notes) warn?.(`A2A agent ${settings.endpoint}: ${note}`);
    if (card.declaresSecurity && !settings.token) warn?.(`A2A agent ${settings.endpoint}: its card declares a security scheme and no --agent-a2a-token-env is given`);
    if (settings.mode === "stream" && !card.streaming) warn?.(`A2A agent ${settings.endpoint}: its card does not offer streaming; sending and polling instead`);
    const connection = new A2AConnection(http, {
      rpcUrl: card.rpcUrl,
      version: card.protocolVersion,
      retries: settings.retries,
      retryDelayMs: settings.retryDelayMs,
      fallback: settings.version === "auto",
      ...(settings.policy ? { policy: settings.policy } : {}),
      ...(settings.debug ? { debug: settings.debug } : {}),
      secrets: settings.token ? [settings.token] : [],
    });
    return new A2AAgent(settings, card, connection, http);
  } catch (error) {
    await http.close();
    throw error;
  }
}
