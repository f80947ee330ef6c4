/**
 * How a run's results are named and kept, for both suites: the default name says which run it is
 * (so the same command again finds and resumes it) and which agent ran (two agents' runs with the
 * same flags never share a file), and `--no-resume` sets another run's results aside instead of
 * overwriting them without a word.
 */
import { existsSync, renameSync } from "node:fs";
import { basename, dirname, extname, resolve } from "node:path";
import { identityChanges, type RunIdentity } from "./run-identity.ts";

/** A name part safe in a file name on every system. */
function safe(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, "_");
}

/**
 * A file or folder the agent options name, as `<its folder's name>.<its name>` without extension
 * (`my-project.agent` for `./my-project/agent.ts`): readable, the same on every machine and checkout,
 * and apart for agents in different projects. Two modules that still share it (same folder and file
 * names elsewhere) differ in content, so the run identity refuses to mix them (never silently).
 */
function pathTag(path: string): string {
  const absolute = resolve(path);
  const name = basename(absolute, extname(absolute)) || "agent";
  const folder = basename(dirname(absolute));
  return safe(folder ? `${folder}.${name}` : name);
}

/**
 * What names the agent beyond its strategy, from its options: the module (`--agent-module`), the
 * export picked in it, a FastWorkflow workflow or a Python entry. Undefined for strategies that
 * name no code of the user's (the oracle, the model strategies).
 */
export function agentNameTag(agentOptions: Readonly<Record<string, unknown>>): string | undefined {
  const parts: string[] = [];
  const text = (key: string) => (typeof agentOptions[key] === "string" && agentOptions[key] !== "" ? (agentOptions[key] as string) : undefined);
  const module = text("module");
  if (module) parts.push(pathTag(module));
  const exportName = text("export");
  if (exportName) parts.push(safe(exportName));
  const workflow = text("workflowPath");
  if (workflow) parts.push(pathTag(workflow));
  const entry = text("entry");
  if (entry) parts.push(safe(entry.replace(":", ".")));
  return parts.length > 0 ? parts.join("+") : undefined;
}

/** The strategy with what names its agent: `module+function-agent.renewal-agent`, or the strategy alone. */
export function agentName(strategy: string, agentOptions: Readonly<Record<string, unknown>>): string {
  const tag = agentNameTag(agentOptions);
  return tag ? `${strategy}+${tag}` : strategy;
}

/** The files a run's results consist of: the results file first, then its checkpoint and status. */
export interface StoredRunFiles {
  results: string;
  others: readonly string[];
}

/**
 * `--no-resume` over results that belong to another run (another identity, or one this taubridge
 * did not record): the files are renamed to `<file>.replaced-<time>` (which `report x/*.json`
 * does not match), and one warning line says what changed and where they went. Results of the same
 * run are left to be started over, as `--no-resume` asks.
 */
export function setAsideOtherRun(files: StoredRunFiles, recorded: unknown, identity: RunIdentity, warn: (message: string) => void): void {
  const present = [files.results, ...files.others].filter((path) => existsSync(path));
  if (present.length === 0) return;
  const changed = recorded === undefined ? ["no run identity recorded (another tool's or an older file)"] : identityChanges(recorded, identity).changed;
  if (changed.length === 0) return;
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  for (const path of present) renameSync(path, `${path}.replaced-${stamp}`);
  warn(
    `--no-resume: ${files.results} held the results of another run (changed: ${changed.join(", ")}); moved ${present.length === 1 ? "it" : "them"} to ${files.results}.replaced-${stamp}${present.length > 1 ? " (and its checkpoint and status alike)" : ""} rather than overwrite them`,
  );
}
