import type { SuiteRules } from "../../core/suite-rules.ts";
import { RESPOND_ACTION_NAME, STOP_TOKEN } from "../../core/types.ts";

/**
 * τ-bench v1 (sierra-research/tau-bench): the step budget is the agents' `solve(..., max_num_steps=30)`
 * (e.g. tau_bench/agents/tool_calling_agent.py, ToolCallingAgent.solve); `respond` and the stop token
 * are tau_bench/envs/base.py, Env.step's. Also our own bundled domain's rules.
 */
export const TAU_BENCH_RULES: SuiteRules = {
  name: "tau-bench",
  defaultMaxSteps: 30,
  defaultMaxErrors: null,
  stepUnit: "agent-actions",
  respondAction: RESPOND_ACTION_NAME,
  stopTokens: [STOP_TOKEN],
  scoredTerminations: ["user_stop", "agent_stop"],
};
