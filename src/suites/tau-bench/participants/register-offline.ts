import { OracleAgent } from "./oracle-agent.ts";
import { ScriptedUser } from "./scripted-user.ts";
import { agentStrategies, userStrategies } from "../../../run/strategies.ts";

/** Registers the strategies that need no model. Idempotent. */
export function registerOfflineStrategies(): void {
  if (!agentStrategies.has("oracle")) {
    agentStrategies.register("oracle", {
      description: "replays the task's ground-truth actions, then says its required outputs (no model)",
      requiresModel: false,
      create: ({ domain }) => new OracleAgent(domain),
    });
  }
  if (!userStrategies.has("scripted")) {
    userStrategies.register("scripted", {
      description: "says the instruction, then ###STOP### once the agent has answered (no model)",
      requiresModel: false,
      create: () => new ScriptedUser(),
    });
  }
}
