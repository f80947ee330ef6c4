/**
 * A run's signal is shared by every episode running at once: it must carry one listener however
 * many there are (a run of more than ten concurrent episodes made Node print
 * `MaxListenersExceededWarning`), and aborting it must still cancel each of them.
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { EpisodeKernel } from "../src/kernel/index.ts";

const kernelOn = (signal: AbortSignal) => new EpisodeKernel({ execute: async () => ({ observation: "", done: false, error: false }), precedence: "first", signal });

describe("episode kernel and the run's signal", () => {
  it("gives the run's signal one listener for any number of episodes, and cancels each on abort", () => {
    const run = new AbortController();
    const kernels = Array.from({ length: 1000 }, () => kernelOn(run.signal));
    expect(getEventListeners(run.signal, "abort")).toHaveLength(1);
    const reason = new Error("interrupted");
    run.abort(reason);
    expect(kernels.every((kernel) => kernel.signal.aborted && kernel.signal.reason === reason)).toBe(true);
  });

  it("a finished episode stops listening; a later one still hears the abort", async () => {
    const run = new AbortController();
    const finished = kernelOn(run.signal);
    await finished.run(async () => undefined, { sessions: () => [] });
    const running = kernelOn(run.signal);
    run.abort(new Error("stop"));
    expect(finished.signal.aborted).toBe(false);
    expect(running.signal.aborted).toBe(true);
  });
});
