/**
 * The public API's building blocks: the contracts, the shared layers and both suites' parts, each
 * taking its domains and strategies as arguments (a {@link Registries} set). The package's main
 * entry (`index.ts`, what `import "taubridge"` loads) re-exports all of this and adds the versions
 * bound to the bundled registries (`runBenchmark`, `loadDomain` by name, `createBundledRegistries`).
 */

// Contracts and types
export * from "../src/core/types.ts";
export * from "../src/errors/error-tree.ts";
export { DeferredRegistry, Registry } from "../src/core/registry.ts";
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
export { buildReport, detailsText, leaderboardText, perTaskText, reportJson, type ExtraColumn, type RoleTotals, type RunReport } from "../src/report/leaderboard.ts";

// Reading results (src/analysis): failure facts and the judge, the policy engine, statistics, comparisons, breakdowns, JUnit
export { analyzeRecords, analysisJson, analysisText, failedEpisodes, type Analysis, type AnalyzedEpisode, type AnalysisSummary } from "../src/analysis/analyze.ts";
export { episodeFacts, type EpisodeFacts, type ArgumentDiff, type FactStep } from "../src/analysis/facts.ts";
export { FailureJudge, FAULT_AUTHORS, FAULT_TYPES, type FaultAuthor, type FaultType, type JudgeVerdict, type ConversationReview } from "../src/analysis/judge.ts";
export {
  checkPolicy,
  adherenceScore,
  BUILTIN_PROFILES,
  SEVERITY_WEIGHTS,
  type PolicyHit,
  type PolicyReport,
  type EpisodePolicy,
  type PolicyModels,
  type Strictness,
} from "../src/analysis/policy/engine.ts";
export { loadPolicyFile, parsePolicy, type Policy, type PolicyRule, type Severity } from "../src/analysis/policy/rules.ts";
export { policyJson, policyText } from "../src/analysis/policy/render.ts";
export {
  runStatistics,
  comparePaired,
  signFlipPValue,
  passK as passKOf,
  overallScore,
  PASS_K_CONVENTIONS,
  type RunStatistics,
  type PairedComparison,
  type Outcome,
  type PassKConvention,
} from "../src/analysis/statistics.ts";
export { compareRuns, comparisonJson, comparisonText, type Comparison } from "../src/analysis/compare.ts";
export { breakdownOf, breakdownText, type Breakdown } from "../src/analysis/breakdown.ts";
export { junitXml, runJUnitSuite, compareJUnitSuite, parseMinPass, minPassFailures } from "../src/analysis/junit.ts";
export { manifestDifferences, type ManifestDifference } from "../src/analysis/manifest-diff.ts";
export type * from "../src/core/run-manifest.ts";
export type * from "../src/core/leaderboard.ts";

// Leaderboard submissions (src/submit), over a suite's `leaderboard` support (τ²: `createTau2Suite(parts).leaderboard`)
export { prepareSubmission, validateSubmission, verifyFiles, type PrepareOptions, type ValidationOutcome } from "../src/submit/submit.ts";
export { domainNumbers, leaderboardMetrics, type DomainNumbers } from "../src/submit/metrics.ts";
export { submissionSchema, submissionText, type Submission } from "../src/submit/submission.ts";
export { lineAnswers, type AnswerSource, type PresetAnswers } from "../src/submit/questions.ts";

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
