import { describe, expect, it } from "vitest";
import { binomial, computePassK } from "../src/metrics/pass-k.ts";

describe("pass^k", () => {
  it("computes exact binomials", () => {
    expect(binomial(4, 2)).toBe(6n);
    expect(binomial(2, 3)).toBe(0n);
    expect(binomial(60, 30)).toBe(118264581564861424n);
  });

  it("matches the combinatorial estimator on a small example", () => {
    // task 0: 2 of 3 trials succeed; task 1: 3 of 3.
    const episodes = [
      { taskId: 0, trial: 0, reward: 1 },
      { taskId: 0, trial: 1, reward: 0 },
      { taskId: 0, trial: 2, reward: 1 },
      { taskId: 1, trial: 0, reward: 1 },
      { taskId: 1, trial: 1, reward: 1 },
      { taskId: 1, trial: 2, reward: 1 },
    ];
    const report = computePassK(episodes);
    expect(report.trials).toBe(3);
    expect(report.passK[1]).toBeCloseTo((2 / 3 + 1) / 2, 15);
    expect(report.passK[2]).toBeCloseTo((1 / 3 + 1) / 2, 15);
    expect(report.passK[3]).toBeCloseTo(0.5, 15);
    expect(report.averageReward).toBeCloseTo(5 / 6, 15);
  });

  it("reports null for k beyond the trials a task has", () => {
    const report = computePassK([
      { taskId: 0, trial: 0, reward: 1 },
      { taskId: 0, trial: 1, reward: 1 },
      { taskId: 1, trial: 0, reward: 1 },
    ]);
    expect(report.passK[1]).not.toBeNull();
    expect(report.passK[2]).toBeNull();
  });

  it("counts a reward within 1e-6 of 1 as success", () => {
    expect(computePassK([{ taskId: 0, trial: 0, reward: 0.9999995 }]).passK[1]).toBe(1);
  });
});
