import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type Options } from "execa";

/** The CLI's TypeScript entry. */
export const CLI_SOURCE = join(import.meta.dirname, "..", "..", "app", "cli.ts");
/** The built CLI, as `npx taubridge` starts it. */
export const CLI_BUILD = join(import.meta.dirname, "..", "..", "bin", "taubridge.js");
/** tsx resolved from here, so a child started in any working directory (a temporary one) finds it. */
const TSX = import.meta.resolve("tsx");

/**
 * How the CLI is started: the build while it is current (`cli-build-setup.ts`, the suite's global
 * setup, decides once per run and says why when it cannot), else the sources through tsx.
 */
function cliEntry(): string[] {
  return process.env.TAUBRIDGE_TEST_CLI === "build" ? [CLI_BUILD] : ["--import", TSX, CLI_SOURCE];
}

/**
 * Runs `taubridge <args>` in a child process (the build when current, else the sources), never rejecting: tests
 * assert on the exit code and output. Each call gets its own empty `TAUBRIDGE_CACHE_DIR`, so no
 * test reads or fills the user's data cache. Returns the execa subprocess (awaitable, killable).
 */
export function runCli(args: readonly string[], options: { cwd?: string; env?: Record<string, string>; nodeArgs?: readonly string[]; input?: string; detached?: boolean } = {}) {
  const execaOptions = {
    reject: false,
    cwd: options.cwd,
    // Its own process group, so a test can signal the CLI and its children at once (as a terminal's Ctrl-C does).
    ...(options.detached ? { detached: true } : {}),
    ...(options.input !== undefined ? { input: options.input } : {}),
    env: { TAUBRIDGE_CACHE_DIR: mkdtempSync(join(tmpdir(), "taubridge-cache-")), ...options.env },
  } satisfies Options;
  return execa("node", [...(options.nodeArgs ?? []), ...cliEntry(), ...args], execaOptions);
}

/**
 * `taubridge tau2 run <args> --data-dir <data> --save-to <saveTo> --quiet` through {@link runCli}:
 * the form every τ² end-to-end test takes.
 */
export function runTau2(args: readonly string[], options: { data: string; saveTo: string; env?: Record<string, string> }) {
  return runCli(["tau2", "run", ...args, "--data-dir", options.data, "--save-to", options.saveTo, "--quiet"], { env: options.env });
}
