/**
 * The A2A agent strategy: `--agent-strategy a2a --agent-endpoint <url>` (and τ²'s proposed spelling,
 * `--agent a2a_agent --agent-a2a-endpoint <url>`). The composition root registers it with the other
 * shared strategies; the run's settings reach it as agent options (the flags fold into them). The
 * client itself (`create-agent.ts`) is loaded when a run creates the agent, not when it is registered.
 */
import type { Registry } from "../../core/registry.ts";
import type { AgentFactory, BuildContext } from "../../core/strategies.ts";

/** The strategy's names: ours, and τ²'s proposal's. */
export const A2A_STRATEGY_NAMES = ["a2a", "a2a_agent"] as const;

const factory: AgentFactory = {
  description: "a remote agent over the Agent2Agent protocol (A2A 0.3 or 1.0): --agent-endpoint <url> [--agent-a2a-token-env NAME]",
  requiresModel: false,
  create: async (context: BuildContext) => (await import("./create-agent.ts")).createA2AAgent(context.config.agentOptions, context.warn),
};

/** Registers `a2a` and `a2a_agent` into the registry the composition root created for a run or server. */
export function registerA2AStrategy(agents: Registry<AgentFactory>): void {
  for (const name of A2A_STRATEGY_NAMES) agents.register(name, factory);
}
