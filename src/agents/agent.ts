import type { JsonValue, RoleUsage, TerminationReason } from "../core/types.ts";
import type { Environment } from "../engine/environment.ts";
import type { EpisodeRecorder } from "../runner/episode-recorder.ts";

/** What an agent gets for one episode. */
export interface AgentEpisodeContext {
  env: Environment;
  /** Agent turns before the episode is cut off (τ-bench: 30). */
  maxSteps: number;
  /** Aborted on the per-episode timeout or when the run is cancelled. */
  signal: AbortSignal;
  /** Where messages and environment steps are recorded. */
  recorder: EpisodeRecorder;
  /** Which episode this is (agents pass `cacheNamespace: "trial:<n>"` so trials don't share cached answers). */
  episode: { taskIndex: number; trial: number };
}

/** What an agent reports when its loop ends (normally or at max steps). */
export interface AgentEpisodeResult {
  reward: number;
  termination: TerminationReason;
  /** τ-bench's `info` (task, source, user_cost, reward_info) for the results file. */
  info: Record<string, unknown>;
  /** The agent's own usage (model calls), or null when it made none. */
  usage: RoleUsage | null;
  /** Extra, strategy-specific data for the results file (e.g. bridge planned actions). */
  extra?: Record<string, JsonValue>;
}

/**
 * The agent under test. One instance may serve many concurrent episodes, so it must keep all
 * per-episode state in `solve`'s scope.
 */
export interface Agent {
  readonly name: string;
  solve(context: AgentEpisodeContext): Promise<AgentEpisodeResult>;
  /** Releases resources (child processes, servers) at the end of the run. */
  close?(): Promise<void>;
}
