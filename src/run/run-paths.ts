/**
 * Every path a run is given is checked before the first episode, for both suites and both front
 * ends (the CLI and the API call this after parsing the settings): a file or folder the run reads
 * must be there and readable, a cache folder it was asked to keep must be usable. What cannot be
 * used is one `ConfigError` line naming the flag (exit 2), as `--log-dir` and `--save-to` are
 * (checked by the suites, which resolve where their results go). The derived cache, which nobody
 * asked for and which only makes a start faster, costs one warning line instead.
 */
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { derivedCacheDir } from "../data/derived-cache.ts";
import { ConfigError, fileErrorText } from "../errors/error-tree.ts";
import { checkOutputPath } from "./atomic-file.ts";
import { RUN_FLAGS, optionName, type RunFlag, type RunPathKind } from "./run-flags.ts";
import { agentOptionsOf, type RunSettings } from "./run-settings.ts";

/** Agent options that name a path (`--agent-option <name>=<path>`), for the adapters and FastWorkflow. */
const AGENT_OPTION_PATHS: Readonly<Record<string, RunPathKind>> = { module: "file", mapping: "file", workflowPath: "folder" };

/** Refuses a path the run reads when it is not there, not of its kind, or not readable. */
export function checkInputPath(path: string, flag: string, kind: "file" | "folder"): void {
  const target = resolve(path);
  if (!existsSync(target)) {
    let ancestor = dirname(target);
    while (!existsSync(ancestor) && dirname(ancestor) !== ancestor) ancestor = dirname(ancestor);
    if (existsSync(ancestor) && !statSync(ancestor).isDirectory()) throw new ConfigError(`${flag} ${path}: ${ancestor} is a file, not a folder`);
    throw new ConfigError(`${flag} ${path}: no such ${kind}`);
  }
  const isFolder = statSync(target).isDirectory();
  if (kind === "file" && isFolder) throw new ConfigError(`${flag} ${path}: is a folder, not a file`);
  if (kind === "folder" && !isFolder) throw new ConfigError(`${flag} ${path}: is a file, not a folder`);
  try {
    accessSync(target, constants.R_OK);
  } catch (error) {
    throw new ConfigError(`${flag} ${path}: cannot read it (${fileErrorText(error)})`, { cause: error });
  }
}

function checkPath(path: string, flag: string, kind: RunPathKind): void {
  if (kind === "cache-folder") checkOutputPath(path, flag, "folder");
  else checkInputPath(path, flag, kind);
}

/**
 * Checks the paths of a run's settings: each path flag of the flag table, and the paths among
 * the agent options (`module`, `mapping`, `workflowPath`, whichever flag gave them). `warn` gets
 * the one line for a derived cache that cannot be used.
 */
export function checkRunPaths(settings: RunSettings, warn?: (message: string) => void): void {
  const values = settings.values;
  for (const flag of RUN_FLAGS as readonly RunFlag[]) {
    const value = values[optionName(flag.flag)];
    if (!flag.path || typeof value !== "string" || value === "" || flag.flag === "--agent-module" || flag.flag === "--workflow-path") continue;
    checkPath(value, flag.flag, flag.path);
  }
  const agentOptions = agentOptionsOf(values);
  const shorthand: Record<string, string | undefined> = { module: values.agentModule as string | undefined, workflowPath: values.workflowPath as string | undefined };
  for (const [option, kind] of Object.entries(AGENT_OPTION_PATHS)) {
    const value = agentOptions[option];
    if (typeof value !== "string" || value === "") continue;
    const flag = shorthand[option] === value ? (option === "module" ? "--agent-module" : "--workflow-path") : `--agent-option ${option}`;
    checkPath(value, flag, kind);
  }
  if (warn) checkDerivedCache(warn);
}

/** One warning line when the derived cache's folder cannot be used (the run goes on, slower to start). */
export function checkDerivedCache(warn: (message: string) => void, env: Readonly<Record<string, string | undefined>> = process.env): void {
  const directory = derivedCacheDir(env);
  if (directory === null) return;
  try {
    checkOutputPath(directory, "the derived cache", "folder");
  } catch (error) {
    const reason = (error as Error).message.replace(/^the derived cache [^:]*: /, "");
    warn(`the derived cache ${directory} cannot be used (${reason}); runs start slower without it (TAUBRIDGE_DERIVED_CACHE_DIR=<folder> moves it, =off turns it off)`);
  }
}
