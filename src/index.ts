/**
 * The core API: everything here takes its domains and strategies as arguments (a
 * {@link Registries} set) and imports no domain, adapter or bridge. The package's main entry
 * (`app/index.ts`, what `import "taubridge"` loads) re-exports all of this and adds the versions
 * bound to the bundled registries (`runBenchmark`, `loadDomain` by name, `createBundledRegistries`).
 */

// Contracts and types
export * from "./core/types.ts";
export * from "./core/errors.ts";
export { Registry } from "./core/registry.ts";
export type * from "./core/contracts.ts";
export type * from "./core/model-types.ts";
export type { ToolSchemas } from "./suites/tau-bench/engine/domain.ts";
export type { EpisodeResult } from "./suites/tau-bench/loop.ts";

// Registries and strategies
export { suiteOf, type Registries } from "./run/registries.ts";
export { agentStrategyRegistry, userStrategyRegistry, type AgentFactory, type BuildContext, type OriginalPrompts, type StrategySettings, type UserFactory } from "./run/strategies.ts";

// Domains
export { loadDomain, LoadedDomain, domainDirectory } from "./suites/tau-bench/engine/domain.ts";

// Episodes: the episode kernel (one owner of an episode, both suites), τ-bench's loop and environment
export { EPISODE_ENDED_OUTPUT, EpisodeKernel, EpisodeStop, EpisodeTimeoutError, terminationForError } from "./kernel/index.ts";
export type { SuiteRules } from "./core/suite-rules.ts";
export { runEpisode, standaloneStepPath, STEP_LIMIT_OUTPUT, type EpisodeParts } from "./suites/tau-bench/loop.ts";
export { TAU_BENCH_RULES } from "./suites/tau-bench/rules.ts";
export { simulatedUser, type UserSimulator } from "./suites/tau-bench/participants/simulated-user.ts";
export { Environment } from "./suites/tau-bench/engine/environment.ts";

// Agents you write yourself: a respond() function (`--agent-strategy module`)
export { FunctionAgent, loadFunctionAgent, type FunctionAgentReply, type FunctionAgentRequest, type FunctionToolCall, type RespondFunction } from "./participants/function-agent.ts";

// Running
export { formatReport, runBenchmarkWith, runSettingsOf, type BenchmarkEpisode, type BenchmarkHooks, type BenchmarkMetrics, type BenchmarkResult } from "./api/run-benchmark.ts";
export { buildRun, type BuiltRun } from "./suites/tau-bench/build.ts";
export { runBatch, type BatchObserver, type BatchOutcome } from "./suites/tau-bench/batch.ts";
export { parseRunConfig, type RunConfig, type RunConfigInput } from "./suites/tau-bench/run-config.ts";
export { RUN_FLAGS, optionName, type RunFlag, type RunFlagType, type RunOptions } from "./run/run-flags.ts";
export { parseRunSettings, type RunSettings } from "./run/run-settings.ts";
export { runConfigFromSettings } from "./suites/tau-bench/run-config.ts";
export type * from "./core/suite.ts";
export type * from "./core/episode-record.ts";
export type * from "./core/run.ts";

// Scoring: the suite's evaluator over a finished episode (`evaluate`), and `rescoreResults`, which
// runs the orchestrator and the evaluator over the trajectories of a results file.
export { evaluate, evaluatorFor, groundTruthHashFor, TauBenchEvaluator } from "./suites/tau-bench/evaluator-index.ts";
export { rescoreResults, replayActions, parseActionsFile, type RescoreItem, type RescoreReport, type ReplayStep } from "./suites/tau-bench/replay.ts";
export { loadResultsFile, type LoadedResultEntry } from "./suites/tau-bench/codec.ts";
export { computePassK as passHatK, computePassK, isSuccess, type PassKReport, type ScoredEpisode } from "./metrics/pass-k.ts";

// Reports
export { buildReport, detailsText, leaderboardText, perTaskText, reportJson, type RoleTotals, type RunReport } from "./report/leaderboard.ts";

// τ²-bench: domains, environments, the orchestrator, the evaluator, runs and results files
export { loadTau2Domain, type LoadedTau2Domain, type Tau2DomainDefinition } from "./suites/tau2/engine/domain.ts";
export { Tau2Environment, type Tau2ToolCall, type Tau2ToolResult, type Tau2DatabaseHash } from "./suites/tau2/engine/environment.ts";
export { runTau2Episode, type Tau2EpisodeParts, type Tau2EpisodeOutcome } from "./suites/tau2/loop.ts";
export { TAU2_BENCH_RULES } from "./suites/tau2/rules.ts";
export { evaluateTau2Simulation, type Tau2EvaluationInput } from "./suites/tau2/evaluator.ts";
export { createTau2NlJudge, readTau2JudgeTemplates, type Tau2NlJudge } from "./suites/tau2/judge.ts";
export { buildTau2Run, TAU2_RUN_DEFAULTS, type Tau2RunOptions, type Tau2Registries, type Tau2ParticipantFactory } from "./suites/tau2/build.ts";
export { runTau2Batch, type Tau2BatchResult } from "./suites/tau2/batch.ts";
export { readTau2Results, writeTau2Results, type Tau2SimulationRecord } from "./suites/tau2/codec.ts";
export { rescoreTau2Results } from "./suites/tau2/rescore.ts";
export { replayTau2, parseTau2ActionsFile } from "./suites/tau2/replay.ts";
export { computeTau2Metrics, type Tau2Metrics } from "./suites/tau2/metrics.ts";
export { readTau2Tasks, type Tau2Task } from "./suites/tau2/tasks.ts";
export { tau2Participants } from "./suites/tau2/participants/registry.ts";
export { createTau2Suite, type Tau2Suite } from "./suites/tau2/suite.ts";
export { createTauBenchSuite } from "./suites/tau-bench/suite.ts";
export { tauBenchParts, type TauBenchParts, type TauBenchSuite } from "./suites/tau-bench/parts.ts";
