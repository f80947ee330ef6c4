/**
 * The public API's building blocks: the contracts, the shared layers and both suites' parts, each
 * taking its domains and strategies as arguments (a {@link Registries} set). The package's main
 * entry (`index.ts`, what `import "taubridge"` loads) re-exports all of this and adds the versions
 * bound to the bundled registries (`runBenchmark`, `loadDomain` by name, `createBundledRegistries`).
 */

// Contracts and types
export * from "../src/core/types.ts";
export * from "../src/errors/error-tree.ts";
export { Registry } from "../src/core/registry.ts";
export type * from "../src/core/contracts.ts";
export type * from "../src/core/model-types.ts";
export type { ToolSchemas } from "../src/suites/tau-bench/engine/domain.ts";
export type { EpisodeResult } from "../src/suites/tau-bench/loop.ts";

// Registries and strategies
export { suiteOf, type Registries } from "../src/run/registries.ts";
export { agentStrategyRegistry, userStrategyRegistry, type AgentFactory, type BuildContext, type OriginalPrompts, type StrategySettings, type UserFactory } from "../src/core/strategies.ts";

// Domains
export { loadDomain, LoadedDomain, domainDirectory } from "../src/suites/tau-bench/engine/domain.ts";

// Episodes: the episode kernel (one owner of an episode, both suites), τ-bench's loop and environment
export { EPISODE_ENDED_OUTPUT, EpisodeKernel, EpisodeStop, EpisodeTimeoutError, terminationForError } from "../src/kernel/index.ts";
export type { SuiteRules } from "../src/core/suite-rules.ts";
export { runEpisode, standaloneStepPath, STEP_LIMIT_OUTPUT, type EpisodeParts } from "../src/suites/tau-bench/loop.ts";
export { TAU_BENCH_RULES } from "../src/suites/tau-bench/rules.ts";
export { simulatedUser, type UserSimulator } from "../src/suites/tau-bench/participants/simulated-user.ts";
export { Environment } from "../src/suites/tau-bench/engine/environment.ts";

// Agents you write yourself: a respond() function (`--agent-strategy module`)
export { FunctionAgent, loadFunctionAgent, type FunctionAgentReply, type FunctionAgentRequest, type FunctionToolCall, type RespondFunction } from "../src/participants/function-agent.ts";

// Running
export { formatReport, runBenchmarkWith, runSettingsOf, type BenchmarkEpisode, type BenchmarkHooks, type BenchmarkMetrics, type BenchmarkResult } from "../src/api/run-benchmark.ts";
export { buildRun, type BuiltRun } from "../src/suites/tau-bench/build.ts";
export { runBatch, type BatchObserver, type BatchOutcome } from "../src/suites/tau-bench/batch.ts";
export { parseRunConfig, type RunConfig, type RunConfigInput } from "../src/suites/tau-bench/run-config.ts";
export { RUN_FLAGS, optionName, type RunFlag, type RunFlagType, type RunOptions } from "../src/run/run-flags.ts";
export { parseRunSettings, type RunSettings } from "../src/run/run-settings.ts";
export { runConfigFromSettings } from "../src/suites/tau-bench/run-config.ts";
export type * from "../src/core/suite.ts";
export type * from "../src/core/episode-record.ts";
export type * from "../src/core/run.ts";

// Scoring: the suite's evaluator over a finished episode (`evaluate`), and `rescoreResults`, which
// runs the episode loop and the evaluator over the trajectories of a results file.
export { evaluate, evaluatorFor, groundTruthHashFor, TauBenchEvaluator } from "../src/suites/tau-bench/evaluator-index.ts";
export { rescoreResults, replayActions, parseActionsFile, type RescoreItem, type RescoreReport, type ReplayStep } from "../src/suites/tau-bench/replay.ts";
export { loadResultsFile, type LoadedResultEntry } from "../src/suites/tau-bench/codec.ts";
export { computePassK as passHatK, computePassK, isSuccess, type PassKReport, type ScoredEpisode } from "../src/metrics/pass-k.ts";

// Reports
export { buildReport, detailsText, leaderboardText, perTaskText, reportJson, type RoleTotals, type RunReport } from "../src/report/leaderboard.ts";

// τ²-bench: domains, environments, the episode loop, the evaluator, runs and results files
export { loadTau2Domain, type LoadedTau2Domain, type Tau2DomainDefinition } from "../src/suites/tau2/engine/domain.ts";
export { Tau2Environment, type Tau2ToolCall, type Tau2ToolResult, type Tau2DatabaseHash } from "../src/suites/tau2/engine/environment.ts";
export { runTau2Episode, type Tau2EpisodeParts, type Tau2EpisodeOutcome } from "../src/suites/tau2/loop.ts";
export { TAU2_BENCH_RULES } from "../src/suites/tau2/rules.ts";
export { evaluateTau2Simulation, type Tau2EvaluationInput } from "../src/suites/tau2/evaluator.ts";
export { createTau2NlJudge, readTau2JudgeTemplates, type Tau2NlJudge } from "../src/suites/tau2/judge.ts";
export { buildTau2Run, TAU2_RUN_DEFAULTS, type Tau2RunOptions, type Tau2Registries, type Tau2ParticipantFactory } from "../src/suites/tau2/build.ts";
export { runTau2Batch, type Tau2BatchResult } from "../src/suites/tau2/batch.ts";
export { readTau2Results, writeTau2Results, type Tau2SimulationRecord } from "../src/suites/tau2/codec.ts";
export { rescoreTau2Results } from "../src/suites/tau2/rescore.ts";
export { replayTau2, parseTau2ActionsFile } from "../src/suites/tau2/replay.ts";
export { computeTau2Metrics, type Tau2Metrics } from "../src/suites/tau2/metrics.ts";
export { readTau2Tasks, type Tau2Task } from "../src/suites/tau2/tasks.ts";
export { tau2Participants } from "../src/suites/tau2/participants/registry.ts";
export { createTau2Suite, type Tau2Suite } from "../src/suites/tau2/suite.ts";
export { createTauBenchSuite } from "../src/suites/tau-bench/suite.ts";
export { tauBenchParts, type TauBenchParts, type TauBenchSuite } from "../src/suites/tau-bench/parts.ts";
