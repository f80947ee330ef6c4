import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePythonJson } from "../src/value/index.ts";
import { tauBenchDirectory, warnIfMissingShared } from "./support/shared-data.ts";
import { runCli } from "./support/cli.ts";

warnIfMissingShared();
// The CLI from the sources (tests run on the sources; the built bin is tested by the package test).

const taubridge = runCli;

describe("taubridge CLI on the bundled domain (offline, no data directory)", () => {
  it("runs the main job with no options and prints the leaderboard", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-cli-"));
    const result = await taubridge(["run", "--log-dir", logDir, "--quiet"]);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/Pass\^1/);
    expect(result.stdout).toMatch(/oracle \(no model\) on library\/test/);
    expect(result.stdout).toMatch(/1\.000/);
    const resultsPath = /Results saved to (.+\.json)/.exec(result.stdout)![1];
    const entries = parsePythonJson(readFileSync(resultsPath, "utf8")) as Map<string, unknown>[];
    expect(entries.length).toBeGreaterThan(0);
    expect([...entries[0].keys()].slice(0, 5)).toEqual(["task_id", "reward", "info", "traj", "trial"]);
    expect(readFileSync(resultsPath, "utf8")).toContain('"reward": 1.0');
  });

  it("resumes: a second run with the same log dir runs nothing new", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-cli-"));
    await taubridge(["run", "--log-dir", logDir, "--quiet", "--num-trials", "2"]);
    const second = await taubridge(["run", "--log-dir", logDir, "--num-trials", "2", "--format", "json"]);
    expect(second.exitCode).toBe(0);
    expect(second.stderr).toMatch(/resumed \d+ finished episodes, running 0 /);
    const report = JSON.parse(second.stdout);
    expect(report.passK).toEqual({ "1": 1, "2": 1 });
    const spelledOut = await taubridge(["run", "--log-dir", logDir, "--num-trials", "2", "--resume"]);
    expect(spelledOut.exitCode).toBe(0);
    expect(spelledOut.stderr).toMatch(/resumed \d+ finished episodes, running 0 /);
    const fresh = await taubridge(["run", "--log-dir", logDir, "--num-trials", "2", "--no-resume"]);
    expect(fresh.exitCode).toBe(0);
    expect(fresh.stderr).not.toMatch(/resuming/);
  });

  it("exits 2 with a one-line message naming the known domains for a typo", async () => {
    const result = await taubridge(["run", "--env", "airlin"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe('taubridge: Unknown domain "airlin"; known: library, retail, airline');
  });

  it("exits 2 naming file, index and field for a malformed task file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "taubridge-cli-"));
    const file = join(dir, "tasks.json");
    writeFileSync(
      file,
      JSON.stringify([
        { user_id: "x", actions: [], instruction: "hi", outputs: [] },
        { user_id: 7, actions: [], instruction: "", outputs: [] },
      ]),
    );
    const result = await taubridge(["run", "--task-file", file, "--log-dir", dir]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toMatch(new RegExp(`^taubridge: ${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: task 1: field user_id: `));
  });
});

describe.skipIf(!tauBenchDirectory)("taubridge CLI on the official data", () => {
  it("replay prints the original observations and the data hash", async () => {
    const dir = mkdtempSync(join(tmpdir(), "taubridge-cli-"));
    const fixture = JSON.parse(readFileSync(join(tauBenchDirectory!, "fixtures", "gt_replay_retail_test.json"), "utf8"));
    const tasksText = readFileSync(join(tauBenchDirectory!, "retail", "tasks_test.json"), "utf8");
    const task = (parsePythonJson(tasksText) as Map<string, unknown>[])[5];
    // Re-serialise the task's actions from the raw text to keep number types exactly.
    const actionsText = JSON.stringify(JSON.parse(tasksText)[5].actions);
    writeFileSync(join(dir, "actions.json"), actionsText);
    const result = await taubridge(["replay", "--env", "retail", "--data-dir", tauBenchDirectory!, "--actions", join(dir, "actions.json"), "--format", "json"]);
    expect(result.exitCode).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output.steps).toEqual(fixture.tasks[5].steps);
    expect(output.dataHash).toBe(fixture.tasks[5].gt_data_hash);
    expect(task).toBeInstanceOf(Map);
  });

  it("rescore agrees with all 200 historical gpt-4o airline rewards and explains the hash difference", async () => {
    const path = join(tauBenchDirectory!, "historical_trajectories", "gpt-4o-airline.json");
    const result = await taubridge(["rescore", path, "--env", "airline", "--data-dir", tauBenchDirectory!, "--format", "json"]);
    expect(result.exitCode).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.total).toBe(200);
    expect(report.agree).toBe(200);
    expect(report.passK["1"]).toBeCloseTo(0.42, 12);
    expect(Number(report.passK["2"].toFixed(3))).toBe(0.273);
    expect(report.passK["3"]).toBeCloseTo(0.22, 12);
    expect(report.passK["4"]).toBeCloseTo(0.2, 12);
    expect(report.hashCompared).toBe(182);
    expect(report.hashMatches).toBe(0);
    expect(report.legacyHashMatches).toBe(182);
    expect(report.hashExplanation).toMatch(/province/);
  });

  it("report prints the leaderboard row of the original's results file", async () => {
    const path = join(tauBenchDirectory!, "historical_trajectories", "gpt-4o-airline.json");
    const result = await taubridge(["report", path, "--format", "json"]);
    expect(result.exitCode).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.passK).toEqual({ "1": 0.42, "2": 0.2733333333333333, "3": 0.22, "4": 0.2 });
    expect(report.averageReward).toBe(0.42);
  });

  it("runs the oracle on retail through the CLI", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-cli-"));
    const result = await taubridge([
      "run",
      "--env",
      "retail",
      "--agent-strategy",
      "oracle",
      "--user-strategy",
      "scripted",
      "--data-dir",
      tauBenchDirectory!,
      "--log-dir",
      logDir,
      "--end-index",
      "10",
      "--format",
      "json",
      "--quiet",
    ]);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).passK).toEqual({ "1": 1 });
  });
});
