/**
 * What `bin/taubridge.js` runs: the CLI with the bundled registries, loaded only by the commands
 * that resolve names, and in two tiers: a run that names only offline strategies (oracle, scripted)
 * gets the domains and those, without loading the model SDKs, adapters or Python bridge tooling.
 */
import { main, type RegistryNeeds } from "../src/cli/main.ts";

await main(async (needs?: RegistryNeeds) => {
  const { offlineRegistries } = await import("./offline-registries.ts");
  const offline =
    needs !== undefined && needs.agentStrategies.every((name) => offlineRegistries.agentStrategies.has(name)) && needs.userStrategies.every((name) => offlineRegistries.userStrategies.has(name));
  if (!offline) return (await import("./registries.ts")).bundledRegistries;
  // τ²'s domains and participants load only for the commands that need them.
  return needs?.tau2 ? { ...offlineRegistries, tau2: (await import("./tau2-registries.ts")).tau2Registries } : offlineRegistries;
});
