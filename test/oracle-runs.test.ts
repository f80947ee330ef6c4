import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildRun } from "./support/registries.ts";
import { runBatch } from "../src/suites/tau-bench/batch.ts";
import { tauBenchDirectory, warnIfMissingShared } from "./support/shared-data.ts";

warnIfMissingShared();

/** The acceptance runs of the foundation issue: the oracle agent scores 1.0 on every official task. */
describe.skipIf(!tauBenchDirectory)("oracle runs on the official τ-bench tasks", () => {
  it.each([
    ["retail", "test", 115],
    ["retail", "train", 500],
    ["retail", "dev", 20],
    ["airline", "test", 50],
  ])("%s %s: all %i tasks score 1.0", async (env, split, count) => {
    const built = buildRun({
      env,
      agentStrategy: "oracle",
      userStrategy: "scripted",
      taskSplit: split,
      dataDir: tauBenchDirectory,
      logDir: mkdtempSync(join(tmpdir(), "taubridge-oracle-")),
      maxConcurrency: 8,
      quiet: true,
    });
    const outcome = await runBatch(built);
    expect(outcome.summaries).toHaveLength(count);
    const failures = outcome.summaries.filter((summary) => summary.reward !== 1).map((summary) => summary.taskId);
    expect(failures).toEqual([]);
    expect(outcome.metrics.passK[1]).toBe(1);
    expect(new Set(outcome.summaries.map((summary) => summary.termination))).not.toContain("agent_error");
  });
});
