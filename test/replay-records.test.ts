/**
 * Issue 29: what `records` prints goes back into `replay`, on both suites — a record's `steps`
 * (τ-bench's say `arguments`, τ²'s say `requestor: "agent"`), a whole record, or the records file
 * itself — and `replay --from <results> --task-id X [--trial N]` takes an episode straight from a
 * results file. Each way reaches the same end state as the episode itself.
 */
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./support/cli.ts";
import { missingTau2Reason, tau2BenchDirectory } from "./support/shared-data.ts";

const scratch = (prefix: string) => mkdtempSync(join(tmpdir(), `taubridge-${prefix}-`));

async function json(args: string[]): Promise<Record<string, unknown>> {
  const result = await runCli(args);
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

type Record_ = { taskId: string; trial: number; steps: unknown[] };
type Tau2Record = { taskId: string; trial: number; steps: Array<{ requestor: string }> };

describe("τ-bench: records → replay, and replay --from", () => {
  const directory = scratch("replay-records");
  let results: string;
  let records: Record_[];
  let recordsText: string;

  beforeAll(async () => {
    const logDir = join(directory, "results");
    const run = await runCli(["run", "--task-ids", "2", "6", "--num-trials", "2", "--log-dir", logDir, "--quiet"]);
    expect(run.exitCode, run.stderr).toBe(0);
    results = join(logDir, readdirSync(logDir).find((name) => name.endsWith(".json") && !name.endsWith(".meta.json")) as string);
    const printed = await runCli(["records", results]);
    expect(printed.exitCode, printed.stderr).toBe(0);
    recordsText = printed.stdout;
    records = recordsText
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record_);
  }, 300_000);

  it("a record's steps replay as an action file ({name, arguments, requestor: agent})", async () => {
    const record = records.find((entry) => entry.taskId === "2" && entry.trial === 0) as Record_;
    const file = join(directory, "steps.json");
    writeFileSync(file, JSON.stringify(record.steps));
    const fromSteps = await json(["replay", "--env", "library", "--actions", file]);
    const fromResults = await json(["replay", "--from", results, "--env", "library", "--task-id", "2"]);
    expect(fromSteps.dataHash).toMatch(/^[0-9a-f]{64}$/);
    expect(fromSteps.dataHash).toBe(fromResults.dataHash);
    expect((fromSteps.steps as unknown[]).length).toBe(record.steps.length);
    // The untouched data has another hash: the renewals were replayed.
    const nothing = join(directory, "nothing.json");
    writeFileSync(nothing, "[]");
    expect((await json(["replay", "--env", "library", "--actions", nothing])).dataHash).not.toBe(fromSteps.dataHash);
  }, 300_000);

  it("the records file itself, one episode picked by --task-id and --trial", async () => {
    const file = join(directory, "records.jsonl");
    writeFileSync(file, recordsText);
    const picked = await json(["replay", "--env", "library", "--actions", file, "--task-id", "6", "--trial", "1"]);
    const direct = await json(["replay", "--from", results, "--env", "library", "--task-id", "6", "--trial", "1"]);
    expect(picked.dataHash).toBe(direct.dataHash);
    const several = await runCli(["replay", "--env", "library", "--actions", file]);
    expect(several.exitCode).toBe(2);
    expect(several.stderr.trim()).toMatch(/^taubridge: .* holds 4 episodes; pick one with --task-id \(2, 6\)/);
  }, 300_000);

  it("--from: an unknown task or trial is one line naming what the file holds", async () => {
    const task = await runCli(["replay", "--from", results, "--env", "library", "--task-id", "9"]);
    expect(task.exitCode).toBe(2);
    expect(task.stderr.trim()).toMatch(/^taubridge: .* has no episode of task 9; its tasks: 2, 6$/);
    const trial = await runCli(["replay", "--from", results, "--env", "library", "--task-id", "2", "--trial", "5"]);
    expect(trial.exitCode).toBe(2);
    expect(trial.stderr.trim()).toMatch(/^taubridge: .* has no trial 5 of task 2; its trials: 0, 1$/);
    const both = await runCli(["replay", "--from", results, "--actions", "x.json", "--env", "library", "--task-id", "2"]);
    expect(both.exitCode).toBe(2);
  }, 300_000);
});

describe.skipIf(!tau2BenchDirectory)(`τ²: records → replay, and replay --from${tau2BenchDirectory ? "" : ` (${missingTau2Reason})`}`, () => {
  const data = tau2BenchDirectory as string;
  const directory = scratch("replay-records-tau2");
  const saveTo = join(directory, "results.json");

  beforeAll(async () => {
    const run = await runCli([
      "tau2",
      "run",
      "--domain",
      "mock",
      "--task-ids",
      "update_task_with_user_tools",
      "create_task_1",
      "--agent",
      "oracle",
      "--user",
      "scripted",
      "--data-dir",
      data,
      "--save-to",
      saveTo,
      "--quiet",
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
  }, 300_000);

  it("a record's steps (requestor agent/user) replay from the task's initial state to the same hashes as --from", async () => {
    const printed = await runCli(["records", saveTo]);
    const record = printed.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Tau2Record)
      .find((entry) => entry.taskId === "create_task_1") as Tau2Record;
    expect(record.steps.map((step) => step.requestor)).toContain("agent");
    const file = join(directory, "steps.json");
    writeFileSync(file, JSON.stringify(record.steps));
    const fromSteps = await json(["replay", "--suite", "tau2", "--env", "mock", "--data-dir", data, "--task-id", "create_task_1", "--actions", file]);
    const fromResults = await json(["replay", "--from", saveTo, "--data-dir", data, "--task-id", "create_task_1"]);
    expect(fromSteps.dbHash).toEqual(fromResults.dbHash);
    expect((fromResults.steps as Array<{ requestor: string }>).map((step) => step.requestor)).toEqual(["assistant"]);
    // A whole record as the action file: its suite, domain and task come with it.
    const whole = join(directory, "record.json");
    writeFileSync(whole, JSON.stringify(record));
    expect((await json(["replay", "--data-dir", data, "--actions", whole])).dbHash).toEqual(fromResults.dbHash);
  }, 300_000);
});

describe.skipIf(!tau2BenchDirectory)(`τ³: replay --from uses the retrieval variant the results file recorded${tau2BenchDirectory ? "" : ` (${missingTau2Reason})`}`, () => {
  it("a banking_knowledge run's episode replays without --retrieval-config (the default variant cannot run here)", async () => {
    const data = tau2BenchDirectory as string;
    const saveTo = join(scratch("replay-from-bank"), "results.json");
    const variant = ["--retrieval-config", "grep_only", "--retrieval-config-kwargs", '{"grep_top_k": 2}'];
    const run = await runCli([
      "tau2",
      "run",
      "--domain",
      "banking_knowledge",
      "--task-ids",
      "task_001",
      "--agent",
      "oracle",
      "--user",
      "scripted",
      ...variant,
      "--data-dir",
      data,
      "--save-to",
      saveTo,
      "--quiet",
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const recorded = await json(["replay", "--from", saveTo, "--data-dir", data]);
    const flagged = await json(["replay", "--from", saveTo, "--data-dir", data, ...variant]);
    expect(recorded.dbHash).toEqual(flagged.dbHash);
    expect((recorded.steps as unknown[]).length).toBeGreaterThan(0);
    // A flag still chooses: the default variant is refused as it is for any replay.
    const alltools = await runCli(["replay", "--from", saveTo, "--data-dir", data, "--retrieval-config", "alltools"]);
    expect(alltools.exitCode).toBe(2);
    expect(alltools.stderr).toMatch(/retrieval config 'alltools' needs/);
  }, 180_000);
});
