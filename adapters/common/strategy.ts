import type { ConfigError } from "../../src/errors/error-tree.ts";
import type { AgentFactory, BuildContext } from "../../src/core/strategies.ts";
import { FrameworkAgent, type FrameworkAdapter } from "./driver.ts";
import { defaultEndpointNotice } from "./endpoint.ts";
import { adapterSettings } from "./settings.ts";

/**
 * An agent strategy for a framework adapter. `create` validates the options, installs the
 * framework's load-time hooks, imports the user's module and checks its export before any episode
 * starts, so a bad module path or export fails the run up front with a {@link ConfigError}. Without
 * `--base-url` it tells the run (its warning channel) which endpoint the framework will use.
 */
export function adapterStrategy<A>(adapter: FrameworkAdapter<A>, description: string): AgentFactory {
  return {
    description,
    requiresModel: false,
    async create(context: BuildContext) {
      const settings = adapterSettings(context, adapter.name, adapter.agentOptions);
      const agent = new FrameworkAgent(adapter, settings);
      await agent.validate();
      if (!settings.baseURL) context.warn?.(defaultEndpointNotice(adapter));
      return agent;
    },
  };
}
