import type { TerminationReason } from "../core/types.ts";
import { RESPOND_ACTION_NAME, STOP_TOKEN } from "../core/types.ts";

/**
 * How a suite runs an episode, as data the orchestrator is given: what a step is, the budgets, the
 * user's stop tokens and which terminations are scored. The orchestrator has no suite branches of
 * its own beyond reading these.
 */
export interface SuiteRules {
  readonly name: string;
  /** The step budget when the run does not set one (τ-bench `run.py`: 30). */
  readonly defaultMaxSteps: number;
  /** The tool-error budget (τ²: 10); null when the suite has none. */
  readonly defaultMaxErrors: number | null;
  /**
   * What one unit of the step budget is. `agent-actions` (τ-bench): every action the agent takes —
   * a tool call, a respond, or a malformed call that steps nothing — as `run.py`'s loop counts its
   * iterations. `hops` (τ²): every message passed between agent, user and environment — a
   * participant's turn or one environment hop answering all of a message's tool calls.
   */
  readonly stepUnit: "agent-actions" | "hops";
  /** The agent's action that talks to the user instead of calling a tool. */
  readonly respondAction: string;
  /** A user message containing one of these (substring) ends the episode as `user_stop`. */
  readonly stopTokens: readonly string[];
  /** Only these terminations are scored; every other one scores 0 with no reward info. */
  readonly scoredTerminations: readonly TerminationReason[];
}

/** τ-bench v1 (`run.py`, spec §3–§4 of tau-bench-v1.md); also our own bundled domain's rules. */
export const TAU_BENCH_RULES: SuiteRules = {
  name: "tau-bench",
  defaultMaxSteps: 30,
  defaultMaxErrors: null,
  stepUnit: "agent-actions",
  respondAction: RESPOND_ACTION_NAME,
  stopTokens: [STOP_TOKEN],
  scoredTerminations: ["user_stop", "agent_stop"],
};

/**
 * τ²-bench's half-duplex rules (spec §3 of tau2-bench.md): 200 hops and 10 tool errors (counted
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
