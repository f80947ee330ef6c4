/**
 * Frozen τ² results files of schema version 2 (`test/fixtures/tau2-results/v2/`, see its README):
 * the file's `taubridge` block carries the run manifest and the stored `run --policy` check; τ²'s
 * own fields are as in version 1. They keep loading, reporting and reading both back.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readTau2Results, simulationMetrics } from "../../src/suites/tau2/codec.ts";
import { rawTau2Task, readTau2Tasks } from "../../src/suites/tau2/tasks.ts";
import { type PyDict, parsePythonJson, pyJsonDumpsIndented } from "../../src/value/index.ts";
import { runCli } from "../support/cli.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";

const file = fileURLToPath(new URL("../fixtures/tau2-results/v2/mock-oracle-3-tasks-2-trials.json", import.meta.url));
const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

/** The fixture with the run's tasks put back from the data directory (the project never holds τ²'s task text; see the README). */
function withTasks(): string {
  const document = parsePythonJson(readFileSync(file, "utf8")) as PyDict;
  const raw = new Map(readTau2Tasks(join(data as string, "mock", "tasks.json")).map((task) => [task.id, rawTau2Task(task) as PyDict]));
  document.set(
    "tasks",
    (document.get("tasks") as PyDict[]).map((task) => raw.get(task.get("id") as string) as PyDict),
  );
  const copy = join(mkdtempSync(join(tmpdir(), "tau2-v2-")), "results.json");
  writeFileSync(copy, pyJsonDumpsIndented(document));
  return copy;
}

describe("frozen τ² results, schema version 2", () => {
  const results = readTau2Results(file);

  it("loads at schema version 2 with τ²'s fields and the same metrics as version 1's run", () => {
    expect(results.taubridge?.get("schemaVersion")).toBe(2);
    expect([...(results.taubridge?.keys() ?? [])]).toEqual(["schemaVersion", "suite", "flaggedTasks", "manifest", "policy"]);
    expect(results.simulations).toHaveLength(6);
    const metrics = simulationMetrics(results.simulations);
    expect(metrics.averageReward).toBeCloseTo(2 / 3, 10);
    expect(metrics.passK).toEqual({ 1: 2 / 3, 2: 2 / 3 });
  });

  it.skipIf(!data)("report reads the manifest and the stored check back", async () => {
    const result = await runCli(["report", withTasks(), "--format", "json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.manifest).toMatchObject({ manifestVersion: 1, suite: "tau2", domain: "mock", seed: 300, numTrials: 2, agent: { strategy: "oracle" }, user: { strategy: "scripted" } });
    expect(report.manifest.dataCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(Object.keys(report.manifest.taskDefinitions).sort()).toEqual(["create_task_1", "update_task_with_message_history", "update_task_with_user_tools"]);
    expect(report.policy).toMatchObject({ stored: true, file: "policy2.yaml", hitsByRule: [{ ruleId: "no-new-tasks", severity: "critical", hits: 4, episodes: 4 }] });
    expect(report.policy.adherence).toBeCloseTo(1 / 3, 12);
  });
});
