import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { ConfigError } from "../core/errors.ts";

/**
 * What a user's agent factory receives. The harness owns the model endpoint (`--base-url`,
 * `--model`, the key from `--api-key-env`), so a factory builds the framework's model client from
 * these instead of hard-coding it.
 */
export interface AgentFactoryOptions {
  /** OpenAI-compatible base URL (`--base-url`), e.g. `http://127.0.0.1:8000/v1`; undefined = the module's default. */
  baseURL?: string;
  /** Model name (`--model`); undefined = the module's default. */
  model?: string;
  /** API key (from `--api-key-env`, else `OPENAI_API_KEY`, else a placeholder for local servers). */
  apiKey: string;
  /** Every `--agent-option key=value`, for module-specific settings. */
  options: Readonly<Record<string, string>>;
}

/** The export names tried, in order, when `--agent-option export=` is not given. */
export const DEFAULT_EXPORTS = ["createAgent", "agent", "default"] as const;

export type { UserAgentSource } from "../core/contracts.ts";
import type { UserAgentSource } from "../core/contracts.ts";

/**
 * Imports the user's agent module. Call only after the framework hooks are installed: the
 * module's imports of the framework must go through them.
 */
export async function loadUserAgentModule(modulePath: string, exportName?: string): Promise<UserAgentSource> {
  if (!existsSync(modulePath)) throw new ConfigError(`agent module not found: ${modulePath}`);
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`cannot load the agent module ${modulePath}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const names = exportName ? [exportName] : DEFAULT_EXPORTS;
  for (const name of names) {
    const value = namespace[name];
    if (value === undefined || value === null) continue;
    const kind = typeof value === "function" && !isClass(value) ? "factory" : "instance";
    return { modulePath, exportName: name, kind, value };
  }
  throw new ConfigError(
    exportName
      ? `agent module ${modulePath} has no export "${exportName}" (exports: ${Object.keys(namespace).join(", ") || "none"})`
      : `agent module ${modulePath} exports none of ${DEFAULT_EXPORTS.join(", ")} (exports: ${Object.keys(namespace).join(", ") || "none"}); add one or pass --agent-option export=<name>`,
  );
}

function isClass(value: unknown): boolean {
  return typeof value === "function" && /^class[\s{]/.test(Function.prototype.toString.call(value));
}

/** The agent for one episode: a fresh one from a factory, or the shared instance. */
export async function agentForEpisode(source: UserAgentSource, options: AgentFactoryOptions): Promise<unknown> {
  if (source.kind === "instance") return source.value;
  const made = await (source.value as (options: AgentFactoryOptions) => unknown)(options);
  if (made === undefined || made === null) throw new ConfigError(`${source.exportName}() in ${source.modulePath} returned ${String(made)}; it must return the agent`);
  return made;
}

/**
 * Rejects `--agent-option` keys that no part of the run reads: a typo (`mappin=`) would otherwise be
 * silently ignored. `user.<name>` keys are always accepted: they are for the user's own module.
 */
export function checkAgentOptionKeys(options: Readonly<Record<string, unknown>>, known: readonly string[], strategy: string): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key) || key.startsWith("user.")) continue;
    throw new ConfigError(`unknown --agent-option ${key} for --agent-strategy ${strategy}; known: ${known.join(", ")}, user.<name> (for your module)`);
  }
}
