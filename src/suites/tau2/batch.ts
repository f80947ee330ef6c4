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
import { dirname, join } from "node:path";
import { missingDirectory, removeIfEmpty } from "../../run/atomic-file.ts";
import { unitKey, type ResultSink, type TaskSourceFactory, type RoleUsageDelta, type WorkUnit } from "../../core/run.ts";
import type { SuiteUnitRunner } from "../../core/suite.ts";
import { ConfigError } from "../../errors/error-tree.ts";
import { type ResultWire, runSuiteBatch, type BatchProgress, type SuiteBatch } from "../../run/batch-runner.ts";
import { lazySchema } from "../../data/lazy-zod.ts";
import { episodeSummarySchema } from "../../run/episode-summary-schema.ts";
import { runStatusPath, writeRunStatus } from "../../run/run-status.ts";
import { createRunLog, inEpisodeLog, inRunLog, type RunLogSettings } from "../../run/call-log.ts";
import { redact } from "../../secrets/redact.ts";
import type { BuiltTau2Run, Tau2EpisodeParts } from "./build.ts";
import { simulationKey } from "./build.ts";
import {
  printedSimulationText,
  removeTau2Checkpoint,
  simulationFromWorker,
  simulationHead,
  simulationMetrics,
  tau2CheckpointPath,
  tau2CheckpointWriter,
  tau2Summary,
  type Tau2SimulationRecord,
  writeTau2Results,
} from "./codec.ts";
import { evaluateTau2Simulation } from "./evaluator.ts";
import type { Tau2JudgeUsage } from "./judge.ts";
import type { RoleUsage } from "../../core/types.ts";
import { runTau2Episode, type Tau2EpisodeOutcome } from "./loop.ts";
import type { Tau2Metrics } from "./metrics.ts";
import { TAU2_TERMINATION_REASONS, type Tau2SimulationMessage } from "./simulation.ts";
import type { Tau2TaskFlag } from "./task-flags.ts";
import type { Tau2Task } from "./tasks.ts";
import { PolicyPrinter, withSharedPolicy } from "./wire-policy.ts";

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
async function simulate(run: Omit<Tau2EpisodeParts, "task">, unit: Tau2Unit, signal: AbortSignal): Promise<Tau2SimulationRecord> {
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
export function writtenSimulation(record: Tau2SimulationRecord, secrets: readonly string[]): Tau2SimulationRecord {
  const { policy } = record;
  // The policy is one text for the whole run (telecom's ~24 KB of a ~31 KB simulation): redacted once, not scanned per simulation.
  const redacted = policy === null ? record : redact({ ...record, policy: null }, { secrets, content: true });
  const written = policy === null ? redacted : { ...redacted, policy: redactedPolicy(policy, secrets) };
  return written.termination_reason === "infrastructure_error" && written.info ? { ...written, info: redact(written.info, { secrets }) } : written;
}

/** The last policy redacted, by the secrets list it was redacted with. */
const policyRedactions = new WeakMap<readonly string[], { policy: string; redacted: string }>();

/** {@link redact} of a policy text (benchmark content), remembered for the run's secrets list while the policy stays the same text. */
function redactedPolicy(policy: string, secrets: readonly string[]): string {
  const known = policyRedactions.get(secrets);
  if (known?.policy === policy) return known.redacted;
  const redacted = redact(policy, { secrets, content: true });
  policyRedactions.set(secrets, { policy, redacted });
  return redacted;
}

/** How often, at least, the whole results file is rewritten during a run (the checkpoint lines are written at once). */
const RESULTS_REWRITE_MS = 5_000;
/**
 * A rewrite takes at most this share of the run's time: a large file (telecom `full` is 100 MB) is
 * rewritten less often, since a rewrite blocks the run's thread — and with `--workers`, the
 * workers waiting for their next episode. The checkpoint keeps every simulation meanwhile.
 */
const RESULTS_REWRITE_SHARE = 0.05;

/** Two usages added; the cost is unknown (null) when either is. */
function addUsage(left: RoleUsage, right: RoleUsage): RoleUsage {
  return {
    calls: left.calls + right.calls,
    promptTokens: left.promptTokens + right.promptTokens,
    completionTokens: left.completionTokens + right.completionTokens,
    cost: left.cost === null || right.cost === null ? null : left.cost + right.cost,
  };
}

/**
 * τ²'s results file as a result sink: each simulation joins the document (replacing the
 * infrastructure error it re-runs) and is a checkpoint line at once; the document is rewritten
 * atomically every few seconds (the checkpoint then starts afresh) and at the end. The file lists
 * the run's simulations in report order (trial-major, task-list order) after any it holds for
 * other tasks, whatever order they finished in, so a run writes the same file at any
 * concurrency, in one process or in workers.
 */
class Tau2ResultsSink implements ResultSink<Tau2SimulationRecord> {
  private readonly checkpoint;
  /** Each unit's place in report order, by `(task, trial)` key. */
  private readonly order: Map<string, number>;
  /** The document's simulations by `(task, trial)` key. */
  private readonly byKey: Map<string, Tau2SimulationRecord>;
  /** The NL judge's usage in worker processes (`--workers`), reported with their results. */
  private remoteJudge: Tau2JudgeUsage | null = null;
  /** The other roles' usage in worker processes (τ³ retrieval's reranker and embedder), by role. */
  private readonly remoteRoles = new Map<string, RoleUsage>();
  private lastWrite = performance.now();
  private rewriteEvery = RESULTS_REWRITE_MS;
  /** Whether the results file was there before this run (a resumed or extended run). */
  private readonly existed: boolean;
  /** The folder this run creates for its results file, if any (removed again when nothing was recorded). */
  private readonly createdDirectory: string | undefined;
  private appended = 0;

  constructor(private readonly run: BuiltTau2Run) {
    this.existed = existsSync(run.outputPath);
    this.createdDirectory = missingDirectory(dirname(run.outputPath));
    this.checkpoint = tau2CheckpointWriter(run.outputPath);
    this.order = new Map(run.units.map((unit, index) => [simulationKey({ task_id: unit.task.id, trial: unit.trial }), index]));
    this.byKey = new Map(run.document.simulations.map((simulation) => [simulationKey(simulation), simulation]));
    this.flush();
  }

  /** Judge usage a worker spent (`--workers`). */
  addJudgeUsage(usage: Tau2JudgeUsage): void {
    this.remoteJudge = this.remoteJudge ? addUsage(this.remoteJudge, usage) : usage;
  }

  /** A retrieval role's usage a worker spent (`--workers`). */
  addRoleUsage(role: string, usage: RoleUsage): void {
    const earlier = this.remoteRoles.get(role);
    this.remoteRoles.set(role, earlier ? addUsage(earlier, usage) : usage);
  }

  /** The reranker's and the embedder's usage in this run, by role: their calls here and in the workers (null: neither role). */
  roleUsage(): Record<string, RoleUsage> | null {
    const local = this.run.models.roleUsage?.() ?? {};
    const roles = [...new Set([...Object.keys(local), ...this.remoteRoles.keys()])].sort((left, right) => roleRank(left) - roleRank(right) || (left < right ? -1 : left > right ? 1 : 0));
    if (roles.length === 0) return null;
    const usage: Record<string, RoleUsage> = {};
    for (const role of roles) {
      const here = local[role];
      const there = this.remoteRoles.get(role);
      usage[role] = here && there ? addUsage(here, there) : ((here ?? there) as RoleUsage);
    }
    return usage;
  }

  /** The judge's usage in this run: its calls here and in the workers. */
  judgeUsage(): Tau2JudgeUsage | null {
    const local = this.run.judge?.usage?.() ?? null;
    if (!this.remoteJudge) return local;
    return local ? addUsage(local, this.remoteJudge) : this.remoteJudge;
  }

  append(record: Tau2SimulationRecord): void {
    this.appended++;
    const { document } = this.run;
    // The infrastructure error a simulation re-runs leaves the document (found by key: a scan per append would be quadratic).
    const key = simulationKey(record);
    const replaced = this.byKey.get(key);
    if (replaced) document.simulations.splice(document.simulations.indexOf(replaced), 1);
    this.byKey.set(key, record);
    document.simulations.push(record);
    this.noteUsage();
    this.checkpoint.append(record);
    if (performance.now() - this.lastWrite > this.rewriteEvery) this.flush();
  }

  flush(): void {
    const started = performance.now();
    this.sort();
    writeTau2Results(this.run.outputPath, this.run.document);
    this.status(false);
    this.checkpoint.close();
    removeTau2Checkpoint(this.run.outputPath);
    this.checkpoint.open({ resultsFile: this.run.outputPath }, true);
    this.lastWrite = performance.now();
    this.rewriteEvery = Math.max(RESULTS_REWRITE_MS, (this.lastWrite - started) / RESULTS_REWRITE_SHARE);
  }

  /** The judge's, the reranker's and the embedder's usage so far, into the document (what the report's notes show). */
  private noteUsage(): void {
    const { document, judge } = this.run;
    if (judge?.usage) document.taubridge.judgeUsage = this.judgeUsage();
    const roleUsage = this.roleUsage();
    if (roleUsage) document.taubridge.roleUsage = roleUsage;
  }

  close({ interrupted }: { interrupted: boolean }): void {
    // Usage a worker reported with a failed or cancelled attempt after the last simulation is counted too.
    if (this.appended > 0) this.noteUsage();
    this.sort();
    writeTau2Results(this.run.outputPath, this.run.document);
    this.checkpoint.close();
    removeTau2Checkpoint(this.run.outputPath);
    this.status(interrupted);
  }

  /** The document's simulations in the file's order: those of other tasks first (as they were), then the run's in report order. */
  private sort(): void {
    const { document } = this.run;
    const place = (simulation: Tau2SimulationRecord) => this.order.get(simulationKey(simulation)) ?? -1;
    const others = document.simulations.filter((simulation) => place(simulation) < 0);
    const ours = document.simulations.filter((simulation) => place(simulation) >= 0).sort((left, right) => place(left) - place(right));
    document.simulations = [...others, ...ours];
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
  /** The reranker's and the embedder's usage (τ³ retrieval through the run layer), by role; null when the run had neither. */
  roleUsage: Record<string, RoleUsage> | null;
  simulations: Tau2SimulationRecord[];
  metrics: Tau2Metrics;
  flags: Tau2TaskFlag[];
  interrupted: boolean;
  /** Simulations kept from the stored run (infrastructure errors, which run again, not counted). */
  resumed: number;
  /** Simulations this run ran. */
  ran: number;
}

/**
 * What crosses from a worker: the simulation as printed there (its place in the results file), its
 * scalar fields and its summary; `sharedPolicy`: printed with `"policy": null`, the run's policy for
 * the task being the one this digest names (`wire-policy.ts`).
 */
const wireSchema = lazySchema((z) =>
  z.object({
    simulation: z.string(),
    sharedPolicy: z.string().optional(),
    head: z.object({
      id: z.string(),
      task_id: z.string(),
      timestamp: z.string(),
      start_time: z.string(),
      end_time: z.string(),
      duration: z.number(),
      termination_reason: z.enum(TAU2_TERMINATION_REASONS),
      agent_cost: z.number().nullable(),
      user_cost: z.number().nullable(),
      trial: z.number().int().nonnegative(),
      seed: z.number().int().nullable(),
    }),
    summary: episodeSummarySchema(),
  }),
);

/** A simulation made by a worker, read back (its text placed as printed; the rest read only when asked for); the judge usage it reports joins the run's. */
function resultWire(sink: Tau2ResultsSink, run: Pick<BuiltTau2Run, "domain" | "solo" | "taskSet">): ResultWire<Tau2SimulationRecord> {
  const printer = new PolicyPrinter();
  let tasks: Map<string, Tau2Task> | undefined;
  /** The run's policy for a task, as the worker's simulation held it. */
  const policyOf = (taskId: string): string => {
    tasks ??= new Map(run.taskSet.tasks.map((task) => [task.id, task]));
    const task = tasks.get(taskId);
    if (!task) throw new ConfigError(`a worker sent a simulation of task "${taskId}", which this run does not have: the coordinator and its workers read different data`);
    return run.domain.policy(run.solo, task);
  };
  return {
    decode: (wire) => {
      const { simulation, sharedPolicy, head, summary } = wireSchema().parse(wire);
      const text = sharedPolicy === undefined ? simulation : withSharedPolicy(simulation, sharedPolicy, policyOf(head.task_id), printer, head.task_id);
      return simulationFromWorker(text, head, summary, "a worker's simulation");
    },
    usage: (usage) => {
      for (const [role, delta] of Object.entries(usage)) {
        if (role === "judge") sink.addJudgeUsage(delta);
        else sink.addRoleUsage(role, delta);
      }
    },
  };
}

/** The judge's, the reranker's and the embedder's usage since `since`, by role, as a usage delta (a role that made no call since is left out). */
function usageDelta(now: Readonly<Record<string, RoleUsage>>, since: Readonly<Record<string, RoleUsage>>): RoleUsageDelta {
  const delta: RoleUsageDelta = {};
  for (const [role, usage] of Object.entries(now)) {
    const before = since[role] ?? { calls: 0, promptTokens: 0, completionTokens: 0, cost: 0 };
    if (usage.calls === before.calls) continue;
    delta[role] = {
      calls: usage.calls - before.calls,
      promptTokens: usage.promptTokens - before.promptTokens,
      completionTokens: usage.completionTokens - before.completionTokens,
      cost: usage.cost === null || before.cost === null ? null : usage.cost - before.cost,
    };
  }
  return delta;
}

/** The order of the usage roles in a results file: the reranker's, then the embedder's (as the model clients list them), then any other by name. */
function roleRank(role: string): number {
  const rank = ["reranker", "embedder"].indexOf(role);
  return rank < 0 ? 2 : rank;
}

/**
 * A run's simulations in a worker process (`--workers`): the same participants, judge and loop as
 * a local run, each unit's simulation in its wire form, the judge's usage reported as it grows.
 * The coordinator reads and writes the run's files; nothing here touches them.
 */
export function tau2UnitRunner(parts: Tau2EpisodeParts): SuiteUnitRunner {
  const printer = new PolicyPrinter();
  let reported: Record<string, RoleUsage> = {};
  return {
    secrets: parts.secrets,
    execute: async (unit, signal) => {
      await parts.prepare?.();
      const task = parts.task(unit.taskId);
      if (!task || unit.seed === null) throw new ConfigError(`the worker's task set has no task "${unit.taskId}" (or the unit has no seed): the coordinator and its workers read different data`);
      const record = writtenSimulation(await simulate(parts, { task, trial: unit.trial, seed: unit.seed }, signal), parts.secrets);
      const head = simulationHead(record);
      const summary = tau2Summary(record);
      // The run's policy, which the coordinator has, goes by its digest (`wire-policy.ts`); one the redaction changed goes whole.
      if (record.policy !== null && record.policy === parts.domain.policy(parts.solo, task)) {
        return { simulation: printedSimulationText({ ...record, policy: null }), sharedPolicy: printer.printed(record.policy).digest, head, summary };
      }
      return { simulation: printedSimulationText(record), head, summary };
    },
    // The judge's and the retrieval roles' usage, reported as it grows (the coordinator sums them into the run's).
    usage: () => {
      const now: Record<string, RoleUsage> = { ...(parts.models.roleUsage?.() ?? {}) };
      const judge = parts.judge?.usage?.();
      if (judge) now.judge = judge;
      const delta = usageDelta(now, reported);
      reported = now;
      return delta;
    },
    unreachable: () => parts.models.unreachable?.() ?? parts.agent.unreachable?.() ?? parts.user.unreachable?.(),
    close: async () => {
      await Promise.allSettled([parts.agent.close?.(), parts.user.close?.()]);
    },
  };
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
  options: { signal?: AbortSignal; onProgress?: Tau2Progress; observer?: BatchProgress<Tau2SimulationRecord>; taskSource?: TaskSourceFactory; log?: RunLogSettings } = {},
): Promise<Tau2BatchResult> {
  const { units, byKey } = workUnits(run);
  // τ²'s place for a simulation's logs: `artifacts/` beside results.json.
  const log = options.log ? createRunLog({ ...options.log, artifactsDirectory: join(dirname(run.outputPath), "artifacts"), secrets: run.secrets }) : undefined;
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
    execute: (unit, signal) =>
      inEpisodeLog(
        log,
        unit,
        async () => writtenSimulation(await simulate(run, byKey.get(unitKey(unit))!, signal), run.secrets),
        (record) => {
          const summary = tau2Summary(record);
          return `${summary.termination}, reward ${summary.reward ?? "none"}`;
        },
      ),
    unreachable: () => run.models.unreachable?.() ?? run.agent.unreachable?.() ?? run.user.unreachable?.(),
    ...(options.taskSource ? { source: options.taskSource } : {}),
    wire: resultWire(sink, run),
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
    outcome = await inRunLog(log, () => runSuiteBatch(batch, progress, options.signal));
  } catch (error) {
    sink.abandon();
    throw error;
  } finally {
    run.lock.release();
  }
  const simulations = run.document.simulations;
  return {
    outputPath: run.outputPath,
    judgeUsage: sink.judgeUsage(),
    roleUsage: sink.roleUsage(),
    simulations,
    metrics: simulationMetrics(simulations),
    flags: run.flags,
    interrupted: outcome.interrupted,
    resumed: outcome.resumedEpisodes,
    ran: outcome.ranEpisodes,
  };
}
