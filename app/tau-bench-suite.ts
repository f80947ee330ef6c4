/**
 * τ-bench's suite with its bundled domains, its oracle and every τ-bench user simulator, built from
 * static imports. `createTauBench()` (app/suites.ts) imports this module when a command needs τ-bench,
 * so an offline τ² run does not load it; tests build it synchronously.
 */
import { DEFAULT_DOMAIN, tauBenchDomains } from "../domains/index.ts";
import { agentStrategyRegistry, userStrategyRegistry } from "../src/core/strategies.ts";
import { registerOfflineParticipants } from "../src/suites/tau-bench/participants/register-offline.ts";
import { registerUserStrategies } from "../src/suites/tau-bench/participants/register-users.ts";
import type { TauBenchSuite } from "../src/suites/tau-bench/parts.ts";
import { createTauBenchSuite } from "../src/suites/tau-bench/suite.ts";

/** A fresh τ-bench suite (its own domain and participant registries). */
export function createTauBenchNow(): TauBenchSuite {
  const agents = agentStrategyRegistry();
  const users = userStrategyRegistry();
  registerOfflineParticipants(agents, users);
  registerUserStrategies(users);
  return createTauBenchSuite({ domains: tauBenchDomains(), agents, users, defaultDomain: DEFAULT_DOMAIN });
}
