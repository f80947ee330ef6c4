import type { Participant } from "../../../core/contracts.ts";
import { STOP_TOKEN, type Task } from "../../../core/types.ts";
import { simulatedUser, type UserSimulator } from "./simulated-user.ts";

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

/** `--user-strategy scripted` as a participant (each episode gets a fresh {@link ScriptedUser}). */
export const scriptedUser: Participant<Task> = simulatedUser("scripted", () => new ScriptedUser());
