/**
 * The cheap registries: the suites and the shared strategies that need no model SDK, no framework
 * adapter and no Python tooling (the function agent and the human agent come with the model
 * strategies, which are plain modules; so does the remote A2A agent). The CLI loads only these for runs that name nothing else,
 * so an offline run starts fast; `registries.ts` has the full set.
 */
import { Registry } from "../src/core/registry.ts";
import type { Suite } from "../src/core/suite.ts";
import { registerA2AStrategy } from "../src/a2a/client/register.ts";
import { registerModelStrategies } from "../src/participants/register.ts";
import type { Registries } from "../src/run/registries.ts";
import { agentStrategyRegistry } from "../src/core/strategies.ts";
import { createTau2, createTauBench } from "./suites.ts";
import { WORKER_ENTRY } from "./worker-entry-url.ts";

/**
 * A fresh offline set: τ-bench (unless `tauBench` is false: a τ² run, which never reads τ-bench's
 * parts) and τ² when asked, the shared model strategies, no model layer.
 */
export async function createOfflineRegistries(options: { tau2?: boolean; tauBench?: boolean } = {}): Promise<Registries> {
  const suites = new Registry<Suite<Registries>>("suite");
  if (options.tauBench !== false) suites.register("tau-bench", await createTauBench());
  if (options.tau2) suites.register("tau2", await createTau2());
  const agentStrategies = agentStrategyRegistry();
  registerModelStrategies(agentStrategies);
  registerA2AStrategy(agentStrategies);
  return { suites, agentStrategies, workers: { entry: WORKER_ENTRY, set: options.tau2 ? "offline-tau2" : "offline" } };
}
