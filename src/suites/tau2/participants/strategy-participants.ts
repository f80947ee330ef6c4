/**
 * Every taubridge agent strategy on τ² domains (`taubridge tau2 run --agent vercel-ai
 * --agent-option module=./agent.ts`): the framework adapters, the function agent (`module`) and
 * the τ-bench model strategies, built by their own factories and wrapped by `tau2AgentFrom`. The
 * agent sees the τ² domain as a model would: the agent's policy and τ²'s tool schemas (extracted
 * from its sources); a framework's tool calls go through the bridge into the τ² orchestrator's
 * step path, so they are assistant tool calls of the trajectory, recorded and counted.
 */
import type { DomainView } from "../../../core/contracts.ts";
import { ConfigError } from "../../../core/errors.ts";
import type { Registry } from "../../../core/registry.ts";
import type { LoadedDomain } from "../../tau-bench/engine/domain.ts";
import { extractTau2Tools } from "../engine/extract/index.ts";
import { tau2AgentFrom } from "./agent-bridge.ts";
import type { RunModels } from "../../../run/model-clients.ts";
import type { RunConfig } from "../../../run/run-config.ts";
import type { AgentFactory } from "../../../run/strategies.ts";
import { pyJsonDumpsLine } from "../../../value/index.ts";
import type { Tau2FactoryOptions, Tau2ParticipantFactory } from "../run.ts";

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new ConfigError(`a taubridge agent strategy on τ² needs ${what}`);
  return value;
}

/** A τ² participant factory for one taubridge agent strategy. */
export function tau2StrategyParticipant(name: string, strategy: AgentFactory): Tau2ParticipantFactory {
  return async (options: Tau2FactoryOptions) => {
    const domain = required(options.domain, "the domain");
    const dataRoot = required(options.dataRoot, "the data root");
    const tools = extractTau2Tools(dataRoot, domain.definition.name);
    const toolNames = tools.agent.schemas.map((schema) => schema.function.name);
    const baseUrl = options.baseUrl ?? (typeof options.llmArgs.api_base === "string" ? options.llmArgs.api_base : undefined);
    const config = { env: domain.definition.name, agentStrategy: name, model: options.llm, agentOptions: options.agentOptions ?? {}, baseUrl } as unknown as RunConfig;
    const agentModel = options.models?.agent;
    const models = { agent: () => required(agentModel, "an agent model")(), user: () => required(undefined, "no user model") } as unknown as RunModels;
    const view = (policy: string): DomainView => ({ name: domain.definition.name, policy, toolNames, toolSchemas: { json: tools.agent.schemas as unknown as Record<string, unknown>[] } });
    // The strategies read the domain as a view: its name, policy, tool names and schemas.
    const base = view(domain.policy(false));
    const domainFacade = {
      ...base,
      toolSchemas: { json: base.toolSchemas.json, pythonJson: pyJsonDumpsLine(base.toolSchemas.json) },
      definition: { name: domain.definition.name, tools: toolNames.map((toolName) => ({ name: toolName })) },
    } as unknown as LoadedDomain;
    const agent = await strategy.create({ config, domain: domainFacade, models, warn: (message) => process.stderr.write(`[taubridge] ${message}\n`) });
    return tau2AgentFrom(agent, (context) => view(context.domain.policy));
  };
}

/** Registers every taubridge agent strategy whose name τ² does not already use. */
export function registerTau2AgentStrategies(strategies: Registry<AgentFactory>, tau2Agents: Registry<Tau2ParticipantFactory>): void {
  for (const name of strategies.names()) {
    if (!tau2Agents.has(name)) tau2Agents.register(name, tau2StrategyParticipant(name, strategies.get(name)));
  }
}
