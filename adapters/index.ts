/**
 * The framework adapters: agent strategies that evaluate an agent built on a third-party
 * framework without changing its code (see each adapter's README and bridge/README.md).
 *
 *   taubridge run --env retail --agent-strategy openai-agents \
 *     --agent-option module=./my-agent.ts --base-url http://127.0.0.1:8000/v1 --model my-model
 *
 * Adapter modules import their framework lazily (after the bridge's hooks are installed), so
 * registering them costs nothing and needs none of the frameworks installed.
 */
import type { Registry } from "../src/core/registry.ts";
import type { AgentFactory } from "../src/core/strategies.ts";
import { adapterStrategy } from "./common/strategy.ts";
import { langChainAdapter } from "./langchain/adapter.ts";
import { mastraAdapter } from "./mastra/adapter.ts";
import { openAIAgentsAdapter } from "./openai-agents/adapter.ts";
import { vercelAIAdapter } from "./vercel-ai/adapter.ts";

export type { AgentFactoryOptions } from "../src/participants/user-module.ts";

/** Registers `openai-agents`, `vercel-ai`, `langchain` and `mastra` into a run's or server's registry. */
export function registerAdapterStrategies(agentStrategies: Registry<AgentFactory>): void {
  const strategies = [
    ["openai-agents", adapterStrategy(openAIAgentsAdapter, "an @openai/agents Agent from --agent-option module=<path>, its tool calls bridged into the environment")],
    ["vercel-ai", adapterStrategy(vercelAIAdapter, "an AI SDK 6 ToolLoopAgent from --agent-option module=<path>, its tool calls bridged into the environment")],
    ["langchain", adapterStrategy(langChainAdapter, "a LangChain/LangGraph agent graph from --agent-option module=<path>, its tool calls bridged into the environment")],
    ["mastra", adapterStrategy(mastraAdapter, "a Mastra 0.24 Agent from --agent-option module=<path>, its tool calls bridged into the environment")],
  ] as const;
  for (const [name, factory] of strategies) agentStrategies.register(name, factory);
}
