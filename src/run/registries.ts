/**
 * The names a run can resolve, created per run (or per server) by a composition root (`app/`),
 * never process-wide: the suites (each with its own domains and participants) and taubridge's
 * shared agent strategies, which every suite runs. `src/` never imports the suites, domains,
 * adapters or bridge that fill these; the composition root registers them and passes the set in.
 */
import type { Registry } from "../core/registry.ts";
import type { Suite } from "../core/suite.ts";
import type { RunModels } from "../core/strategies.ts";
import type { ModelSettings } from "./model-clients.ts";
import type { AgentFactory } from "../core/strategies.ts";

export interface Registries {
  /** The suites a run can name (`--suite`), keyed `tau-bench` and `tau2`. */
  readonly suites: Registry<Suite<Registries>>;
  /** taubridge's shared agent strategies (model strategies, the function agent, framework adapters, the Python bridge): they run on every suite. */
  readonly agentStrategies: Registry<AgentFactory>;
  /**
   * Builds a run's per-role model clients. Passed in rather than imported so an offline run (oracle
   * agent, scripted user) never loads the model SDK and its HTTP stack; without it, a strategy that
   * asks for a model client gets a one-line error.
   */
  readonly createModels?: (settings: ModelSettings) => RunModels;
  /**
   * How a worker process recreates this set (`--workers`): the module it runs (the composition
   * root's worker entry, a file URL) and the set's name there. Absent: this set's runs stay in one
   * process, and `--workers` is refused in one line.
   */
  readonly workers?: { readonly entry: string; readonly set: string };
}

/** The suite of that name in a set of registries; an unknown name lists the known ones. */
export function suiteOf(registries: Registries, name: string): Suite<Registries> {
  return registries.suites.get(name);
}
