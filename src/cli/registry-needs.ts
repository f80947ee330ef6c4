import type { LeaderboardSupport } from "../core/leaderboard.ts";
import type { Registries } from "../run/registries.ts";

/**
 * What a command will resolve, so the caller may load only what it needs (undefined: everything,
 * e.g. for `taubridge strategies`): the agent and user names given, whether a model flag was given,
 * and whether τ² is involved.
 */
export interface RegistryNeeds {
  names: string[];
  models: boolean;
  tau2: boolean;
  /** false: the command runs τ² alone and never reads τ-bench's parts (`tau2 run`), so τ-bench's modules need not load. */
  tauBench?: boolean;
}

/**
 * Supplies a suite's leaderboard support alone (undefined: the suite has none), without the suite's
 * domains and participants: `tau2 submit prepare|validate` need nothing else, and loading the whole
 * suite was most of their start-up.
 */
export type LoadLeaderboard = (suite: string) => Promise<LeaderboardSupport | undefined>;

/**
 * Supplies the registries a command resolves names in (created per command: nothing is
 * process-wide). `leaderboard`, when the caller has it, is the cheaper way to a suite's leaderboard
 * support; without it the registries' suite (`Suite.leaderboard`) serves.
 */
export type LoadRegistries = ((needs?: RegistryNeeds) => Promise<Registries>) & { readonly leaderboard?: LoadLeaderboard };
