/**
 * The library API of a run: `runBenchmarkWith(registries, options)` runs either suite the way
 * `taubridge run` does (the options are its flags in camel case, checked by the same table with the
 * same errors) and resolves with every episode and the run's metrics, in one shape for both suites.
 * The package entry (`app/index.ts`) binds it to the bundled registries.
 */
import { buildReport, detailsText, leaderboardText, reportJson, type RoleTotals } from "../report/leaderboard.ts";
import type { RoleUsage, TerminationReason } from "../core/types.ts";
import type { EpisodeSummary, ResultSink, TaskSourceFactory } from "../core/run.ts";
import type { SuiteMetrics } from "../core/suite.ts";
import { suiteOf, type Registries } from "../run/registries.ts";
import type { RunOptions } from "../run/run-flags.ts";
import { parseRunSettings, type RunSettings } from "../run/run-settings.ts";
import { checkRunPaths } from "../run/run-paths.ts";

/** One finished episode of a benchmark run (resumed episodes included). */
export interface BenchmarkEpisode {
  taskId: number | string;
  trial: number;
  reward: number;
  /** Why the episode ended; null only for entries of an old checkpoint that did not record it. */
  termination: TerminationReason | null;
  usage: { agent: RoleUsage | null; user: RoleUsage | null } | null;
  /** True when this run found the episode in its checkpoint instead of running it. */
  resumed: boolean;
  /** The episode's error message when it failed (null otherwise). */
  error: string | null;
  /** Framework tools the bridge refused in this episode (not benchmark tools, not executed). */
  unmappedTools: string[];
}

/** The numbers of a run, as the leaderboard shows them (the suite's own definitions). */
export interface BenchmarkMetrics {
  /** pass^k keyed by k (1..trials); null where a task has fewer than k episodes. */
  passK: Record<number, number | null>;
  /** Mean reward over the scored episodes; null when none was scored (every episode an infrastructure error). */
  avgReward: number | null;
  episodes: number;
  tasks: number;
  trials: number;
  /** Episodes by termination reason. */
  terminations: Partial<Record<TerminationReason | "unknown", number>>;
  infraErrors: number;
  /** Calls, tokens and cost per role; cost null when unknown, never 0. */
  usage: { agent: RoleTotals; user: RoleTotals };
  cost: number | null;
}

/** A finished run. `Config` is the suite's validated configuration (τ-bench's RunConfig, τ²'s run options). */
export interface BenchmarkResult<Config = unknown, Details = unknown> {
  /** `tau-bench` or `tau2`. */
  suite: string;
  /** What the run was, as a report row names it ("oracle (no model) on library/test"). */
  title: string;
  episodes: BenchmarkEpisode[];
  metrics: BenchmarkMetrics;
  /** The validated configuration the run used. */
  config: Config;
  /** The results file (τ-bench- or τ²-shaped) and the checkpoint (resume) file. */
  resultsPath: string;
  checkpointPath: string;
  /** Episodes asked for (tasks × trials); `episodes` has fewer when the run was interrupted. */
  expectedEpisodes: number;
  /** The signal aborted the run; its results (and `<results>.meta.json`) are partial. */
  interrupted: boolean;
  /** Lines the suite adds under its report (τ²: the judge's usage, tasks that check less than they seem). */
  notes: string[];
  /** The suite's own result (τ-bench: its batch outcome; τ²: the batch result with its simulations). */
  details: Details;
}

export interface BenchmarkHooks {
  /** Interrupts the run: running episodes are cancelled, finished ones stay checkpointed. */
  signal?: AbortSignal;
  /** Called with the full result of every episode this call runs (the suite's own shape), as it finishes. */
  onEpisode?: (episode: never) => void;
  /** In-process model clients instead of the configured ones (tests, embedders). */
  models?: unknown;
  /** Where warnings go (default: nowhere; the CLI prints them on stderr). */
  warn?: (message: string) => void;
  /** Where the run's pending episodes are leased from (default: in this process); a queue plugs in here. */
  taskSource?: TaskSourceFactory;
  /**
   * Where each episode this call runs goes as soon as it is recorded (an A2A server turns each into a
   * status update): `append` per episode, `flush` once the run's results file is written. The suite
   * keeps writing its own results file and checkpoint as always.
   */
  sink?: Pick<ResultSink<BenchmarkEpisode>, "append" | "flush">;
}

function episodeOf(summary: EpisodeSummary, resumed: boolean): BenchmarkEpisode {
  return {
    taskId: summary.taskId,
    trial: summary.trial,
    reward: summary.reward,
    termination: summary.termination,
    usage: summary.usage,
    resumed,
    error: summary.error ?? null,
    unmappedTools: summary.unmappedTools ?? [],
  };
}

function metricsOf(summaries: readonly EpisodeSummary[], metrics: SuiteMetrics): BenchmarkMetrics {
  const report = buildReport("", summaries, undefined, { metrics });
  return {
    passK: metrics.passK,
    avgReward: metrics.averageReward,
    episodes: report.episodes,
    tasks: metrics.tasks,
    trials: metrics.trials,
    terminations: report.terminations,
    infraErrors: report.infraErrors,
    usage: report.usage,
    cost: report.cost,
  };
}

/** The options of a run validated for its suite (the CLI's table, rules and errors). */
export function runSettingsOf(options: RunOptions): RunSettings {
  return parseRunSettings(options as Record<string, unknown>, "api");
}

/**
 * Runs a benchmark the way `taubridge run` does, with names resolved in `registries`. The options
 * are the `run` flags in camel case (`suite: "tau2"` and τ²'s own spellings included), checked by
 * the same flag table with the same errors as the CLI (a ConfigError naming the flag).
 */
export async function runBenchmarkWith(registries: Registries, options: RunOptions = {}, hooks: BenchmarkHooks = {}): Promise<BenchmarkResult> {
  const settings = runSettingsOf(options);
  // Every path the run is given, before the first episode (one ConfigError naming the flag).
  checkRunPaths(settings, hooks.warn);
  const suite = suiteOf(registries, settings.suite);
  const ranNow = new Set<string>();
  const outcome = await suite.run({
    settings,
    registries,
    signal: hooks.signal,
    warn: hooks.warn,
    models: hooks.models,
    taskSource: hooks.taskSource,
    onEpisode: hooks.onEpisode as ((result: unknown) => void) | undefined,
    progress: {
      episodeDone: ({ result }) => {
        ranNow.add(`${result.taskId}:${result.trial}`);
        void hooks.sink?.append(episodeOf(result, false));
      },
      warn: hooks.warn,
    },
  });
  await hooks.sink?.flush();
  return {
    suite: outcome.suite,
    title: outcome.title,
    episodes: outcome.summaries.map((summary) => episodeOf(summary, !ranNow.has(`${summary.taskId}:${summary.trial}`))),
    metrics: metricsOf(outcome.summaries, outcome.metrics),
    config: outcome.config,
    resultsPath: outcome.path,
    checkpointPath: outcome.checkpointPath,
    expectedEpisodes: outcome.expectedEpisodes,
    interrupted: outcome.interrupted,
    notes: outcome.notes,
    details: outcome.native,
  };
}

/**
 * The leaderboard of a benchmark result, as `taubridge run` prints it: the table (text or
 * Markdown) plus the termination and usage lines, or the JSON report.
 */
export function formatReport(result: BenchmarkResult, options: { format?: "text" | "markdown" | "json"; title?: string } = {}): string {
  const summaries = result.episodes.map((episode) => ({ ...episode, usage: episode.usage }));
  const metrics: SuiteMetrics = {
    trials: result.metrics.trials,
    tasks: result.metrics.tasks,
    averageReward: result.metrics.avgReward,
    passK: result.metrics.passK,
    infraErrors: result.metrics.infraErrors,
  };
  const report = buildReport(options.title ?? result.title, summaries, { expectedEpisodes: result.expectedEpisodes, interrupted: result.interrupted }, { metrics, notes: result.notes });
  if (options.format === "json") return JSON.stringify(reportJson(report), null, 2);
  return `${leaderboardText([report], options.format === "markdown" ? "markdown" : "text")}\n${detailsText(report)}`;
}
