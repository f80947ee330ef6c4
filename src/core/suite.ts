/**
 * A suite as a plug-in (τ-bench, τ²-bench): everything that differs between the benchmarks — its
 * rules and loop, engine, tasks, evaluator, results files, metrics — behind one shape, so the CLI,
 * the API, the reports and the readers exist once and serve both. A suite is registered by the
 * composition root (`app/`); nothing shared imports a suite.
 */
import type { EpisodeRecord } from "./episode-record.ts";
import type { RunManifest, StoredPolicy } from "./run-manifest.ts";
import type { LeaderboardSupport } from "./leaderboard.ts";
import type { EndStateDiffs } from "./state-diff.ts";
import type { EpisodeSummary, TaskSourceFactory, RoleUsageDelta, WorkUnit } from "./run.ts";
import type { SuiteRules } from "./suite-rules.ts";
import type { RoleUsage } from "./types.ts";

/** What a run asks of a suite: its settings (one flag table for both suites) and the run's surroundings. */
export interface SuiteRunRequest<Settings = unknown, Registries = unknown> {
  settings: Settings;
  registries: Registries;
  signal?: AbortSignal;
  /** Progress of the batch (the CLI's bar or status lines). */
  progress?: SuiteProgress;
  /** The run's warning channel (stderr in the CLI). */
  warn?(message: string): void;
  /** Each episode run now, in the suite's own result shape, after it is recorded. */
  onEpisode?(result: unknown): void;
  /** In-process model clients instead of the configured ones (tests, embedders). */
  models?: unknown;
  /** Where the run's pending episodes are leased from (default: in this process). */
  taskSource?: TaskSourceFactory;
}

/**
 * What a worker (a `--workers` process, a queue's worker on another machine) asks of a suite: the
 * run's settings as the coordinator parsed them from the same flags, and the worker's registries.
 * The worker reads secrets (API keys) from its own environment; the settings hold none.
 */
export interface UnitRunnerRequest<Settings = unknown, Registries = unknown> {
  settings: Settings;
  registries: Registries;
  /** Warnings of the participants while they run units (the coordinator prints them). */
  warn?(message: string): void;
}

/**
 * A run's parts in a worker, built from its settings like a local run's (domain, tasks,
 * participants, model clients, judge), without its files: the coordinator alone reads the
 * checkpoint and writes the results. Each `execute` runs one attempt of a unit exactly as the
 * local run would.
 */
export interface SuiteUnitRunner {
  /** One attempt; resolves with the result's wire form (plain JSON), rejects with what the attempt threw. */
  execute(unit: WorkUnit, signal: AbortSignal): Promise<unknown>;
  /** Usage spent outside results since the last call (τ²'s NL judge), by role. */
  usage?(): RoleUsageDelta;
  /** A model endpoint that refused the run's first call: the coordinator stops the run with it. */
  unreachable?(): Error | undefined;
  /** What the run knows to be secret here (the worker's keys): nothing the worker sends holds them. */
  readonly secrets: readonly string[];
  /** Releases the participants (processes, pools); called once. */
  close(): Promise<void>;
}

/** Progress callbacks a run reports to. */
export interface SuiteProgress {
  start?(info: { total: number; alreadyDone: number; checkpointPath: string; rerunInfraErrors?: number; resumed?: boolean; successes?: number; cost?: number | null }): void;
  episodeDone?(info: { result: EpisodeSummary; done: number; total: number; successes: number; cost: number | null }): void;
  warn?(message: string): void;
}

/** The metrics a report shows, computed with the suite's own definitions. */
export interface SuiteMetrics {
  /** Number of distinct trial values present. */
  trials: number;
  tasks: number;
  /** Mean raw reward over the scored episodes (infrastructure errors left out); null when none was scored. */
  averageReward: number | null;
  /** pass^k for k = 1..trials; null where a task has too few episodes for k. */
  passK: Record<number, number | null>;
  infraErrors: number;
}

/**
 * What a run was, one facet at a time, so a report over several results files can label each row by
 * what differs between them (and say once what they share). A facet the file does not record is null.
 */
export interface RunFacets {
  /** `τ-bench`, `τ²-bench`. */
  suite: string;
  /** The domain, with τ-bench's split (`retail/test`). */
  domain: string | null;
  /** The agent strategy or τ² agent. */
  agent: string | null;
  /** The agent's model, `no model` when the agent calls none. */
  model: string | null;
  /** The user simulator, with its model when it calls one (`llm (gpt-4o)`). */
  user: string | null;
  /** τ³ banking_knowledge's retrieval variant, when the run had one. */
  retrieval?: string | null;
}

/** A results file (or a run) as the reports read it, whichever suite wrote it. */
export interface SuiteResults {
  suite: string;
  /** The results file. */
  path: string;
  /** What the run was, for a report row ("oracle (no model) on library/test"). */
  title: string;
  /** The run facet by facet, when the file (or the checkpoint beside it) records it; null when it does not (the originals' files). */
  facets?: RunFacets | null;
  domain: string | null;
  summaries: EpisodeSummary[];
  metrics: SuiteMetrics;
  /** Known when the run says how it ended (`.meta.json`): a cut-short run is reported as partial. */
  completeness: { expectedEpisodes: number; interrupted: boolean } | null;
  /** Lines the suite adds under the report (τ²: the judge's usage, tasks whose score checks less than it seems). */
  notes: string[];
  /** The canonical episode records of the file (ours or the original's), read on demand. */
  records(): EpisodeRecord[];
  /**
   * Usage of the model roles the records do not carry, summed over the run as the file records it
   * (τ²: the NL-assertion `judge`; τ³: `reranker`, `embedder`); absent or null when none was recorded.
   */
  runUsage?: Readonly<Record<string, RoleUsage>> | null;
  /** The run manifest the file records (taubridge's files from results schema 2 on); null for others. */
  manifest?: RunManifest | null;
  /** The policy check a `run --policy` stored in the file; null when none was. */
  policy?: StoredPolicy | null;
}

/** A finished run: its results as a report reads them, where they went, and how it ended. */
export interface SuiteRunOutcome extends SuiteResults {
  checkpointPath: string;
  statusPath: string;
  ranEpisodes: number;
  resumedEpisodes: number;
  expectedEpisodes: number;
  interrupted: boolean;
  /** The validated configuration the run used, in the suite's own shape (τ-bench: its RunConfig; τ²: its run options). */
  config: unknown;
  /** The suite's own result (τ-bench: the batch outcome; τ²: the batch result with its simulations). */
  native: unknown;
}

/** Which results file a command reads, and on which domain to check or replay it. */
export interface ResultsRequest<Registries = unknown> {
  path: string;
  registries: Registries;
  /** Check the file was recorded on this domain (refused in one line when it was not). */
  env?: string;
  dataDir?: string;
  taskSplit?: string;
  taskFile?: string;
  /** τ²: re-judge NL assertions with this model (default: reuse the recorded verdicts). */
  judge?: { model?: string; baseUrl?: string; provider?: string; apiKeyEnv?: string };
  /** τ² (`tau2 evaluate-trajs --fresh-tasks`): score against the current task files, not the tasks the results file recorded. */
  freshTasks?: boolean;
}

/** What `rescore` found for one file. */
export interface RescoreOutcome {
  path: string;
  total: number;
  agree: number;
  /** Said after "Rewards: a/b agree with the recorded rewards" (τ²: where the NL verdicts came from). */
  qualifier?: string;
  /** Lines printed under "Rewards: a/b agree" (recomputed metrics, hashes, infra errors). */
  lines: string[];
  disagreements: Array<{ taskId: number | string; trial: number; recordedReward: number; reward: number | null; note?: string }>;
  /** The JSON `--format json` prints. */
  json: Record<string, unknown>;
  /**
   * The re-scored results file's text (`rescore -o <dir>`, as τ²'s `evaluate-trajs -o`): the file as
   * recorded with each re-scored reward (and its reward info) replaced, in the file's own format.
   */
  rescoredText?(): string;
}

/** The episodes of a results file as action files (`replay --from`). */
export interface EpisodeActions {
  /** The domain the file records (τ²), or null (τ-bench files do not say: `--env`). */
  domain: string | null;
  episodes: Array<{ taskId: string; trial: number; text: string }>;
  /** The replay options the file recorded, as their flags' values (τ³: its retrieval variant); flags given override them. */
  options?: Record<string, string>;
}

/** A replay of a fixed action list on fresh data. */
export interface ReplayRequest<Registries = unknown> {
  registries: Registries;
  env: string;
  /** The action file's text and name. */
  text: string;
  file: string;
  dataDir?: string;
  taskId?: string;
  /** Other options the suite reads (τ³: the retrieval variant). */
  options?: Record<string, unknown>;
}

export interface ReplayOutcome {
  json: unknown;
  text: string;
}

/** One suite. */
export interface Suite<Registries = unknown> {
  /** `tau-bench` or `tau2`. */
  readonly name: string;
  /** How people write it (`τ-bench`, `τ²-bench`). */
  readonly title: string;
  /** The dataset its `--data-dir` holds (`taubridge data pull <dataset>`). */
  readonly dataset?: string;
  readonly rules: SuiteRules;
  /** True when a results file whose first characters are `head` is one of this suite's (a JSON list, a JSON object, …). */
  recognizes(head: string): boolean;
  /** What a valid action file of this suite looks like, for the hint when another suite's file is given. */
  readonly actionFileShape: string;
  /** True when a parsed action file (plain JSON) has this suite's shape. */
  recognizesActions(document: unknown): boolean;
  /** Whether a replay starts from a task's initial state (τ²): `replay --task-id` then names that task too. */
  readonly replayStartsFromTask: boolean;
  /**
   * Each episode of a results file (ours or the original's) as this suite's action file, losslessly
   * (Python number types kept), and the domain when the file records it: `replay --from`.
   */
  episodeActions(request: ResultsRequest<Registries>): Promise<EpisodeActions>;
  run(request: SuiteRunRequest<unknown, Registries>): Promise<SuiteRunOutcome>;
  /** A run's parts in a worker process (`--workers`, a queue's workers); absent: the suite's runs stay in one process. */
  unitRunner?(request: UnitRunnerRequest<unknown, Registries>): Promise<SuiteUnitRunner>;
  readResults(request: ResultsRequest<Registries>): Promise<SuiteResults>;
  /** Stores `run --policy`'s check in a results file this suite wrote, where its `taubridge` block lives (the rest of the file unchanged, written atomically). */
  storePolicy?(path: string, policy: StoredPolicy): void;
  rescore(request: ResultsRequest<Registries>): Promise<RescoreOutcome>;
  replay(request: ReplayRequest<Registries>): Promise<ReplayOutcome>;
  /**
   * Each episode's end state against the gold end state, row by row (`taubridge view`): the
   * episode's state-changing calls and the task's gold actions replayed on fresh copies of the
   * domain's data, as the evaluator does for its hash. Rejects (ConfigError, DataError) when the
   * domain or its data cannot be had; absent: the suite cannot say.
   */
  endStateDiffs?(request: ResultsRequest<Registries>): Promise<EndStateDiffs>;
  /** Leaderboard submissions (τ²'s `submit prepare|validate`); absent for suites without a leaderboard format. */
  readonly leaderboard?: LeaderboardSupport;
  /** The names the suite resolves, for `taubridge strategies`. */
  describe(registries: Registries): { domains: Array<[string, string]>; agents: Array<[string, string]>; users: Array<[string, string]> };
}
