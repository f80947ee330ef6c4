import type { Registry } from "../../src/core/registry.ts";
import type { AgentFactory, StrategySettings } from "../../src/core/strategies.ts";
import { FastWorkflowAgent } from "./agent.ts";
import { parseFastWorkflowOptions } from "./options.ts";

export { EPISODE_OVER_OUTPUT, FastWorkflowAgent } from "./agent.ts";
export { FASTWORKFLOW_OPTION_KEYS, parseFastWorkflowOptions, type FastWorkflowAgentOptions } from "./options.ts";

/** The run's `--model` and `--base-url`, to name the agent's endpoint in errors (the Python agent has its own settings). */
function endpointOf(config: StrategySettings): { model?: string; baseUrl?: string } {
  return { ...(config.model ? { model: config.model } : {}), ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}) };
}

/**
 * Registers `--agent-strategy fastworkflow` (a FastWorkflow workflow, evaluated unchanged through
 * the Python bridge; `--workflow-path <dir>` or `--agent-option workflowPath=<dir>`) and
 * `--agent-strategy python-bridge` (the same bridge for any Python agent: `--agent-option
 * entry=module:callable --agent-option patchTargets=module:function,...`) into a run's registry.
 *
 * Options are parsed when the run is built, so a wrong option or a missing workflow directory
 * stops the run with a ConfigError before the first episode.
 */
export function registerFastWorkflowStrategy(agentStrategies: Registry<AgentFactory>): void {
  agentStrategies.register("fastworkflow", {
    description: "a FastWorkflow workflow run unchanged in a Python child; its app commands are bridged to the benchmark environment",
    requiresModel: false,
    create: ({ config }) => new FastWorkflowAgent(parseFastWorkflowOptions({ driver: "fastworkflow", ...config.agentOptions }), {}, endpointOf(config)),
  });
  agentStrategies.register("python-bridge", {
    description: "any Python agent (entry=module:callable) whose tool functions (patchTargets) are bridged to the benchmark environment",
    requiresModel: false,
    create: ({ config }) => new FastWorkflowAgent(parseFastWorkflowOptions({ driver: "entry", ...config.agentOptions }), {}, endpointOf(config)),
  });
}
