import { ConfigError } from "../core/errors.ts";
import type { Registry } from "../core/registry.ts";
import type { DomainDefinition } from "../suites/tau-bench/engine/domain.ts";
import type { RunModels } from "./model-clients.ts";
import type { RunConfig } from "./run-config.ts";
import type { AgentFactory, UserFactory } from "./strategies.ts";
import type { Tau2Registries } from "../suites/tau2/build.ts";

/**
 * The names a run can resolve: domains and agent/user strategies. `src/` never imports the
 * domains, adapters or bridge that fill these; a composition root (`app/registries.ts`, the
 * package's main entry) builds them and passes them in, so the core can be used with any set.
 */
export interface Registries {
  readonly domains: Registry<DomainDefinition>;
  readonly agentStrategies: Registry<AgentFactory>;
  readonly userStrategies: Registry<UserFactory>;
  /** The domain `--env` means when it is not given. */
  readonly defaultDomain: string;
  /**
   * Builds a run's per-role model clients. Passed in rather than imported so an offline run (oracle
   * agent, scripted user) never loads the model SDK and its HTTP stack; without it, a strategy that
   * asks for a model client gets a one-line error.
   */
  readonly createModels?: (config: RunConfig) => RunModels;
  /** τ²-bench's domains and participants (`taubridge tau2 run`); absent in a set without τ². */
  readonly tau2?: Tau2Registries;
}

let installed: Registries | undefined;

/**
 * Makes `registries` what `buildRun(input)` uses when it is given none. The package's main entry
 * (`app/registries.ts`) installs the bundled set when it is imported; code that builds its own
 * registries passes them explicitly instead.
 */
export function setDefaultRegistries(registries: Registries): void {
  installed = registries;
}

/** The installed default registries; a one-line ConfigError when nothing installed any. */
export function defaultRegistries(): Registries {
  if (!installed) {
    throw new ConfigError('no domains or strategies are registered: import "taubridge" (which registers the bundled ones) or pass registries to buildRun');
  }
  return installed;
}
