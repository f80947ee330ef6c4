import type { SuiteRules } from "../../core/suite-rules.ts";
import { RESPOND_ACTION_NAME, STOP_TOKEN } from "../../core/types.ts";

/** τ-bench v1 (`run.py` and `envs/base.py` of sierra-research/tau-bench); also our own bundled domain's rules. */
export const TAU_BENCH_RULES: SuiteRules = {
  name: "tau-bench",
  defaultMaxSteps: 30,
  defaultMaxErrors: null,
  stepUnit: "agent-actions",
  respondAction: RESPOND_ACTION_NAME,
  stopTokens: [STOP_TOKEN],
  scoredTerminations: ["user_stop", "agent_stop"],
};
