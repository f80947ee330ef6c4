/**
 * A run's configuration as it travels to workers: the suite, the run flags as they were given,
 * the registry set to create, the taubridge version, and an id (a digest of all that) that units
 * name. Made on the coordinator, which refuses to send a configuration whose flags hold a secret:
 * workers read keys from their own environment, never from the coordinator.
 */
import { createHash } from "node:crypto";
import { ConfigError } from "../errors/error-tree.ts";
import { runFlag, suiteNamed } from "../run/run-flags.ts";
import { parseRunSettings } from "../run/run-settings.ts";
import { taubridgeVersion } from "../run/run-identity.ts";
import { runSecrets, secretsIn } from "../secrets/redact.ts";
import { type RunConfiguration, runConfigurationSchema, WORKER_PROTOCOL_VERSION } from "./protocol.ts";

/** Run flags that say where the run's episodes go, not what they are: a worker never sees them. */
const PLACEMENT_OPTIONS = new Set(["workers"]);

export interface RunConfigurationInput {
  suite: string;
  surface: "cli" | "api";
  /** The run flags as given (commander's values, or the API's options), by option name. */
  settings: Record<string, unknown>;
  /** The registry set the worker's composition root creates for these flags. */
  registries: string;
  /** The environment whose keys must not travel (default: this process's). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The flag an option name is (`agentLlmArgs` → `--agent-llm-args`), for messages. */
function flagName(name: string): string {
  return runFlag(name)?.flag ?? name;
}

/** The value as JSON, or a ConfigError naming the option that cannot travel. */
function asJson(name: string, value: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  const copy = text === undefined ? undefined : (JSON.parse(text) as unknown);
  if (text === undefined || JSON.stringify(copy) !== JSON.stringify(value) || value instanceof Map) {
    throw new ConfigError(`--workers: ${flagName(name)} cannot be sent to a worker process (not plain JSON); give it as text or a plain object`);
  }
  return copy;
}

/**
 * The configuration workers get for a run. Refused in one line when a flag holds a secret (an API
 * key in `--agent-llm-args`, credentials in a base URL) or a key of the environment appears
 * anywhere in it: keys stay where they are and each worker reads its own.
 */
export function runConfiguration(input: RunConfigurationInput): RunConfiguration {
  const settings: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input.settings)) {
    if (value === undefined || PLACEMENT_OPTIONS.has(name) || name === "suite") continue;
    settings[name] = asJson(name, value);
  }
  // Read as the worker will read them (JSON text parsed), so a key inside `--agent-llm-args` text is seen.
  const parsed = parseRunSettings(settings, input.surface, suiteNamed(input.suite));
  const holding = Object.entries(parsed.values)
    .filter(([name, value]) => secretsIn({ [name]: value }).length > 0)
    .map(([name]) => flagName(name));
  if (holding.length > 0) {
    throw new ConfigError(
      `--workers: ${holding.join(", ")} hold${holding.length === 1 ? "s" : ""} a secret, and a run's configuration travels to its workers while secrets never do; put the key in the environment (the provider's key variable, or --api-key-env NAME and its kin), which each worker reads`,
    );
  }
  const text = JSON.stringify(settings);
  if (runSecrets(parsed.values, input.env ?? process.env).some((secret) => text.includes(secret))) {
    throw new ConfigError("--workers: a run flag holds the value of a key variable of the environment; name the variable instead (--api-key-env NAME), which each worker reads");
  }
  const body = { protocol: WORKER_PROTOCOL_VERSION, taubridgeVersion: taubridgeVersion(), registries: input.registries, suite: input.suite, surface: input.surface, settings };
  const id = createHash("sha256").update(JSON.stringify(body)).digest("hex").slice(0, 32);
  return runConfigurationSchema.parse({ ...body, id }) as RunConfiguration;
}
