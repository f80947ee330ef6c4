import { Registry } from "../core/registry.ts";
import type { RoleUsage } from "../core/types.ts";
import type { Agent } from "../participants/agent.ts";
import type { LoadedDomain } from "../suites/tau-bench/engine/domain.ts";
import type { UserSimulator } from "../core/contracts.ts";
import type { RunConfig } from "./run-config.ts";
import type { RunModels } from "./model-clients.ts";

/** What a factory may use to build its part of a run. */
export interface BuildContext {
  config: RunConfig;
  domain: LoadedDomain;
  /** Per-role model clients (created on first use; shared queues per endpoint). */
  models: RunModels;
  /** The run's warning channel (stderr in the CLI), for what a user should know before episodes start. */
  warn?(message: string): void;
}

/** Which episode a per-episode object is for (e.g. to namespace the response cache by trial). */
export interface EpisodeIdentity {
  taskIndex: number;
  trial: number;
}

/** Builds the agent under test for a run (one instance shared by all episodes). */
export interface AgentFactory {
  readonly description: string;
  /** Strategies that call a model need `--model`/`--model-provider`. */
  readonly requiresModel: boolean;
  create(context: BuildContext): Agent | Promise<Agent>;
}

/** A user simulator for one episode, optionally reporting its model usage. */
export type EpisodeUser = UserSimulator & { usage?(): RoleUsage | null };

/** Builds a fresh user simulator per episode. */
export interface UserFactory {
  readonly description: string;
  readonly requiresModel: boolean;
  create(context: BuildContext, episode: EpisodeIdentity): EpisodeUser;
}

/** `--agent-strategy` names. */
export const agentStrategies = new Registry<AgentFactory>("agent strategy");
/** `--user-strategy` names. */
export const userStrategies = new Registry<UserFactory>("user strategy");
