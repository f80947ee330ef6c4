/**
 * The suites with their domains and participants, created per run or server (never process-wide):
 * τ-bench's (our library domain, retail, airline; its oracle and user simulators) and τ²'s (mock,
 * airline, retail, telecom; its oracle, scripted user and model-driven participants). τ²'s module
 * graph is loaded only when a command needs τ², so a τ-bench run does not load it.
 */
import { DEFAULT_DOMAIN, tauBenchDomains } from "../domains/index.ts";
import { registerOfflineParticipants } from "../src/suites/tau-bench/participants/register-offline.ts";
import { registerUserStrategies } from "../src/suites/tau-bench/participants/register-users.ts";
import type { TauBenchSuite } from "../src/suites/tau-bench/parts.ts";
import { createTauBenchSuite } from "../src/suites/tau-bench/suite.ts";
import type { Tau2Suite } from "../src/suites/tau2/suite.ts";
import { agentStrategyRegistry, userStrategyRegistry } from "../src/core/strategies.ts";

/** τ-bench with its bundled domains, its oracle and every τ-bench user simulator. */
export function createTauBench(): TauBenchSuite {
  const agents = agentStrategyRegistry();
  const users = userStrategyRegistry();
  registerOfflineParticipants(agents, users);
  registerUserStrategies(users);
  return createTauBenchSuite({ domains: tauBenchDomains(), agents, users, defaultDomain: DEFAULT_DOMAIN });
}

/** τ²-bench with its domains and participants (its modules loaded on first use). */
export async function createTau2(): Promise<Tau2Suite> {
  const [{ tau2Domains }, { tau2Participants }, { createTau2Suite }] = await Promise.all([
    import("../domains/tau2.ts"),
    import("../src/suites/tau2/participants/registry.ts"),
    import("../src/suites/tau2/suite.ts"),
  ]);
  return createTau2Suite({ domains: tau2Domains(), ...tau2Participants() });
}
