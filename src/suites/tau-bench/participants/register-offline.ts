import { ConfigError } from "../../../errors/error-tree.ts";
import { LoadedDomain } from "../engine/domain.ts";
import { OracleAgent } from "./oracle-agent.ts";
import { scriptedUser } from "./scripted-user.ts";
import type { Registry } from "../../../core/registry.ts";
import type { AgentFactory, UserFactory } from "../../../core/strategies.ts";

/** Registers τ-bench's participants that need no model: the oracle agent and the scripted user. */
export function registerOfflineParticipants(agents: Registry<AgentFactory>, users: Registry<UserFactory>): void {
  agents.register("oracle", {
    description: "replays the task's ground-truth actions, then says its required outputs (no model)",
    requiresModel: false,
    create: ({ domain }) => {
      if (!(domain instanceof LoadedDomain)) throw new ConfigError(`the oracle agent replays τ-bench ground truth; ${domain.name} is not a τ-bench domain`);
      return new OracleAgent(domain);
    },
  });
  users.register("scripted", {
    description: "says the instruction, then ###STOP### once the agent has answered (no model)",
    requiresModel: false,
    create: () => scriptedUser,
  });
}
