/**
 * The episode kernel: one owner of an episode for both suites (the one step path, counters,
 * termination, clock, signals, usage meters). See README.md in this folder.
 */
export { EPISODE_ENDED_OUTPUT, EpisodeKernel, EpisodeStop, EpisodeTimeoutError, terminationForError, type StepExecution, type StepExecutor, type TerminationPrecedence } from "./episode-kernel.ts";
export { Clock } from "./clock.ts";
