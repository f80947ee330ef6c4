/**
 * Frozen results files of `schemaVersion` 2 (`test/fixtures/results/v2/`, see its README): every
 * entry carries the run manifest and, from `run --policy`, the policy check. Today's readers load
 * them, report the same numbers, and read the manifest and the stored check back.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadResultsFile } from "../src/suites/tau-bench/codec.ts";
import { rescoreResults } from "../src/suites/tau-bench/replay.ts";
import { buildRun } from "./support/registries.ts";
import { runCli } from "./support/cli.ts";

const directory = fileURLToPath(new URL("./fixtures/results/v2", import.meta.url));
const ORACLE = join(directory, "library-test-oracle-none-0.0_ids_0-2_user-none-scripted.json");

describe("frozen schemaVersion 2 results: library oracle run with --policy (2 tasks × 2 trials)", () => {
  const entries = loadResultsFile(ORACLE);

  it("loads, every entry at schemaVersion 2 with the manifest (its own task's definition) and its policy check", () => {
    expect(entries.map((entry) => [entry.taskId, entry.trial, entry.reward, entry.plain.taubridge?.schemaVersion])).toEqual([
      [0, 0, 1, 2],
      [2, 0, 1, 2],
      [0, 1, 1, 2],
      [2, 1, 1, 2],
    ]);
    for (const entry of entries) {
      const block = entry.plain.taubridge as Record<string, { taskDefinitions?: Record<string, string>; adherence?: number }>;
      expect(Object.keys(block.manifest.taskDefinitions ?? {})).toEqual([String(entry.taskId)]);
      expect(block.policy.adherence).toBe(entry.taskId === 2 ? 0 : 1);
    }
  });

  it("report reads the manifest and the stored check back", async () => {
    const result = await runCli(["report", ORACLE, "--format", "json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ episodes: 4, averageReward: 1, passK: { 1: 1, 2: 1 } });
    expect(report.manifest).toMatchObject({
      manifestVersion: 1,
      suite: "tau-bench",
      domain: "library",
      taskSet: { name: "library", split: "test" },
      agent: { strategy: "oracle" },
      user: { strategy: "scripted" },
      seed: 10,
      numTrials: 2,
    });
    expect(Object.keys(report.manifest.taskDefinitions).sort()).toEqual(["0", "2"]);
    expect(report.policy).toMatchObject({
      stored: true,
      file: "policy.yaml",
      strictness: "medium",
      adherence: 0.5,
      hitsByRule: [{ ruleId: "no-renewals", severity: "critical", hits: 2, episodes: 2 }],
    });
  });

  it("rescores to the recorded rewards", async () => {
    const { domain, tasks } = buildRun({ env: "library", agentStrategy: "oracle", userStrategy: "scripted" });
    expect(await rescoreResults(domain, entries, tasks)).toMatchObject({ total: 4, agree: 4, averageReward: 1 });
  });
});
