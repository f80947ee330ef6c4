/**
 * A person plays the user in the terminal (`--user-strategy human`; τ-bench:
 * tau_bench/envs/user.py, HumanUserSimulationEnv): they see the task instruction and the agent's
 * messages, and type the customer's replies. `###STOP###` ends the conversation, as with the
 * simulators.
 */
import type { RoleUsage } from "../../../core/types.ts";
import { STOP_TOKEN } from "../../../core/types.ts";
import type { UserSimulator } from "./simulated-user.ts";
import { processTerminal, type TerminalIO } from "../../../participants/human-agent.ts";
import { UserSimulatorError } from "./llm-user.ts";

/**
 * The human user: `reset` shows the instruction and reads one line, `step` shows the agent's
 * message and reads one line. No model, so `user_cost` is 0 and usage null. End of input is a
 * user error. Use `--max-concurrency 1`: concurrent episodes would share one keyboard.
 */
export class HumanUser implements UserSimulator {
  constructor(private readonly io: TerminalIO = processTerminal()) {}

  private async read(): Promise<string> {
    this.io.output.write("user> ");
    const line = await this.io.reader.next();
    if (line === null) throw new UserSimulatorError("the human user's input ended before the episode was done");
    return line;
  }

  async reset(instruction: string): Promise<string> {
    this.io.output.write(`\n=== you are the user (type ${STOP_TOKEN} to end the conversation) ===\n${instruction}\n`);
    return this.read();
  }

  async step(content: string): Promise<string> {
    this.io.output.write(`agent: ${content}\n`);
    return this.read();
  }

  reportedCost(): number | null {
    return 0;
  }

  usage(): RoleUsage | null {
    return null;
  }
}
