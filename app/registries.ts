/**
 * The bundled registries: our domains (library, retail, airline), the offline and model-driven
 * strategies, and the framework adapters. This is the one place that wires `domains/` and
 * `adapters/` into the core; importing it also installs the set as the default for
 * `buildRun(input)` calls that pass no registries.
 */
import { registerAdapterStrategies } from "../adapters/index.ts";
import { registerFastWorkflowStrategy } from "../adapters/fastworkflow/index.ts";
import { registerModelStrategies } from "../src/participants/register.ts";
import { createRunModels } from "../src/run/model-clients.ts";
import { setDefaultRegistries, type Registries } from "../src/run/registries.ts";
import { offlineRegistries } from "./offline-registries.ts";
import { agentStrategies } from "../src/run/strategies.ts";
import { tau2Registries } from "./tau2-registries.ts";

registerModelStrategies();
registerAdapterStrategies();
registerFastWorkflowStrategy();

/**
 * Every bundled domain and strategy. The strategy registries are the process-wide ones, so a
 * strategy registered by the embedding program (`agentStrategies.register("mine", …)`) is found too.
 */
// Every taubridge agent strategy (adapters, `module`, model strategies) also runs on τ² domains.
export const bundledRegistries: Registries = { ...offlineRegistries, createModels: createRunModels, tau2: { ...tau2Registries, strategies: agentStrategies } };

setDefaultRegistries(bundledRegistries);
