/**
 * τ-bench's run identity: what decides the outcome of its episodes (the configuration's options,
 * file paths replaced by their content; the split's task file; the domain's collections, policy
 * and tool schemas), compared by resume with the one the checkpoint recorded.
 */
import { join } from "node:path";
import { unpinnedDataWarning } from "../../data/pinned-files.ts";
import type { RunIdentity } from "../../run/run-identity.ts";
import { agentOptionFiles, identityOf, outcomeAgentOptions } from "../../run/run-identity.ts";
import type { LoadedDomain } from "./engine/domain.ts";
import type { RunConfig } from "./run-config.ts";

/**
 * Options that never change an episode's outcome: where files go, how many episodes run at once,
 * which `(task, trial)` pairs are selected (resume keeps the finished ones of any selection),
 * output format. Every other option is part of a run's identity, so a new flag is covered by default.
 */
const NOT_OUTCOME_FIELDS = new Set<keyof RunConfig>([
  "logDir",
  "resume",
  "quiet",
  "maxConcurrency",
  "numTrials",
  "taskIds",
  "startIndex",
  "endIndex",
  "shuffle",
  "dataDir",
  "cacheDir",
  "acceptChanges",
]);

/** Options whose value is a file: the file's content is part of the identity, not its path. */
const FILE_FIELDS = ["agentPromptFile", "userPromptFile", "fewShotDisplaysPath", "priceFile"] as const;

/**
 * τ-bench's identity parts: the run configuration's options (file paths replaced by their content),
 * the split's task file (or `--task-file`), the domain's collections, policy and tool schemas.
 */
export function runIdentity(config: RunConfig, domain: LoadedDomain, taskFile: string, secrets: readonly string[] = []): RunIdentity {
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config) as Array<[keyof RunConfig, unknown]>) {
    if (NOT_OUTCOME_FIELDS.has(key) || value === undefined) continue;
    if (key === "agentOptions") {
      options.agentOptions = outcomeAgentOptions(value as Record<string, unknown>);
    } else if (![...FILE_FIELDS, "taskFile"].includes(key)) options[key] = value;
  }
  const files: Record<string, string | undefined> = agentOptionFiles(config.agentOptions);
  for (const key of FILE_FIELDS) files[key] = config[key];
  return identityOf({ options, taskSet: taskFile, data: { directory: domain.dataDirectory, files: domainDataFiles(domain) }, files, secrets });
}

/** The domain's data files a run reads (collections, policy, tool schemas), by name in its folder. */
export function domainDataFiles(domain: LoadedDomain): string[] {
  const definition = domain.definition;
  return [...definition.collections.map((name) => `${name}.json`), definition.policyFile, definition.toolsInfoFile];
}

/** The warning line naming the run's data files (and task file) that differ from the pinned export; undefined when none does. */
export function runDataWarning(domain: LoadedDomain, taskFile: string): string | undefined {
  return unpinnedDataWarning([...domainDataFiles(domain).map((name) => join(domain.dataDirectory, name)), taskFile]);
}
