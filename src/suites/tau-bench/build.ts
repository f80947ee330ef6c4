/**
 * τ-bench's build step: validates a run's configuration and turns names (domain, split, agent and
 * user strategies, model clients) into objects, failing with one line before any episode starts.
 */
import { join, resolve } from "node:path";
import type { Participant } from "../../core/contracts.ts";
import { ConfigError } from "../../errors/error-tree.ts";
import type { Task } from "../../core/types.ts";
import { defaultDataRoot } from "./data-root.ts";
import type { RunModels } from "../../core/strategies.ts";
import { checkOutputPath } from "../../run/atomic-file.ts";
import { checkRunSize } from "../../run/run-flags.ts";
import type { Registries } from "../../run/registries.ts";
import { runSecrets } from "../../secrets/redact.ts";
import { parseRunConfig, type RunConfig, type RunConfigInput } from "./run-config.ts";
import type { AgentFactory, BuildContext, UserFactory } from "../../core/strategies.ts";
import { loadDomain, type LoadedDomain } from "./engine/domain.ts";
import { originalPromptsOf } from "./participants/original-prompts.ts";
import { tauBenchAgent, tauBenchParts } from "./parts.ts";
import { selectTaskIndices } from "./tasks.ts";

/** A run with every name resolved into an object. */
export interface BuiltRun {
  config: RunConfig;
  domain: LoadedDomain;
  split: string;
  /** The file the tasks came from (the split's file, or `--task-file`): its content is part of the run's identity. */
  taskFilePath: string;
  tasks: Task[];
  taskIndices: number[];
  agentFactory: AgentFactory;
  userFactory: UserFactory;
  /** The run's user (each episode starts its own session). */
  user: Participant<Task>;
  context: BuildContext<LoadedDomain>;
  /** What the run knows to be secret (keys from the environment, credentials in its settings): never written (`src/secrets`). */
  secrets: readonly string[];
}

/**
 * The build step: validates the configuration and turns names (domain, split, strategies) into
 * objects, failing with a one-line {@link ConfigError} before any episode or model call starts.
 * The names resolve in the run's `registries` (τ-bench's parts and the shared strategies), which
 * keeps this layer free of any domain or adapter import.
 */
export function buildRun(input: RunConfigInput, overrides: { registries: Registries; models?: RunModels; warn?: (message: string) => void }): BuiltRun {
  const config = parseRunConfig(input);
  const { registries } = overrides;
  const parts = tauBenchParts(registries);
  const definition = parts.domains.get(config.env);
  const agentFactory = tauBenchAgent(registries, config.agentStrategy);
  const userFactory = parts.users.get(config.userStrategy);
  if (agentFactory.requiresModel && !config.model) throw new ConfigError(`--agent-strategy ${config.agentStrategy} needs --model`);
  if (userFactory.requiresModel && !config.userModel) throw new ConfigError(`--user-strategy ${config.userStrategy} needs --user-model`);
  checkOutputPath(config.logDir, "--log-dir", "folder");
  const dataRoot = config.dataDir ?? defaultDataRoot(definition);
  const domain = loadDomain(definition, dataRoot);
  const split = config.taskSplit ?? definition.defaultSplit;
  const tasks = config.taskFile ? domain.tasksFromFile(config.taskFile) : domain.tasks(split);
  const source = config.taskFile ? `task file ${config.taskFile}` : `the ${split} split of ${config.env}`;
  const taskIndices = selectTaskIndices(tasks.length, { taskIds: config.taskIds, startIndex: config.startIndex, endIndex: config.endIndex }, source);
  checkRunSize(taskIndices.length, config.numTrials);
  // `overrides.models` lets tests plug in in-process model doubles (`taubridge/testing`).
  const context = {
    config,
    domain,
    models: overrides.models ?? registries.createModels?.({ ...config, ...(overrides.warn ? { warn: overrides.warn } : {}) }) ?? noModelLayer(),
    originalPrompts: originalPromptsOf(domain),
  };
  // The user validates its own options (prompt files, models) as it is created: a bad option fails
  // the build in one line instead of every episode.
  const user = userFactory.create(context);
  const taskFilePath = config.taskFile ? resolve(config.taskFile) : join(domain.dataDirectory, definition.splits[split] ?? "");
  const secrets = runSecrets(config);
  return { config, domain, split: config.taskFile ? "file" : split, taskFilePath, tasks, taskIndices, agentFactory, userFactory, user, context, secrets };
}

/** The model clients of a run whose registries bring no model layer: asking for one is a config error. */
function noModelLayer(): RunModels {
  const fail = (): never => {
    throw new ConfigError("this run's registries have no model clients (createModels); use the bundled registries or pass `models` to buildRun");
  };
  return { agent: fail, user: fail };
}
