/**
 * τ²'s build step (`taubridge tau2 run`, as `tau2 run` resolves a run): names to objects — the
 * domain, the task set, the participants (τ²'s own, or taubridge's shared strategies), the judge —
 * the output file, the run's identity, and what an earlier run of the same file already did.
 */
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import type { ChatModel, Participant } from "../../core/contracts.ts";
import { readUtf8File } from "../../data/data-files.ts";
import { derivedCacheKey, readDerived, writeDerived } from "../../data/derived-cache.ts";
import { unpinnedDataWarning } from "../../data/pinned-files.ts";
import { acquireResultsLock, type ResultsLock } from "../../run/results-lock.ts";
import { ConfigError, UnknownNameError } from "../../errors/error-tree.ts";
import { ModelEndpointRefusedError, ModelEndpointUnreachableError } from "../../model/errors.ts";
import type { Registry } from "../../core/registry.ts";
import type { EpisodeSummary } from "../../core/run.ts";
import { agentOptionFiles, identityChanges, identityOf, outcomeAgentOptions, ResumeMismatchError, type RunIdentity } from "../../run/run-identity.ts";
import { checkOutputPath } from "../../run/atomic-file.ts";
import { checkRunSize } from "../../run/run-flags.ts";
import { readRunStatus, runStatusPath } from "../../run/run-status.ts";
import { readCheckpointIdentity } from "../../run/checkpoint.ts";
import { agentName, setAsideOtherRun } from "../../run/run-name.ts";
import { redact, runSecrets } from "../../secrets/redact.ts";
import type { AgentFactory } from "../../core/strategies.ts";
import { fromJs, PyFloat, pyJsonDumps, tau2TrialSeeds, toJs, type PyDict } from "../../value/index.ts";
import { type LoadedTau2Domain, type Tau2DomainConfig, loadTau2Domain } from "./engine/domain.ts";
import { readTau2FirstAgentMessage } from "./engine/upstream-text.ts";
import { type Tau2NlJudge, createTau2NlJudge, readTau2JudgeTemplates } from "./judge.ts";
import { sharedStrategyAgent } from "./participants/shared-strategies.ts";
import { type Tau2SelectedTasks, type Tau2TaskSet, selectTau2Tasks } from "./task-sets.ts";
import { type Tau2Task, rawTau2Task } from "./tasks.ts";
import { type Tau2ResultsDocument, type Tau2SimulationRecord, infoIdentity, prepareTau2TaskTexts, readTau2Checkpoint, readTau2Results, tau2CheckpointPath } from "./codec.ts";
import { flagTau2Tasks, type Tau2TaskFlag } from "./task-flags.ts";
import { tau2Manifest } from "./manifest.ts";
import type { RunManifest } from "../../core/run-manifest.ts";
import { type Tau2ParticipantFactory, type Tau2Registries, type Tau2RunModels, type Tau2RunOptions } from "./run-options.ts";

export { TAU2_RUN_DEFAULTS, type Tau2FactoryOptions, type Tau2ParticipantFactory, type Tau2Registries, type Tau2RunModels, type Tau2RunOptions } from "./run-options.ts";

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
  /** Every unit of the run, trial-major: (trial, task, seed). */
  units: Array<{ trial: number; task: Tau2Task; seed: number }>;
  flags: Tau2TaskFlag[];
  /** Simulations kept from the stored run, by `(task, trial)` key (infrastructure errors included: they run again). */
  resumed: Map<string, Tau2SimulationRecord>;
  /** What decides the run's outcomes (recorded in the results file for the next resume). */
  identity: RunIdentity;
  /** The run manifest the results file's `taubridge` block carries. */
  manifest: RunManifest;
  /** Warnings for the run's channel (a resume that accepted changes). */
  notices: string[];
  /** The results file's lock (`results-lock.ts`), held from the build to the end of the batch. */
  lock: ResultsLock;
  /** τ²'s solo mode (a solo agent, `dummy_user`, the solo policy and environment). */
  solo: boolean;
  /** The run's model clients (the batch stops when their endpoint refused the first call). */
  models: Tau2RunModels;
  /** What the run knows to be secret (keys from the environment, credentials in its settings): never written (`src/secrets`). */
  secrets: readonly string[];
}

function lastSegment(name: string): string {
  return name.split("/").pop() ?? name;
}

/** The task selection, as a name part: the task set or split when given, the ids or the first N (τ-bench's results name has its range too). */
function selectionName(options: Pick<Tau2RunOptions, "taskSetName" | "taskSplitName" | "taskIds" | "numTasks">): string {
  const parts = [options.taskSetName, options.taskSplitName];
  if (options.taskIds?.length) parts.push(`ids_${options.taskIds.join("-")}`.slice(0, 80));
  if (options.numTasks !== undefined) parts.push(`first-${options.numTasks}`);
  return parts.filter((part) => part !== undefined && part !== "").join("_");
}

/**
 * `--save-to`: a path (`…/x.json`, or any name with a directory part) as given; a bare name as τ²
 * does, under `./simulations/<name>/results.json`. Without it, the name says which run it is —
 * domain, task selection, agent (with its module: `agentName`), models, user — and not when it
 * ran, so the same command again finds the results and resumes them (τ² names it by the time).
 */
export function tau2OutputPath(
  options: Pick<Tau2RunOptions, "saveTo" | "domain" | "agent" | "agentLlm" | "user" | "userLlm" | "agentOptions" | "taskSetName" | "taskSplitName" | "taskIds" | "numTasks">,
): string {
  if (options.saveTo && (options.saveTo.endsWith(".json") || options.saveTo.includes("/"))) return options.saveTo;
  const agent = agentName(options.agent, options.agentOptions ?? {});
  const name =
    options.saveTo ??
    [options.domain, selectionName(options), agent, lastSegment(options.agentLlm), options.user, lastSegment(options.userLlm)]
      .filter(Boolean)
      .join("_")
      .replace(/[^A-Za-z0-9._+-]/g, "_");
  return join("simulations", name, "results.json");
}

/** LLM arguments litellm takes as floats: given as a JavaScript number (the API), they are written as Python floats. */
const FLOAT_ARGUMENTS = new Set(["temperature", "top_p", "frequency_penalty", "presence_penalty", "repetition_penalty", "min_p"]);

/**
 * The LLM arguments a results file records: the command line's own spelling when they came as
 * text (`0.0` stays `0.0`, as in the original's files, whose same-agent check hashes them); from a
 * JavaScript object, float parameters as floats. τ² writes them verbatim; taubridge keeps every
 * key but replaces what is secret (`src/secrets`: `api_key`, `extra_headers`' values, credentials
 * in `api_base`, …) with `[REDACTED]`.
 */
function recordedArguments(plain: Record<string, unknown>, python: PyDict | undefined, secrets: readonly string[]): PyDict {
  const source: PyDict = python ?? new Map(Object.entries(plain).map(([key, value]) => [key, typeof value === "number" && FLOAT_ARGUMENTS.has(key) ? new PyFloat(value) : fromJs(value)]));
  return redact(source, { secrets });
}

/** The results file's `info`, as τ² records a run's settings (nothing secret: the LLM arguments are redacted as configuration, the rest as content). */
function runInfo(options: Tau2RunOptions, domain: LoadedTau2Domain, guidelines: string | null, solo: boolean, secrets: readonly string[]): Record<string, unknown> {
  return redact(runSettingsInfo(options, domain, guidelines, solo, secrets), { secrets, content: true });
}

function runSettingsInfo(options: Tau2RunOptions, domain: LoadedTau2Domain, guidelines: string | null, solo: boolean, secrets: readonly string[]): Record<string, unknown> {
  return {
    git_commit: "",
    num_trials: options.numTrials,
    max_steps: options.maxSteps,
    max_errors: options.maxErrors,
    user_info: {
      implementation: options.user,
      llm: options.userLlm,
      llm_args: recordedArguments(options.userLlmArgs, options.userLlmArgsPython, secrets),
      global_simulation_guidelines: guidelines,
      voice_settings: null,
      persona_config: null,
    },
    agent_info: { implementation: options.agent, llm: options.agentLlm, llm_args: recordedArguments(options.agentLlmArgs, options.agentLlmArgsPython, secrets), voice_settings: null },
    environment_info: { domain_name: domain.definition.name, policy: domain.setup?.infoPolicy ?? domain.policy(solo), tool_defs: null },
    seed: options.seed,
    text_streaming_config: null,
    speech_complexity: null,
    audio_native_config: null,
    retrieval_config: domain.setup?.recorded.retrievalConfig ?? null,
    retrieval_config_kwargs: domain.setup?.recorded.retrievalConfigKwargs ?? null,
  };
}

function readGuidelines(dataRoot: string): string | null {
  const path = join(dataRoot, "user_simulator", "simulation_guidelines.md");
  return existsSync(path) ? readUtf8File(path) : null;
}

/** τ²'s own participant of that name; undefined for a shared strategy that runs on τ²; a ConfigError otherwise. */
export function tau2AgentFactory(registries: Tau2Registries, name: string): Tau2ParticipantFactory | undefined {
  if (registries.agents.has(name)) return registries.agents.get(name);
  const known = [...registries.agents.names(), ...tau2Strategies(registries)];
  if (registries.strategies?.has(name)) {
    if (tau2Strategies(registries).includes(name)) return undefined;
    const suites = (registries.strategies.get(name).suites ?? []).map((suite) => (suite === "tau-bench" ? "τ-bench" : suite)).join(", ");
    throw new ConfigError(`the agent strategy "${name}" runs on ${suites} only, not on τ²; τ² agents: ${known.join(", ")}`);
  }
  throw new UnknownNameError("τ² agent", name, known);
}

/** The shared agent strategies that run on τ² (those that do not name other suites only). */
export function tau2Strategies(registries: Pick<Tau2Registries, "strategies">): string[] {
  const strategies = registries.strategies;
  return (strategies?.names() ?? []).filter((name) => strategies?.get(name).suites?.includes("tau2") ?? true);
}

/**
 * The configured domain's work before the first episode (τ³ banking: the knowledge base embedded).
 * An embeddings endpoint that refuses its first call stops the run in one line naming the URL and
 * the flag (exit 2), as a dead agent endpoint does.
 */
async function prepareDomain(domain: LoadedTau2Domain): Promise<void> {
  try {
    await domain.setup?.prepare?.();
  } catch (error) {
    if (ModelEndpointRefusedError.isInstance(error) && error.neverAnswered)
      throw new ModelEndpointUnreachableError(error, error.role === "embedder" ? "--embedder-base-url" : `the ${error.role} model's base URL`);
    throw error;
  }
}

/** The run's domain configuration (τ³ banking: the retrieval variant, its kwargs, the online backends if any). */
export function tau2DomainConfig(options: Pick<Tau2RunOptions, "retrievalConfig" | "retrievalConfigKwargs" | "retrievalBackends">): Tau2DomainConfig {
  return {
    ...(options.retrievalConfig !== undefined ? { retrievalConfig: options.retrievalConfig } : {}),
    ...(options.retrievalConfigKwargs !== undefined ? { retrievalConfigKwargs: options.retrievalConfigKwargs } : {}),
    services: { backends: options.retrievalBackends ?? {} },
  };
}

/**
 * What a run resolves before anything of its files: the factories, solo mode, the domain (prepared
 * unless `worker`: a worker prepares it in its first attempt, see `buildTau2EpisodeParts`), the task
 * set and the judge. A worker that has checked the same selection of the same task file before
 * parses only the tasks its units ask for (`taskSet` is then undefined; see {@link checkedSelection}).
 */
async function resolveTau2Run(options: Tau2RunOptions, registries: Tau2Registries, models: Tau2RunModels, worker = false) {
  const definition = await registries.domains.load(options.domain);
  const agentFactory = tau2AgentFactory(registries, options.agent);
  const userFactory = registries.users.get(options.user);
  const solo = agentFactory?.solo === true;
  if (solo && !definition.supportsSolo) throw new ConfigError(`${options.agent} runs in solo mode, which the ${options.domain} domain does not support (τ²: mock and telecom)`);
  const domain = loadTau2Domain(definition, options.dataDir, tau2DomainConfig(options));
  if (solo !== (options.user === "dummy_user"))
    throw new ConfigError(solo ? `${options.agent} is a solo agent: run it with --user dummy_user` : "dummy_user is only valid with a solo agent (llm_agent_solo)");
  const selected = selectTau2Tasks(options.dataDir, {
    taskSetName: options.taskSetName ?? definition.folder,
    split: options.taskSplitName,
    taskIds: options.taskIds,
    numTasks: options.numTasks,
  });
  // A solo agent's task filter reads the tasks: such a selection is always checked whole.
  const checkedKey = agentFactory?.taskFilter ? undefined : checkedSelectionKey(selected);
  const checked = worker && checkedKey ? checkedSelection(checkedKey, selected) : undefined;
  let taskSet: Tau2TaskSet | undefined;
  if (!checked) {
    const { file, fileSha256, files, splitApplied } = selected;
    taskSet = { tasks: selected.tasks(), file, ...(fileSha256 ? { fileSha256 } : {}), files, splitApplied };
    if (agentFactory?.taskFilter) taskSet.tasks = taskSet.tasks.filter(agentFactory.taskFilter);
  }
  const judgedIds = checked?.judged ?? judgedTaskIds(taskSet?.tasks ?? []);
  // Every selected task validated: recorded for the workers' builds (what follows checks the run, not the tasks).
  if (taskSet && checkedKey) writeDerived(CHECKED_SELECTION_KIND, checkedKey, { ids: selected.ids, judged: judgedIds });
  const count = taskSet?.tasks.length ?? selected.ids.length;
  const judged = await runJudge(options, judgedIds, count, models);
  checkRunSize(count, options.numTrials);
  // A dead reranker or embeddings endpoint stops the run here, in one line naming the URL (exit 2), once the variant is known to be runnable.
  await models.preflight?.();
  if (!worker) await prepareDomain(domain);
  const byId = taskSet ? new Map(taskSet.tasks.map((task) => [task.id, task])) : undefined;
  const task = (id: string) => (byId ? byId.get(id) : selected.task(id));
  return { agentFactory, userFactory, solo, domain, taskSet, task, judge: judged?.judge, judgeModel: judged?.model ?? null };
}

/** The derived cache's kind for a selection whose every task was validated: its ids and those τ²'s judge scores. */
const CHECKED_SELECTION_KIND = "tau2-checked-selection";

/** The key of a selection of one task file (by the file's SHA-256 and the selected ids); undefined for a task folder or an entry with no id. */
function checkedSelectionKey(selected: Tau2SelectedTasks): string | undefined {
  if (selected.fileSha256 === undefined || selected.ids.some((id) => id === undefined)) return undefined;
  return derivedCacheKey(selected.fileSha256, ...(selected.ids as string[]));
}

/**
 * What a build that validated every task of this selection of this file recorded (the run's own
 * build, or a worker's first): its judged ids. Why: every worker of a run of 256 tasks parsed and
 * validated all 256 though it runs a quarter of them (at 4 workers ~0.3 s of CPU each, on the
 * cores the coordinator adds the first jobs with). The file's bytes are the same (the key holds
 * their hash), so the same tasks validate the same way; a unit's task is parsed as its unit asks.
 */
function checkedSelection(key: string, selected: Tau2SelectedTasks): { judged: string[] } | undefined {
  const value = readDerived(CHECKED_SELECTION_KIND, key) as { ids?: unknown; judged?: unknown } | undefined;
  if (!value || !Array.isArray(value.ids) || !Array.isArray(value.judged) || !value.judged.every((id) => typeof id === "string")) return undefined;
  if (value.ids.length !== selected.ids.length || value.ids.some((id, index) => id !== selected.ids[index])) return undefined;
  return { judged: value.judged as string[] };
}

/** The ids of the tasks τ²'s NL-assertion judge scores (a run with any needs a judge model). */
function judgedTaskIds(tasks: readonly Tau2Task[]): string[] {
  return tasks.filter((task) => task.evaluation_criteria?.reward_basis.includes("NL_ASSERTION") && (task.evaluation_criteria.nl_assertions?.length ?? 0) > 0).map((task) => task.id);
}

/** What an episode of a run needs: its parts without the run's files (a worker process holds only these). */
export type Tau2EpisodeParts = Pick<BuiltTau2Run, "options" | "domain" | "agent" | "user" | "judge" | "firstAgentMessage" | "solo" | "models" | "secrets"> & {
  /** A selected task by id (parsed when first asked for in a worker that checked the selection before); undefined for an id the run did not select. */
  task(id: string): Tau2Task | undefined;
  /** The domain's work before a first episode (τ³ banking: the knowledge base embedded), once; a worker's every attempt awaits it first (a run built in one process has done it). */
  prepare?(): Promise<void>;
};

/**
 * A run's parts in a worker process (`--workers`): resolved from the same options as the
 * coordinator's run, with the same participants, judge and model clients, and nothing of its files
 * (no lock, no output path, no resume: the coordinator alone reads and writes those).
 *
 * The domain is prepared in the worker's first attempt, not here. Why: what preparing spends (τ³
 * banking's document embeddings) is reported with an attempt's reply, and a worker that builds the
 * run but is given no attempt (fewer units than workers) never replies; built at once beside the
 * coordinator, which prepares the run before its first unit, the workers also missed the embeddings'
 * disk cache it writes, and embedded the documents again.
 */
export async function buildTau2EpisodeParts(
  options: Tau2RunOptions,
  registries: Tau2Registries,
  models: Tau2RunModels = {},
  secrets: readonly string[] = runSecrets(options),
): Promise<Tau2EpisodeParts> {
  const { agentFactory, userFactory, solo, domain, task, judge } = await resolveTau2Run(options, registries, models, true);
  let prepared: Promise<void> | undefined;
  return {
    prepare: () => (prepared ??= prepareDomain(domain)),
    options,
    domain,
    task,
    agent: await runAgent(options, registries, agentFactory, domain, models),
    user: await userFactory({ llm: options.userLlm, llmArgs: options.userLlmArgs, models, domain, dataRoot: options.dataDir }),
    judge,
    firstAgentMessage: readTau2FirstAgentMessage(options.dataDir),
    solo,
    models,
    secrets,
  };
}

/**
 * Resolves a run: names to objects, the output file, and what a previous run of the same file
 * already did. `secrets`: what the run knows to be secret (the suite passes those of all its
 * settings, `runSecrets(settings.values)`); by default those of the options and the environment.
 */
export async function buildTau2Run(options: Tau2RunOptions, registries: Tau2Registries, models: Tau2RunModels = {}, secrets: readonly string[] = runSecrets(options)): Promise<BuiltTau2Run> {
  const { agentFactory, userFactory, solo, domain, taskSet, judge, judgeModel } = await resolveTau2Run(options, registries, models);
  if (!taskSet) throw new Error("a run's build validates every selected task"); // only a worker's resolves lazily
  const outputPath = tau2OutputPath(options);
  checkOutputPath(outputPath, "--save-to", "file");
  const notices: string[] = [];
  // One run per results file: taken before the file is read for a resume; the batch releases it.
  const lock = acquireResultsLock(outputPath, "--save-to", (message) => notices.push(message));
  try {
    const info = runInfo(options, domain, readGuidelines(options.dataDir), solo, secrets);
    const seeds = tau2TrialSeeds(options.seed, options.numTrials);
    const identity = tau2RunIdentity(options, domain, taskSet, secrets);
    const document: Tau2ResultsDocument = { timestamp: new Date().toISOString(), info, tasks: taskSet.tasks.map((task) => rawTau2Task(task) ?? new Map()), simulations: [], taubridge: {} };
    prepareTau2TaskTexts(document.tasks, taskSet.fileSha256);
    const dataWarning = unpinnedDataWarning([...domainDataFiles(domain.directory).map((name) => join(domain.directory, name)), taskSet.file]);
    if (dataWarning) notices.push(dataWarning);
    // --no-resume starts this run over; another run's results at the same path are set aside, never overwritten silently.
    if (options.resume === false) {
      const recorded = readRunStatus(outputPath)?.identity ?? readCheckpointIdentity(tau2CheckpointPath(outputPath));
      setAsideOtherRun({ results: outputPath, others: [tau2CheckpointPath(outputPath), runStatusPath(outputPath)] }, recorded, identity, (message) => notices.push(message));
    }
    const resumed =
      options.resume !== false && (existsSync(outputPath) || existsSync(tau2CheckpointPath(outputPath)))
        ? resumeFrom(outputPath, document, taskSet.tasks, identity, options, notices, secrets)
        : new Map();
    const units = seeds.flatMap((seed, trial) => taskSet.tasks.map((task) => ({ trial, task, seed })));
    const flags = flagTau2Tasks(taskSet.tasks);
    const manifest = tau2Manifest({ options, domain, taskSet, identity, judgeModel, dataFiles: domainDataFiles(domain.directory) });
    document.taubridge = { flaggedTasks: flags, manifest };
    return {
      options,
      domain,
      taskSet,
      agent: await runAgent(options, registries, agentFactory, domain, models),
      user: await userFactory({ llm: options.userLlm, llmArgs: options.userLlmArgs, models, domain, dataRoot: options.dataDir }),
      solo,
      judge,
      firstAgentMessage: readTau2FirstAgentMessage(options.dataDir),
      outputPath,
      document,
      units,
      flags,
      resumed,
      identity,
      manifest,
      models,
      notices,
      lock,
      secrets,
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * The NL-assertion judge, when a selected task is scored by one. When the judge cannot be set up
 * (no model configured, no API key, an unknown provider) the run is refused before any episode, in
 * one line naming the tasks that need it and the ways forward: a key, an OpenAI-compatible server
 * (`--judge-base-url`), or leaving those tasks out. Never a silent zero and never the whole run
 * failing on a message that does not say which tasks asked for a model.
 */
async function runJudge(options: Tau2RunOptions, judged: readonly string[], selected: number, models: Tau2RunModels) {
  if (judged.length === 0) return undefined;
  let judgeModel: ChatModel | undefined;
  let reason = "no judge model is configured";
  try {
    judgeModel = await models.judge?.();
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    reason = error.message;
  }
  if (!judgeModel) throw new ConfigError(judgeNeededMessage(options.domain, judged, selected, reason));
  return { judge: createTau2NlJudge(judgeModel, readTau2JudgeTemplates(options.dataDir)), model: judgeModel.model };
}

/** The one line for tasks that need a judge the run cannot set up. */
export function judgeNeededMessage(domain: string, judged: readonly string[], selected: number, reason: string): string {
  const shown = judged.length > 8 ? `${judged.slice(0, 8).join(", ")}, … (${judged.length - 8} more)` : judged.join(", ");
  const which = judged.length === 1 ? "that task" : "those tasks";
  return (
    `${judged.length} of the ${selected} selected ${domain} task(s) (${shown}) ${judged.length === 1 ? "is" : "are"} scored by τ²'s NL-assertion judge, which calls a model and cannot run: ${reason.replace(/\.$/, "")}. ` +
    `Give the judge its API key, point it at an OpenAI-compatible server with --judge-base-url (and --judge-model), or leave ${which} out with --task-ids`
  );
}

/** The agent: τ²'s own strategy by its factory, or one of taubridge's shared strategies. */
async function runAgent(options: Tau2RunOptions, registries: Tau2Registries, agentFactory: ReturnType<typeof tau2AgentFactory>, domain: LoadedTau2Domain, models: Tau2RunModels) {
  if (!agentFactory) return sharedStrategyAgent(options.agent, (registries.strategies as Registry<AgentFactory>).get(options.agent), options, domain, models);
  return agentFactory({
    llm: options.agentLlm,
    llmArgs: options.agentLlmArgs,
    models,
    domain,
    dataRoot: options.dataDir,
    agentOptions: options.agentOptions ?? {},
    baseUrl: options.agentBaseUrl,
  });
}

/** The options of a τ² run that decide its outcomes (where files go, how many at once, which tasks and trials are not among them). */
function outcomeOptions(options: Tau2RunOptions, secrets: readonly string[]): Record<string, unknown> {
  const {
    numTrials: _t,
    numTasks: _n,
    taskIds: _i,
    maxConcurrency: _c,
    saveTo: _s,
    maxRetries: _r,
    retryDelay: _d,
    dataDir: _dd,
    resume: _re,
    acceptChanges: _a,
    agentOptions,
    agentLlmArgsPython: _ap,
    userLlmArgsPython: _up,
    retrievalBackends: _rb,
    retrievalConfigKwargs,
    ...rest
  } = options;
  return {
    ...rest,
    ...(retrievalConfigKwargs ? { retrievalConfigKwargs: toJs(retrievalConfigKwargs) } : {}),
    agentLlmArgs: toJs(recordedArguments(options.agentLlmArgs, undefined, secrets)),
    userLlmArgs: toJs(recordedArguments(options.userLlmArgs, undefined, secrets)),
    agentOptions: outcomeAgentOptions(agentOptions ?? {}),
  };
}

/** Every file of the domain's folder but its task sets (those are the task-set part of the identity). */
function domainDataFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !/^(split_)?tasks(_\w+)?\.json$/.test(entry.name) && !relative(directory, entry.parentPath).startsWith("tasks"))
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)));
}

/** What decides a τ² run's outcomes: its options, the task set file, the domain's data files and the files the agent options name. */
export function tau2RunIdentity(options: Tau2RunOptions, domain: LoadedTau2Domain, taskSet: Tau2TaskSet, secrets: readonly string[] = []): RunIdentity {
  return identityOf({
    secrets,
    options: outcomeOptions(options, secrets),
    taskSet: taskSet.files ?? taskSet.file,
    taskSetSha256: taskSet.fileSha256,
    data: { directory: domain.directory, files: domainDataFiles(domain.directory) },
    files: agentOptionFiles(options.agentOptions ?? {}),
  });
}

/** The `(task, trial)` key of a stored simulation. */
export function simulationKey(simulation: Pick<Tau2SimulationRecord, "task_id" | "trial">): string {
  return `${simulation.task_id}\u0000${simulation.trial}`;
}

/** The top-level `info` fields of two runs that differ (the policy text left out), as flags where they have one. */
function infoChanges(stored: Tau2ResultsDocument["info"] | Map<string, unknown>, current: Record<string, unknown>, secrets: readonly string[]): string[] {
  // Both redacted alike (an original's file holds its LLM arguments' keys verbatim, ours holds none): a key is no setting that changed.
  const parse = (info: unknown) => JSON.parse(infoIdentity(redact(info, { secrets }) as Record<string, unknown>)) as Record<string, unknown>;
  const before = parse(stored);
  const after = parse(current);
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key])).map((key) => `info.${key}`);
}

/**
 * τ²'s `try_resume`, with taubridge's identity check: a results file (and its checkpoint) of the
 * same run is resumed; one recorded by taubridge is compared part by part (options, task set,
 * data, agent files, version: the refusal names what changed, `--accept-changes` keeps its
 * simulations anyway); one of the original's is compared by its settings and its tasks.
 * Infrastructure errors are kept until their re-run is done.
 */
function resumeFrom(
  path: string,
  document: Tau2ResultsDocument,
  tasks: readonly Tau2Task[],
  identity: RunIdentity,
  options: Tau2RunOptions,
  notices: string[],
  secrets: readonly string[],
): Map<string, Tau2SimulationRecord> {
  if (!existsSync(path)) throw new ResumeMismatchError(`${tau2CheckpointPath(path)} exists without its results file ${path}; delete the checkpoint to start over`);
  const stored = readTau2Results(path);
  const seen = new Set(stored.simulations.map(simulationKey));
  for (const record of readTau2Checkpoint(path)) {
    if (!seen.has(simulationKey(record))) stored.simulations.push(record);
    seen.add(simulationKey(record));
  }
  // taubridge records the run's identity in the status beside the results file; the original's files have none.
  const recorded = readRunStatus(path)?.identity;
  const changed = recorded ? identityChanges(recorded, identity).changed : [...infoChanges(stored.info, document.info, secrets), ...taskChanges(stored.tasks, tasks)];
  if (changed.length > 0 && !options.acceptChanges)
    throw new ResumeMismatchError(
      `the results file ${path} holds a different run (changed: ${changed.join(", ")}); pass another --save-to or --no-resume to start over, --accept-changes to keep its simulations anyway`,
      changed,
    );
  if (changed.length > 0) notices.push(`resuming despite changes since the stored run (--accept-changes): ${changed.join(", ")}`);
  document.timestamp = stored.timestamp || document.timestamp;
  // Kept simulations are written back redacted with this run's secrets (a file written before redaction, or by the original).
  document.simulations = stored.simulations.map((simulation) => redact(simulation, { secrets, content: true }));
  return new Map(document.simulations.map((simulation) => [simulationKey(simulation), simulation]));
}

/** The tasks of the run that differ from the stored run's copies. */
function taskChanges(stored: readonly Map<string, unknown>[], tasks: readonly Tau2Task[]): string[] {
  const storedTasks = new Map(stored.map((task) => [String(task.get("id")), task]));
  return tasks
    .filter((task) => {
      const previous = storedTasks.get(task.id);
      return previous !== undefined && pyJsonDumps(previous as never) !== pyJsonDumps(rawTau2Task(task) ?? new Map());
    })
    .map((task) => `task ${task.id}`);
}

/** The summary the run layer and the reports read of a stored simulation. */
export type Tau2Summary = EpisodeSummary;
