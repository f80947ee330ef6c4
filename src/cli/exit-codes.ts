import { ConfigError, DataError, fileSystemProblem } from "../errors/error-tree.ts";

/**
 * The CLI's exit codes, one table so the code, `--help` and the README agree. Scripts and CI
 * branch on them: 2 means "fix the command or the data", 3 means "the infrastructure failed; run
 * the same command again to retry those episodes", and neither is confused with a crash (1).
 */
export const EXIT_CODES = {
  /** Finished; every episode was scored (whatever the rewards). */
  ok: 0,
  /** Unexpected error: a bug (`TAUBRIDGE_DEBUG=1` prints the stack). */
  unexpected: 1,
  /** Configuration, usage or data error, or a file the run cannot write; one line on stderr. */
  config: 2,
  /** The run finished but episodes still ended in `infra_error` (left out of pass^k; rerun to retry them). */
  infraErrors: 3,
  /** A quality gate failed: `compare --fail-if-worse` found the candidate worse beyond the noise, or a `--min-pass` threshold was missed. */
  gate: 4,
  /** Interrupted (Ctrl-C, SIGTERM); rerun the same command to resume. */
  interrupted: 130,
} as const;

/** The rows of the exit-code table, for `--help`. */
const EXIT_CODE_ROWS: ReadonlyArray<readonly [number, string]> = [
  [EXIT_CODES.ok, "finished; every episode scored (whatever the rewards)"],
  [EXIT_CODES.unexpected, "unexpected error, a bug (TAUBRIDGE_DEBUG=1 prints the stack)"],
  [EXIT_CODES.config, "configuration, usage or data error, or an output the run cannot write (one line on stderr)"],
  [EXIT_CODES.infraErrors, "run finished with episodes still in infra_error (rerun the same command to retry them)"],
  [EXIT_CODES.gate, "a quality gate failed: compare --fail-if-worse (worse beyond the noise) or --min-pass"],
  [EXIT_CODES.interrupted, "interrupted (Ctrl-C/SIGTERM); rerun the same command to resume"],
];

/** The `Exit codes:` epilog of `taubridge --help`. */
export function exitCodesHelp(): string {
  return `\nExit codes:\n${EXIT_CODE_ROWS.map(([code, text]) => `  ${String(code).padEnd(4)}${text}`).join("\n")}\n`;
}

/** The exit code of an error that escaped a command: config and data errors are 2, anything else 1. */
export function exitCodeForError(error: unknown): number {
  return ConfigError.isInstance(error) || DataError.isInstance(error) || fileSystemProblem(error) !== undefined ? EXIT_CODES.config : EXIT_CODES.unexpected;
}

/**
 * The exit code for commander's own exits (usage errors it already printed, `--help`, `--version`):
 * 0 stays 0, a usage error is a configuration error. Undefined when `error` is not commander's.
 */
export function exitCodeForCommander(error: unknown): number | undefined {
  const record = error as { code?: unknown; exitCode?: unknown } | null;
  if (!record || typeof record.code !== "string" || !record.code.startsWith("commander.") || typeof record.exitCode !== "number") return undefined;
  return record.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.config;
}
