/**
 * The orchestrator: the one owner of an episode (turn loop, step path, budgets, termination).
 * See README.md in this folder for the contract.
 */
export { runEpisode, terminationForError, EpisodeStop, EpisodeTimeoutError, type EpisodeParts, type EpisodeResult } from "../suites/tau-bench/loop.ts";
export { EpisodeStepper, standaloneStepper, MissingRespondContentError, EPISODE_ENDED_OUTPUT, STEP_LIMIT_OUTPUT } from "./step-path.ts";
export { EpisodeRecorder } from "./episode-recorder.ts";
export { TAU_BENCH_RULES, type SuiteRules } from "./suite-rules.ts";
