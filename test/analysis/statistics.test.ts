/**
 * Statistics against hand-computed values: pass^k in both conventions, flip rates, per-trial
 * spread, the overall score, the sign-flip test's exact p-values, bootstrap intervals that are
 * seeded (same seed, same interval) and contain the estimate; and `compare --fail-if-worse` on a
 * pair that differs by noise and on one with a real regression.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { junitXml, minPassFailures, parseMinPass, runJUnitSuite } from "../../src/analysis/junit.ts";
import { comparePaired, type Outcome, passK, runStatistics, seededRandom, signFlipPValue, taskPassK } from "../../src/analysis/statistics.ts";
import { runCli } from "../support/cli.ts";

/** Tasks a, b, c over 4 trials: a passes 4/4, b 2/4 (trials 0 and 2), c 0/4. */
const outcomes: Outcome[] = [
  ...[0, 1, 2, 3].map((trial) => ({ taskId: "a", trial, reward: 1 })),
  ...[0, 1, 2, 3].map((trial) => ({ taskId: "b", trial, reward: trial % 2 === 0 ? 1 : 0 })),
  ...[0, 1, 2, 3].map((trial) => ({ taskId: "c", trial, reward: 0 })),
  { taskId: "c", trial: 4, reward: 0, termination: "infra_error" },
];

describe("run statistics, hand-computed", () => {
  const stats = runStatistics(outcomes, { seed: 7, resamples: 500 });

  it("pass^k (combinatorial, the default): a 1, b C(2,k)/C(4,k), c 0, averaged; infra errors left out", () => {
    expect(stats.infraErrors).toBe(1);
    expect(stats.tasks).toBe(3);
    expect(stats.passK[1].value).toBeCloseTo((1 + 0.5 + 0) / 3, 15);
    expect(stats.passK[2].value).toBeCloseTo((1 + 1 / 6) / 3, 15);
    expect(stats.passK[3].value).toBeCloseTo(1 / 3, 15);
    expect(stats.passK[4].value).toBeCloseTo(1 / 3, 15);
    expect(stats.overallScore.value).toBeCloseTo((1.5 + 7 / 6 + 1 + 1) / 3 / 4, 15);
    expect(stats.averageReward.value).toBeCloseTo(6 / 12, 15);
  });

  it("the power convention is (c/n)^k per task", () => {
    expect(taskPassK(4, 2, 2, "power")).toBe(0.25);
    expect(passK([{ successes: [true, false, true, false] }, { successes: [true, true, true, true] }], 2, "power")).toBe((0.25 + 1) / 2);
    expect(passK([{ successes: [true] }], 2)).toBeNull();
  });

  it("flip rate: b is the one task whose trials disagree; per task 2c(n−c)/(n(n−1))", () => {
    expect(stats.flipRate).toBeCloseTo(1 / 3, 15);
    expect(stats.perTask.map((task) => [task.taskId, task.flipRate])).toEqual([
      ["a", 0],
      ["b", (2 * 2 * 2) / (4 * 3)],
      ["c", 0],
    ]);
  });

  it("per-trial pass rates and their spread: trials 0 and 2 pass 2/3, trials 1 and 3 pass 1/3", () => {
    expect(stats.perTrial.map((row) => row.passRate)).toEqual([2 / 3, 1 / 3, 2 / 3, 1 / 3]);
    const sd = Math.sqrt((4 * (1 / 6) ** 2) / 3);
    expect(stats.trialSpread?.standardDeviation).toBeCloseTo(sd, 12);
    expect(stats.trialSpread).toMatchObject({ min: 1 / 3, max: 2 / 3 });
  });

  it("bootstrap intervals are seeded and bracket the estimate", () => {
    const again = runStatistics(outcomes, { seed: 7, resamples: 500 });
    expect(again.passK[1]).toEqual(stats.passK[1]);
    // On more tasks another seed gives another (close) interval.
    const many = Array.from({ length: 40 }, (_, task) => [0, 1, 2].map((trial) => ({ taskId: task, trial, reward: (task * 7 + trial * 3) % 5 < 2 ? 1 : 0 }))).flat();
    const [first, second] = [1, 2].map((seed) => runStatistics(many, { seed, resamples: 300 }).passK[1]);
    expect(first.value).toBe(second.value);
    expect([first.low, first.high]).not.toEqual([second.low, second.high]);
    const { low, high, value } = stats.passK[1];
    expect(low).not.toBeNull();
    expect((low as number) <= (value as number) && (value as number) <= (high as number)).toBe(true);
    expect(low).toBeGreaterThanOrEqual(0);
    expect(high).toBeLessThanOrEqual(1);
  });

  it("the generator is mulberry32 (the same numbers on every machine)", () => {
    const random = seededRandom(1);
    expect([random(), random()]).toEqual([0.6270739405881613, 0.002735721180215478]);
  });
});

describe("the paired sign-flip test", () => {
  it("exact p-values: 3 positive differences of 1 → 2/8; mixed signs → every assignment as extreme", () => {
    expect(signFlipPValue([1, 1, 1])).toBe(2 / 8);
    expect(signFlipPValue([1, -1])).toBe(1);
    expect(signFlipPValue([0, 0])).toBe(1);
    expect(signFlipPValue([])).toBeNull();
    // Ten tasks all worse: only all-minus and all-plus are as extreme, 2/1024.
    expect(signFlipPValue(Array(10).fill(-1))).toBe(2 / 1024);
  });

  it("a real regression is worse beyond the noise; a reshuffle of the same pass rates is not", () => {
    const run = (passing: (task: number, trial: number) => boolean): Outcome[] =>
      Array.from({ length: 30 }, (_, task) => [0, 1, 2, 3].map((trial) => ({ taskId: `t${task}`, trial, reward: passing(task, trial) ? 1 : 0 }))).flat();
    const baseline = run((task, trial) => task < 24 || trial === 0);
    const noise = run((task, trial) => (task < 24 ? trial !== task % 4 || task % 3 !== 0 : trial === 1 || (task === 25 && trial === 0)));
    const regression = run((task) => task < 12);
    expect(comparePaired(baseline, regression).verdict).toBe("worse");
    expect(comparePaired(baseline, noise).verdict).toBe("within noise");
    expect(comparePaired(regression, baseline).verdict).toBe("better");
  });
});

describe("JUnit XML and --min-pass", () => {
  it("one test case per task, failing when a trial failed; XML escaped", () => {
    const xml = junitXml([runJUnitSuite("run <1>", runStatistics(outcomes, { resamples: 10 }))]);
    expect(xml).toContain('<testsuite name="run &lt;1&gt;" tests="3" failures="2" errors="0" skipped="0">');
    expect(xml).toContain('<testcase name="task a" classname="run &lt;1&gt;">');
    expect(xml).toContain('<failure message="2 of 4 trial(s) passed" type="task"/>');
  });

  it("thresholds parse and fail below the value, and when pass^k is unavailable", () => {
    const thresholds = parseMinPass(["1=0.8", "5=0.1"]);
    expect(minPassFailures("r", { 1: 0.5, 2: 0.4 }, thresholds)).toEqual(["r: pass^1 0.5000 is below --min-pass 1=0.8", "r: pass^5 is not available (too few trials) but --min-pass asks for 0.1"]);
    expect(minPassFailures("r", { 1: 0.9 }, parseMinPass(["1=0.8"]))).toEqual([]);
    expect(() => parseMinPass(["1=2"])).toThrow(/--min-pass 1=2/);
  });
});

describe("taubridge compare --fail-if-worse on results files", () => {
  const directory = mkdtempSync(join(tmpdir(), "taubridge-compare-"));
  /** A τ-bench-shaped results file (the original's format): 20 tasks × 4 trials passing where `passing` says. */
  const file = (name: string, passing: (task: number, trial: number) => boolean) => {
    const entries = Array.from({ length: 20 }, (_, task) => [0, 1, 2, 3].map((trial) => ({ task_id: task, reward: passing(task, trial) ? 1.0 : 0.0, info: {}, traj: [], trial }))).flat();
    const path = join(directory, `${name}.json`);
    writeFileSync(path, JSON.stringify(entries));
    return path;
  };
  const baseline = file("baseline", (task, trial) => task < 14 || trial === task % 4);
  const noisy = file("noisy", (task, trial) => (task < 14 ? !(task === 3 && trial === 1) : trial === (task + 1) % 4));
  const regressed = file("regressed", (task) => task < 5);

  it("noise: exit 0, the verdict says within the noise", async () => {
    const result = await runCli(["compare", baseline, noisy, "--fail-if-worse"]);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("the difference is within the noise");
  });

  it("a real regression: exit 4 naming the candidate; Markdown for a PR comment; JUnit written", async () => {
    const junit = join(directory, "compare.xml");
    const result = await runCli(["compare", baseline, regressed, "--fail-if-worse", "--format", "markdown", "--junit", junit]);
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toMatch(/gate failed: .*regressed.* is worse than .*baseline.* beyond the noise/);
    expect(result.stdout).toMatch(/^\| Run \| Pass\^1 \|/m);
    expect(result.stdout).toContain("is worse than");
    expect(readFileSync(junit, "utf8")).toContain('failures="15"');
  });

  it("--min-pass fails a run below the threshold even without --fail-if-worse", async () => {
    const result = await runCli(["compare", baseline, noisy, "--min-pass", "1=0.99"]);
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toContain("is below --min-pass 1=0.99");
  });
});
