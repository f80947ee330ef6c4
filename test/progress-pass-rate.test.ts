/**
 * Issue 29 (an endpoint failure is the infrastructure's, not the agent's): the progress line's pass
 * rate leaves infrastructure errors out, as the report's Pass^1 does — a run whose every episode
 * hit a dead model endpoint shows `pass rate n/a`, not `0.0%` above a table that says `n/a`.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { EpisodeSummary } from "../src/core/run.ts";
import { createProgressObserver } from "../src/cli/progress.ts";

function observed() {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (chunk: Buffer) => (text += chunk.toString()));
  const progress = createProgressObserver({ stream: stream as unknown as NodeJS.WriteStream, intervalMs: 3_600_000 });
  return { progress, lines: () => text.trim().split("\n") };
}

const episode = (taskId: number, termination: EpisodeSummary["termination"], reward: number): EpisodeSummary => ({ taskId, trial: 0, reward, termination, usage: null });

describe("the progress line's pass rate", () => {
  it("is n/a when every finished episode ended in an infrastructure error", () => {
    const { progress, lines } = observed();
    progress.start({ total: 2, alreadyDone: 0, checkpointPath: "results.json" });
    progress.episodeDone({ result: episode(0, "infra_error", 0), done: 1, total: 2, successes: 0, cost: 0 });
    progress.episodeDone({ result: episode(1, "infra_error", 0), done: 2, total: 2, successes: 0, cost: 0 });
    progress.stop();
    expect(lines().at(-1)).toBe("[taubridge] 2/2 episodes, pass rate n/a, cost $0.0000, ETA 0s");
  });

  it("counts only scored episodes, resumed ones included", () => {
    const { progress, lines } = observed();
    progress.start({ total: 4, alreadyDone: 1, checkpointPath: "results.json", resumed: true, successes: 1, cost: null });
    progress.episodeDone({ result: episode(1, "infra_error", 0), done: 2, total: 4, successes: 1, cost: null });
    progress.episodeDone({ result: episode(2, "user_stop", 0), done: 3, total: 4, successes: 1, cost: null });
    progress.stop();
    expect(lines().at(-1)).toMatch(/^\[taubridge\] 3\/4 episodes, pass rate 50\.0%, /);
  });
});
