import type { Command } from "commander";
import { registerDataCommand } from "./data-command.ts";
import { registerTestingCommand } from "./testing-command.ts";

/**
 * Adds the command groups that live in their own modules (data acquisition, the scripted model
 * server), so `main.ts` stays a thin table of commands.
 */
export function registerCliExtensions(program: Command): void {
  registerDataCommand(program);
  registerTestingCommand(program);
}
