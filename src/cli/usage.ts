/**
 * Commander set-up shared by the commands: one-line usage errors (exit 2 like every other
 * configuration error), `--format` choices, and collecting repeated values.
 */
import { type Command, Option } from "commander";

/** `--format` with its allowed values: commander refuses anything else (exit 2) instead of falling back silently. */
export function formatOption(choices: string[], fallback: string): Option {
  return new Option("--format <format>", `output: ${choices.join(", ")}`).choices(choices).default(fallback);
}

/**
 * Makes commander's usage errors (unknown option, missing argument, invalid choice, unknown
 * command) one line like every other configuration error: `taubridge: unknown option '--nope'
 * (did you mean --num-trials?); see taubridge run --help`. Exit code 2 comes from `main`.
 */
export function oneLineUsageErrors(command: Command): void {
  const names: string[] = [];
  for (let current: Command | null = command; current; current = current.parent) names.unshift(current.name());
  command.showHelpAfterError(false);
  command.configureOutput({
    outputError: (text, write) => {
      const line = text
        .replace(/^error: /, "")
        .replace(/\n\(Did you mean (.+)\?\)/, " (did you mean $1?)")
        .replace(/\s*\n\s*/g, " ")
        .trim()
        .replace(/\.$/, "");
      write(`taubridge: ${line}; see ${names.join(" ")} --help\n`);
    },
  });
  for (const subcommand of command.commands) oneLineUsageErrors(subcommand);
}

/** Collects repeated and variadic values as the raw strings; the flag table parses them. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Writes a value as indented JSON on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
