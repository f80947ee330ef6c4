/**
 * taubridge's own agent strategies on τ² domains (`taubridge tau2 run --agent vercel-ai
 * --agent-option module=./agent.ts`): the framework adapters, the function agent (`module`) and the
 * τ-bench model strategies are participants already; this builds one with the τ² run's settings
 * and the agent's view of the τ² domain (its policy, τ²'s tool schemas extracted from the sources).
 */
import type { Participant } from "../../../core/contracts.ts";
import { ConfigError } from "../../../errors/error-tree.ts";
import type { RunModels } from "../../../core/strategies.ts";
import type { AgentFactory, StrategySettings } from "../../../core/strategies.ts";
import type { LoadedTau2Domain } from "../engine/domain.ts";
import type { Tau2Task } from "../tasks.ts";
import { tau2DomainViews } from "../views.ts";
import type { Tau2RunModels, Tau2RunOptions } from "../run-options.ts";

function missing(what: string): never {
  throw new ConfigError(`a taubridge agent strategy on τ² needs ${what}`);
}

/** The agent a shared strategy builds for a τ² run. */
export async function sharedStrategyAgent(name: string, factory: AgentFactory, options: Tau2RunOptions, domain: LoadedTau2Domain, models: Tau2RunModels): Promise<Participant<Tau2Task>> {
  const apiBase = typeof options.agentLlmArgs.api_base === "string" ? options.agentLlmArgs.api_base : undefined;
  const baseUrl = options.agentBaseUrl ?? apiBase;
  const config: StrategySettings = { agentStrategy: name, model: options.agentLlm, ...(baseUrl ? { baseUrl } : {}), seed: options.seed, agentOptions: options.agentOptions ?? {} };
  const runModels: RunModels = { agent: () => (models.agent ?? missing("an agent model"))(), user: () => missing("no user model") };
  const participant = await factory.create({
    config,
    domain: tau2DomainViews(domain).agent(false),
    models: runModels,
    warn: (message) => process.stderr.write(`[taubridge] ${message}\n`),
  });
  return participant;
}
