import { ConfigError } from "../../../core/errors.ts";
import { LoadedDomain } from "../engine/domain.ts";
import { OracleAgent } from "./oracle-agent.ts";
import { scriptedUser } from "./scripted-user.ts";
import { agentStrategies, userStrategies } from "../../../run/strategies.ts";

/** Registers the strategies that need no model. Idempotent. */
export function registerOfflineStrategies(): void {
  if (!agentStrategies.has("oracle")) {
    agentStrategies.register("oracle", {
      description: "replays the task's ground-truth actions, then says its required outputs (no model)",
      requiresModel: false,
      create: ({ domain }) => {
        if (!(domain instanceof LoadedDomain)) throw new ConfigError(`the oracle agent replays τ-bench ground truth; ${domain.name} is not a τ-bench domain`);
        return new OracleAgent(domain);
      },
    });
  }
  if (!userStrategies.has("scripted")) {
    userStrategies.register("scripted", {
      description: "says the instruction, then ###STOP### once the agent has answered (no model)",
      requiresModel: false,
      create: () => scriptedUser,
    });
  }
}
