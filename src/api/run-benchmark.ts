import { buildReport, detailsText, leaderboardText, reportJson, type RoleTotals } from "../report/leaderboard.ts";
import type { RoleUsage, TerminationReason } from "../core/types.ts";
import { buildRun } from "../suites/tau-bench/build.ts";
import { runBatch } from "../suites/tau-bench/batch.ts";
import type { EpisodeResult } from "../suites/tau-bench/loop.ts";
import type { RunConfig } from "../run/run-config.ts";
import { parseRunFlags, runConfigFromFlags, type RunOptions } from "../run/run-flags.ts";
import type { Registries } from "../run/registries.ts";
import { ensureTypeScriptModules } from "../participants/typescript-modules.ts";

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

/** The numbers of a run, as the leaderboard shows them. */
export interface BenchmarkMetrics {
  /** pass^k keyed by k (1..trials); null where a task has fewer than k episodes. */
  passK: Record<number, number | null>;
  avgReward: number;
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

export interface BenchmarkResult {
  episodes: BenchmarkEpisode[];
  metrics: BenchmarkMetrics;
  /** The validated configuration the run used. */
  config: RunConfig;
  /** The τ-bench-shaped results file and the checkpoint (resume) file. */
  resultsPath: string;
  checkpointPath: string;
  /** Episodes asked for (tasks × trials); `episodes` has fewer when the run was interrupted. */
  expectedEpisodes: number;
  /** The signal aborted the run; its results (and `<results>.meta.json`) are partial. */
  interrupted: boolean;
}

export interface BenchmarkHooks {
  /** Interrupts the run: running episodes are cancelled, finished ones stay checkpointed. */
  signal?: AbortSignal;
  /** Called with the full result of every episode this call runs, as it finishes. */
  onEpisode?: (episode: EpisodeResult) => void;
}

/**
 * Runs a benchmark the way `taubridge run` does, with names resolved in `registries`. The options
 * are the `run` flags in camel case, checked by the same flag table and with the same errors as
 * the CLI (a ConfigError naming the flag). The package entry binds this to the bundled registries.
 */
export async function runBenchmarkWith(registries: Registries, options: RunOptions = {}, hooks: BenchmarkHooks = {}): Promise<BenchmarkResult> {
  const values = parseRunFlags(options as Record<string, unknown>, "api");
  const input = runConfigFromFlags(values, registries.defaultDomain);
  await ensureTypeScriptModules(input.agentOptions);
  const built = buildRun(input, { registries });
  const ranNow = new Set<string>();
  const outcome = await runBatch(
    built,
    {
      episode: hooks.onEpisode,
      episodeDone: ({ result }) => ranNow.add(`${result.taskId}:${result.trial}`),
    },
    hooks.signal,
  );
  const report = buildReport(built.config.agentStrategy, outcome.summaries);
  return {
    episodes: outcome.summaries.map((summary) => ({
      taskId: summary.taskId,
      trial: summary.trial,
      reward: summary.reward,
      termination: summary.termination,
      usage: summary.usage,
      resumed: !ranNow.has(`${summary.taskId}:${summary.trial}`),
      error: summary.error ?? null,
      unmappedTools: summary.unmappedTools ?? [],
    })),
    metrics: {
      passK: report.metrics.passK,
      avgReward: report.metrics.averageReward,
      episodes: report.episodes,
      tasks: report.metrics.tasks,
      trials: report.metrics.trials,
      terminations: report.terminations,
      infraErrors: report.infraErrors,
      usage: report.usage,
      cost: report.cost,
    },
    config: built.config,
    resultsPath: outcome.resultsPath,
    checkpointPath: outcome.checkpointPath,
    expectedEpisodes: outcome.expectedEpisodes,
    interrupted: outcome.interrupted,
  };
}

/**
 * The leaderboard of a benchmark result, as `taubridge run` prints it: the table (text or
 * Markdown) plus the termination and usage lines, or the JSON report.
 */
export function formatReport(result: BenchmarkResult, options: { format?: "text" | "markdown" | "json"; title?: string } = {}): string {
  const config = result.config;
  const title = options.title ?? `${config.agentStrategy} (${config.model ?? "no model"}) on ${config.env}`;
  const report = buildReport(title, result.episodes, { expectedEpisodes: result.expectedEpisodes, interrupted: result.interrupted });
  if (options.format === "json") return JSON.stringify(reportJson(report), null, 2);
  return `${leaderboardText([report], options.format === "markdown" ? "markdown" : "text")}\n${detailsText(report)}`;
}
