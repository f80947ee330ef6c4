/**
 * `taubridge tau2 run`: a τ²-bench run as `tau2 run` performs it (spec §3.5, §7), on taubridge's
 * orchestrator and evaluator.
 *
 * Layers: {@link buildTau2Run} turns names into objects (domain, task set, participants, judge,
 * output file, resume state); {@link runTau2Batch} runs the (trial × task) units with bounded
 * concurrency, retries a crashed attempt as τ² does (and records an `infrastructure_error`
 * placeholder when every attempt failed), rewrites the results file atomically after every
 * simulation, and reports progress.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ChatModel, Participant } from "../../core/contracts.ts";
import { ConfigError, errorMarker, TaubridgeError, UnknownNameError } from "../../core/errors.ts";
import type { AgentFactory } from "../../run/strategies.ts";
import { sharedStrategyAgent } from "./participants/shared-strategies.ts";
import type { Registry } from "../../core/registry.ts";
import { type LoadedTau2Domain, type Tau2DomainDefinition, loadTau2Domain } from "./engine/domain.ts";
import { readTau2FirstAgentMessage } from "./engine/upstream-text.ts";
import { evaluateTau2Simulation } from "./evaluator.ts";
import { type Tau2JudgeUsage, type Tau2NlJudge, createTau2NlJudge, readTau2JudgeTemplates } from "./judge.ts";
import { type Tau2Metrics } from "./metrics.ts";
import { runTau2Episode } from "./loop.ts";
import { TAU2_BENCH_RULES } from "./rules.ts";
import type { Tau2SimulationMessage } from "./simulation.ts";
import { type Tau2TaskSet, loadTau2TaskSet } from "./task-sets.ts";
import { type Tau2Task, rawTau2Task } from "./tasks.ts";
import { pyJsonDumps, tau2TrialSeeds } from "../../value/index.ts";
import {
  type Tau2ResultsDocument,
  type Tau2SimulationRecord,
  appendTau2Checkpoint,
  infoIdentity,
  readTau2Checkpoint,
  readTau2Results,
  removeTau2Checkpoint,
  simulationMetrics,
  tau2CheckpointPath,
  writeTau2Results,
} from "./codec.ts";
import { flagTau2Tasks, type Tau2TaskFlag } from "./task-flags.ts";

/** What a participant factory gets: τ²'s `--agent-llm`/`--agent-llm-args` (or the user's), the run's model clients, the domain and data root. */
export interface Tau2FactoryOptions {
  llm: string;
  llmArgs: Record<string, unknown>;
  models?: Tau2RunModels;
  domain?: LoadedTau2Domain;
  dataRoot?: string;
  /** For taubridge's own agent strategies (framework adapters, `module`): `--agent-option`s and the endpoint. */
  agentOptions?: Record<string, string>;
  baseUrl?: string;
}

/**
 * What builds a τ² participant. `solo` marks τ²'s solo agents (the run then uses the solo policy,
 * a solo environment and `dummy_user`); `taskFilter` is τ²'s per-agent task filter (e.g.
 * `llm_agent_gt` only runs tasks with gold actions).
 */
export interface Tau2ParticipantFactory {
  (options: Tau2FactoryOptions): Participant<Tau2Task> | Promise<Participant<Tau2Task>>;
  solo?: boolean;
  taskFilter?: (task: Tau2Task) => boolean;
}

/** The τ² names a run resolves. */
export interface Tau2Registries {
  domains: Registry<Tau2DomainDefinition>;
  agents: Registry<Tau2ParticipantFactory>;
  users: Registry<Tau2ParticipantFactory>;
  /** taubridge's own agent strategies (adapters, `module`, the τ-bench model strategies), for `--agent` names τ² does not define. */
  strategies?: Registry<AgentFactory>;
}

/** Model clients of a τ² run, per role, made on first use (the judge's only when a selected task's basis needs it). */
export interface Tau2RunModels {
  agent?: () => ChatModel;
  user?: () => ChatModel;
  judge?: () => ChatModel | Promise<ChatModel>;
}

/** `tau2 run`'s options, with its defaults (spec §7.2). */
export interface Tau2RunOptions {
  domain: string;
  agent: string;
  user: string;
  agentLlm: string;
  userLlm: string;
  agentLlmArgs: Record<string, unknown>;
  userLlmArgs: Record<string, unknown>;
  numTrials: number;
  numTasks?: number;
  taskIds?: string[];
  taskSetName?: string;
  taskSplitName: string;
  maxSteps: number;
  maxErrors: number;
  maxConcurrency: number;
  seed: number;
  saveTo?: string;
  timeout: number | null;
  maxRetries: number;
  retryDelay: number;
  dataDir: string;
  /** τ²'s `--enforce-communication-protocol` (default off). */
  enforceCommunicationProtocol?: boolean;
  /** `--agent-option key=value` for taubridge's own agent strategies on τ² (framework adapters, `module`). */
  agentOptions?: Record<string, string>;
  /** The agent's endpoint for strategies that take one (`--agent-base-url`). */
  agentBaseUrl?: string;
}

export const TAU2_RUN_DEFAULTS = {
  agent: "llm_agent",
  user: "user_simulator",
  agentLlm: "gpt-4.1-2025-04-14",
  userLlm: "gpt-4.1-2025-04-14",
  llmArgs: { temperature: 0.0 },
  numTrials: 1,
  taskSplitName: "base",
  maxSteps: TAU2_BENCH_RULES.defaultMaxSteps,
  maxErrors: TAU2_BENCH_RULES.defaultMaxErrors as number,
  maxConcurrency: 3,
  seed: 300,
  maxRetries: 3,
  retryDelay: 1.0,
} as const;

/** A stored run was made with other settings or other tasks; resuming would mix two runs. */
export class Tau2ResumeMismatchError extends ConfigError {
  static readonly marker: symbol = errorMarker("Tau2ResumeMismatchError");
}

/** Everything resolved for a run. */
export interface BuiltTau2Run {
  options: Tau2RunOptions;
  domain: LoadedTau2Domain;
  taskSet: Tau2TaskSet;
  agent: Participant<Tau2Task>;
  user: Participant<Tau2Task>;
  judge: Tau2NlJudge | undefined;
  firstAgentMessage: string;
  outputPath: string;
  document: Tau2ResultsDocument;
  /** Units to run, trial-major: (trial, task, seed). */
  units: Array<{ trial: number; task: Tau2Task; seed: number }>;
  flags: Tau2TaskFlag[];
  resumed: number;
  /** τ²'s solo mode (a solo agent, `dummy_user`, the solo policy and environment). */
  solo: boolean;
}

function lastSegment(name: string): string {
  return name.split("/").pop() ?? name;
}

function timestampName(): string {
  const now = new Date();
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}_${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
}

/** `--save-to`: a path (`…/x.json`, or any name with a directory part) as given; a bare name as τ² does, under `./simulations/<name>/results.json`. */
export function tau2OutputPath(options: Pick<Tau2RunOptions, "saveTo" | "domain" | "agent" | "agentLlm" | "user" | "userLlm">): string {
  if (options.saveTo && (options.saveTo.endsWith(".json") || options.saveTo.includes("/"))) return options.saveTo;
  const name = options.saveTo ?? `${timestampName()}_${options.domain}_${options.agent}_${lastSegment(options.agentLlm)}_${options.user}_${lastSegment(options.userLlm)}`;
  return join("simulations", name, "results.json");
}

/** LLM arguments as recorded in results files: anything that looks like a secret is left out. */
function recordedArguments(llmArgs: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(llmArgs).filter(([key]) => !/key|token|secret|password/i.test(key)));
}

function runInfo(options: Tau2RunOptions, domain: LoadedTau2Domain, guidelines: string | null, solo: boolean): Record<string, unknown> {
  return {
    git_commit: "",
    num_trials: options.numTrials,
    max_steps: options.maxSteps,
    max_errors: options.maxErrors,
    user_info: {
      implementation: options.user,
      llm: options.userLlm,
      llm_args: recordedArguments(options.userLlmArgs),
      global_simulation_guidelines: guidelines,
      voice_settings: null,
      persona_config: null,
    },
    agent_info: { implementation: options.agent, llm: options.agentLlm, llm_args: recordedArguments(options.agentLlmArgs), voice_settings: null },
    environment_info: { domain_name: domain.definition.name, policy: domain.policy(solo), tool_defs: null },
    seed: options.seed,
    text_streaming_config: null,
    speech_complexity: null,
    audio_native_config: null,
    retrieval_config: null,
    retrieval_config_kwargs: null,
  };
}

function readGuidelines(dataRoot: string): string | null {
  const path = join(dataRoot, "user_simulator", "simulation_guidelines.md");
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

/** τ²'s own agent of that name, or undefined when it names a shared strategy; an unknown name lists both. */
function tau2AgentFactory(registries: Tau2Registries, name: string): Tau2ParticipantFactory | undefined {
  if (registries.agents.has(name)) return registries.agents.get(name);
  if (registries.strategies?.has(name)) return undefined;
  throw new UnknownNameError("τ² agent", name, [...registries.agents.names(), ...(registries.strategies?.names() ?? [])]);
}

/** Resolves a run: names to objects, the output file, and what a previous run of the same file already did. */
export async function buildTau2Run(options: Tau2RunOptions, registries: Tau2Registries, models: Tau2RunModels = {}): Promise<BuiltTau2Run> {
  const definition = registries.domains.get(options.domain);
  const agentFactory = tau2AgentFactory(registries, options.agent);
  const userFactory = registries.users.get(options.user);
  const domain = loadTau2Domain(definition, options.dataDir);
  const solo = agentFactory?.solo === true;
  if (solo && !definition.supportsSolo) throw new ConfigError(`${options.agent} runs in solo mode, which the ${options.domain} domain does not support (τ²: mock and telecom)`);
  if (solo !== (options.user === "dummy_user"))
    throw new ConfigError(solo ? `${options.agent} is a solo agent: run it with --user dummy_user` : "dummy_user is only valid with a solo agent (llm_agent_solo)");
  const taskSet = loadTau2TaskSet(options.dataDir, {
    taskSetName: options.taskSetName ?? definition.folder,
    split: options.taskSplitName,
    taskIds: options.taskIds,
    numTasks: options.numTasks,
  });
  if (agentFactory?.taskFilter) taskSet.tasks = taskSet.tasks.filter(agentFactory.taskFilter);
  const needsJudge = taskSet.tasks.some((task) => task.evaluation_criteria?.reward_basis.includes("NL_ASSERTION") && (task.evaluation_criteria.nl_assertions?.length ?? 0) > 0);
  const judgeModel = needsJudge ? await models.judge?.() : undefined;
  if (needsJudge && !judgeModel) {
    const count = taskSet.tasks.filter((task) => task.evaluation_criteria?.reward_basis.includes("NL_ASSERTION") && (task.evaluation_criteria.nl_assertions?.length ?? 0) > 0).length;
    throw new ConfigError(
      `${count} of the selected ${options.domain} tasks are scored by τ²'s NL-assertion judge (NL_ASSERTION in their reward basis); give it a model with --judge-model (and --judge-base-url / --judge-provider), or select other tasks`,
    );
  }
  const judge = judgeModel ? createTau2NlJudge(judgeModel, readTau2JudgeTemplates(options.dataDir)) : undefined;
  const outputPath = tau2OutputPath(options);
  const info = runInfo(options, domain, readGuidelines(options.dataDir), solo);
  const seeds = tau2TrialSeeds(options.seed, options.numTrials);
  const document: Tau2ResultsDocument = { timestamp: new Date().toISOString(), info, tasks: taskSet.tasks.map((task) => rawTau2Task(task) ?? new Map()), simulations: [], taubridge: {} };
  const done = existsSync(outputPath) || existsSync(tau2CheckpointPath(outputPath)) ? resumeFrom(outputPath, document, taskSet.tasks) : new Set<string>();
  const units = seeds.flatMap((seed, trial) => taskSet.tasks.filter((task) => !done.has(`${trial}|${task.id}|${seed}`)).map((task) => ({ trial, task, seed })));
  const flags = flagTau2Tasks(taskSet.tasks);
  document.taubridge = { flaggedTasks: flags };
  return {
    options,
    domain,
    taskSet,
    agent: agentFactory
      ? await agentFactory({
          llm: options.agentLlm,
          llmArgs: options.agentLlmArgs,
          models,
          domain,
          dataRoot: options.dataDir,
          agentOptions: options.agentOptions ?? {},
          baseUrl: options.agentBaseUrl,
        })
      : await sharedStrategyAgent(options.agent, (registries.strategies as Registry<AgentFactory>).get(options.agent), options, domain, models),
    user: await userFactory({ llm: options.userLlm, llmArgs: options.userLlmArgs, models, domain, dataRoot: options.dataDir }),
    solo,
    judge,
    firstAgentMessage: readTau2FirstAgentMessage(options.dataDir),
    outputPath,
    document,
    units,
    flags,
    resumed: document.simulations.length,
  };
}

/** τ²'s `try_resume`: same settings, unchanged tasks; infrastructure errors are dropped and re-run. */
function resumeFrom(path: string, document: Tau2ResultsDocument, tasks: readonly Tau2Task[]): Set<string> {
  if (!existsSync(path)) throw new Tau2ResumeMismatchError(`${tau2CheckpointPath(path)} exists without its results file ${path}; delete the checkpoint to start over`);
  const stored = readTau2Results(path);
  const seen = new Set(stored.simulations.map((simulation) => `${simulation.trial}|${simulation.task_id}|${simulation.seed}`));
  for (const record of readTau2Checkpoint(path)) {
    const key = `${record.trial}|${record.task_id}|${record.seed}`;
    if (!seen.has(key)) stored.simulations.push(record);
    seen.add(key);
  }
  if (infoIdentity(stored.info) !== infoIdentity(document.info)) {
    throw new Tau2ResumeMismatchError(`${path} holds a run with other settings (model, arguments, budgets, seed or domain); pass another --save-to, or delete the file to start over`);
  }
  const storedTasks = new Map(stored.tasks.map((task) => [String(task.get("id")), task]));
  for (const task of tasks) {
    const previous = storedTasks.get(task.id);
    if (previous && pyJsonDumps(previous) !== pyJsonDumps(rawTau2Task(task) ?? new Map()))
      throw new Tau2ResumeMismatchError(`${path}: task ${task.id} changed since the stored run; results would not be comparable`);
  }
  document.timestamp = stored.timestamp || document.timestamp;
  document.simulations = stored.simulations.filter((simulation) => simulation.termination_reason !== "infrastructure_error");
  return new Set(document.simulations.map((simulation) => `${simulation.trial}|${simulation.task_id}|${simulation.seed}`));
}

/** A simulation attempt failed on every try; τ² saves a placeholder run with the error. */
export class Tau2AttemptsExhaustedError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("Tau2AttemptsExhaustedError");
}

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
async function simulate(run: BuiltTau2Run, unit: BuiltTau2Run["units"][number], signal: AbortSignal): Promise<Tau2SimulationRecord> {
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
    policy: run.domain.policy(run.solo),
    info: outcome.planned.length > 0 ? { planned_actions: outcome.planned.map((call) => ({ name: call.name, arguments: call.arguments, tool_call_id: call.toolCallId })) } : null,
  };
}

function placeholder(unit: BuiltTau2Run["units"][number], error: unknown, attempts: number): Tau2SimulationRecord {
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

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** How often the whole results file is rewritten during a run (the checkpoint lines are written at once). */
const RESULTS_REWRITE_MS = 5_000;

/** Progress of a batch, one call per finished simulation. */
export type Tau2Progress = (event: { done: number; total: number; record: Tau2SimulationRecord }) => void;

export interface Tau2BatchResult {
  outputPath: string;
  /** The NL judge's usage in this run (null when no task needed it). */
  judgeUsage: Tau2JudgeUsage | null;
  simulations: Tau2SimulationRecord[];
  metrics: Tau2Metrics;
  flags: Tau2TaskFlag[];
  interrupted: boolean;
  resumed: number;
}

/** Runs the units (bounded concurrency, retries, a checkpoint after every simulation). */
export async function runTau2Batch(run: BuiltTau2Run, options: { signal?: AbortSignal; onProgress?: Tau2Progress } = {}): Promise<Tau2BatchResult> {
  const signal = options.signal ?? new AbortController().signal;
  writeTau2Results(run.outputPath, run.document);
  removeTau2Checkpoint(run.outputPath);
  let lastWrite = performance.now();
  let next = 0;
  let done = 0;
  const total = run.units.length;
  const worker = async () => {
    while (next < run.units.length && !signal.aborted) {
      const unit = run.units[next++];
      const record = await attempt(run, unit, signal);
      if (record === null) return;
      run.document.simulations.push(record);
      if (run.judge?.usage) run.document.taubridge.judgeUsage = run.judge.usage();
      appendTau2Checkpoint(run.outputPath, record);
      if (performance.now() - lastWrite > RESULTS_REWRITE_MS) {
        writeTau2Results(run.outputPath, run.document);
        removeTau2Checkpoint(run.outputPath);
        lastWrite = performance.now();
      }
      options.onProgress?.({ done: ++done, total, record });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(run.options.maxConcurrency, total)) }, worker));
  writeTau2Results(run.outputPath, run.document);
  removeTau2Checkpoint(run.outputPath);
  const simulations = run.document.simulations;
  const metrics = simulationMetrics(simulations);
  return { outputPath: run.outputPath, judgeUsage: run.judge?.usage?.() ?? null, simulations, metrics, flags: run.flags, interrupted: signal.aborted, resumed: run.resumed };
}

/** One unit with τ²'s retry policy; null when the run was interrupted. */
async function attempt(run: BuiltTau2Run, unit: BuiltTau2Run["units"][number], signal: AbortSignal): Promise<Tau2SimulationRecord | null> {
  let lastError: unknown;
  for (let attemptIndex = 0; attemptIndex <= run.options.maxRetries; attemptIndex++) {
    if (signal.aborted) return null;
    try {
      return await simulate(run, unit, signal);
    } catch (error) {
      if (signal.aborted) return null;
      if (ConfigError.isInstance(error)) throw error;
      lastError = error;
      if (attemptIndex < run.options.maxRetries && run.options.retryDelay > 0) await sleep(run.options.retryDelay * 1000, signal).catch(() => undefined);
    }
  }
  return placeholder(unit, lastError, run.options.maxRetries + 1);
}
