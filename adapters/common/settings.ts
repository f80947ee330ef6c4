import { isAbsolute, resolve } from "node:path";
import { BRIDGE_MODES, NameMapping, readMappingFile, type BridgeMode, type MappingSpec, type ToolMapping } from "../../bridge/session.ts";
import { ConfigError } from "../../src/errors/error-tree.ts";
import { checkAgentOptionKeys } from "../../src/participants/user-module.ts";
import type { BuildContext } from "../../src/core/strategies.ts";

/**
 * Everything an adapter strategy takes from the run configuration, validated once when the run is
 * built so a typo fails before any episode starts.
 *
 * `--agent-option` keys (all adapters):
 * - `module=<path>`: the user's agent module (required; relative to the working directory);
 * - `export=<name>`: which export to use (default: `createAgent`, then `agent`, then `default`);
 * - `bridgeMode=internal|decision-only|dry-run` (default internal), or `dryRun=true`;
 * - `mapping=<file.json>`: tool renames, argument renames per tool, and the tools allowed to run
 *   their own code (`bridge/mapping.ts`); every other non-benchmark tool is not executed;
 * - `maxTurns=<n>`: the framework's own loop limit per user turn where the framework takes one
 *   per call (default: the episode's `--max-steps`);
 * - `user.<key>=<value>`: anything for the user's own module (handed to its factory in `options`).
 * Any other key is a typo and fails the build, listing the known keys.
 */
export interface AdapterSettings {
  modulePath: string;
  exportName?: string;
  mode: BridgeMode;
  mapping: ToolMapping;
  /** The mapping as data (renames, argument renames, native tools). */
  mappingSpec: MappingSpec;
  baseURL?: string;
  model?: string;
  apiKey: string;
  maxTurns?: number;
  /** Every `--agent-option` as a string, handed to the user's factory. */
  options: Record<string, string>;
}

function stringOptions(raw: Record<string, unknown>): Record<string, string> {
  const options: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) if (value !== undefined && value !== null) options[key] = String(value);
  return options;
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}

/** The `--agent-option` keys every adapter understands (plus `user.*` for the user's module). */
export const COMMON_AGENT_OPTIONS = ["module", "export", "bridgeMode", "dryRun", "mapping", "maxTurns"] as const;

/** Validates the adapter options of a run. */
export function adapterSettings(context: BuildContext, adapterName: string, extraOptions: readonly string[] = []): AdapterSettings {
  const { config, domain } = context;
  const options = stringOptions(config.agentOptions);
  checkAgentOptionKeys(options, [...COMMON_AGENT_OPTIONS, ...extraOptions], adapterName);
  const modulePath = options.module ?? options.agentModule;
  if (!modulePath) throw new ConfigError(`--agent-strategy ${adapterName} needs --agent-option module=<path to your agent module>`);
  let mode: BridgeMode = "internal";
  if (options.bridgeMode !== undefined) {
    if (!BRIDGE_MODES.includes(options.bridgeMode as BridgeMode)) throw new ConfigError(`--agent-option bridgeMode must be one of ${BRIDGE_MODES.join(", ")}; got "${options.bridgeMode}"`);
    mode = options.bridgeMode as BridgeMode;
  }
  if (truthy(options.dryRun)) {
    if (options.bridgeMode !== undefined && mode !== "dry-run") throw new ConfigError(`--agent-option dryRun=true contradicts bridgeMode=${mode}`);
    mode = "dry-run";
  }
  const mappingSpec = options.mapping ? readMappingFile(resolve(options.mapping), domain) : {};
  let maxTurns: number | undefined;
  if (options.maxTurns !== undefined) {
    maxTurns = Number(options.maxTurns);
    if (!Number.isInteger(maxTurns) || maxTurns <= 0) throw new ConfigError(`--agent-option maxTurns must be a positive integer; got "${options.maxTurns}"`);
  }
  let apiKey = process.env.OPENAI_API_KEY?.trim() || "taubridge-local";
  if (config.apiKeyEnv) {
    const value = process.env[config.apiKeyEnv]?.trim();
    if (!value) throw new ConfigError(`--api-key-env ${config.apiKeyEnv}: the environment variable is not set`);
    apiKey = value;
  }
  return {
    modulePath: isAbsolute(modulePath) ? modulePath : resolve(process.cwd(), modulePath),
    ...(options.export ? { exportName: options.export } : {}),
    mode,
    mapping: new NameMapping(new Set(domain.toolNames), mappingSpec),
    mappingSpec,
    ...(config.baseUrl ? { baseURL: config.baseUrl } : {}),
    ...(config.model ? { model: config.model } : {}),
    apiKey,
    ...(maxTurns ? { maxTurns } : {}),
    options,
  };
}
