/**
 * τ²-bench as a suite plug-in: runs (`tau2 run`'s flags, which are the run flags' aliases), its
 * `results.json` files (ours or the original's), `rescore` (τ²'s evaluator over the stored
 * trajectories) and `replay` of a tool-call list. The CLI and the API reach τ² only through this.
 */
import { isManifest } from "../../run/run-manifest.ts";
import { storeTau2Policy, tau2StoredPolicy } from "./stored-policy.ts";
import type { ChatModel } from "../../core/contracts.ts";
import { ConfigError, DataError } from "../../errors/error-tree.ts";
import type {
  EpisodeActions,
  RunFacets,
  SuiteMetrics,
  ReplayOutcome,
  RescoreOutcome,
  ResultsRequest,
  Suite,
  SuiteResults,
  SuiteRunOutcome,
  SuiteRunRequest,
  SuiteUnitRunner,
  UnitRunnerRequest,
} from "../../core/suite.ts";
import { isToolCallMessage } from "./simulation.ts";
import { runTitle } from "../../report/labels.ts";
import { ensureTypeScriptModules } from "../../participants/typescript-modules.ts";
import type { RunModels } from "../../core/strategies.ts";
import type { RoleUsage } from "../../core/types.ts";
import type { Registries } from "../../run/registries.ts";
import { agentOptionsOf, type RunSettings } from "../../run/run-settings.ts";
import { readRunStatus, runStatusPath } from "../../run/run-status.ts";
import { runSecrets } from "../../secrets/redact.ts";
import { fromJs, isPyDict, pyJsonDumps, pyJsonDumpsIndented, toJs, type PyDict, type PyValue } from "../../value/index.ts";
import { runTau2Batch, tau2UnitRunner } from "./batch.ts";
import { buildTau2EpisodeParts, buildTau2Run, TAU2_RUN_DEFAULTS, tau2AgentFactory, tau2DomainConfig, tau2Strategies, type Tau2Registries, type Tau2RunModels, type Tau2RunOptions } from "./build.ts";
import { readTau2Results, simulationMetrics, tau2Summary, type LoadedTau2Results, type Tau2SimulationRecord } from "./codec.ts";
import { runLogSettings } from "../../run/call-log.ts";
import { tau2DataRoot } from "./data-root.ts";
import type { EndStateDiffs } from "../../core/state-diff.ts";
import { tau2EndStateDiffs } from "./end-state-diff.ts";
import { loadTau2Domain, tau2DomainDirectory, type Tau2DomainConfig } from "./engine/domain.ts";
import { loadTau2TaskSet } from "./task-sets.ts";
import { parsePythonJsonText, readPythonJsonFile } from "../../data/data-files.ts";
import type { Tau2JudgeUsage } from "./judge.ts";
import type { Tau2Metrics } from "./metrics.ts";
import { tau2Record } from "./records.ts";
import { tau2Leaderboard } from "./leaderboard.ts";
import { parseTau2ActionsFile, replayTau2 } from "./replay.ts";
import { rescoreTau2Results } from "./rescore.ts";
import { TAU2_BENCH_RULES } from "./rules.ts";
import { flagTau2Tasks, type Tau2TaskFlag } from "./task-flags.ts";
import { validateTau2Tasks } from "./tasks.ts";
import { retrievalPlan, withRetrievalBackends, type RetrievalPlan } from "./retrieval-setup.ts";
import type { ModelSettings } from "../../run/model-clients.ts";

/** What τ² resolves names in: its domains and its own agents and users (the shared strategies come from the run's registries). */
export type Tau2Parts = Omit<Tau2Registries, "strategies">;

/** The τ² suite object: the plug-in and the parts it resolves names in. */
export type Tau2Suite = Suite<Registries> & { readonly parts: Tau2Parts };

/** τ²'s names in a set of registries: its parts and the shared strategies. */
function tau2Of(registries: Registries): Tau2Registries {
  if (!registries.suites.has("tau2")) throw new ConfigError("these registries have no τ²-bench suite (register it with createTau2Suite)");
  const { parts } = registries.suites.get("tau2") as Tau2Suite;
  return { ...parts, strategies: registries.agentStrategies };
}

/**
 * A role's LLM arguments: the plain object the requests use, and (given as text) the value-model
 * dict the results file records, with the user's own spelling of every number.
 */
function llmArguments(value: unknown): { plain: Record<string, unknown>; python?: PyDict } {
  if (!isPyDict(value)) return { plain: value as Record<string, unknown> };
  return { plain: toJs(value) as Record<string, unknown>, python: value };
}

/** τ²'s options from the run's settings (the one flag table), with τ²'s defaults. */
export function tau2OptionsFromSettings(settings: RunSettings): Tau2RunOptions {
  const values = settings.values;
  const text = (name: string) => values[name] as string | undefined;
  const domain = text("env");
  if (!domain) throw new ConfigError("a τ² run needs --domain <domain> (mock, airline, retail, telecom, …)");
  const timeout = values.episodeTimeout as number;
  const agentArgs = llmArguments(values.agentLlmArgs);
  const userArgs = llmArguments(values.userLlmArgs);
  return {
    domain,
    agent: text("agentStrategy") ?? TAU2_RUN_DEFAULTS.agent,
    user: text("userStrategy") ?? TAU2_RUN_DEFAULTS.user,
    agentLlm: text("model") ?? TAU2_RUN_DEFAULTS.agentLlm,
    userLlm: text("userModel") ?? TAU2_RUN_DEFAULTS.userLlm,
    agentLlmArgs: agentArgs.plain,
    userLlmArgs: userArgs.plain,
    ...(agentArgs.python ? { agentLlmArgsPython: agentArgs.python } : {}),
    ...(userArgs.python ? { userLlmArgsPython: userArgs.python } : {}),
    numTrials: values.numTrials as number,
    ...(values.numTasks !== undefined ? { numTasks: values.numTasks as number } : {}),
    ...(values.taskIds !== undefined ? { taskIds: (values.taskIds as Array<string | number>).map(String) } : {}),
    ...(text("taskSetName") ? { taskSetName: text("taskSetName") } : {}),
    taskSplitName: text("taskSplit") ?? TAU2_RUN_DEFAULTS.taskSplitName,
    ...(text("retrievalConfig") ? { retrievalConfig: text("retrievalConfig") } : {}),
    ...(values.retrievalConfigKwargs !== undefined
      ? { retrievalConfigKwargs: (isPyDict(values.retrievalConfigKwargs) ? values.retrievalConfigKwargs : fromJs(values.retrievalConfigKwargs)) as PyDict }
      : {}),
    maxSteps: values.maxSteps as number,
    maxErrors: values.maxErrors as number,
    maxConcurrency: values.maxConcurrency as number,
    seed: values.seed as number,
    ...(text("saveTo") ? { saveTo: text("saveTo") } : {}),
    timeout: timeout > 0 ? timeout : null,
    maxRetries: values.episodeRetries as number,
    retryDelay: values.retryDelay as number,
    enforceCommunicationProtocol: values.enforceCommunicationProtocol === true,
    agentOptions: agentOptionsOf(values),
    ...(text("baseUrl") ? { agentBaseUrl: text("baseUrl") } : {}),
    resume: values.resume !== false,
    acceptChanges: values.acceptChanges === true,
    dataDir: tau2DataRoot(text("dataDir")),
  };
}

/** Whether the run's agent and user call a model (τ²'s model participants, or a shared strategy that says so). */
function modelNeeds(parts: Tau2Registries, options: Pick<Tau2RunOptions, "agent" | "user">): { agent: boolean; user: boolean } {
  const agent = parts.agents.has(options.agent)
    ? parts.agents.get(options.agent).requiresModel === true
    : parts.strategies?.has(options.agent) === true && (parts.strategies as NonNullable<Tau2Registries["strategies"]>).get(options.agent).requiresModel;
  return { agent, user: parts.users.has(options.user) && parts.users.get(options.user).requiresModel === true };
}

/**
 * A τ² run's facets. τ² records an LLM for every participant, whether it calls one or not, so τ²'s
 * own participants that call none (the oracle, the scripted user) get `no model`, as τ-bench's rows
 * do; every other agent (a model agent, a framework agent, a function agent) is named with the
 * model the run gave it, and a participant these registries do not know keeps its recorded LLM.
 */
function tau2Facets(parts: Tau2Registries, run: { domain: string | null; agent: string; agentLlm: string | null; user: string; userLlm: string | null; retrieval: string | null }): RunFacets {
  const agentModel = parts.agents.has(run.agent) && parts.agents.get(run.agent).requiresModel !== true ? "no model" : run.agentLlm;
  const userModel = parts.users.has(run.user) && parts.users.get(run.user).requiresModel !== true ? null : run.userLlm;
  return { suite: "τ²-bench", domain: run.domain, agent: run.agent, model: agentModel, user: userModel ? `${run.user} (${userModel})` : run.user, retrieval: run.retrieval };
}

/**
 * The run's model clients, from the run layer (the same clients τ-bench runs use). The model SDK is
 * loaded only when a participant calls a model or a selected task needs the NL judge, so an offline
 * oracle run never loads it; the judge's default model is τ²'s, read from its config.py.
 */
async function modelsFor(
  settings: RunSettings,
  options: Tau2RunOptions,
  registries: Registries,
  parts: Tau2Registries,
  retrieval: RetrievalPlan,
  warn?: (message: string) => void,
): Promise<Tau2RunModels> {
  const { tau2ModelSettings, tau2JudgeSettings } = await import("./models.ts");
  const needs = modelNeeds(parts, options);
  const modelSettings = { ...tau2ModelSettings({ ...options, values: settings.values }, needs), ...(await retrievalRoles(retrieval)) };
  let layer: RunModels | undefined;
  const load = async (): Promise<RunModels> => {
    if (layer) return layer;
    const createModels = registries.createModels ?? (await import("../../run/model-clients.ts")).createRunModels;
    const judge = modelSettings.judgeModel ? {} : tau2JudgeSettings((await import("./judge.ts")).readTau2JudgeTemplates(options.dataDir).defaultModel, settings.values);
    // The cache is told everything the run's settings hold that is secret (the LLM arguments' keys and headers, not only the endpoints').
    layer = createModels({ ...modelSettings, ...judge, secrets: runSecrets(settings.values), ...(warn ? { warn } : {}) });
    return layer;
  };
  const loaded = needs.agent || needs.user || retrieval.embedder || retrieval.reranker ? await load() : undefined;
  return {
    ...(loaded && (needs.agent || needs.user) ? { agent: () => loaded.agent(), user: () => loaded.user() } : {}),
    ...(loaded?.reranker ? { reranker: loaded.reranker } : {}),
    ...(loaded?.embedder ? { embedder: loaded.embedder } : {}),
    roleUsage: () => layer?.roleUsage?.() ?? {},
    ...(loaded?.preflight ? { preflight: loaded.preflight } : {}),
    judge: async () => ((await load()).judge as () => ChatModel)(),
    unreachable: () => layer?.unreachable?.(),
  };
}

/** The run layer's settings of τ³ retrieval's reranker and embedder, as the variant and the flags name them. */
async function retrievalRoles(plan: RetrievalPlan): Promise<Pick<ModelSettings, "reranker" | "embedder">> {
  if (!plan.embedder && !plan.reranker) return {};
  const { embedderEndpoint, UPSTREAM_RERANKER_MODEL } = await import("./retrieval-backends.ts");
  const reranker = plan.reranker;
  const embedder = plan.embedder ? embedderEndpoint(plan.embedder) : undefined;
  return {
    ...(reranker
      ? {
          reranker: {
            model: reranker.model ?? UPSTREAM_RERANKER_MODEL,
            provider: reranker.provider ?? "openai",
            ...(reranker.baseUrl ? { baseUrl: reranker.baseUrl } : {}),
            ...(reranker.apiKeyVariable ? { apiKeyEnv: reranker.apiKeyVariable } : {}),
          },
        }
      : {}),
    ...(embedder
      ? {
          embedder: {
            model: embedder.model,
            provider: embedder.provider,
            encodingFormat: embedder.encodingFormat,
            ...(embedder.baseUrl ? { baseUrl: embedder.baseUrl } : {}),
            ...(embedder.apiKeyEnv ? { apiKeyEnv: embedder.apiKeyEnv } : {}),
            ...(embedder.batchSize ? { batchSize: embedder.batchSize } : {}),
          },
        }
      : {}),
  };
}

/** τ²'s metrics in the reports' shape. */
function suiteMetrics(metrics: Tau2Metrics, trials: number): SuiteMetrics {
  return { trials, tasks: metrics.tasks, averageReward: metrics.averageReward, passK: metrics.passK, infraErrors: metrics.infraErrors };
}

/** The judge's line: calls, tokens, cost (unknown when a price is). */
function judgeLine(usage: Tau2JudgeUsage | null): string {
  if (usage === null) return "NL judge: not needed by these tasks";
  const cost = usage.cost === null ? "cost unknown" : `$${usage.cost.toFixed(4)}`;
  return `NL judge: ${usage.calls} call(s), ${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens, ${cost}`;
}

/** The reranker's and the embedder's lines (τ³ retrieval): calls, tokens, cost (unknown when a price is). */
function roleLines(usage: Readonly<Record<string, RoleUsage>> | null | undefined): string[] {
  if (!usage) return [];
  return Object.entries(usage).map(([role, totals]) => {
    const cost = totals.cost === null ? "cost unknown" : `$${totals.cost.toFixed(4)}`;
    const tokens = role === "embedder" ? `${totals.promptTokens} input tokens` : `${totals.promptTokens} prompt + ${totals.completionTokens} completion tokens`;
    return `${role === "embedder" ? "Embedder" : "Reranker"}: ${totals.calls} call(s), ${tokens}, ${cost}`;
  });
}

/**
 * The line under the report of a run that pairs the scripted user with an agent other than the
 * oracle: that user performs the task's user-side actions whatever the agent says (it is there to
 * check the pipeline with the oracle), so an agent that does nothing can score.
 */
export function scriptedUserLines(agent: string, user: string): string[] {
  if (user !== "scripted" || agent === "oracle") return [];
  return [
    `⚠ the scripted user performs the task's user-side actions whatever the agent says (it checks the pipeline with --agent oracle): with ${agent} these scores mean little, and an agent that does nothing can score; measure an agent with --user user_simulator (or human)`,
  ];
}

/** The tasks whose score checks less than it seems, grouped by reason. */
function flagLines(flags: readonly Tau2TaskFlag[]): string[] {
  if (flags.length === 0) return [];
  const lines = [`⚠ ${flags.length} task(s) score without checking everything their basis names:`];
  const grouped = new Map<string, string[]>();
  for (const flag of flags) for (const reason of flag.reasons) grouped.set(reason, [...(grouped.get(reason) ?? []), flag.taskId]);
  for (const [reason, ids] of grouped) lines.push(`  ${ids.length} × ${reason}: ${ids.slice(0, 8).join(", ")}${ids.length > 8 ? ", …" : ""}`);
  return lines;
}

/** A results file's tasks by id. */
function tasksById(tasks: readonly PyDict[]): Map<string, PyDict> {
  return new Map(tasks.filter((task) => task instanceof Map).map((task) => [String(task.get("id")), task]));
}

/** A results file's own pieces a report reads: its summaries in file order, metrics, domain, agent, notes. */
function resultsView(path: string, results: LoadedTau2Results, parts?: Tau2Registries): Omit<SuiteResults, "completeness"> {
  const info = results.info;
  const environment = info.get("environment_info");
  const agent = info.get("agent_info");
  const user = info.get("user_info");
  const domain = environment instanceof Map ? String(environment.get("domain_name")) : null;
  const implementation = agent instanceof Map ? String(agent.get("implementation")) : "agent";
  const userImplementation = user instanceof Map ? String(user.get("implementation")) : "user";
  const text = (map: unknown, key: string) => (map instanceof Map && typeof map.get(key) === "string" ? (map.get(key) as string) : null);
  const retrieval = info.get("retrieval_config");
  const facets =
    parts && agent instanceof Map && user instanceof Map
      ? tau2Facets(parts, {
          domain,
          agent: implementation,
          agentLlm: text(agent, "llm"),
          user: text(user, "implementation") ?? "user",
          userLlm: text(user, "llm"),
          retrieval: typeof retrieval === "string" ? retrieval : null,
        })
      : null;
  const judge = results.taubridge?.get("judgeUsage");
  const judgeUsage = judge instanceof Map ? (toJs(judge) as Tau2JudgeUsage) : null;
  const roles = results.taubridge?.get("roleUsage");
  const roleUsage = roles instanceof Map ? (toJs(roles) as Record<string, RoleUsage>) : null;
  const flags = flagTau2Tasks(validateTau2Tasks(results.tasks, path));
  const summaries = results.simulations.map(tau2Summary);
  // Results schema 2 on: the run manifest in the file's block (none in the originals' files or ours before).
  const recordedManifest = results.taubridge?.get("manifest");
  const manifest = recordedManifest instanceof Map ? toJs(recordedManifest) : null;
  return {
    suite: "tau2",
    path,
    manifest: isManifest(manifest) ? manifest : null,
    policy: tau2StoredPolicy(results.taubridge),
    title: facets ? runTitle(facets) : `${implementation} on ${domain ?? "?"}`,
    facets,
    domain,
    summaries,
    metrics: suiteMetrics(simulationMetrics(results.simulations), new Set(summaries.map((summary) => summary.trial)).size),
    notes: [judgeLine(judgeUsage), ...roleLines(roleUsage), ...flagLines(flags), ...scriptedUserLines(implementation, userImplementation)],
    runUsage:
      judgeUsage || roleUsage
        ? { ...(judgeUsage ? { judge: { calls: judgeUsage.calls, promptTokens: judgeUsage.promptTokens, completionTokens: judgeUsage.completionTokens, cost: judgeUsage.cost } } : {}), ...roleUsage }
        : null,
    records: () => {
      const tasks = tasksById(results.tasks);
      return results.simulations.map((simulation) => tau2Record(simulation, domain, tasks.get(simulation.task_id)));
    },
  };
}

/** Reads a results file (each task and trial once, at least one simulation) checking, with `env`, that it was recorded on that domain. */
function checkedResults(request: ResultsRequest<Registries>): { results: LoadedTau2Results; domain: string | null } {
  const results = readTau2Results(request.path);
  if (results.simulations.length === 0) throw new DataError(`${request.path}: the results file holds no simulation (field simulations is empty)`);
  const environment = results.info.get("environment_info");
  const domain = environment instanceof Map && typeof environment.get("domain_name") === "string" ? (environment.get("domain_name") as string) : null;
  if (request.env && domain && request.env !== domain) throw new ConfigError(`${request.path} does not belong to --env ${request.env}: it was recorded on the ${domain} domain`);
  return { results, domain: domain ?? request.env ?? null };
}

/** A run's options, names and model clients from its settings, the same in the coordinator and in a worker process. */
async function runInputs(settings: RunSettings, registries: Registries, warn: ((message: string) => void) | undefined, inProcessModels: unknown) {
  const parts = tau2Of(registries);
  const base = tau2OptionsFromSettings(settings);
  // An agent that cannot run here is refused before any model client is made for it.
  tau2AgentFactory(parts, base.agent);
  // The data first: a missing or wrong --data-dir is reported as that, before anything reads it.
  // Only the named domain's modules are loaded (an unknown name is refused here, listing the known ones).
  const definition = await parts.domains.load(base.domain);
  tau2DomainDirectory(definition, base.dataDir);
  // A TypeScript agent module (`--agent-module x.ts`) loads through tsx, as on τ-bench.
  await ensureTypeScriptModules(base.agentOptions);
  // τ³ banking's embedding, reranker and AllTools variants (τ²'s default): their backends, when the flags or the environment provide them, over the run's model clients.
  const defaultRetrievalConfig = definition.defaultRetrievalConfig;
  const plan = base.retrievalBackends ? {} : retrievalPlan(base.retrievalConfig ?? defaultRetrievalConfig, settings.values);
  const models = (inProcessModels as Tau2RunModels | undefined) ?? (await modelsFor(settings, base, registries, parts, plan, warn));
  const options = await withRetrievalBackends(base, settings.values, warn, process.env, defaultRetrievalConfig, {
    ...(models.embedder ? { embedder: models.embedder } : {}),
    ...(models.reranker ? { reranker: models.reranker } : {}),
  });
  return { options, parts, models };
}

/** A run's simulations in a worker process (`--workers`): built from the same settings as the coordinator's run, without its files. */
async function unitRunner(request: UnitRunnerRequest<unknown, Registries>): Promise<SuiteUnitRunner> {
  const settings = request.settings as RunSettings;
  const { options, parts, models } = await runInputs(settings, request.registries, request.warn, undefined);
  return tau2UnitRunner(await buildTau2EpisodeParts(options, parts, models, runSecrets(settings.values)));
}

async function run(request: SuiteRunRequest<unknown, Registries>): Promise<SuiteRunOutcome> {
  const settings = request.settings as RunSettings;
  const { options, parts, models } = await runInputs(settings, request.registries, request.progress?.warn ?? request.warn, request.models);
  // Everything the settings hold that is secret (base URLs of every role, LLM arguments, agent options, the key variables' values): never written.
  const built = await buildTau2Run(options, parts, models, runSecrets(settings.values));
  for (const notice of built.notices) (request.progress?.warn ?? request.warn)?.(notice);
  const progress = request.progress;
  let result: Awaited<ReturnType<typeof runTau2Batch>>;
  try {
    result = await runTau2Batch(built, {
      signal: request.signal,
      taskSource: request.taskSource,
      log: runLogSettings(settings.values),
      observer: { start: (info) => progress?.start?.({ ...info, checkpointPath: built.outputPath }), episodeDone: progress?.episodeDone, episode: request.onEpisode },
    });
  } finally {
    built.lock.release(); // released by the batch too; here also when it fails before its loop
  }
  const view = resultsView(built.outputPath, { timestamp: built.document.timestamp, info: new Map(), tasks: built.document.tasks, simulations: result.simulations, taubridge: null });
  const expected = built.units.length;
  const facets = tau2Facets(parts, {
    domain: options.domain,
    agent: options.agent,
    agentLlm: options.agentLlm,
    user: options.user,
    userLlm: options.userLlm,
    retrieval: options.retrievalConfig ?? null,
  });
  return {
    ...view,
    title: runTitle(facets),
    facets,
    domain: options.domain,
    summaries: result.simulations.map(tau2Summary),
    notes: [judgeLine(result.judgeUsage), ...roleLines(result.roleUsage), ...flagLines(result.flags), ...scriptedUserLines(options.agent, options.user)],
    completeness: { expectedEpisodes: expected, interrupted: result.interrupted },
    manifest: built.manifest,
    records: () => {
      const tasks = tasksById(built.document.tasks);
      return result.simulations.map((simulation) => tau2Record(simulation, options.domain, tasks.get(simulation.task_id)));
    },
    checkpointPath: `${built.outputPath}.checkpoint.jsonl`,
    statusPath: runStatusPath(built.outputPath),
    ranEpisodes: result.ran,
    resumedEpisodes: result.resumed,
    expectedEpisodes: expected,
    interrupted: result.interrupted,
    config: options,
    native: result,
  };
}

async function readResults(request: ResultsRequest<Registries>): Promise<SuiteResults> {
  const { results } = checkedResults(request);
  const status = readRunStatus(request.path);
  return { ...resultsView(request.path, results, tau2Of(request.registries)), completeness: status ? { expectedEpisodes: status.expectedEpisodes, interrupted: status.interrupted } : null };
}

async function rescore(request: ResultsRequest<Registries>): Promise<RescoreOutcome> {
  const { results, domain: domainName } = checkedResults(request);
  if (!domainName) throw new ConfigError(`${request.path}: no info.environment_info.domain_name; pass --env`);
  const dataRoot = tau2DataRoot(request.dataDir);
  const definition = await tau2Of(request.registries).domains.load(domainName);
  const domain = loadTau2Domain(definition, dataRoot, recordedDomainConfig(results.info));
  const taskList = request.freshTasks ? loadTau2TaskSet(dataRoot, { taskSetName: definition.folder, split: null }).tasks : validateTau2Tasks(results.tasks, request.path);
  const tasks = new Map(taskList.map((task) => [task.id, task]));
  let judge;
  if (request.judge?.model) {
    const [{ createModelClient }, { createTau2NlJudge, readTau2JudgeTemplates }] = await Promise.all([import("../../model/model-client.ts"), import("./judge.ts")]);
    const { model, baseUrl, provider, apiKeyEnv } = request.judge;
    const client = createModelClient({
      role: "judge",
      model,
      provider: provider ?? (baseUrl ? "openai-compatible" : "openai"),
      ...(baseUrl ? { baseURL: baseUrl } : {}),
      ...(apiKeyEnv ? { apiKeyEnv } : {}),
    });
    judge = createTau2NlJudge(client, readTau2JudgeTemplates(dataRoot));
  }
  const report = await rescoreTau2Results(domain, results, tasks, judge);
  const disagreements = report.items.filter((item) => !item.agree);
  const passK = Object.entries(report.metrics.passK)
    .map(([k, value]) => `pass^${k}=${value.toFixed(3)}`)
    .join("  ");
  const lines = [`Recomputed: average reward ${report.metrics.averageReward === null ? "n/a" : report.metrics.averageReward.toFixed(3)}  ${passK}`];
  if (report.metrics.infraErrors > 0) lines.push(`Infra errors: ${report.metrics.infraErrors} recorded simulation(s), left out of the metrics`);
  return {
    path: request.path,
    total: report.total,
    agree: report.agree,
    qualifier: `NL verdicts: ${report.judge === "model" ? "judged again" : "recorded ones reused"}`,
    lines,
    disagreements,
    json: { total: report.total, agree: report.agree, judge: report.judge, metrics: report.metrics, disagreements },
    rescoredText: () => rescoredTau2Text(request.path, report.simulations),
  };
}

/**
 * Each simulation's end state against the gold end state (`taubridge view`), on the domain and the
 * domain configuration the file recorded, with the data every command finds (`--data-dir`,
 * `TAUBRIDGE_TAU2_DATA_DIR`, the pulled cache).
 */
async function endStateDiffs(request: ResultsRequest<Registries>): Promise<EndStateDiffs> {
  const { results, domain: domainName } = checkedResults(request);
  if (!domainName) throw new ConfigError(`${request.path}: no info.environment_info.domain_name; pass --env`);
  const definition = await tau2Of(request.registries).domains.load(domainName);
  const domain = loadTau2Domain(definition, tau2DataRoot(request.dataDir), recordedDomainConfig(results.info));
  const tasks = new Map(validateTau2Tasks(results.tasks, request.path).map((task) => [task.id, task]));
  return tau2EndStateDiffs(domain, results, tasks, domainName);
}

/**
 * The results file as recorded (read again losslessly, so fields our reader does not model — reviews,
 * ticks — stay) with each simulation's `reward_info` replaced by the re-scored one.
 */
function rescoredTau2Text(path: string, simulations: readonly Tau2SimulationRecord[]): string {
  const document = readPythonJsonFile(path);
  const recorded = isPyDict(document) ? document.get("simulations") : undefined;
  if (!isPyDict(document) || !Array.isArray(recorded) || recorded.length !== simulations.length) throw new DataError(`${path}: changed while it was re-scored`);
  const rescored = recorded.map((simulation, index) => (isPyDict(simulation) ? new Map(simulation).set("reward_info", simulations[index].reward_info as PyValue) : simulation));
  return `${pyJsonDumpsIndented(new Map(document).set("simulations", rescored))}\n`;
}

/** Each simulation of a results file as an action file: every tool call of its messages, in order, with its requestor. */
async function episodeActions(request: ResultsRequest<Registries>): Promise<EpisodeActions> {
  const { results, domain } = checkedResults(request);
  const episodes = results.simulations.map((simulation) => {
    const calls = simulation.messages.flatMap((message) =>
      isToolCallMessage(message)
        ? message.tool_calls.map(
            (call) =>
              new Map<string, PyValue>([
                ["requestor", call.requestor],
                ["name", call.name],
                ["arguments", call.arguments],
              ]),
          )
        : [],
    );
    return { taskId: simulation.task_id, trial: simulation.trial ?? 0, text: pyJsonDumps(calls) };
  });
  // τ³: the retrieval variant the run used, so its retrieval tools are the ones the episode called.
  const config = results.info.get("retrieval_config");
  const kwargs = results.info.get("retrieval_config_kwargs");
  const options = { ...(typeof config === "string" ? { retrievalConfig: config } : {}), ...(isPyDict(kwargs) ? { retrievalConfigKwargs: pyJsonDumps(kwargs) } : {}) };
  return { domain, episodes, options };
}

async function replay(request: Parameters<Suite<Registries>["replay"]>[0]): Promise<ReplayOutcome> {
  const definition = await tau2Of(request.registries).domains.load(request.env);
  const dataRoot = tau2DataRoot(request.dataDir);
  const domain = loadTau2Domain(definition, dataRoot, replayDomainConfig(request.options ?? {}));
  const calls = parseTau2ActionsFile(request.text, request.file);
  let task;
  if (request.taskId !== undefined) {
    const taskSet = loadTau2TaskSet(dataRoot, { taskSetName: definition.folder, split: null });
    task = taskSet.tasks.find((candidate) => candidate.id === request.taskId);
    if (!task) throw new ConfigError(`task "${request.taskId}" is not in ${taskSet.file}`);
  }
  const result = await replayTau2(domain, calls, task);
  const text = result.steps.map((step, index) => `#${index} ${step.requestor} ${step.name}${step.error ? " (error)" : ""}\n${step.content}\n\n`).join("");
  return { json: result, text: `${text}db hash: agent ${result.dbHash.agent}, user ${result.dbHash.user ?? "none"}\n` };
}

/**
 * The domain configuration a results file recorded (`info.retrieval_config`, `retrieval_config_kwargs`),
 * for scoring only: the evaluator replays no read tool, so a variant whose retrieval backend is
 * missing here still scores (its retrieval tools are simply absent).
 */
function recordedDomainConfig(info: PyDict): Tau2DomainConfig {
  const config = info.get("retrieval_config");
  const kwargs = info.get("retrieval_config_kwargs");
  return { ...(typeof config === "string" ? { retrievalConfig: config } : {}), ...(isPyDict(kwargs) ? { retrievalConfigKwargs: kwargs } : {}), scoringOnly: true };
}

/** `replay --retrieval-config … --retrieval-config-kwargs …` (the kwargs as JSON text, read as Python's json.loads does). */
function replayDomainConfig(options: Record<string, unknown>): Tau2DomainConfig {
  const kwargsText = options.retrievalConfigKwargs;
  let kwargs: PyDict | undefined;
  if (typeof kwargsText === "string") {
    let parsed: unknown;
    try {
      parsed = parsePythonJsonText(kwargsText, "--retrieval-config-kwargs");
    } catch (error) {
      throw new ConfigError(`--retrieval-config-kwargs: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!isPyDict(parsed)) throw new ConfigError("--retrieval-config-kwargs: expected a JSON object");
    kwargs = parsed;
  }
  return tau2DomainConfig({ ...(typeof options.retrievalConfig === "string" ? { retrievalConfig: options.retrievalConfig } : {}), ...(kwargs ? { retrievalConfigKwargs: kwargs } : {}) });
}

/** τ²-bench's suite plug-in over its parts (created per run or server by the composition root). */
export function createTau2Suite(parts: Tau2Parts): Tau2Suite {
  return { ...TAU2_SUITE, parts, leaderboard: tau2Leaderboard() };
}

const TAU2_SUITE: Suite<Registries> = {
  name: "tau2",
  title: "τ²-bench",
  dataset: "tau2-bench",
  rules: TAU2_BENCH_RULES,
  recognizes: (head) => head.trimStart().startsWith("{"),
  actionFileShape: 'a JSON array of {"requestor", "name", "arguments"} (τ² tool calls)',
  recognizesActions: (document) => Array.isArray(document) && document.every((item) => item !== null && typeof item === "object" && "arguments" in item),
  replayStartsFromTask: true,
  episodeActions,
  run,
  unitRunner,
  readResults,
  storePolicy: storeTau2Policy,
  rescore,
  replay,
  endStateDiffs,
  describe: (registries) => {
    const tau2 = tau2Of(registries);
    const strategies = tau2.strategies;
    return {
      domains: tau2.domains.names().map((name) => [name, `τ² ${name}`]),
      agents: [
        ...tau2.agents.names().map((name): [string, string] => [name, tau2.agents.get(name).description ?? name]),
        ...tau2Strategies(tau2)
          .filter((name) => !tau2.agents.has(name))
          .map((name): [string, string] => [name, strategies!.get(name).description]),
      ],
      users: tau2.users.names().map((name) => [name, tau2.users.get(name).description ?? name]),
    };
  },
};
