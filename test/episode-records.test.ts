/**
 * The canonical episode record (src/core/episode-record.ts) read from results files of both
 * suites, ours and the originals': `taubridge records` prints one per episode, with the same shape
 * whoever wrote the file, so failure analysis or a viewer needs no suite-specific code.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EpisodeRecord } from "../src/core/episode-record.ts";
import { runCli } from "./support/cli.ts";
import { missingTau2Reason, tau2BenchDirectory, tauBenchDirectory } from "./support/shared-data.ts";

const V1_RESULTS = join(import.meta.dirname, "fixtures", "results", "v1", "library-test-oracle-none-0.0_ids_0-6_user-none-scripted.json");
const KEYS = [
  "schemaVersion",
  "suite",
  "domain",
  "taskId",
  "trial",
  "seed",
  "termination",
  "reward",
  "rewardBreakdown",
  "messages",
  "steps",
  "planned",
  "unmappedTools",
  "usage",
  "cost",
  "error",
  "durationSeconds",
  "expected",
  "review",
];

async function records(args: string[]): Promise<EpisodeRecord[]> {
  const result = await runCli(["records", ...args]);
  expect(result.stderr).toBe("");
  expect(result.exitCode).toBe(0);
  return result.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as EpisodeRecord);
}

describe("canonical episode records", () => {
  it("from a τ-bench results file of ours: every key, tool calls with their results and origin", async () => {
    const read = await records([V1_RESULTS, "--env", "library"]);
    expect(read.length).toBeGreaterThan(0);
    for (const record of read) expect(Object.keys(record)).toEqual(KEYS);
    const first = read[0];
    expect(first).toMatchObject({ schemaVersion: 2, suite: "tau-bench", domain: "library", taskId: "0", trial: 0, termination: "user_stop", reward: 1 });
    expect(first.steps.length).toBeGreaterThan(0);
    for (const step of first.steps) {
      expect(step.origin).toBe("agent");
      expect(step.requestor).toBe("agent");
      expect(typeof step.result).toBe("string");
    }
    expect(first.messages[0].role).toBe("system");
  });

  it.skipIf(!tauBenchDirectory)("from the original τ-bench's published trajectories (only `traj`): tool calls read from the trajectory, the rest null", async () => {
    const file = join(tauBenchDirectory as string, "historical_trajectories", "gpt-4o-airline.json");
    const read = await records([file]);
    expect(read).toHaveLength(200);
    const withCalls = read.find((record) => record.steps.length > 0) as EpisodeRecord;
    expect(withCalls.termination).toBeNull();
    expect(withCalls.usage).toEqual({ agent: null, user: null });
    expect(withCalls.steps[0]).toMatchObject({ requestor: "agent", origin: "agent", frameworkToolName: null });
    expect(Object.keys(withCalls)).toEqual(KEYS);
  });

  it.skipIf(!tau2BenchDirectory)("from τ² results files, ours and one without taubridge's block (the original's shape): requestors, errors, reward breakdown", async () => {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-records-"));
    const ours = join(directory, "ours.json");
    const task = "[mobile_data_issue]user_abroad_roaming_disabled_off[PERSONA:Hard]";
    const run = await runCli([
      "tau2",
      "run",
      "--domain",
      "telecom",
      "--task-set-name",
      "telecom_small",
      "--task-ids",
      task,
      "--agent",
      "oracle",
      "--user",
      "scripted",
      "--data-dir",
      tau2BenchDirectory as string,
      "--save-to",
      ours,
      "--quiet",
    ]);
    expect(run.exitCode).toBe(0);
    const document = JSON.parse(readFileSync(ours, "utf8"));
    delete document.taubridge;
    const original = join(directory, "original.json");
    writeFileSync(original, JSON.stringify(document, null, 2));
    for (const file of [ours, original]) {
      const [record] = await records([file]);
      expect(Object.keys(record)).toEqual(KEYS);
      expect(record).toMatchObject({ suite: "tau2", domain: "telecom", taskId: task, termination: "user_stop", rewardBreakdown: { ENV_ASSERTION: 1 } });
      expect(record.steps.map((step) => [step.name, step.requestor, step.origin])).toEqual([
        ["enable_roaming", "agent", "agent"],
        ["toggle_roaming", "user", "user"],
      ]);
      for (const step of record.steps) expect(typeof step.error).toBe("boolean");
      expect(Object.keys(record.rewardBreakdown).length).toBeGreaterThan(0);
    }
    expect(readdirSync(directory).sort()).toEqual(["original.json", "ours.json", "ours.meta.json"]);
  });

  it.skipIf(!tau2BenchDirectory)("prints a JSON array with --format json and each entry as its file holds it with --native", async () => {
    const all = await runCli(["records", V1_RESULTS, "--format", "json", "--native"]);
    const parsed = JSON.parse(all.stdout) as Array<EpisodeRecord & { native: Record<string, unknown> }>;
    expect(Array.isArray(parsed)).toBe(true);
    expect(parsed[0].native).toHaveProperty("traj");
  });
});

if (!tau2BenchDirectory) console.warn(missingTau2Reason);
