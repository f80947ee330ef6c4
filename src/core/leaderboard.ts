/**
 * What a suite offers for leaderboard submissions (τ²'s `tau2 submit`): its results files read as
 * the leaderboard's checks need them, and the current base-split tasks of a domain. The submission
 * logic (`src/submit`) is suite-neutral and reaches the suite only through this contract.
 */

/** One simulation as the leaderboard's metrics see it (file order is kept). */
export interface LeaderboardSimulation {
  taskId: string;
  trial: number;
  /** The reward (null when the simulation has no reward info: pandas reads it as missing). */
  reward: number | null;
  infrastructureError: boolean;
  /** The agent's cost (null: unknown). */
  agentCost: number | null;
}

/** A task with its definition hash (a results file's copy, or the current task of the base split). */
export interface LeaderboardTaskDefinition {
  id: string;
  /**
   * SHA-256 of the task's full definition, as the original's `get_pydantic_hash(task)`. A suite may
   * compute it when first read: a check that finds two definitions equal never needs it.
   */
  readonly hash: string;
}

/** A task of a results file: its id, definition hash, and action count (the order pass^k is summed in). */
export interface LeaderboardTask extends LeaderboardTaskDefinition {
  /** τ²'s `task_num_actions`: agent plus user gold actions, −1 for a task whose one action is a transfer. */
  numActions: number;
}

/** A results file read for a submission. */
export interface LeaderboardResultsFile {
  path: string;
  domain: string;
  /** `info.num_trials`. */
  numTrials: number | null;
  agentLlm: string | null;
  userLlm: string | null;
  /** The text τ² hashes to check agent and user configuration are equal across domains (`get_dict_hash`). */
  agentUserConfiguration: string;
  /** The same, readable, for messages. */
  agentUserDescription: string;
  /** τ³ banking_knowledge's retrieval variant (`info.retrieval_config`). */
  retrievalConfig: string | null;
  /** Whether any simulation is audio-native (τ² voice): voice submissions are not supported. */
  voice: boolean;
  tasks: LeaderboardTask[];
  simulations: LeaderboardSimulation[];
}

/** A suite's leaderboard support. */
export interface LeaderboardSupport {
  /** The leaderboard's domains, in the order the submission schema lists them. */
  readonly domains: readonly string[];
  /** Reads a results file (an unreadable one throws a one-line DataError naming it). */
  readResults(path: string): LeaderboardResultsFile;
  /** The current tasks of the domain's base split, with their definition hashes. */
  baseTasks(domain: string, dataDir?: string): LeaderboardTaskDefinition[];
  /**
   * Whether a results file's task has the current definition: the original compares the two
   * hashes; a suite that holds both definitions may answer from their equality first (equal
   * definitions hash alike), hashing only the ones that differ. Absent: the hashes are compared.
   */
  sameDefinition?(task: LeaderboardTaskDefinition, current: LeaderboardTaskDefinition): boolean;
  /** The benchmark version the submission names by default (`Tau-bench version` question). */
  readonly benchmarkVersion: string;
}
