/**
 * The core API: everything here takes its domains and strategies as arguments (a
 * {@link Registries} set) and imports no domain, adapter or bridge. The package's main entry
 * (`app/index.ts`, what `import "taubridge"` loads) re-exports all of this and adds the versions
 * bound to the bundled registries (`runBenchmark`, `loadDomain` by name, `bundledRegistries`).
 */

// Contracts and types
export * from "./core/types.ts";
export * from "./core/errors.ts";
export { Registry } from "./core/registry.ts";
export type * from "./core/contracts.ts";
export type * from "./core/model-types.ts";
export type { ToolSchemas } from "./engine/domain.ts";
export type { EpisodeResult } from "./runner/episode.ts";
export type { EpisodeSummary } from "./runner/checkpoint.ts";

// Registries and strategies
export { defaultRegistries, setDefaultRegistries, type Registries } from "./runner/registries.ts";
export { agentStrategies, userStrategies, type AgentFactory, type BuildContext, type EpisodeIdentity, type EpisodeUser, type UserFactory } from "./runner/strategies.ts";

// Domains
export { loadDomain, LoadedDomain, domainDirectory } from "./engine/domain.ts";

// Episodes: the orchestrator (one owner of an episode) and the environment
export { runEpisode, EpisodeStepper, standaloneStepper, EpisodeRecorder, TAU_BENCH_RULES, EPISODE_ENDED_OUTPUT, STEP_LIMIT_OUTPUT, type EpisodeParts, type SuiteRules } from "./orchestrator/index.ts";
export { Environment } from "./engine/environment.ts";

// Agents you write yourself: a respond() function (`--agent-strategy module`)
export { FunctionAgent, loadFunctionAgent, type FunctionAgentReply, type FunctionAgentRequest, type FunctionToolCall, type RespondFunction } from "./agents/function-agent.ts";

// Running
export { formatReport, runBenchmarkWith, type BenchmarkEpisode, type BenchmarkHooks, type BenchmarkMetrics, type BenchmarkResult } from "./api/run-benchmark.ts";
export { buildRun, runBatch, type BatchObserver, type BatchOutcome, type BuiltRun } from "./runner/batch.ts";
export { parseRunConfig, type RunConfig, type RunConfigInput } from "./runner/run-config.ts";
export { RUN_FLAGS, optionName, parseRunFlags, runConfigFromFlags, type RunFlag, type RunFlagType, type RunOptions } from "./runner/run-flags.ts";

// Scoring: the suite's evaluator over a finished episode (`evaluate`), and `rescoreResults`, which
// runs the orchestrator and the evaluator over the trajectories of a results file.
export { evaluate, evaluatorFor, groundTruthHashFor, TauBenchEvaluator } from "./evaluators/index.ts";
export { rescoreResults, replayActions, parseActionsFile, type RescoreItem, type RescoreReport, type ReplayStep } from "./runner/replay.ts";
export { loadResultsFile, type LoadedResultEntry } from "./runner/results-file.ts";
export { computePassK as passHatK, computePassK, isSuccess, type PassKReport, type ScoredEpisode } from "./metrics/pass-k.ts";

// Reports
export { buildReport, detailsText, leaderboardText, perTaskText, reportJson, type RoleTotals, type RunReport } from "./report/leaderboard.ts";
