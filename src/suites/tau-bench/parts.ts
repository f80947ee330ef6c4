/**
 * What τ-bench resolves names in: its domains, its own agents (the oracle), its user simulators and
 * its default domain. The composition root (`app/`) creates them per run or server and hands them
 * to {@link createTauBenchSuite}; τ-bench's build reads them back from the run's registries.
 */
import { ConfigError, UnknownNameError } from "../../errors/error-tree.ts";
import type { Registry } from "../../core/registry.ts";
import type { Suite } from "../../core/suite.ts";
import type { Registries } from "../../run/registries.ts";
import type { AgentFactory, UserFactory } from "../../core/strategies.ts";
import type { DomainDefinition } from "./engine/domain.ts";

export interface TauBenchParts {
  readonly domains: Registry<DomainDefinition>;
  /** τ-bench's own agents (the oracle); the shared strategies come from the run's registries. */
  readonly agents: Registry<AgentFactory>;
  readonly users: Registry<UserFactory>;
  /** The domain `--env` means when it is not given. */
  readonly defaultDomain: string;
}

/** The τ-bench suite object: the plug-in and the parts it resolves names in. */
export type TauBenchSuite = Suite<Registries> & { readonly parts: TauBenchParts };

/** τ-bench's parts in a set of registries (a one-line error when the set has no τ-bench). */
export function tauBenchParts(registries: Registries): TauBenchParts {
  if (!registries.suites.has("tau-bench")) throw new ConfigError("these registries have no τ-bench suite (register it with createTauBenchSuite)");
  return (registries.suites.get("tau-bench") as TauBenchSuite).parts;
}

/** An agent name: τ-bench's own, else a shared strategy; an unknown name lists both. */
export function tauBenchAgent(registries: Registries, name: string): AgentFactory {
  const own = tauBenchParts(registries).agents;
  if (own.has(name)) return own.get(name);
  const known = [...own.names(), ...tauBenchStrategies(registries)];
  if (registries.agentStrategies.has(name)) {
    const strategy = registries.agentStrategies.get(name);
    if (tauBenchStrategies(registries).includes(name)) return strategy;
    throw new ConfigError(`the agent strategy "${name}" runs on ${strategy.suites?.join(", ")} only, not on τ-bench; τ-bench agents: ${known.join(", ")}`);
  }
  throw new UnknownNameError("agent strategy", name, known);
}

/** The shared agent strategies that run on τ-bench (those that do not name other suites only). */
export function tauBenchStrategies(registries: Registries): string[] {
  const strategies = registries.agentStrategies;
  return strategies.names().filter((name) => strategies.get(name).suites?.includes("tau-bench") ?? true);
}
