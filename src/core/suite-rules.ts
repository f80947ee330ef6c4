import type { TerminationReason } from "./types.ts";

/**
 * How a suite runs an episode, as data its loop (`src/suites/<suite>/loop.ts`) reads: what a step
 * is, the budgets, the user's stop tokens and which terminations are scored. The episode kernel
 * (`src/kernel/episode-kernel.ts`) has no suite branches; the loops decide through it from these.
 */
export interface SuiteRules {
  readonly name: string;
  /** The step budget when the run does not set one (τ-bench: the agents' `solve(..., max_num_steps=30)`). */
  readonly defaultMaxSteps: number;
  /** The tool-error budget (τ²: 10); null when the suite has none. */
  readonly defaultMaxErrors: number | null;
  /**
   * What one unit of the step budget is. `agent-actions` (τ-bench): every action the agent takes —
   * a tool call, a respond, or a malformed call that steps nothing — as the agents' `solve` loop
   * counts its iterations (tau_bench/agents/tool_calling_agent.py, ToolCallingAgent.solve). `hops`
   * (τ²): every message passed between agent, user and environment — a participant's turn or one
   * environment hop answering all of a message's tool calls.
   */
  readonly stepUnit: "agent-actions" | "hops";
  /** The agent's action that talks to the user instead of calling a tool. */
  readonly respondAction: string;
  /** A user message containing one of these (substring) ends the episode as `user_stop`. */
  readonly stopTokens: readonly string[];
  /** Only these terminations are scored; every other one scores 0 with no reward info. */
  readonly scoredTerminations: readonly TerminationReason[];
}
