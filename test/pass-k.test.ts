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

  describe("infra_error episodes are dropped first, as τ²-bench does", () => {
    const done = (taskId: number, trial: number, reward: number) => ({ taskId, trial, reward, termination: "user_stop" });
    const infra = (taskId: number, trial: number) => ({ taskId, trial, reward: 0, termination: "infra_error" });

    it("leave a task's numerator and denominator: its n becomes its trials minus its infra errors", () => {
      // task 0: 2 successes of 3 scored trials (trial 3 infra); task 1: 3 of 4.
      const report = computePassK([done(0, 0, 1), done(0, 1, 1), done(0, 2, 0), infra(0, 3), done(1, 0, 1), done(1, 1, 1), done(1, 2, 1), done(1, 3, 0)]);
      expect(report.trials).toBe(4);
      expect(report.infraErrors).toBe(1);
      expect(report.tasks).toBe(2);
      // τ²: pass^k_task = C(c,k)/C(n_task,k) with n_task the task's scored trials; max_k = min over tasks.
      expect(report.passK[1]).toBe((2 / 3 + 3 / 4) / 2);
      expect(report.passK[2]).toBe((1 / 3 + 3 / 6) / 2);
      expect(report.passK[3]).toBe((0 / 1 + 1 / 4) / 2);
      expect(report.passK[4]).toBeNull();
      expect(report.averageReward).toBe(5 / 7);
    });

    it("a task with nothing but infra errors is left out; without scored episodes every pass^k is null", () => {
      const report = computePassK([done(0, 0, 1), done(0, 1, 0), infra(1, 0), infra(1, 1)]);
      expect(report.tasks).toBe(1);
      expect(report.passK).toEqual({ 1: 0.5, 2: 0 });
      expect(report.averageReward).toBe(0.5);
      expect(report.infraErrors).toBe(2);
      expect(computePassK([infra(0, 0), infra(1, 0)])).toEqual({ trials: 1, tasks: 0, averageReward: 0, passK: { 1: null }, infraErrors: 2 });
    });

    it("without infra errors every number is exactly the τ-bench estimator (other terminations count as scored)", () => {
      const plain = [
        { taskId: 0, trial: 0, reward: 1 },
        { taskId: 0, trial: 1, reward: 0 },
        { taskId: 1, trial: 0, reward: 1 },
        { taskId: 1, trial: 1, reward: 1 },
      ];
      const withReasons = plain.map((episode, index) => ({ ...episode, termination: ["user_stop", "agent_error", "max_steps", "timeout"][index] }));
      expect(computePassK(withReasons)).toEqual(computePassK(plain));
      expect(computePassK(plain)).toEqual({ trials: 2, tasks: 2, averageReward: 0.75, passK: { 1: 0.75, 2: 0.5 }, infraErrors: 0 });
    });
  });
});
