/**
 * What each side of a τ² episode sees of its domain, as the participant contract's `DomainView`:
 * the agent's policy (the solo one in solo mode) and tools, or the user's tools. Tool names come
 * from the domain's toolkits; the schemas a model sees are extracted from τ²'s sources only when a
 * participant first asks for them, so offline runs never parse Python.
 */
import type { DomainView } from "../../core/contracts.ts";
import { pyJsonDumpsLine, type PyValue } from "../../value/index.ts";
import type { LoadedTau2Domain } from "./engine/domain.ts";
import { extractTau2Tools } from "./engine/extract/index.ts";
import { toolsOf } from "./engine/toolkit.ts";

/** One side's view; the schemas are read on first use. */
function view(name: string, policy: string, toolNames: readonly string[], schemas: () => readonly Record<string, unknown>[]): DomainView {
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

/** The agent's and the user's views of a loaded τ² domain. */
export function tau2DomainViews(domain: LoadedTau2Domain): { agent: (solo: boolean) => DomainView; user: () => DomainView } {
  const { definition, dataRoot } = domain;
  const agentTools = toolsOf(definition.agentToolkit).map((tool) => tool.name);
  const userTools = definition.userToolkit ? toolsOf(definition.userToolkit).map((tool) => tool.name) : [];
  const schemas = (side: "agent" | "user") => () => {
    const extraction = extractTau2Tools(dataRoot, definition.name);
    return (side === "agent" ? extraction.agent.schemas : (extraction.user?.schemas ?? [])) as unknown as Record<string, unknown>[];
  };
  const views = new Map<boolean, DomainView>();
  const user = view(definition.name, "", userTools, schemas("user"));
  return {
    agent: (solo) => {
      let agent = views.get(solo);
      if (!agent) {
        agent = view(definition.name, domain.policy(solo), agentTools, schemas("agent"));
        views.set(solo, agent);
      }
      return agent;
    },
    user: () => user,
  };
}
