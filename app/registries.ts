/**
 * The bundled registries: both suites, every shared strategy (model strategies, the function and
 * human agents, the remote A2A agent, the framework adapters, FastWorkflow and the Python bridge) and the model layer.
 * This is the one place that wires `domains/`, `adapters/` and the suites into the core. A set is
 * created per run or server: nothing here is process-wide.
 */
import { registerAdapterStrategies } from "../adapters/index.ts";
import { registerFastWorkflowStrategy } from "../adapters/fastworkflow/index.ts";
import { Registry } from "../src/core/registry.ts";
import type { Suite } from "../src/core/suite.ts";
import { registerA2AStrategy } from "../src/a2a/client/register.ts";
import { registerModelStrategies } from "../src/participants/register.ts";
import { createRunModels } from "../src/run/model-clients.ts";
import type { Registries } from "../src/run/registries.ts";
import { agentStrategyRegistry } from "../src/core/strategies.ts";
import { createTau2, createTauBench } from "./suites.ts";
import { WORKER_ENTRY } from "./worker-entry-url.ts";

/** A fresh set of every bundled suite, strategy and the model layer. */
export async function createBundledRegistries(): Promise<Registries> {
  const suites = new Registry<Suite<Registries>>("suite");
  suites.register("tau-bench", await createTauBench());
  suites.register("tau2", await createTau2());
  const agentStrategies = agentStrategyRegistry();
  registerModelStrategies(agentStrategies);
  registerA2AStrategy(agentStrategies);
  registerAdapterStrategies(agentStrategies);
  registerFastWorkflowStrategy(agentStrategies);
  return { suites, agentStrategies, createModels: createRunModels, workers: { entry: WORKER_ENTRY, set: "bundled" } };
}
