import type { SuiteRules } from "../../core/suite-rules.ts";

/**
 * τ²-bench's half-duplex rules (`src/tau2/orchestrator/orchestrator.py` of sierra-research/tau2-bench): 200 hops and 10 tool errors (counted
 * over the whole run) by default, checked only when the next hop is not the environment; the user
 * ends the conversation with one of three tokens; only user and agent stops are scored. The fixed
 * first agent message is the original's text, read from its sources at run time.
 */
export const TAU2_BENCH_RULES: SuiteRules = {
  name: "tau2-bench",
  defaultMaxSteps: 200,
  defaultMaxErrors: 10,
  stepUnit: "hops",
  respondAction: "",
  stopTokens: ["###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"],
  scoredTerminations: ["user_stop", "agent_stop"],
};
