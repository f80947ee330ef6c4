/**
 * Variance you can trust: mean reward and pass^k with bootstrap confidence intervals over tasks
 * and trials (seeded, so the same file gives the same interval), per-task flip rates, per-trial
 * spread, the "overall score" (mean of pass^1…pass^4), and a paired comparison of two runs on the
 * same tasks that says whether a difference exceeds the noise.
 *
 * Everything takes plain per-episode outcomes (`taskId`, `trial`, `reward`, `termination`), which
 * the canonical records and the run layer's summaries both give. Infrastructure errors are left
 * out, as every metric of both suites does.
 */
import { binomial } from "../metrics/pass-k.ts";
import { isSuccessfulReward } from "./facts.ts";

/** One scored episode, the least the statistics need. */
export interface Outcome {
  taskId: string | number;
  trial: number;
  reward: number;
  termination?: string | null;
  /** Several domains in one comparison: the pair is (domain, task). */
  domain?: string | null;
}

/** One task's trials, in trial order. */
export interface TaskOutcomes {
  key: string;
  taskId: string;
  domain: string | null;
  trials: number[];
  rewards: number[];
  successes: boolean[];
}

/** How pass^k is estimated from a task's n trials with c successes. */
export type PassKConvention = "combinatorial" | "power";

/**
 * The two conventions, named: `combinatorial` is the τ-bench paper's unbiased estimator
 * C(c,k)/C(n,k) per task averaged over tasks (what τ-bench, τ² and the leaderboard compute; the
 * default); `power` is the plug-in estimate (c/n)^k per task, averaged over tasks, which some
 * harnesses report and which is biased upward for small n.
 */
export const PASS_K_CONVENTIONS: Record<PassKConvention, string> = {
  combinatorial: "per task C(c,k)/C(n,k), averaged over tasks (τ-bench paper, τ², leaderboard)",
  power: "per task (c/n)^k, averaged over tasks (plug-in estimate)",
};

/** A statistic with its confidence interval. */
export interface Estimate {
  value: number | null;
  low: number | null;
  high: number | null;
}

export interface RunStatistics {
  episodes: number;
  tasks: number;
  /** The most trials any task has. */
  trials: number;
  infraErrors: number;
  confidence: number;
  resamples: number;
  seed: number;
  convention: PassKConvention;
  averageReward: Estimate;
  passK: Record<number, Estimate>;
  /** Mean of pass^1…pass^4 (null when a task has fewer than 4 trials). */
  overallScore: Estimate;
  /** Share of tasks whose trials disagree (some pass, some fail). */
  flipRate: number | null;
  /** Per task: the chance two of its trials disagree, 2c(n−c)/(n(n−1)); and its successes. */
  perTask: Array<{ taskId: string; domain: string | null; trials: number; successes: number; flipRate: number | null }>;
  /** pass^1 of each trial on its own (success share over tasks), and their spread. */
  perTrial: { trial: number; passRate: number; tasks: number }[];
  trialSpread: { min: number; max: number; standardDeviation: number } | null;
}

/** A small seeded generator (mulberry32): the same seed gives the same resamples on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const taskKey = (outcome: Outcome) => `${outcome.domain ?? ""}\0${outcome.taskId}`;

/** The scored outcomes by task (first-appearance order), trials in trial order; infrastructure errors left out. */
export function groupByTask(outcomes: readonly Outcome[]): TaskOutcomes[] {
  const tasks = new Map<string, TaskOutcomes>();
  for (const outcome of outcomes) {
    if (outcome.termination === "infra_error" || outcome.termination === "infrastructure_error") continue;
    const key = taskKey(outcome);
    let task = tasks.get(key);
    if (!task) {
      task = { key, taskId: String(outcome.taskId), domain: outcome.domain ?? null, trials: [], rewards: [], successes: [] };
      tasks.set(key, task);
    }
    task.trials.push(outcome.trial);
    task.rewards.push(outcome.reward);
    task.successes.push(isSuccessfulReward(outcome.reward));
  }
  for (const task of tasks.values()) {
    const order = task.trials.map((_, index) => index).sort((a, b) => task.trials[a] - task.trials[b]);
    task.trials = order.map((index) => task.trials[index]);
    task.rewards = order.map((index) => task.rewards[index]);
    task.successes = order.map((index) => task.successes[index]);
  }
  return [...tasks.values()];
}

/** pass^k of one task with n trials and c successes. */
export function taskPassK(n: number, c: number, k: number, convention: PassKConvention = "combinatorial"): number {
  if (convention === "power") return (c / n) ** k;
  return Number(binomial(c, k)) / Number(binomial(n, k));
}

/** pass^k over tasks (null when a task has fewer than k trials). */
export function passK(tasks: ReadonlyArray<{ successes: readonly boolean[] }>, k: number, convention: PassKConvention = "combinatorial"): number | null {
  if (tasks.length === 0 || tasks.some((task) => task.successes.length < k)) return null;
  let sum = 0;
  for (const task of tasks) sum += taskPassK(task.successes.length, task.successes.filter(Boolean).length, k, convention);
  return sum / tasks.length;
}

/** Mean reward over every scored episode. */
export function meanReward(tasks: ReadonlyArray<{ rewards: readonly number[] }>): number | null {
  let sum = 0;
  let count = 0;
  for (const task of tasks) {
    for (const reward of task.rewards) sum += reward;
    count += task.rewards.length;
  }
  return count === 0 ? null : sum / count;
}

/** Mean of pass^1…pass^4, the leaderboard's overall score (null unless every task has 4 trials). */
export function overallScore(tasks: ReadonlyArray<{ successes: readonly boolean[] }>, convention: PassKConvention = "combinatorial"): number | null {
  const values = [1, 2, 3, 4].map((k) => passK(tasks, k, convention));
  return values.some((value) => value === null) ? null : (values as number[]).reduce((a, b) => a + b, 0) / 4;
}

/** Two-level resample: tasks with replacement, then each drawn task's trials with replacement. */
function resample<T extends { successes: readonly boolean[]; rewards: readonly number[] }>(tasks: readonly T[], random: () => number): Array<{ successes: boolean[]; rewards: number[] }> {
  const out: Array<{ successes: boolean[]; rewards: number[] }> = [];
  for (let drawn = 0; drawn < tasks.length; drawn++) {
    const task = tasks[Math.floor(random() * tasks.length)];
    const n = task.successes.length;
    const successes: boolean[] = [];
    const rewards: number[] = [];
    for (let trial = 0; trial < n; trial++) {
      const at = Math.floor(random() * n);
      successes.push(task.successes[at]);
      rewards.push(task.rewards[at]);
    }
    out.push({ successes, rewards });
  }
  return out;
}

/**
 * pass^k of one task by (n, c, k) for n up to `maxTrials`, computed once: the bootstrap asks for it
 * millions of times (resamples × tasks × k), and the binomials behind it are BigInts.
 */
function taskPassKTable(maxTrials: number, convention: PassKConvention): Float64Array[][] {
  return Array.from({ length: maxTrials + 1 }, (_, n) =>
    Array.from({ length: n + 1 }, (_, c) => {
      const row = new Float64Array(maxTrials + 1);
      for (let k = 1; k <= n; k++) row[k] = taskPassK(n, c, k, convention);
      return row;
    }),
  );
}

/**
 * The bootstrap's samples: for each of `resamples` rounds, the two-level resample of {@link resample}
 * (the same draws from `random`, in the same order) reduced as it is drawn to each drawn task's
 * trial count, successes and reward sum, then the mean reward, pass^k and the overall score summed
 * in the same order as {@link meanReward}, {@link passK} and {@link overallScore} sum them — the same
 * numbers, without an array per drawn task or a BigInt per pass^k.
 */
function bootstrapSamples(tasks: readonly TaskOutcomes[], ks: readonly number[], resamples: number, random: () => number, convention: PassKConvention) {
  const samples = { reward: [] as number[], overall: [] as number[], passK: new Map<number, number[]>(ks.map((k) => [k, []])) };
  if (tasks.length === 0) return samples;
  const table = taskPassKTable(ks.length, convention);
  const drawnTrials = new Int32Array(tasks.length);
  const drawnSuccesses = new Int32Array(tasks.length);
  const values: Array<number | null> = new Array(ks.length + 1).fill(null);
  for (let round = 0; round < resamples; round++) {
    let rewardSum = 0;
    let rewardCount = 0;
    let fewest = Number.POSITIVE_INFINITY;
    for (let drawn = 0; drawn < tasks.length; drawn++) {
      const task = tasks[Math.floor(random() * tasks.length)];
      const n = task.successes.length;
      let c = 0;
      for (let trial = 0; trial < n; trial++) {
        const at = Math.floor(random() * n);
        if (task.successes[at]) c++;
        rewardSum += task.rewards[at];
      }
      rewardCount += n;
      drawnTrials[drawn] = n;
      drawnSuccesses[drawn] = c;
      if (n < fewest) fewest = n;
    }
    samples.reward.push(rewardCount === 0 ? 0 : rewardSum / rewardCount);
    for (const k of ks) {
      if (fewest < k) {
        values[k] = null;
        continue;
      }
      let sum = 0;
      for (let drawn = 0; drawn < tasks.length; drawn++) sum += table[drawnTrials[drawn]][drawnSuccesses[drawn]][k];
      values[k] = sum / tasks.length;
      samples.passK.get(k)?.push(values[k] as number);
    }
    if (ks.length >= 4 && [1, 2, 3, 4].every((k) => values[k] !== null)) samples.overall.push([1, 2, 3, 4].reduce((total, k) => total + (values[k] as number), 0) / 4);
  }
  return samples;
}

/** The `p`-quantile of sorted values (linear interpolation, numpy's default). */
export function quantile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * p;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below);
}

function interval(values: number[], confidence: number): { low: number; high: number } {
  values.sort((a, b) => a - b);
  const tail = (1 - confidence) / 2;
  return { low: quantile(values, tail), high: quantile(values, 1 - tail) };
}

export interface StatisticsOptions {
  resamples?: number;
  seed?: number;
  confidence?: number;
  convention?: PassKConvention;
}

/**
 * A run's statistics with percentile bootstrap intervals: `resamples` two-level resamples (tasks,
 * then trials within each drawn task) from a generator seeded with `seed`.
 */
export function runStatistics(outcomes: readonly Outcome[], options: StatisticsOptions = {}): RunStatistics {
  const resamples = options.resamples ?? 2000;
  const seed = options.seed ?? 0;
  const confidence = options.confidence ?? 0.95;
  const convention = options.convention ?? "combinatorial";
  const tasks = groupByTask(outcomes);
  const infraErrors = outcomes.length - tasks.reduce((sum, task) => sum + task.rewards.length, 0);
  const maxTrials = Math.max(0, ...tasks.map((task) => task.successes.length));
  const ks = Array.from({ length: maxTrials }, (_, index) => index + 1);
  const samples = bootstrapSamples(tasks, ks, resamples, seededRandom(seed), convention);
  const estimate = (value: number | null, values: number[]): Estimate => (value === null || values.length === 0 ? { value, low: null, high: null } : { value, ...interval(values, confidence) });
  const perTask = tasks.map((task) => {
    const n = task.successes.length;
    const c = task.successes.filter(Boolean).length;
    return { taskId: task.taskId, domain: task.domain, trials: n, successes: c, flipRate: n < 2 ? null : (2 * c * (n - c)) / (n * (n - 1)) };
  });
  const multiTrial = perTask.filter((task) => task.trials >= 2);
  const trialNumbers = [...new Set(tasks.flatMap((task) => task.trials))].sort((a, b) => a - b);
  const perTrial = trialNumbers.map((trial) => {
    let passed = 0;
    let count = 0;
    for (const task of tasks) {
      const at = task.trials.indexOf(trial);
      if (at < 0) continue;
      count++;
      if (task.successes[at]) passed++;
    }
    return { trial, passRate: count === 0 ? 0 : passed / count, tasks: count };
  });
  const rates = perTrial.map((row) => row.passRate);
  const mean = rates.reduce((a, b) => a + b, 0) / (rates.length || 1);
  return {
    episodes: outcomes.length,
    tasks: tasks.length,
    trials: maxTrials,
    infraErrors,
    confidence,
    resamples,
    seed,
    convention,
    averageReward: estimate(meanReward(tasks), samples.reward),
    passK: Object.fromEntries(ks.map((k) => [k, estimate(passK(tasks, k, convention), samples.passK.get(k) ?? [])])),
    overallScore: estimate(overallScore(tasks, convention), samples.overall),
    flipRate: multiTrial.length === 0 ? null : multiTrial.filter((task) => task.successes > 0 && task.successes < task.trials).length / multiTrial.length,
    perTask,
    perTrial,
    trialSpread:
      rates.length < 2 ? null : { min: Math.min(...rates), max: Math.max(...rates), standardDeviation: Math.sqrt(rates.reduce((sum, rate) => sum + (rate - mean) ** 2, 0) / (rates.length - 1)) },
  };
}

/** How the candidate stands against the baseline. */
export type CompareVerdict = "better" | "worse" | "within noise";

/** A paired comparison of two runs on the tasks both ran. */
export interface PairedComparison {
  /** Tasks both runs scored. */
  pairedTasks: number;
  /** Tasks only one run has (left out of the comparison). */
  onlyBaseline: string[];
  onlyCandidate: string[];
  baselinePassRate: number | null;
  candidatePassRate: number | null;
  /** Mean over paired tasks of (candidate − baseline) per-task success rate. */
  difference: number | null;
  /** Paired bootstrap interval of the difference (tasks resampled together, trials within each run). */
  low: number | null;
  high: number | null;
  /** Two-sided p-value of the paired sign-flip permutation test (exact up to 20 differing tasks). */
  pValue: number | null;
  alpha: number;
  verdict: CompareVerdict;
  perTask: Array<{ taskId: string; domain: string | null; baseline: number; candidate: number; difference: number; baselineTrials: number; candidateTrials: number }>;
}

const rate = (successes: readonly boolean[]) => successes.filter(Boolean).length / successes.length;

/**
 * The paired sign-flip permutation test: under "no difference" each task's difference is as likely
 * negative as positive; the p-value is the share of sign assignments whose mean is at least as far
 * from 0 as the observed one. Exact when at most 20 tasks differ, else `rounds` seeded draws.
 */
export function signFlipPValue(differences: readonly number[], seed = 0, rounds = 20000): number | null {
  const nonZero = differences.filter((difference) => difference !== 0);
  if (differences.length === 0) return null;
  if (nonZero.length === 0) return 1;
  const observed = Math.abs(nonZero.reduce((a, b) => a + b, 0));
  const tolerance = 1e-12 * Math.max(1, observed);
  if (nonZero.length <= 20) {
    let extreme = 0;
    const total = 2 ** nonZero.length;
    for (let mask = 0; mask < total; mask++) {
      let sum = 0;
      for (let index = 0; index < nonZero.length; index++) sum += mask & (1 << index) ? -nonZero[index] : nonZero[index];
      if (Math.abs(sum) >= observed - tolerance) extreme++;
    }
    return extreme / total;
  }
  const random = seededRandom(seed);
  let extreme = 0;
  for (let round = 0; round < rounds; round++) {
    let sum = 0;
    for (const difference of nonZero) sum += random() < 0.5 ? -difference : difference;
    if (Math.abs(sum) >= observed - tolerance) extreme++;
  }
  return (extreme + 1) / (rounds + 1);
}

/**
 * Pairs two runs by task (and domain) and says whether the candidate's success rate differs from
 * the baseline's beyond the noise: `worse` (or `better`) only when the paired bootstrap interval of
 * the mean difference excludes 0 *and* the sign-flip test's p-value is below `alpha`.
 */
export function comparePaired(baseline: readonly Outcome[], candidate: readonly Outcome[], options: StatisticsOptions & { alpha?: number } = {}): PairedComparison {
  const alpha = options.alpha ?? 0.05;
  const confidence = options.confidence ?? 1 - alpha;
  const resamples = options.resamples ?? 2000;
  const a = new Map(groupByTask(baseline).map((task) => [task.key, task]));
  const b = new Map(groupByTask(candidate).map((task) => [task.key, task]));
  const paired = [...a.keys()].filter((key) => b.has(key));
  const perTask = paired.map((key) => {
    const left = a.get(key) as TaskOutcomes;
    const right = b.get(key) as TaskOutcomes;
    return {
      taskId: left.taskId,
      domain: left.domain,
      baseline: rate(left.successes),
      candidate: rate(right.successes),
      difference: rate(right.successes) - rate(left.successes),
      baselineTrials: left.successes.length,
      candidateTrials: right.successes.length,
    };
  });
  const differences = perTask.map((task) => task.difference);
  const mean = (values: readonly number[]) => (values.length === 0 ? null : values.reduce((x, y) => x + y, 0) / values.length);
  const difference = mean(differences);
  let low: number | null = null;
  let high: number | null = null;
  if (paired.length > 0) {
    const random = seededRandom(options.seed ?? 0);
    const draws: number[] = [];
    for (let round = 0; round < resamples; round++) {
      let sum = 0;
      for (let drawn = 0; drawn < paired.length; drawn++) {
        const key = paired[Math.floor(random() * paired.length)];
        const [left] = resample([a.get(key) as TaskOutcomes], random);
        const [right] = resample([b.get(key) as TaskOutcomes], random);
        sum += rate(right.successes) - rate(left.successes);
      }
      draws.push(sum / paired.length);
    }
    ({ low, high } = interval(draws, confidence));
  }
  const pValue = signFlipPValue(differences, options.seed ?? 0);
  const significant = pValue !== null && pValue < alpha;
  const verdict: CompareVerdict = significant && high !== null && high < 0 ? "worse" : significant && low !== null && low > 0 ? "better" : "within noise";
  return {
    pairedTasks: paired.length,
    onlyBaseline: [...a.values()].filter((task) => !b.has(task.key)).map((task) => task.taskId),
    onlyCandidate: [...b.values()].filter((task) => !a.has(task.key)).map((task) => task.taskId),
    baselinePassRate: mean(perTask.map((task) => task.baseline)),
    candidatePassRate: mean(perTask.map((task) => task.candidate)),
    difference,
    low,
    high,
    pValue,
    alpha,
    verdict,
    perTask,
  };
}
