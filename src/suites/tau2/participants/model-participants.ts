/**
 * τ²'s model-driven participants by their τ² names: `llm_agent`, `llm_agent_gt`, `llm_agent_solo`,
 * `user_simulator` and `dummy_user`. Their prompts and tool schemas are extracted at run time from
 * τ²'s sources in the data directory (`src/suites/tau2/engine/extract`), so what the model sees is the
 * original's, and the project holds none of it.
 */
import type { ChatModel, ParticipantContext } from "../../../core/contracts.ts";
import { ConfigError } from "../../../errors/error-tree.ts";
import type { ToolDefinition } from "../../../core/model-types.ts";
import { type Tau2AgentSetup, frozenTools, tau2LlmAgent } from "./llm-agent.ts";
import { extractTau2Prompts, readTau2UserGuidelines, renderTau2UserScenario, tau2AgentSystemPrompt, tau2GtSystemPrompt, tau2SoloSystemPrompt, tau2UserSystemPrompt } from "../engine/extract/index.ts";
import type { Tau2Task } from "../tasks.ts";
import { tau2DomainTools } from "../views.ts";
import { type Tau2UserSetup, tau2DummyUser, tau2UserSimulator } from "./user-simulator.ts";
import type { Tau2FactoryOptions, Tau2ParticipantFactory } from "../run-options.ts";
import type { Registry } from "../../../core/registry.ts";

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new ConfigError(`a τ² model participant needs ${what}`);
  return value;
}

function model(options: Tau2FactoryOptions, role: "agent" | "user"): () => ChatModel {
  const make = options.models?.[role];
  if (!make) throw new ConfigError(`this τ² ${role} calls a model; the run has no ${role} model client`);
  return make;
}

/** The schemas as the model client gets them: a frozen copy (its body writer then serialises them once per run). */
const asTools = (schemas: readonly unknown[]) => frozenTools(schemas) as unknown as ToolDefinition[];

function agentTools(options: Tau2FactoryOptions) {
  const dataRoot = required(options.dataRoot, "the data root");
  const domain = required(options.domain, "the domain");
  return { dataRoot, domain, tools: tau2DomainTools(domain), templates: extractTau2Prompts(dataRoot) };
}

const llmAgent: Tau2ParticipantFactory = Object.assign(
  (options: Tau2FactoryOptions) => {
    const { tools, templates } = agentTools(options);
    const schemas = asTools(tools.agent.schemas);
    // One setup per policy (its system prompt formatted once, and its system message one object: `systemMessage`).
    const setups = new Map<string, Tau2AgentSetup>();
    return tau2LlmAgent("llm_agent", model(options, "agent"), options.llmArgs, (context) => {
      const policy = context.domain.policy;
      let setup = setups.get(policy);
      if (setup === undefined) {
        setup = { systemPrompt: tau2AgentSystemPrompt(templates, policy), tools: schemas, toolChoice: "auto" };
        setups.set(policy, setup);
      }
      return setup;
    });
  },
  { requiresModel: true, description: "τ²'s llm_agent: the policy as system prompt, τ²'s tools, one model call per turn (needs --agent-llm)" },
);

const hasActions = (task: Tau2Task) => (task.evaluation_criteria?.actions?.length ?? 0) > 0;

const llmAgentGt: Tau2ParticipantFactory = Object.assign(
  (options: Tau2FactoryOptions) => {
    const { tools, templates } = agentTools(options);
    const schemas = asTools(tools.agent.schemas);
    return tau2LlmAgent("llm_agent_gt", model(options, "agent"), options.llmArgs, (context: ParticipantContext<Tau2Task>) => ({
      systemPrompt: tau2GtSystemPrompt(templates, context.domain.policy, context.task.evaluation_criteria?.actions ?? []),
      tools: schemas,
      toolChoice: "auto",
    }));
  },
  { taskFilter: hasActions, requiresModel: true, description: "τ²'s llm_agent_gt: llm_agent told the ground-truth actions (tasks that have some)" },
);

const llmAgentSolo: Tau2ParticipantFactory = Object.assign(
  (options: Tau2FactoryOptions) => {
    const { tools, templates } = agentTools(options);
    const all = asTools([...tools.agent.schemas, ...(tools.user?.schemas ?? []), templates.soloDoneTool]);
    return tau2LlmAgent("llm_agent_solo", model(options, "agent"), options.llmArgs, (context: ParticipantContext<Tau2Task>) => ({
      systemPrompt: tau2SoloSystemPrompt(templates, context.domain.policy, context.task.ticket ?? ""),
      tools: all,
      toolChoice: "required",
      stopTool: { name: templates.soloStopFunctionName, token: templates.soloStopToken },
    }));
  },
  {
    solo: true,
    taskFilter: (task: Tau2Task) => Boolean(task.ticket) && hasActions(task),
    requiresModel: true,
    description: "τ²'s llm_agent_solo: works a ticket alone, with the user's tools too (mock, telecom; --user dummy_user)",
  },
);

const userSimulator: Tau2ParticipantFactory = Object.assign(
  (options: Tau2FactoryOptions) => {
    const { dataRoot, tools, templates } = agentTools(options);
    const guidelines = (withTools: boolean) => readTau2UserGuidelines(dataRoot, templates, withTools);
    const userSchemas = tools.user ? asTools(tools.user.schemas) : [];
    // One setup per task: every trial of a task shares its rendered prompt and its system message (`systemMessage`).
    const setups = new WeakMap<Tau2Task, Tau2UserSetup>();
    return tau2UserSimulator(model(options, "user"), options.llmArgs, (context) => {
      const known = setups.get(context.task);
      if (known !== undefined) return known;
      // τ²'s runner: `env.get_user_tools(include=task.user_tools) or None` (τ³ tasks list theirs; an empty list is no tools)
      const allowed = context.task.user_tools;
      const userTools = Object.freeze(allowed == null ? userSchemas : userSchemas.filter((schema) => allowed.includes(schema.function.name)));
      const withTools = tools.user !== null && userTools.length > 0;
      const setup = { systemPrompt: tau2UserSystemPrompt(templates, guidelines(withTools), renderTau2UserScenario(context.task.user_scenario)), tools: userTools };
      setups.set(context.task, setup);
      return setup;
    });
  },
  { requiresModel: true, description: "τ²'s user_simulator: a model plays the customer from the task's scenario (needs --user-llm)" },
);

/** Registers τ²'s model-driven participants in a run's (or server's) registries. */
export function registerModelTau2Participants(agents: Registry<Tau2ParticipantFactory>, users: Registry<Tau2ParticipantFactory>): void {
  agents.register("llm_agent", llmAgent);
  agents.register("llm_agent_gt", llmAgentGt);
  agents.register("llm_agent_solo", llmAgentSolo);
  users.register("user_simulator", userSimulator);
  users.register(
    "dummy_user",
    Object.assign(() => tau2DummyUser, { description: "τ²'s dummy_user: the silent user of solo mode" }),
  );
}
