/**
 * The agent contract, re-exported from the core contracts for the strategies in this folder.
 * An agent starts one session per episode; the session produces turns; the orchestrator steps them.
 */
export type { Agent, AgentEpisodeContext, AgentInput, AgentSession, AgentTurn } from "../core/contracts.ts";
