/** One scored episode, the minimum the metrics need. */
export interface ScoredEpisode {
  taskId: number | string;
  trial: number;
  reward: number;
  /** How the episode ended; `infra_error` episodes are left out of every metric. Absent in τ-bench's own files. */
  termination?: string | null;
}

/**
 * True for an episode that ended because infrastructure failed (model endpoint, child process, a
 * crashed tool). It says nothing about the agent, so the metrics leave it out, as τ²-bench does.
 */
export function isInfraError(episode: { termination?: string | null }): boolean {
  return episode.termination === "infra_error";
}

/** τ-bench's success test: a reward within 1e-6 of 1. */
export function isSuccess(reward: number): boolean {
  return reward >= 1 - 1e-6 && reward <= 1 + 1e-6;
}

/** Exact binomial coefficient C(n, k) (0 when k > n), in bigint so large trial counts stay exact. */
export function binomial(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let result = 1n;
  for (let index = 1; index <= k; index++) result = (result * BigInt(n - k + index)) / BigInt(index);
  return result;
}

export interface PassKReport {
  /** Number of distinct trial values present (τ-bench's n). */
  trials: number;
  /** Distinct tasks, in first-appearance order. */
  tasks: number;
  /** Mean raw reward over the scored episodes (infrastructure errors left out). */
  averageReward: number;
  /** pass^k for k = 1..trials (keys are k); null where k exceeds a task's trial count. */
  passK: Record<number, number | null>;
  /** Episodes left out of `averageReward` and `passK` because they ended in `infra_error`. */
  infraErrors: number;
}

/**
 * pass^k with the combinatorial estimator of the τ-bench paper, computed exactly as the original's
 * `display_metrics`: n = distinct trials; per task C(c, k) / C(n, k) (one float division per task,
 * accumulated in first-appearance order), averaged over tasks.
 *
 * Deliberate strictness: when a task has fewer episodes than n (an unfinished run), pass^k for
 * k greater than its episode count is reported as null rather than a silently deflated number.
 *
 * Infrastructure errors ({@link isInfraError}) are dropped first, as τ²-bench does: a task's
 * infra-error episodes leave both its numerator and its denominator (its n becomes n minus those
 * episodes, τ²'s per-task trial count), a task with nothing else is left out, and they are not in
 * the average reward. Without infra errors every number is exactly τ-bench's.
 */
export function computePassK(episodes: readonly ScoredEpisode[]): PassKReport {
  const trials = new Set(episodes.map((episode) => episode.trial)).size;
  const successes = new Map<number | string, number>();
  const counts = new Map<number | string, number>();
  const infraByTask = new Map<number | string, number>();
  let rewardSum = 0;
  let scored = 0;
  for (const episode of episodes) {
    if (isInfraError(episode)) {
      infraByTask.set(episode.taskId, (infraByTask.get(episode.taskId) ?? 0) + 1);
      continue;
    }
    scored++;
    rewardSum += episode.reward;
    successes.set(episode.taskId, (successes.get(episode.taskId) ?? 0) + (isSuccess(episode.reward) ? 1 : 0));
    counts.set(episode.taskId, (counts.get(episode.taskId) ?? 0) + 1);
  }
  const minimumPerTask = counts.size > 0 ? Math.min(...counts.values()) : 0;
  const passK: Record<number, number | null> = {};
  for (let k = 1; k <= trials; k++) {
    if (k > minimumPerTask) {
      passK[k] = null;
      continue;
    }
    let sum = 0;
    for (const [taskId, count] of successes) {
      const taskTrials = trials - (infraByTask.get(taskId) ?? 0);
      sum += Number(binomial(count, k)) / Number(binomial(taskTrials, k));
    }
    passK[k] = sum / successes.size;
  }
  return {
    trials,
    tasks: successes.size,
    averageReward: scored > 0 ? rewardSum / scored : 0,
    passK,
    infraErrors: episodes.length - scored,
  };
}

/** pass^k for one k, or null when k exceeds the trials. */
export function passAt(report: PassKReport, k: number): number | null {
  return report.passK[k] ?? null;
}
