/**
 * The runner's view of one episode: the orchestrator runs it (see `src/orchestrator/`). Kept as the
 * runner's import point so the batch layer, replay and tests name one module.
 */
export { runEpisode, terminationForError, EpisodeStop, EpisodeTimeoutError, type EpisodeParts, type EpisodeResult } from "./loop.ts";
