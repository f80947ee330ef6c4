/**
 * What `bin/taubridge.js` runs: the CLI with registries created per command, and in two tiers: a
 * run that names only offline participants (τ-bench's oracle and scripted user, τ²'s own) and no
 * model flag gets the suites without the model SDKs, framework adapters or Python bridge tooling;
 * τ²'s module graph loads only for the commands that need τ², and only its leaderboard support for
 * `tau2 submit`.
 */
import { main, type RegistryNeeds } from "../src/cli/main.ts";

/** Participants the offline set has: τ-bench's oracle and scripted user, τ²'s own participants, the remote A2A agent. */
const OFFLINE = new Set(["oracle", "scripted", "llm_agent", "llm_agent_gt", "llm_agent_solo", "user_simulator", "dummy_user", "a2a", "a2a_agent"]);

const loadRegistries = async (needs?: RegistryNeeds) => {
  const offline = needs !== undefined && !needs.models && needs.names.every((name) => OFFLINE.has(name));
  if (!offline) return (await import("./registries.ts")).createBundledRegistries();
  return (await import("./offline-registries.ts")).createOfflineRegistries({ tau2: needs.tau2, tauBench: needs.tauBench !== false });
};

// `tau2 submit prepare|validate` read results files and task files only: τ²'s leaderboard support
// without its domains' tools and participants (the same support the τ² suite carries).
const leaderboard = async (suite: string) => (suite === "tau2" ? (await import("../src/suites/tau2/leaderboard.ts")).tau2Leaderboard() : undefined);

await main(Object.assign(loadRegistries, { leaderboard }));
