/**
 * τ-bench as a suite plug-in: runs (`run.py`'s flags), its results files (a plain JSON list, ours
 * or the original's), `rescore` through the same loop and evaluator as a live run, and `replay` of
 * an action list. The CLI and the API reach τ-bench only through this.
 */
import type {
  EpisodeActions,
  ReplayOutcome,
  RescoreOutcome,
  ResultsRequest,
  RunFacets,
  Suite,
  SuiteResults,
  SuiteRunOutcome,
  SuiteRunRequest,
  SuiteUnitRunner,
  UnitRunnerRequest,
} from "../../core/suite.ts";
import { pyJsonDumps, type PyValue } from "../../value/index.ts";
import { ConfigError, DataError } from "../../errors/error-tree.ts";
import { computePassK } from "../../metrics/pass-k.ts";
import { ensureTypeScriptModules } from "../../participants/typescript-modules.ts";
import { defaultDataRoot } from "./data-root.ts";
import type { RunModels } from "../../core/strategies.ts";
import type { Registries } from "../../run/registries.ts";
import type { RunSettings } from "../../run/run-settings.ts";
import { readRunStatus, runStatusPath } from "../../run/run-status.ts";
import { pyJsonDumpsIndented } from "../../value/index.ts";
import { readCheckpointHeader } from "../../run/checkpoint.ts";
import { runTitle } from "../../report/labels.ts";
import { runBatch, tauBenchUnitRunner } from "./batch.ts";
import { buildRun } from "./build.ts";
import { loadResultsFile, type LoadedResultEntry } from "./codec.ts";
import { domainDirectory, loadDomain, type LoadedDomain } from "./engine/domain.ts";
import { tauBenchRecords } from "./records.ts";
import { manifestOfEntries } from "./manifest.ts";
import { storeTauBenchPolicy, tauBenchStoredPolicy } from "./stored-policy.ts";
import type { RunManifest } from "../../core/run-manifest.ts";
import { actionsFromEntry, parseActionsFile, replayActions, rescoreResults } from "./replay.ts";
import { checkResultsConsistent, checkResultsMatchDomain } from "./results-check.ts";
import { tauBenchParts, tauBenchStrategies, type TauBenchParts, type TauBenchSuite } from "./parts.ts";
import { TAU_BENCH_RULES } from "./rules.ts";
import { runConfigFromSettings } from "./run-config.ts";
import { runLogSettings } from "../../run/call-log.ts";
import type { EndStateDiffs } from "../../core/state-diff.ts";
import { inferTauBenchDomain, tauBenchEndStateDiffs } from "./end-state-diff.ts";
import { groundTruthStateFor } from "./evaluator.ts";

function domainOf(registries: Registries, name: string, dataDir: string | undefined): LoadedDomain {
  const definition = tauBenchParts(registries).domains.get(name);
  return loadDomain(definition, dataDir ?? defaultDataRoot(definition));
}

/** The tasks a results file's ids refer to: a task file, or a split (default: the domain's), and how to name them in errors. */
function taskSetOf(domain: LoadedDomain, split: string | undefined, taskFile: string | undefined) {
  if (taskFile) return { tasks: domain.tasksFromFile(taskFile), taskSetName: taskFile };
  const name = split ?? domain.definition.defaultSplit;
  return { tasks: domain.tasks(name), taskSetName: `${domain.name}'s ${name} split` };
}

/** A results file's entries, checked on their own and (with `env`) against the domain. */
function checkedEntries(request: ResultsRequest<Registries>): { entries: LoadedResultEntry[]; domain?: LoadedDomain } {
  const entries = loadResultsFile(request.path);
  if (entries.length === 0) throw new DataError(`${request.path}: the results file holds no episode (an empty list)`);
  checkResultsConsistent(request.path, entries);
  if (!request.env) return { entries };
  const domain = domainOf(request.registries, request.env, request.dataDir);
  const { tasks, taskSetName } = taskSetOf(domain, request.taskSplit, request.taskFile);
  checkResultsMatchDomain(request.path, entries, domain, tasks, taskSetName);
  return { entries, domain };
}

function summariesOf(entries: readonly LoadedResultEntry[]) {
  return entries.map((entry) => ({
    taskId: entry.taskId,
    trial: entry.trial,
    reward: entry.reward,
    termination: entry.termination,
    usage: entry.usage,
    error: entry.error,
    unmappedTools: entry.unmappedTools,
  }));
}

async function run(request: SuiteRunRequest<unknown, Registries>): Promise<SuiteRunOutcome> {
  const registries = request.registries;
  const input = runConfigFromSettings(request.settings as RunSettings, tauBenchParts(registries).defaultDomain);
  await ensureTypeScriptModules(input.agentOptions);
  const warn = request.progress?.warn ?? request.warn;
  const built = buildRun(input, { registries, ...(request.models ? { models: request.models as RunModels } : {}), ...(warn ? { warn } : {}) });
  const observer = { ...request.progress, warn, episode: request.onEpisode };
  const outcome = await runBatch(built, observer, request.signal, { taskSource: request.taskSource, log: runLogSettings((request.settings as RunSettings).values) });
  const { config } = built;
  const facets = tauBenchFacets({ ...config, taskSplit: built.split });
  return {
    suite: "tau-bench",
    path: outcome.resultsPath,
    title: runTitle(facets),
    facets,
    domain: config.env,
    summaries: outcome.summaries,
    metrics: outcome.metrics,
    completeness: { expectedEpisodes: outcome.expectedEpisodes, interrupted: outcome.interrupted },
    notes: [],
    manifest: outcome.manifest,
    records: () => tauBenchRecords(outcome.resultsPath, loadResultsFile(outcome.resultsPath), config.env),
    checkpointPath: outcome.checkpointPath,
    statusPath: runStatusPath(outcome.resultsPath),
    ranEpisodes: outcome.ranEpisodes,
    resumedEpisodes: outcome.resumedEpisodes,
    expectedEpisodes: outcome.expectedEpisodes,
    interrupted: outcome.interrupted,
    config,
    native: outcome,
  };
}

/** A run's episodes in a worker process (`--workers`): built from the same settings as the coordinator's run, without its files. */
async function unitRunner(request: UnitRunnerRequest<unknown, Registries>): Promise<SuiteUnitRunner> {
  const registries = request.registries;
  const input = runConfigFromSettings(request.settings as RunSettings, tauBenchParts(registries).defaultDomain);
  await ensureTypeScriptModules(input.agentOptions);
  return tauBenchUnitRunner(buildRun(input, { registries }), request.warn);
}

/** The facets of a τ-bench run from its options (the run's configuration, or the identity its checkpoint recorded). */
function tauBenchFacets(options: Record<string, unknown>, defaultSplit = "test"): RunFacets {
  const text = (key: string) => (typeof options[key] === "string" && options[key] !== "" ? (options[key] as string) : undefined);
  const [env, user, userModel] = [text("env"), text("userStrategy"), text("userModel")];
  return {
    suite: "τ-bench",
    domain: env ? `${env}/${text("taskSplit") ?? defaultSplit}` : null,
    agent: text("agentStrategy") ?? null,
    model: text("model") ?? "no model",
    user: user && userModel ? `${user} (${userModel})` : (user ?? null),
  };
}

/** The facets of a run its manifest records (a results file without the checkpoint beside it). */
function manifestFacets(manifest: RunManifest): RunFacets {
  const user = manifest.user.model ? `${manifest.user.strategy} (${manifest.user.model})` : manifest.user.strategy;
  return {
    suite: "τ-bench",
    domain: manifest.domain ? `${manifest.domain}/${manifest.taskSet.split ?? "test"}` : null,
    agent: manifest.agent.strategy,
    model: manifest.agent.model ?? "no model",
    user,
  };
}

/**
 * What ran, for a results file read back: the identity in the header of the checkpoint beside it
 * (`<stem>.checkpoint.jsonl`; identity format 2 keeps the options under `options`, format 1 was the
 * options); null for a file without one (the originals' files, or a file copied alone).
 */
function recordedFacets(resultsPath: string, registries: Registries): RunFacets | null {
  const header = readCheckpointHeader(resultsPath.replace(/\.json$/, ".checkpoint.jsonl"));
  const identity = header?.identity;
  if (!identity || typeof identity !== "object") return null;
  const record = identity as Record<string, unknown>;
  const options = (record.identityVersion === 2 ? record.options : record) as Record<string, unknown> | undefined;
  if (!options || typeof options !== "object") return null;
  const domains = tauBenchParts(registries).domains;
  const env = typeof options.env === "string" && domains.has(options.env) ? domains.get(options.env) : undefined;
  const facets = tauBenchFacets(options, env?.defaultSplit);
  return facets.domain && facets.agent && facets.user ? facets : null;
}

async function readResults(request: ResultsRequest<Registries>): Promise<SuiteResults> {
  const { entries } = checkedEntries(request);
  const summaries = summariesOf(entries);
  const status = readRunStatus(request.path);
  // Results schema 2 on: every entry carries the run manifest (its task's definition hash); a file copied without its checkpoint still says what ran.
  const manifest = manifestOfEntries(entries.map((entry) => entry.plain.taubridge?.manifest));
  const facets = recordedFacets(request.path, request.registries) ?? (manifest ? manifestFacets(manifest) : null);
  // The domain stays what --env says (as for the originals' files): tasks of files with and without a manifest still pair in `compare`.
  const domain = request.env ?? null;
  return {
    suite: "tau-bench",
    path: request.path,
    title: facets ? runTitle(facets) : request.path,
    facets,
    domain,
    summaries,
    metrics: computePassK(summaries),
    completeness: status ? { expectedEpisodes: status.expectedEpisodes, interrupted: status.interrupted } : null,
    notes: [],
    manifest,
    policy: tauBenchStoredPolicy(entries.map((entry) => ({ taskId: entry.taskId, trial: entry.trial, block: entry.plain.taubridge }))),
    records: () => tauBenchRecords(request.path, entries, domain),
  };
}

async function rescore(request: ResultsRequest<Registries>): Promise<RescoreOutcome> {
  if (!request.env) throw new ConfigError("rescore needs --env <domain> for a τ-bench results file");
  const { entries, domain } = checkedEntries(request) as { entries: LoadedResultEntry[]; domain: LoadedDomain };
  const { tasks } = taskSetOf(domain, request.taskSplit, request.taskFile);
  const report = await rescoreResults(domain, entries, tasks);
  const passK = Object.entries(report.passK)
    .map(([k, value]) => `pass^${k}=${value === null ? "n/a" : Number(value.toFixed(3))}`)
    .join("  ");
  const lines = [`Recomputed: average reward ${report.averageReward.toFixed(3)}  ${passK}`];
  if (report.infraErrors > 0) lines.push(`Infra errors: ${report.infraErrors} recorded episode(s), left out of pass^k and the average reward`);
  lines.push(`Ground-truth hashes: ${report.hashMatches}/${report.hashCompared} recorded hashes equal ours`);
  if (report.hashExplanation) lines.push(`  why not: ${report.hashExplanation}`);
  const disagreements = report.items.filter((item) => !item.agree);
  return {
    path: request.path,
    total: report.total,
    agree: report.agree,
    lines,
    disagreements,
    rescoredText: () => pyJsonDumpsIndented(report.entries, 2),
    json: {
      total: report.total,
      agree: report.agree,
      passK: report.passK,
      averageReward: report.averageReward,
      infraErrors: report.infraErrors,
      hashCompared: report.hashCompared,
      hashMatches: report.hashMatches,
      legacyHashMatches: report.legacyHashMatches,
      hashExplanation: report.hashExplanation,
      disagreements,
    },
  };
}

/**
 * Each episode's end state against the gold end state (`taubridge view`). The domain is `--env`,
 * else the one the run's checkpoint recorded, else the one domain whose tools the file calls; its
 * data as every command finds it (`--data-dir`, `TAUBRIDGE_DATA_DIR`, the pulled cache, or the
 * data a domain ships).
 */
async function endStateDiffs(request: ResultsRequest<Registries>): Promise<EndStateDiffs> {
  const domains = tauBenchParts(request.registries).domains;
  const recorded = recordedFacets(request.path, request.registries)?.domain?.split("/") ?? [];
  const known = request.env ?? recorded[0];
  // Without data, say so before reading a file that may be hundreds of megabytes (a file that does not name its domain is read to find it).
  if (known) domainDirectory(domains.get(known), request.dataDir ?? defaultDataRoot(domains.get(known)));
  const { entries } = checkedEntries({ ...request, env: undefined });
  const name =
    known ??
    inferTauBenchDomain(
      entries,
      domains.names().map((candidate) => domains.get(candidate)),
    )?.name;
  if (!name) throw new ConfigError(`${request.path} does not say which domain it was recorded on, and its tool calls fit no single domain: pass --env <domain>`);
  const domain = domainOf(request.registries, name, request.dataDir);
  const split = request.taskSplit ?? recorded[1];
  let tasks: ReturnType<LoadedDomain["tasks"]> = [];
  try {
    tasks = taskSetOf(domain, split, request.taskFile).tasks;
  } catch {
    // Entries carry their task (`info.task`); the split is only the fallback.
  }
  return tauBenchEndStateDiffs(domain, entries, tasks, (task) => groundTruthStateFor(domain, task));
}

/** Each episode of a results file as an action file `[{name, kwargs}]` (its steps, or what its trajectory shows), for `replay --from`. */
async function episodeActions(request: ResultsRequest<Registries>): Promise<EpisodeActions> {
  const { entries } = checkedEntries(request);
  const episodes = entries.map((entry) => {
    const extracted = actionsFromEntry(entry);
    if ("error" in extracted) throw new DataError(`${request.path}: task ${entry.taskId} trial ${entry.trial}: ${extracted.error}`);
    const actions = extracted.actions.map(
      (action) =>
        new Map<string, PyValue>([
          ["name", action.name],
          ["kwargs", action.kwargs],
        ]),
    );
    return { taskId: String(entry.taskId), trial: entry.trial, text: pyJsonDumps(actions) };
  });
  return { domain: request.env ?? null, episodes };
}

/** τ-bench's suite plug-in over its parts (created per run or server by the composition root). */
export function createTauBenchSuite(parts: TauBenchParts): TauBenchSuite {
  return { ...TAU_BENCH_SUITE, parts };
}

const TAU_BENCH_SUITE: Suite<Registries> = {
  name: "tau-bench",
  title: "τ-bench",
  dataset: "tau-bench",
  rules: TAU_BENCH_RULES,
  recognizes: (head) => head.trimStart().startsWith("["),
  actionFileShape: 'a JSON array of {"name", "kwargs"} (τ-bench actions)',
  // Its own `{name, kwargs}`, or the agent's steps as `taubridge records` prints them (`{name, arguments, requestor: "agent"}`).
  recognizesActions: (document) =>
    Array.isArray(document) &&
    document.every((item) => item !== null && typeof item === "object" && "name" in item && (!("requestor" in item) ? !("arguments" in item) : (item as { requestor: unknown }).requestor === "agent")),
  replayStartsFromTask: false,
  episodeActions,
  run,
  unitRunner,
  readResults,
  storePolicy: storeTauBenchPolicy,
  rescore,
  endStateDiffs,
  async replay(request): Promise<ReplayOutcome> {
    if (request.taskId !== undefined) throw new ConfigError("--task-id applies to --suite tau2 only");
    const domain = domainOf(request.registries, request.env, request.dataDir);
    const result = await replayActions(domain, parseActionsFile(request.text, request.file));
    const text = result.steps.map((step, index) => `#${index} ${step.name}\n${step.observation ?? `(exception) ${step.exception}`}\n\n`).join("");
    return { json: { steps: result.steps, dataHash: result.dataHash }, text: `${text}data hash: ${result.dataHash}\n` };
  },
  describe: (registries) => {
    const { domains, agents, users } = tauBenchParts(registries);
    const strategies = registries.agentStrategies;
    return {
      domains: domains.names().map((name) => [name, domains.get(name).description]),
      agents: [
        ...agents.names().map((name): [string, string] => [name, agents.get(name).description]),
        ...tauBenchStrategies(registries).map((name): [string, string] => [name, strategies.get(name).description]),
      ],
      users: users.names().map((name) => [name, users.get(name).description]),
    };
  },
};
