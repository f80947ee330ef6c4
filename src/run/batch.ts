import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import PQueue from "p-queue";
import { ConfigError } from "../core/errors.ts";
import type { Task } from "../core/types.ts";
import type { Participant } from "../core/contracts.ts";
import { loadDomain, type LoadedDomain } from "../suites/tau-bench/engine/domain.ts";
import { selectTaskIndices } from "../suites/tau-bench/tasks.ts";
import { computePassK, isInfraError, isSuccess, type PassKReport } from "../metrics/pass-k.ts";
import { CheckpointWriter, readCheckpoint, summaryFromResult, type CheckpointEntry, type EpisodeSummary } from "./checkpoint.ts";
import { runEpisode, type EpisodeResult } from "../suites/tau-bench/loop.ts";
import { evaluatorFor } from "../suites/tau-bench/evaluator-index.ts";
import { resultEntry, writeFileAtomic } from "../suites/tau-bench/codec.ts";
import { writeRunStatus } from "./run-status.ts";
import { pyJsonDumpsIndented } from "../value/index.ts";
import { parseRunConfig, runFileStem, type RunConfig, type RunConfigInput } from "./run-config.ts";
import { identityChanges, ResumeMismatchError, runIdentity } from "./run-identity.ts";
import type { AgentFactory, BuildContext, UserFactory } from "./strategies.ts";
import { defaultRegistries, type Registries } from "./registries.ts";
import { registerOfflineStrategies } from "../suites/tau-bench/participants/register-offline.ts";
import { defaultDataRoot } from "./data-root.ts";
import type { RunModels } from "./model-clients.ts";
import { originalPromptsOf } from "../suites/tau-bench/participants/original-prompts.ts";

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
  context: BuildContext;
}

/**
 * The build step: validates the configuration and turns names (domain, split, strategies) into
 * objects, failing with a one-line {@link ConfigError} before any episode or model call starts.
 * The names resolve in `registries` (default: the set the package entry installed; see
 * `registries.ts`), which keeps this layer free of any domain or adapter import.
 */
export function buildRun(input: RunConfigInput, overrides: { registries?: Registries; models?: RunModels } = {}): BuiltRun {
  registerOfflineStrategies();
  const config = parseRunConfig(input);
  const registries = overrides.registries ?? defaultRegistries();
  const { domains, agentStrategies, userStrategies } = registries;
  const definition = domains.get(config.env);
  const agentFactory = agentStrategies.get(config.agentStrategy);
  const userFactory = userStrategies.get(config.userStrategy);
  if (agentFactory.requiresModel && !config.model) throw new ConfigError(`--agent-strategy ${config.agentStrategy} needs --model`);
  if (userFactory.requiresModel && !config.userModel) throw new ConfigError(`--user-strategy ${config.userStrategy} needs --user-model`);
  const dataRoot = config.dataDir ?? defaultDataRoot(definition);
  const domain = loadDomain(definition, dataRoot);
  const split = config.taskSplit ?? definition.defaultSplit;
  const tasks = config.taskFile ? domain.tasksFromFile(config.taskFile) : domain.tasks(split);
  const taskIndices = selectTaskIndices(tasks.length, { taskIds: config.taskIds, startIndex: config.startIndex, endIndex: config.endIndex });
  if (taskIndices.length === 0) throw new ConfigError(`no tasks selected (the split has ${tasks.length} tasks; check --start-index/--end-index)`);
  // `overrides.models` lets tests plug in in-process model doubles (`taubridge/testing`).
  const context = { config, domain, models: overrides.models ?? registries.createModels?.(config) ?? noModelLayer(), originalPrompts: originalPromptsOf(domain) };
  // The user validates its own options (prompt files, models) as it is created: a bad option fails
  // the build in one line instead of every episode.
  const user = userFactory.create(context);
  const taskFilePath = config.taskFile ? resolve(config.taskFile) : join(domain.dataDirectory, definition.splits[split] ?? "");
  return { config, domain, split: config.taskFile ? "file" : split, taskFilePath, tasks, taskIndices, agentFactory, userFactory, user, context };
}

/** The model clients of a run whose registries bring no model layer: asking for one is a config error. */
function noModelLayer(): RunModels {
  const fail = (): never => {
    throw new ConfigError("this run's registries have no model clients (createModels); use the bundled registries or pass `models` to buildRun");
  };
  return { agent: fail, user: fail };
}

/** Progress callbacks the batch layer calls; the CLI renders them. */
export interface BatchObserver {
  /** `rerunInfraErrors`: episodes of the checkpoint that ended in `infra_error` and run again. */
  /** `resumed`: a checkpoint of this run was found and its finished episodes kept. */
  start?(info: { total: number; alreadyDone: number; checkpointPath: string; rerunInfraErrors?: number; resumed?: boolean }): void;
  episodeDone?(info: { result: EpisodeSummary; done: number; total: number; successes: number; cost: number | null }): void;
  /** The full result of each episode run now (not of resumed ones), after it is checkpointed. */
  episode?(result: EpisodeResult): void;
  warn?(message: string): void;
}

export interface BatchOutcome {
  config: RunConfig;
  resultsPath: string;
  checkpointPath: string;
  summaries: EpisodeSummary[];
  metrics: PassKReport;
  ranEpisodes: number;
  /** Finished episodes taken from the checkpoint (infra errors not included: they run again). */
  resumedEpisodes: number;
  /** Episodes of the checkpoint that had ended in `infra_error` and were run again. */
  rerunInfraErrors: number;
  /** Episodes the run was asked for (tasks × trials); `summaries` has fewer when it was interrupted. */
  expectedEpisodes: number;
  /** The signal aborted the run: the results file (and its `.meta.json`) say "partial". */
  interrupted: boolean;
}

function seededShuffle<T>(items: T[], seed: number): T[] {
  // mulberry32: small, deterministic; the original's Python `random` order is not reproducible anyway.
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other], copy[index]];
  }
  return copy;
}

/** The cost an episode adds to the run total: null when any role's calls were unpriced. */
function episodeCost(summary: EpisodeSummary): number | null {
  let total = 0;
  for (const usage of [summary.usage?.agent, summary.usage?.user]) {
    if (!usage) continue;
    if (usage.cost === null) return null;
    total += usage.cost;
  }
  return total;
}

/**
 * The batch layer: runs every `(task, trial)` with bounded concurrency, checkpoints each finished
 * episode, resumes from an earlier checkpoint of the same run (skipping finished pairs, except those
 * that ended in `infra_error`: they say nothing about the agent, so they run again, as in τ²-bench),
 * and writes the τ-bench-shaped results file atomically at the end, in (trial, task-list) order.
 */
export async function runBatch(built: BuiltRun, observer: BatchObserver = {}, signal?: AbortSignal): Promise<BatchOutcome> {
  const { config, domain, tasks, taskIndices } = built;
  const logDir = resolve(config.logDir);
  const stem = runFileStem(config, built.split);
  const resultsPath = join(logDir, `${stem}.json`);
  const checkpointPath = join(logDir, `${stem}.checkpoint.jsonl`);
  const identity = runIdentity(config, domain, built.taskFilePath);

  const previous = config.resume ? readCheckpoint(checkpointPath) : { header: null, entries: [], discardedLines: 0 };
  let rewriteHeader = previous.header === null;
  if (previous.header) {
    const { changed, unverified } = identityChanges(previous.header.identity, identity);
    if (changed.length > 0 && !config.acceptChanges) throw new ResumeMismatchError(checkpointPath, changed);
    if (changed.length > 0) {
      observer.warn?.(`resuming despite changes since the checkpoint (--accept-changes): ${changed.join(", ")}`);
      rewriteHeader = true;
    } else if (unverified) {
      observer.warn?.("the checkpoint was written by an older taubridge that recorded only options: the task set, data and agent files could not be compared");
    }
  }
  if (previous.discardedLines > 0) observer.warn?.(`discarded ${previous.discardedLines} torn checkpoint line(s); those episodes run again`);

  const wanted = new Set<string>();
  for (let trial = 0; trial < config.numTrials; trial++) for (const index of taskIndices) wanted.add(`${index}:${trial}`);
  const completed = new Map<string, CheckpointEntry>();
  // Infra errors stay in `completed` until their re-run finishes, so an interrupted run still reports them.
  const rerun = new Set<string>();
  for (const entry of previous.entries) {
    const key = `${entry.summary.taskId}:${entry.summary.trial}`;
    if (!wanted.has(key)) continue;
    completed.set(key, entry);
    if (isInfraError(entry.summary)) rerun.add(key);
  }
  const resumedEpisodes = completed.size - rerun.size;

  // The agent is created before the checkpoint is touched: a run that fails at configuration time
  // (a missing module, a bad export) leaves no checkpoint behind.
  // One evaluator for the run (its ground-truth cache lives on the domain, shared by every episode).
  const evaluator = evaluatorFor(domain);
  const agent: Participant<Task> = await built.agentFactory.create({ ...built.context, warn: (message) => observer.warn?.(message) });
  const checkpoint = new CheckpointWriter(checkpointPath);
  checkpoint.open({ identity, stem }, rewriteHeader);
  // An accepted change gets the new identity in a fresh header; the kept episodes are written back under it.
  if (rewriteHeader && previous.header) for (const entry of previous.entries) checkpoint.append(entry.entry);
  const total = wanted.size;
  let done = resumedEpisodes;
  let successes = 0;
  let runCost: number | null = 0; // null once any episode's cost is unknown (running total, not re-summed)
  const addToTotals = (summary: EpisodeSummary) => {
    if (isSuccess(summary.reward)) successes++;
    const cost = episodeCost(summary);
    runCost = runCost === null || cost === null ? null : runCost + cost;
  };
  for (const [key, entry] of completed) if (!rerun.has(key)) addToTotals(entry.summary);
  observer.start?.({ total, alreadyDone: done, checkpointPath, rerunInfraErrors: rerun.size, resumed: previous.header !== null });

  const queue = new PQueue({ concurrency: config.maxConcurrency });
  // A model endpoint that refused the run's first call: every episode would fail the same way, so stop.
  const unreachable = () => built.context.models.unreachable?.();
  let ranEpisodes = 0;
  try {
    for (let trial = 0; trial < config.numTrials; trial++) {
      const order = config.shuffle ? seededShuffle(taskIndices, config.seed + trial) : taskIndices;
      for (const taskIndex of order) {
        const key = `${taskIndex}:${trial}`;
        if (completed.has(key) && !rerun.has(key)) continue;
        void queue.add(async () => {
          if (signal?.aborted || unreachable()) return;
          let result: EpisodeResult | undefined;
          for (let attempt = 0; attempt <= config.episodeRetries; attempt++) {
            result = await runEpisode({
              domain,
              task: tasks[taskIndex],
              taskIndex,
              trial,
              agent,
              user: built.user,
              evaluator,
              maxSteps: config.maxSteps,
              timeoutMs: config.episodeTimeoutMs,
              signal,
            });
            if (result.termination !== "infra_error" || signal?.aborted || unreachable()) break;
          }
          if (!result || signal?.aborted || (unreachable() && result.termination === "infra_error")) return;
          const entry = resultEntry(result);
          checkpoint.append(entry);
          const summary = summaryFromResult(result);
          completed.set(key, { entry, summary });
          ranEpisodes++;
          done++;
          addToTotals(summary);
          observer.episode?.(result);
          observer.episodeDone?.({ result: summary, done, total, successes, cost: runCost });
        });
      }
    }
    await queue.onIdle();
  } finally {
    checkpoint.close();
    await agent.close?.();
  }
  const stop = unreachable();
  if (stop) {
    if (previous.header === null && ranEpisodes === 0) rmSync(checkpointPath, { force: true });
    throw stop;
  }

  const ordered: CheckpointEntry[] = [];
  for (let trial = 0; trial < config.numTrials; trial++) {
    for (const taskIndex of taskIndices) {
      const entry = completed.get(`${taskIndex}:${trial}`);
      if (entry) ordered.push(entry);
    }
  }
  writeFileAtomic(
    resultsPath,
    pyJsonDumpsIndented(
      ordered.map((item) => item.entry),
      2,
    ),
  );
  const interrupted = signal?.aborted === true;
  writeRunStatus(resultsPath, { episodes: ordered.length, expectedEpisodes: total, interrupted, checkpointPath });
  const summaries = ordered.map((item) => item.summary);
  return {
    config,
    resultsPath,
    checkpointPath,
    summaries,
    metrics: computePassK(summaries),
    ranEpisodes,
    resumedEpisodes,
    rerunInfraErrors: rerun.size,
    expectedEpisodes: total,
    interrupted,
  };
}
