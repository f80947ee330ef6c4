import type { ToolImplementation } from "../../src/engine/tool.ts";

/** `think(thought)`: lets the agent write down reasoning; changes nothing and returns an empty string. */
export const thinkTool: ToolImplementation = {
  name: "think",
  className: "Think",
  parameters: ["thought"],
  kind: "think",
  invoke: () => "",
};

/** `transfer_to_human_agents(summary)`: the terminate tool of both τ-bench domains. */
export const transferToHumanAgentsTool: ToolImplementation = {
  name: "transfer_to_human_agents",
  className: "TransferToHumanAgents",
  parameters: ["summary"],
  kind: "generic",
  invoke: () => "Transfer successful",
};
