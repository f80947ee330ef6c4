/**
 * The command line: one `run` for both suites (and `tau2 run`, the same with τ²'s names), one
 * `report` / `rescore` / `replay` for every results file, `strategies`, `data` and `testing`.
 *
 * Start-up: this module imports only commander, the flag table and the small command modules;
 * every action imports what it runs when it runs, and the registries (suites, domains, strategies,
 * adapters) are created by the caller's `loadRegistries` only for the commands that resolve names.
 * `taubridge --version` therefore loads almost nothing.
 */
import { Command } from "commander";
import { taubridgeVersion } from "../run/run-identity.ts";
import { fileSystemProblem } from "../errors/error-tree.ts";
import { environmentSecrets, redactText, secretsIn } from "../secrets/redact.ts";
import { EXIT_CODES, exitCodeForCommander, exitCodeForError, exitCodesHelp } from "./exit-codes.ts";
import { registerCliExtensions } from "./extensions.ts";
import type { LoadRegistries } from "./registry-needs.ts";
import { registerResultsCommands } from "./results-commands.ts";
import { registerRunCommands } from "./run-command.ts";
import { registerServeCommand } from "./serve-command.ts";
import { oneLineUsageErrors } from "./usage.ts";

export type { LoadRegistries, RegistryNeeds } from "./registry-needs.ts";

/**
 * Builds the command tree. `loadRegistries` supplies the suites and strategies (the app's bundled
 * set, created per command); it is called only by commands that resolve names. Exported for tests,
 * which run commands in-process.
 */
export function createProgram(loadRegistries: LoadRegistries): Command {
  const program = new Command("taubridge")
    .description("Evaluate conversational tool-using agents the τ-bench and τ²-bench way: a simulated user, domain tools over an in-memory database, a scored end state.")
    .version(taubridgeVersion())
    .addHelpText("after", exitCodesHelp())
    // Usage errors reach `main` (subcommands inherit this), which exits 2 for them like other config errors.
    .exitOverride();
  registerRunCommands(program, loadRegistries);
  registerResultsCommands(program, loadRegistries);
  registerCliExtensions(program);
  registerServeCommand(program, loadRegistries);
  oneLineUsageErrors(program);
  return program;
}

/**
 * Runs the CLI with the registries `loadRegistries` supplies, with the exit codes of
 * {@link EXIT_CODES}: config, usage and data errors exit 2 with one line; a run left with infra
 * errors exits 3; interrupted 130; anything else exits 1.
 */
export async function main(loadRegistries: LoadRegistries, argv: string[] = process.argv): Promise<void> {
  // `taubridge records x.json | head`: the reader went away; stop quietly, as Unix tools do.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
  // A promise an agent rejected and nobody awaited must not turn a finished run into a stack trace.
  // What the command line and the environment hold that is secret: never printed (`src/secrets`).
  const secrets = [...environmentSecrets(process.env), ...secretsIn(argv)];
  process.on("unhandledRejection", (reason) => {
    const message = redactText(reason instanceof Error ? reason.message : String(reason), secrets);
    process.stderr.write(`[taubridge] warning: a promise was rejected and never handled (most likely in agent code): ${message.split("\n")[0]}\n`);
  });
  const program = createProgram(loadRegistries);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    const commanderCode = exitCodeForCommander(error);
    if (commanderCode !== undefined) {
      process.exitCode = commanderCode; // commander has printed the message (or the help) already
      return;
    }
    const code = exitCodeForError(error);
    if (code === EXIT_CODES.config) process.stderr.write(`taubridge: ${redactText(fileSystemProblem(error) ?? (error as Error).message, secrets)}\n`);
    else process.stderr.write(`taubridge: ${redactText(error instanceof Error ? ((process.env.TAUBRIDGE_DEBUG ? error.stack : error.message) ?? "") : String(error), secrets)}\n`);
    process.exitCode = code;
  }
}
