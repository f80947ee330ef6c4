/**
 * A τ-bench run on the one batch runner (`src/run/batch-runner.ts`): its work units are the
 * `(task, trial)` pairs of the selection (in `--shuffle` order per trial when asked), an episode is
 * τ-bench's loop plus its evaluator, an episode that ended in `infra_error` runs again
 * (`--episode-retries`), each result is a checkpoint line as it is made, and the results file is
 * τ-bench's plain list in (trial, task-list) order, written atomically at the end with its
 * `.meta.json` status beside it. Resume keeps the checkpoint's finished episodes when the run's
 * identity (options and the content of everything that decides outcomes) is unchanged.
 */
import { rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { unitKey, type EpisodeSummary, type ResultSink, type TaskSourceFactory, type WorkUnit } from "../../core/run.ts";
import type { Participant } from "../../core/contracts.ts";
import type { SuiteUnitRunner } from "../../core/suite.ts";
import { InfraError } from "../../errors/error-tree.ts";
import { ModelEndpointUnreachableError } from "../../model/errors.ts";
import { computePassK, isInfraError, type PassKReport } from "../../metrics/pass-k.ts";
import { type ResultWire, runSuiteBatch, type SuiteBatch } from "../../run/batch-runner.ts";
import { CheckpointWriter, readCheckpointIdentity, type CheckpointContents } from "../../run/checkpoint.ts";
import { lazySchema } from "../../data/lazy-zod.ts";
import { episodeSummarySchema } from "../../run/episode-summary-schema.ts";
import { setAsideOtherRun } from "../../run/run-name.ts";
import { runFileStem, type RunConfig } from "./run-config.ts";
import { identityChanges, ResumeMismatchError } from "../../run/run-identity.ts";
import { runDataWarning, runIdentity } from "./run-identity.ts";
import { acquireResultsLock } from "../../run/results-lock.ts";
import { runStatusPath, writeRunStatus } from "../../run/run-status.ts";
import { createRunLog, inEpisodeLog, inRunLog, type RunLog, type RunLogSettings } from "../../run/call-log.ts";
import { redact } from "../../secrets/redact.ts";
import { PrintedJson, printedJson, pyJsonDumpsIndented, toJs } from "../../value/index.ts";
import type { SuiteProgress } from "../../core/suite.ts";
import type { BuiltRun } from "./build.ts";
import { missingDirectory, removeIfEmpty, writeFileAtomic } from "../../run/atomic-file.ts";
import { entryManifestText, entryWithManifest, readTauBenchCheckpoint, resultEntry, summaryFromResult } from "./codec.ts";
import type { RunManifest } from "../../core/run-manifest.ts";
import { entryManifest, tauBenchManifest } from "./manifest.ts";
import { evaluatorFor } from "./evaluator.ts";
import { failedEpisode, runEpisode, type EpisodeResult } from "./loop.ts";

/** Progress callbacks the batch layer calls (the run layer's progress, and each episode's full result); the CLI renders them. */
export interface BatchObserver extends SuiteProgress {
  /** The full result of each episode run now (not of resumed ones), after it is checkpointed. */
  episode?(result: EpisodeResult): void;
}

export interface BatchOutcome {
  config: RunConfig;
  /** The run manifest every entry of the results file carries (each with its own task's definition hash). */
  manifest: RunManifest;
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

/** One τ-bench episode as the run layer carries it: its results-file entry, its summary, and the whole episode when it ran now. */
export interface TauBenchResult {
  entry: unknown;
  summary: EpisodeSummary;
  episode?: EpisodeResult;
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

/** The run's units in report order, and in lease order (each trial's tasks shuffled when asked). */
function workUnits(built: BuiltRun, runId: string): { units: WorkUnit[]; leaseOrder: WorkUnit[] } {
  const { config, taskIndices } = built;
  const unit = (taskIndex: number, trial: number): WorkUnit => ({ runId, suite: "tau-bench", domain: config.env, taskId: String(taskIndex), taskIndex, trial, seed: null, attempt: 1 });
  const units: WorkUnit[] = [];
  const leaseOrder: WorkUnit[] = [];
  for (let trial = 0; trial < config.numTrials; trial++) {
    for (const index of taskIndices) units.push(unit(index, trial));
    for (const index of config.shuffle ? seededShuffle(taskIndices, config.seed + trial) : taskIndices) leaseOrder.push(unit(index, trial));
  }
  return { units, leaseOrder };
}

/** The checkpoint of an earlier run of the same identity, or the refusal that names what changed. */
function previousRun(built: BuiltRun, checkpointPath: string, identity: ReturnType<typeof runIdentity>, observer: BatchObserver): { previous: CheckpointContents; rewriteHeader: boolean } {
  const { config } = built;
  const previous = config.resume ? readTauBenchCheckpoint(checkpointPath) : { header: null, entries: [], discardedLines: 0 };
  let rewriteHeader = previous.header === null;
  if (previous.header) {
    const { changed, unverified } = identityChanges(previous.header.identity, identity);
    if (changed.length > 0 && !config.acceptChanges) throw ResumeMismatchError.forCheckpoint(checkpointPath, changed);
    if (changed.length > 0) {
      observer.warn?.(`resuming despite changes since the checkpoint (--accept-changes): ${changed.join(", ")}`);
      rewriteHeader = true;
    } else if (unverified) {
      observer.warn?.("the checkpoint was written by an older taubridge that recorded only options: the task set, data and agent files could not be compared");
    }
  }
  if (previous.discardedLines > 0) observer.warn?.(`discarded ${previous.discardedLines} torn checkpoint line(s); those episodes run again`);
  return { previous, rewriteHeader };
}

/**
 * The checkpoint's results this run keeps (resume), and those that ended in infra errors (they run
 * again). Their entries are redacted again with this run's secrets before they are written back
 * (a checkpoint written before redaction, or with other settings).
 */
function resumedResults(previous: CheckpointContents, units: readonly WorkUnit[], secrets: readonly string[]): { resumed: Map<string, TauBenchResult>; rerun: Set<string> } {
  const wanted = new Set(units.map(unitKey));
  const resumed = new Map<string, TauBenchResult>();
  // Infra errors stay among the resumed results until their re-run finishes, so an interrupted run still reports them.
  const rerun = new Set<string>();
  for (const entry of previous.entries) {
    const key = unitKey({ taskId: String(entry.summary.taskId), trial: entry.summary.trial });
    if (!wanted.has(key)) continue;
    resumed.set(key, { ...entry, entry: redact(entry.entry, { secrets, content: true }) });
    if (isInfraError(entry.summary)) rerun.add(key);
  }
  return { resumed, rerun };
}

/**
 * τ-bench's result sink: a checkpoint line per episode; at the end the results file (report order,
 * each entry with the run's manifest) and its status.
 */
function resultsSink(checkpoint: CheckpointWriter, resultsPath: string, checkpointPath: string, manifest: RunManifest): ResultSink<TauBenchResult> {
  return {
    append: (result) => checkpoint.append(result.entry),
    flush: () => undefined,
    close: ({ results, units, interrupted }) => {
      // Each task's manifest (its own definition hash) is printed once, whatever the number of trials.
      const printed = new Map<string, { manifest: RunManifest; text: string }>();
      const manifestOf = (taskId: string) => {
        let found = printed.get(taskId);
        if (!found) {
          const own = entryManifest(manifest, taskId);
          found = { manifest: own, text: entryManifestText(own) };
          printed.set(taskId, found);
        }
        return found;
      };
      const entries = units.flatMap((unit) => {
        const result = results.get(unitKey(unit));
        if (!result) return [];
        const { manifest: own, text } = manifestOf(unit.taskId);
        return [entryWithManifest(result.entry, own, text)];
      });
      writeFileAtomic(resultsPath, pyJsonDumpsIndented(entries, 2));
      writeRunStatus(resultsPath, { episodes: entries.length, expectedEpisodes: units.length, interrupted, checkpointPath });
    },
  };
}

/**
 * τ-bench's retry policy: an episode that ended in `infra_error` runs again while attempts remain;
 * its last result stands. An attempt lost with the worker process running it (an `InfraError`
 * thrown where τ-bench's loop throws nothing) is the same: retried, and after the last attempt
 * recorded as an `infra_error` episode.
 */
function retryPolicy(built: BuiltRun): SuiteBatch<TauBenchResult>["retry"] {
  return {
    attempts: built.config.episodeRetries + 1,
    delayMs: 0,
    classify: (outcome) => {
      if ("error" in outcome) {
        if (InfraError.isInstance(outcome.error)) return "retry";
        throw outcome.error; // τ-bench's loop never throws: anything else thrown is a harness bug
      }
      return isInfraError(outcome.result.summary) ? "retry" : "done";
    },
    exhausted: (unit, last) => ("error" in last ? writtenResult(failedEpisode(unit.taskIndex, unit.trial, last.error), built.secrets) : last.result),
  };
}

/** What crosses from a worker: the entry as printed there (its place in the results file) and its summary. */
const wireSchema = lazySchema((z) => z.object({ entry: z.string(), summary: episodeSummarySchema() }));

/** A result in its wire form (`--workers`, a queue): plain JSON, the entry's text as printed. */
function encodeResult(result: TauBenchResult): unknown {
  return { entry: (result.entry as PrintedJson).indented, summary: result.summary };
}

/**
 * An episode a worker ran, as its results-file entry holds it: what `onEpisode` gets for it. The
 * entry keeps everything but each step's observation and reward (the transcript has the
 * observations); those read "" and 0.
 */
function episodeFromEntry(entry: PrintedJson): EpisodeResult {
  const plain = toJs(entry.value as never) as Record<string, unknown>;
  const block = (plain.taubridge ?? {}) as Record<string, unknown>;
  const steps = (list: unknown) => ((list ?? []) as Array<Record<string, unknown>>).map((step) => ({ observation: "", reward: 0, done: false, ...step }) as unknown as EpisodeResult["steps"][number]);
  return {
    taskId: plain.task_id as number,
    trial: plain.trial as number,
    reward: plain.reward as number,
    rewardBreakdown: (block.rewardBreakdown ?? {}) as Record<string, number>,
    termination: block.termination as EpisodeResult["termination"],
    info: plain.info as Record<string, unknown>,
    traj: plain.traj as EpisodeResult["traj"],
    steps: steps(block.steps),
    plannedOnly: steps(block.plannedOnly),
    usage: (block.usage ?? { agent: null, user: null }) as EpisodeResult["usage"],
    durationMs: (block.durationMs ?? 0) as number,
    ...(block.error ? { error: block.error as EpisodeResult["error"] } : {}),
    ...(block.extra ? { extra: block.extra as EpisodeResult["extra"] } : {}),
  };
}

/** A result made by a worker, read back: its entry is placed as the worker printed it. */
const RESULT_WIRE: ResultWire<TauBenchResult> = {
  decode: (wire) => {
    const { entry, summary } = wireSchema().parse(wire);
    return { entry: PrintedJson.fromText(entry, 2, 1), summary };
  },
};

/**
 * A run's episodes in a worker process: the same agent, user, evaluator and loop as a local run
 * (built from the same settings), each unit's result in its wire form. The coordinator reads the
 * checkpoint and writes the results; nothing here touches the run's files.
 */
export async function tauBenchUnitRunner(built: BuiltRun, warn: (message: string) => void = () => undefined): Promise<SuiteUnitRunner> {
  const agent = await built.agentFactory.create({ ...built.context, warn });
  const execute = episodeRunner(built, agent, evaluatorFor(built.domain));
  return {
    secrets: built.secrets,
    execute: async (unit, signal) => encodeResult(await execute(unit, signal)),
    unreachable: () => built.context.models.unreachable?.() ?? agent.unreachable?.() ?? built.user.unreachable?.(),
    close: async () => {
      await agent.close?.();
    },
  };
}

/**
 * An episode's entry and summary as they are written (checkpoint line, results file) and printed:
 * nothing secret (`src/secrets`). The entry is benchmark content (known secrets and credential
 * shapes replaced, names left alone); a failure's texts (`info.error`, `info.traceback`,
 * `taubridge.error`) are diagnostics.
 */
function writtenResult(episode: EpisodeResult, secrets: readonly string[]): TauBenchResult {
  const entry = redact(resultEntry(episode), { secrets, content: true });
  const info = entry.info as Record<string, unknown>;
  const block = entry.taubridge as Record<string, unknown>;
  const written = { ...entry, info: "error" in info ? redact(info, { secrets }) : info, taubridge: block.error ? { ...block, error: redact(block.error, { secrets }) } : block };
  // Printed once at its place in the results file (level 1); the checkpoint line derives from it.
  return { entry: printedJson(written, 2, 1), summary: redact(summaryFromResult(episode), { secrets }), episode };
}

/** One episode of a unit, through τ-bench's loop, as a result (its entry, summary and full result). */
function episodeRunner(built: BuiltRun, agent: Participant, evaluator: ReturnType<typeof evaluatorFor>): SuiteBatch<TauBenchResult>["execute"] {
  const { config, domain, tasks } = built;
  return async (unit, signal) => {
    const episode = await runEpisode({
      domain,
      task: tasks[unit.taskIndex],
      taskIndex: unit.taskIndex,
      trial: unit.trial,
      agent,
      user: built.user,
      evaluator,
      maxSteps: config.maxSteps,
      timeoutMs: config.episodeTimeoutMs,
      signal,
    });
    return writtenResult(episode, built.secrets);
  };
}

/** Each episode inside its log scope (`--log-level`, `--verbose-logs`), when the run logs. */
function loggedEpisodes(log: RunLog | undefined, execute: SuiteBatch<TauBenchResult>["execute"]): SuiteBatch<TauBenchResult>["execute"] {
  if (!log) return execute;
  return (unit, signal) =>
    inEpisodeLog(
      log,
      unit,
      () => execute(unit, signal),
      (result) => `${result.summary.termination}, reward ${result.summary.reward}`,
    );
}

/** Where a run's files go: the results file, its checkpoint, and their common stem. */
function runFiles(built: BuiltRun): { stem: string; resultsPath: string; checkpointPath: string } {
  const logDir = resolve(built.config.logDir);
  const stem = runFileStem(built.config, built.split);
  return { stem, resultsPath: join(logDir, `${stem}.json`), checkpointPath: join(logDir, `${stem}.checkpoint.jsonl`) };
}

/**
 * The batch layer of a τ-bench run: runs every `(task, trial)` with bounded concurrency,
 * checkpoints each finished episode, resumes from an earlier checkpoint of the same run (skipping
 * finished pairs, except those that ended in `infra_error`: they say nothing about the agent, so
 * they run again, as in τ²-bench), and writes the results file atomically at the end.
 */
export async function runBatch(built: BuiltRun, observer: BatchObserver = {}, signal?: AbortSignal, options: { taskSource?: TaskSourceFactory; log?: RunLogSettings } = {}): Promise<BatchOutcome> {
  // One run per results file: taken before the checkpoint is read, released however the run ends.
  const lock = acquireResultsLock(runFiles(built).resultsPath, "--log-dir", (message) => observer.warn?.(message));
  try {
    return await runLockedBatch(built, observer, signal, options);
  } finally {
    lock.release();
  }
}

async function runLockedBatch(built: BuiltRun, observer: BatchObserver, signal: AbortSignal | undefined, options: { taskSource?: TaskSourceFactory; log?: RunLogSettings }): Promise<BatchOutcome> {
  const { config, domain } = built;
  const { stem, resultsPath, checkpointPath } = runFiles(built);
  // The log dir holds many runs' files: this run's episode logs go in `<stem>.artifacts/`.
  const log = options.log ? createRunLog({ ...options.log, artifactsDirectory: join(dirname(resultsPath), `${stem}.artifacts`), secrets: built.secrets }) : undefined;
  const identity = runIdentity(config, domain, built.taskFilePath, built.secrets);
  const manifest = tauBenchManifest(built, identity);
  const dataWarning = runDataWarning(domain, built.taskFilePath);
  if (dataWarning) observer.warn?.(dataWarning);
  // --no-resume starts this run over; another run's results at the same name are set aside, never overwritten silently.
  if (!config.resume)
    setAsideOtherRun({ results: resultsPath, others: [checkpointPath, runStatusPath(resultsPath)] }, readCheckpointIdentity(checkpointPath), identity, (message) => observer.warn?.(message));
  const { previous, rewriteHeader } = previousRun(built, checkpointPath, identity, observer);
  const { units, leaseOrder } = workUnits(built, stem);
  const { resumed, rerun } = resumedResults(previous, units, built.secrets);

  // The agent is created before the checkpoint is touched: a run that fails at configuration time
  // (a missing module, a bad export) leaves no checkpoint behind.
  const agent = await built.agentFactory.create({ ...built.context, warn: (message) => observer.warn?.(message) });
  const createdDirectory = missingDirectory(dirname(checkpointPath));
  const checkpoint = new CheckpointWriter(checkpointPath);
  checkpoint.open({ identity, stem }, rewriteHeader);
  // An accepted change gets the new identity in a fresh header; the kept episodes are written back under it.
  if (rewriteHeader && previous.header) for (const entry of previous.entries) checkpoint.append(redact(entry.entry, { secrets: built.secrets, content: true }));

  const unreachable = () => built.context.models.unreachable?.() ?? agent.unreachable?.() ?? built.user.unreachable?.();
  const batch: SuiteBatch<TauBenchResult> = {
    units,
    leaseOrder,
    resumed,
    rerun,
    concurrency: config.maxConcurrency,
    retry: retryPolicy(built),
    // One evaluator for the run (its ground-truth cache lives on the domain, shared by every episode).
    execute: loggedEpisodes(log, episodeRunner(built, agent, evaluatorFor(domain))),
    summary: (result) => result.summary,
    sink: resultsSink(checkpoint, resultsPath, checkpointPath, manifest),
    unreachable,
    ...(options.taskSource ? { source: options.taskSource } : {}),
    wire: RESULT_WIRE,
    close: async () => {
      checkpoint.close();
      await agent.close?.();
    },
  };
  let ran = 0;
  const progress = {
    start: (info: { total: number; alreadyDone: number; rerunInfraErrors: number; successes: number; cost: number | null }) =>
      observer.start?.({ ...info, checkpointPath, resumed: previous.header !== null }),
    episode: (result: TauBenchResult) => {
      ran++;
      // An episode a worker process ran (`--workers`) is read back from its entry, only when someone asks.
      observer.episode?.(result.episode ?? episodeFromEntry(result.entry as PrintedJson));
    },
    episodeDone: observer.episodeDone,
  };
  let run: Awaited<ReturnType<typeof runSuiteBatch<TauBenchResult>>>;
  try {
    run = await inRunLog(log, () => runSuiteBatch(batch, progress, signal));
  } catch (error) {
    // The endpoint refused the run's first call, here or in a worker process.
    if ((unreachable() || ModelEndpointUnreachableError.isInstance(error)) && previous.header === null && ran === 0) {
      rmSync(checkpointPath, { force: true });
      removeIfEmpty(createdDirectory);
    }
    throw error;
  }
  return {
    config,
    manifest,
    resultsPath,
    checkpointPath,
    summaries: run.summaries,
    metrics: computePassK(run.summaries),
    ranEpisodes: run.ranEpisodes,
    resumedEpisodes: run.resumedEpisodes,
    rerunInfraErrors: run.rerunInfraErrors,
    expectedEpisodes: run.expectedEpisodes,
    interrupted: run.interrupted,
  };
}
