/**
 * The cheap part of the bundled registries: every domain plus the strategies that need no model
 * (oracle agent, scripted user). The CLI loads only this for runs that name nothing else, so an
 * offline run does not load the model SDKs, the framework adapters or the Python bridge's process
 * tooling. `app/registries.ts` adds the rest to the same registries; τ²'s set is
 * `app/tau2-registries.ts`, loaded only for τ² commands.
 */
import { DEFAULT_DOMAIN, domainRegistry } from "../domains/index.ts";
import { registerOfflineStrategies } from "../src/suites/tau-bench/participants/register-offline.ts";
import type { Registries } from "../src/run/registries.ts";
import { agentStrategies, userStrategies } from "../src/run/strategies.ts";

registerOfflineStrategies();

/** Domains and offline strategies; the strategy registries are the process-wide ones. */
export const offlineRegistries: Registries = {
  domains: domainRegistry,
  agentStrategies,
  userStrategies,
  defaultDomain: DEFAULT_DOMAIN,
};
