/**
 * The two trivial tools τ-bench's retail and airline domains share: `think` and
 * `transfer_to_human_agents`. They never touch the database; they exist so the model can take a
 * note or hand over, and the environment reacts to the name (`transfer_to_human_agents` is the
 * terminating tool, see `Env.terminate_tools`), not to anything these return.
 */
import type { EpisodeDatabase } from "../../src/suites/tau-bench/engine/database.ts";
import type { ToolImplementation } from "../../src/suites/tau-bench/engine/tool.ts";
import type { PyValue } from "../../src/value/index.ts";

/**
 * `think(thought)` → `""`. The thought is not stored or checked (Python does not type-check it
 * either), so the observation is always the empty string.
 */
export const thinkTool: ToolImplementation = {
  name: "think",
  className: "Think",
  parameters: ["thought"],
  kind: "think",
  invoke(_db: EpisodeDatabase, _args: Readonly<Record<string, PyValue>>): string {
    return "";
  },
};

/**
 * `transfer_to_human_agents(summary)` → `Transfer successful`. Ending the episode is the
 * environment's job (it lists this tool name as terminating); the tool itself only answers.
 */
export const transferToHumanAgentsTool: ToolImplementation = {
  name: "transfer_to_human_agents",
  className: "TransferToHumanAgents",
  parameters: ["summary"],
  kind: "generic",
  invoke(_db: EpisodeDatabase, _args: Readonly<Record<string, PyValue>>): string {
    return "Transfer successful";
  },
};
