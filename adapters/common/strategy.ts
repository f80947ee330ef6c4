import type { ConfigError } from "../../src/core/errors.ts";
import type { AgentFactory, BuildContext } from "../../src/runner/strategies.ts";
import { FrameworkAgent, type FrameworkAdapter } from "./driver.ts";
import { adapterSettings } from "./settings.ts";

/**
 * An agent strategy for a framework adapter. `create` validates the options, installs the
 * framework's load-time hooks, imports the user's module and checks its export before any episode
 * starts, so a bad module path or export fails the run up front with a {@link ConfigError}.
 */
export function adapterStrategy<A>(adapter: FrameworkAdapter<A>, description: string): AgentFactory {
  return {
    description,
    requiresModel: false,
    async create(context: BuildContext) {
      const agent = new FrameworkAgent(adapter, adapterSettings(context, adapter.name, adapter.agentOptions));
      await agent.validate();
      return agent;
    },
  };
}
