/**
 * The suites with their domains and participants, created per run or server (never process-wide):
 * τ-bench's (our library domain, retail, airline; its oracle and user simulators) and τ²'s (mock,
 * airline, retail, telecom; its oracle, scripted user and model-driven participants). Each suite's
 * module graph is loaded only when a command needs it: a τ-bench run does not load τ², and an offline
 * τ² run does not load τ-bench.
 */
import type { TauBenchSuite } from "../src/suites/tau-bench/parts.ts";
import type { Tau2Suite } from "../src/suites/tau2/suite.ts";

/** τ-bench with its bundled domains, its oracle and every τ-bench user simulator (its modules loaded on first use). */
export async function createTauBench(): Promise<TauBenchSuite> {
  return (await import("./tau-bench-suite.ts")).createTauBenchNow();
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
