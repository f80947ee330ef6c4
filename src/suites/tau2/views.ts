/**
 * What each side of a τ² episode sees of its domain, as the participant contract's `DomainView`:
 * the agent's policy (the solo one in solo mode) and tools, or the user's tools. Tool names come
 * from the domain's toolkits; the schemas a model sees are extracted from τ²'s sources only when a
 * participant first asks for them, so offline runs never parse Python. A configured domain (τ³
 * banking) takes its agent toolkit and schemas from its retrieval variant, may give each task its
 * own policy (golden_retrieval), and gives the user only the task's `user_tools` (τ²'s runner:
 * `env.get_user_tools(include=task.user_tools) or None`).
 */
import type { DomainView } from "../../core/contracts.ts";
import { pyJsonDumpsLine, type PyValue } from "../../value/index.ts";
import type { LoadedTau2Domain } from "./engine/domain.ts";
import { extractTau2ToolkitClasses, extractTau2Tools, type Tau2ToolsExtraction } from "./engine/extract/index.ts";
import { toolsOf } from "./engine/toolkit.ts";
import type { Tau2Task } from "./tasks.ts";

type Schema = Record<string, unknown>;

/** One side's view; the schemas are read on first use. */
function view(name: string, policy: string, toolNames: readonly string[], schemas: () => readonly Schema[]): DomainView {
  let cached: DomainView["toolSchemas"] | undefined;
  return {
    name,
    policy,
    toolNames,
    get toolSchemas() {
      if (!cached) {
        const json = schemas();
        cached = { json, pythonJson: pyJsonDumpsLine(json as unknown as PyValue) };
      }
      return cached;
    },
  };
}

/** The schemas of the domain's (or its configured variant's) toolkits, as the model sees them. */
export function tau2DomainTools(domain: LoadedTau2Domain): Tau2ToolsExtraction {
  const sources = domain.setup?.toolSources;
  return sources ? extractTau2ToolkitClasses(domain.dataRoot, domain.definition.name, sources.agent, sources.user) : extractTau2Tools(domain.dataRoot, domain.definition.name);
}

/** The agent's and the user's views of a loaded τ² domain (per task where the domain makes them differ). */
export function tau2DomainViews(domain: LoadedTau2Domain): { agent: (solo: boolean, task?: Tau2Task) => DomainView; user: (task?: Tau2Task) => DomainView } {
  const { definition } = domain;
  const agentToolkit = domain.setup?.agentToolkit ?? definition.agentToolkit;
  const agentTools = toolsOf(agentToolkit).map((tool) => tool.name);
  const userTools = definition.userToolkit ? toolsOf(definition.userToolkit).map((tool) => tool.name) : [];
  const schemas = (side: "agent" | "user", include?: ReadonlySet<string>) => () => {
    const all = (side === "agent" ? tau2DomainTools(domain).agent.schemas : (tau2DomainTools(domain).user?.schemas ?? [])) as unknown as Schema[];
    return include ? all.filter((schema) => include.has((schema as { function: { name: string } }).function.name)) : all;
  };
  const agentViews = new Map<string, DomainView>();
  const userViews = new Map<string, DomainView>();
  return {
    agent: (solo, task) => {
      const policy = domain.policy(solo, task);
      const key = `${solo}\0${policy}`;
      let agent = agentViews.get(key);
      if (!agent) agentViews.set(key, (agent = view(definition.name, policy, agentTools, schemas("agent"))));
      return agent;
    },
    user: (task) => {
      const include = domain.setup && task?.user_tools ? new Set(task.user_tools) : undefined;
      const key = include ? [...include].sort().join("\0") : "\0all";
      let user = userViews.get(key);
      if (!user) userViews.set(key, (user = view(definition.name, "", include ? userTools.filter((name) => include.has(name)) : userTools, schemas("user", include))));
      return user;
    },
  };
}
