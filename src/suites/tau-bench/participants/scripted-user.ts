import { STOP_TOKEN } from "../../../core/types.ts";
import type { UserSimulator } from "../../../core/contracts.ts";

/**
 * A deterministic user for offline runs: it says the task instruction, then `###STOP###` as soon as
 * the agent has answered. With the oracle agent it makes the whole loop reproducible without a model.
 */
export class ScriptedUser implements UserSimulator {
  async reset(instruction: string): Promise<string> {
    return instruction;
  }

  async step(): Promise<string> {
    return STOP_TOKEN;
  }

  reportedCost(): number | null {
    return 0;
  }
}
