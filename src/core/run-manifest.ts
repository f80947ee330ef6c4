/**
 * The run manifest: what a results file says about the run that wrote it, so a number can be
 * reproduced and two runs compared for what differs besides the agent (issue: variance and
 * reproducibility — the leaderboard's settings were not recorded). Every results file taubridge
 * writes carries one in its `taubridge` block (τ-bench: each entry's; τ²: the file's); files of the
 * originals have none. No secret is ever part of it (model endpoints are redacted, keys never read).
 */

/** One model role as the run used it. */
export interface ManifestModel {
  /** The strategy or implementation (`tool-calling`, `llm_agent`, `user_simulator`, `oracle`, …). */
  strategy: string;
  model: string | null;
  provider: string | null;
  /** Sampling and other parameters (temperature, τ²'s LLM arguments), secrets left out. */
  parameters: Record<string, unknown>;
}

export interface RunManifest {
  manifestVersion: 1;
  taubridgeVersion: string;
  /** `tau-bench` or `tau2`. */
  suite: string;
  domain: string | null;
  /** The upstream commit the data was pinned to (null: unknown, e.g. imported data that differs). */
  dataCommit: string | null;
  /** The task set: its name/split, and SHA-256 of its file(s). */
  taskSet: { name: string | null; split: string | null; sha256: string | null };
  /** SHA-256 of each selected task's definition, by task id. */
  taskDefinitions: Record<string, string>;
  /** SHA-256 of the domain's data files (database, policy, tool schemas). */
  dataSha256: string | null;
  agent: ManifestModel;
  user: ManifestModel;
  /** τ²'s NL-assertion judge, when a task needed one. */
  judge: ManifestModel | null;
  /** SHA-256 of each prompt template the run used, by name. */
  promptTemplates: Record<string, string>;
  /** τ³ banking_knowledge's retrieval variant and overrides; null elsewhere. */
  retrieval: Record<string, unknown> | null;
  seed: number | null;
  numTrials: number | null;
  /** Other outcome-deciding settings (max steps, errors, timeouts, …). */
  settings: Record<string, unknown>;
}

/** One episode's policy check as a results file keeps it. */
export interface StoredEpisodePolicy {
  taskId: string;
  trial: number;
  /** Adherence in [0, 1]; null when the policy does not apply to the episode's domain. */
  adherence: number | null;
  /** Each rule broken: rule id, type, severity, the message (`messageIndex` in the episode's canonical record) and step it points at, what. */
  hits: Array<{ ruleId: string; type: string; severity: string; messageIndex: number | null; stepIndex: number | null; detail: string }>;
}

/**
 * `run --policy`'s check as the results file keeps it, beside the manifest (τ-bench: each entry's
 * block holds its episode's part and the run's; τ²: the file's block holds it all). Reported next to
 * the reward, never part of it. Rewritten only by a run with `--policy`: a run resumed without it
 * writes its file without one (the episodes changed).
 */
export interface StoredPolicy {
  /** The rule file's name (its directory left out: nothing machine-dependent) and the SHA-256 of its content. */
  file: string;
  sha256: string;
  /** `low`, `medium` or `high`: which severities the score counts. */
  strictness: string;
  /** The run's adherence: the mean over the episodes the policy applies to (null when none). */
  adherence: number | null;
  hitsByRule: Array<{ ruleId: string; severity: string; hits: number; episodes: number }>;
  /** Rules not checked, and why (a `semantic` or `llm` rule needs a model the run did not give the check). */
  skipped: Array<{ ruleId: string; reason: string }>;
  episodes: StoredEpisodePolicy[];
}
