/**
 * A τ² run on the one batch runner (`src/run/batch-runner.ts`): its work units are (trial × task)
 * with the trial's seed, a unit is τ²'s `run_simulation` (the loop, then its evaluation), an attempt
 * that crashed is retried after `--retry-delay` and recorded as an `infrastructure_error`
 * placeholder once every attempt failed (as τ² does), each simulation is a checkpoint line as it
 * finishes, and τ²'s `results.json` is rewritten now and then and at the end (with its
 * `.meta.json` status beside it).
 */
import { randomUUID } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { missingDirectory, removeIfEmpty } from "../../run/atomic-file.ts";
import { unitKey, type ResultSink, type TaskSourceFactory, type WorkUnit } from "../../core/run.ts";
import { runSuiteBatch, type BatchProgress, type SuiteBatch } from "../../run/batch-runner.ts";
import { runStatusPath, writeRunStatus } from "../../run/run-status.ts";
import { redact } from "../../secrets/redact.ts";
import type { BuiltTau2Run } from "./build.ts";
import { simulationKey } from "./build.ts";
import { checkpointEntry, removeTau2Checkpoint, simulationMetrics, tau2CheckpointPath, tau2CheckpointWriter, tau2Summary, type Tau2SimulationRecord, writeTau2Results } from "./codec.ts";
import { evaluateTau2Simulation } from "./evaluator.ts";
import type { Tau2JudgeUsage } from "./judge.ts";
import { runTau2Episode, type Tau2EpisodeOutcome } from "./loop.ts";
import type { Tau2Metrics } from "./metrics.ts";
import type { Tau2SimulationMessage } from "./simulation.ts";
import type { Tau2TaskFlag } from "./task-flags.ts";

/** One unit of a τ² run: a task in a trial, with the trial's seed. */
type Tau2Unit = BuiltTau2Run["units"][number];

function sideCost(messages: readonly Tau2SimulationMessage[], role: "assistant" | "user"): number | null {
  let total = 0;
  for (const message of messages) {
    if (message.role !== role) continue;
    if (message.cost === null) return null;
    total += message.cost;
  }
  return total;
}

/** One simulation with τ²'s evaluation attached (`run_simulation`). Throws for the retry loop. */
async function simulate(run: BuiltTau2Run, unit: Tau2Unit, signal: AbortSignal): Promise<Tau2SimulationRecord> {
  const timestamp = new Date().toISOString();
  const outcome = await runTau2Episode({
    domain: run.domain,
    task: unit.task,
    trial: unit.trial,
    seed: unit.seed,
    agent: run.agent,
    user: run.user,
    firstAgentMessage: run.firstAgentMessage,
    maxSteps: run.options.maxSteps,
    maxErrors: run.options.maxErrors,
    timeoutSeconds: run.options.timeout,
    enforceCommunicationProtocol: run.options.enforceCommunicationProtocol ?? false,
    solo: run.solo,
    signal,
  });
  const rewardInfo = await evaluateTau2Simulation({ domain: run.domain, task: unit.task, termination: outcome.termination, messages: outcome.messages, judge: run.judge, solo: run.solo, signal });
  return {
    id: randomUUID(),
    task_id: unit.task.id,
    timestamp,
    start_time: outcome.startTime,
    end_time: outcome.endTime,
    duration: outcome.durationSeconds,
    termination_reason: outcome.termination,
    agent_cost: sideCost(outcome.messages, "assistant"),
    user_cost: sideCost(outcome.messages, "user"),
    reward_info: rewardInfo,
    messages: outcome.messages,
    trial: unit.trial,
    seed: unit.seed,
    policy: run.domain.policy(run.solo, unit.task),
    info: simulationInfo(outcome),
  };
}

/**
 * The simulation's `info`: what a framework agent planned, when it did not step the environment
 * itself — dry run (`planned_actions`, never executed) or decision-only (`decisions`, stepped by
 * the harness, with the framework's tool name) — and the tools of its own the bridge refused
 * (`unmapped_tools`); a remote agent's failure that ended the episode (`error`, `error_type`) and its
 * measured exchanges (`protocol`); null otherwise, as τ² writes it.
 */
function simulationInfo(outcome: Tau2EpisodeOutcome): Record<string, unknown> | null {
  const info: Record<string, unknown> = {};
  if (outcome.planned.length > 0) info.planned_actions = outcome.planned.map((call) => ({ name: call.name, arguments: call.arguments, tool_call_id: call.toolCallId }));
  if (outcome.unmappedTools.length > 0) info.unmapped_tools = [...outcome.unmappedTools];
  if (outcome.decisions.length > 0)
    info.decisions = outcome.decisions.map((call) => ({ name: call.name, arguments: call.arguments, tool_call_id: call.toolCallId, framework_tool_name: call.frameworkToolName }));
  if (outcome.agentFailure) Object.assign(info, { error: outcome.agentFailure.message, error_type: outcome.agentFailure.type });
  if (outcome.protocol !== undefined) info.protocol = outcome.protocol;
  return Object.keys(info).length > 0 ? info : null;
}

function placeholder(unit: Tau2Unit, error: unknown, attempts: number): Tau2SimulationRecord {
  const now = new Date().toISOString();
  const message = error instanceof Error ? error.message : String(error);
  return {
    id: randomUUID(),
    task_id: unit.task.id,
    timestamp: now,
    start_time: now,
    end_time: now,
    duration: 0,
    termination_reason: "infrastructure_error",
    agent_cost: null,
    user_cost: null,
    reward_info: null,
    messages: [],
    trial: unit.trial,
    seed: unit.seed,
    policy: null,
    info: {
      error: message,
      error_type: error instanceof Error ? error.name : typeof error,
      error_traceback: error instanceof Error ? (error.stack ?? message) : message,
      failed_after_attempts: attempts,
    },
  };
}

/**
 * A simulation as it is written (checkpoint line, results file) and reported: nothing secret
 * (`src/secrets`). Messages, tool calls and the rest are benchmark content (known secrets and
 * credential shapes replaced, names left alone); an infrastructure error's `info` (message, type,
 * traceback) is diagnostics.
 */
function writtenSimulation(record: Tau2SimulationRecord, secrets: readonly string[]): Tau2SimulationRecord {
  const written = redact(record, { secrets, content: true });
  return written.termination_reason === "infrastructure_error" && written.info ? { ...written, info: redact(written.info, { secrets }) } : written;
}

/** How often the whole results file is rewritten during a run (the checkpoint lines are written at once). */
const RESULTS_REWRITE_MS = 5_000;

/**
 * τ²'s results file as a result sink: each simulation joins the document (replacing the
 * infrastructure error it re-runs) and is a checkpoint line at once; the document is rewritten
 * atomically every few seconds (the checkpoint then starts afresh) and at the end.
 */
class Tau2ResultsSink implements ResultSink<Tau2SimulationRecord> {
  private readonly checkpoint;
  private lastWrite = performance.now();
  /** Whether the results file was there before this run (a resumed or extended run). */
  private readonly existed: boolean;
  /** The folder this run creates for its results file, if any (removed again when nothing was recorded). */
  private readonly createdDirectory: string | undefined;
  private appended = 0;

  constructor(private readonly run: BuiltTau2Run) {
    this.existed = existsSync(run.outputPath);
    this.createdDirectory = missingDirectory(dirname(run.outputPath));
    this.checkpoint = tau2CheckpointWriter(run.outputPath);
    this.flush();
  }

  append(record: Tau2SimulationRecord): void {
    this.appended++;
    const { document, judge } = this.run;
    const replaced = document.simulations.findIndex((simulation) => simulationKey(simulation) === simulationKey(record));
    if (replaced >= 0) document.simulations.splice(replaced, 1);
    document.simulations.push(record);
    if (judge?.usage) document.taubridge.judgeUsage = judge.usage();
    this.checkpoint.append(checkpointEntry(record));
    if (performance.now() - this.lastWrite > RESULTS_REWRITE_MS) this.flush();
  }

  flush(): void {
    writeTau2Results(this.run.outputPath, this.run.document);
    this.status(false);
    this.checkpoint.close();
    removeTau2Checkpoint(this.run.outputPath);
    this.checkpoint.open({ resultsFile: this.run.outputPath }, true);
    this.lastWrite = performance.now();
  }

  close({ interrupted }: { interrupted: boolean }): void {
    writeTau2Results(this.run.outputPath, this.run.document);
    this.checkpoint.close();
    removeTau2Checkpoint(this.run.outputPath);
    this.status(interrupted);
  }

  /** The run's status (and identity, for the next resume) beside the results file. */
  private status(interrupted: boolean): void {
    const { run } = this;
    writeRunStatus(run.outputPath, {
      episodes: run.document.simulations.length,
      expectedEpisodes: run.units.length,
      interrupted,
      checkpointPath: tau2CheckpointPath(run.outputPath),
      identity: run.identity,
    });
  }

  /**
   * Closes the checkpoint without writing anything (the run stopped before its end). A run that
   * stopped before recording anything (a dead model endpoint) leaves no file it created behind.
   */
  abandon(): void {
    this.checkpoint.close();
    if (this.existed || this.appended > 0) return;
    for (const path of [this.run.outputPath, runStatusPath(this.run.outputPath), tau2CheckpointPath(this.run.outputPath)]) rmSync(path, { force: true });
    removeIfEmpty(this.createdDirectory);
  }
}

/** Progress of a batch, one call per finished simulation (among those this run runs). */
export type Tau2Progress = (event: { done: number; total: number; record: Tau2SimulationRecord }) => void;

export interface Tau2BatchResult {
  outputPath: string;
  /** The NL judge's usage in this run (null when no task needed it). */
  judgeUsage: Tau2JudgeUsage | null;
  simulations: Tau2SimulationRecord[];
  metrics: Tau2Metrics;
  flags: Tau2TaskFlag[];
  interrupted: boolean;
  /** Simulations kept from the stored run (infrastructure errors, which run again, not counted). */
  resumed: number;
  /** Simulations this run ran. */
  ran: number;
}

/** The run's units as the run layer's work units. */
function workUnits(run: BuiltTau2Run): { units: WorkUnit[]; byKey: Map<string, Tau2Unit> } {
  const byKey = new Map<string, Tau2Unit>();
  const units = run.units.map((unit, index) => {
    const work: WorkUnit = {
      runId: run.outputPath,
      suite: "tau2",
      domain: run.options.domain,
      taskId: unit.task.id,
      taskIndex: index % run.taskSet.tasks.length,
      trial: unit.trial,
      seed: unit.seed,
      attempt: 1,
    };
    byKey.set(unitKey(work), unit);
    return work;
  });
  return { units, byKey };
}

/** Runs the units (bounded concurrency, τ²'s retries, a checkpoint line after every simulation). */
export async function runTau2Batch(
  run: BuiltTau2Run,
  options: { signal?: AbortSignal; onProgress?: Tau2Progress; observer?: BatchProgress<Tau2SimulationRecord>; taskSource?: TaskSourceFactory } = {},
): Promise<Tau2BatchResult> {
  const { units, byKey } = workUnits(run);
  const resumed = new Map([...run.resumed].map(([, record]) => [unitKey({ taskId: record.task_id, trial: record.trial }), record] as const).filter(([key]) => byKey.has(key)));
  const rerun = new Set([...resumed].filter(([, record]) => record.termination_reason === "infrastructure_error").map(([key]) => key));
  const sink = new Tau2ResultsSink(run);
  const batch: SuiteBatch<Tau2SimulationRecord> = {
    units,
    resumed,
    rerun,
    concurrency: run.options.maxConcurrency,
    retry: {
      attempts: run.options.maxRetries + 1,
      delayMs: run.options.retryDelay * 1000,
      classify: (outcome) => ("error" in outcome ? "retry" : "done"),
      exhausted: (unit, last, attempts) => writtenSimulation(placeholder(byKey.get(unitKey(unit))!, "error" in last ? last.error : undefined, attempts), run.secrets),
    },
    execute: async (unit, signal) => writtenSimulation(await simulate(run, byKey.get(unitKey(unit))!, signal), run.secrets),
    unreachable: () => run.models.unreachable?.() ?? run.agent.unreachable?.() ?? run.user.unreachable?.(),
    ...(options.taskSource ? { source: options.taskSource } : {}),
    summary: tau2Summary,
    sink,
    close: async () => {
      await Promise.allSettled([run.agent.close?.(), run.user.close?.()]);
    },
  };
  const toRun = units.length - (resumed.size - rerun.size);
  let done = 0;
  const progress: BatchProgress<Tau2SimulationRecord> = {
    ...options.observer,
    episode: (record) => {
      options.onProgress?.({ done: ++done, total: toRun, record });
      options.observer?.episode?.(record);
    },
  };
  let outcome: Awaited<ReturnType<typeof runSuiteBatch<Tau2SimulationRecord>>>;
  try {
    outcome = await runSuiteBatch(batch, progress, options.signal);
  } catch (error) {
    sink.abandon();
    throw error;
  } finally {
    run.lock.release();
  }
  const simulations = run.document.simulations;
  return {
    outputPath: run.outputPath,
    judgeUsage: run.judge?.usage?.() ?? null,
    simulations,
    metrics: simulationMetrics(simulations),
    flags: run.flags,
    interrupted: outcome.interrupted,
    resumed: outcome.resumedEpisodes,
    ran: outcome.ranEpisodes,
  };
}
