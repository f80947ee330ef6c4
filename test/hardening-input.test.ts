/**
 * Hardening, class 1 (wrong numbers from bad input), on both suites: a task given twice, a reward
 * outside [0, 1], a negative or fractional trial, a (task, trial) recorded twice and a results
 * file without an episode are refused in one line naming the file, the entry and the field (exit
 * 2), by every reader (report, rescore, records, resume), never turned into a pass^k.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, runTau2 } from "./support/cli.ts";
import { linkedDataCopy } from "./support/data-copies.ts";
import { describeWithTau2Data, warnIfMissingShared } from "./support/shared-data.ts";

warnIfMissingShared();

const TAU2_FIXTURE = join(import.meta.dirname, "fixtures", "tau2-results", "v1", "mock-oracle-3-tasks-2-trials.json");
const TAU2_OFFLINE = ["--domain", "mock", "--agent", "oracle", "--user", "scripted"];
const TWICE = "is given twice; each task runs once per trial (use --num-trials to repeat it)";
const REWARD = "expected a reward between 0 and 1";
const TRIAL = "expected a trial number (an integer ≥ 0)";

function temporary(name: string, content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "taubridge-input-")), name);
  writeFileSync(path, content);
  return path;
}

/** Expects exit 2, nothing on stdout, and exactly `line` on stderr. */
function expectRefusal(result: { exitCode?: number; stdout: unknown; stderr: unknown }, line: string): void {
  expect(String(result.stderr).trim()).toBe(`taubridge: ${line}`);
  expect(String(result.stdout)).toBe("");
  expect(result.exitCode).toBe(2);
}

/** A minimal τ-bench results entry (the fields every reader needs). */
const entry = (taskId: number, trial: number, reward = 1) => ({ task_id: taskId, reward, info: {}, traj: [], trial });

/** The τ² fixture with `change` applied to its parsed document. */
function tau2Results(change: (document: { simulations: Array<Record<string, unknown> & { reward_info: { reward: number } }> }) => void): string {
  const document = JSON.parse(readFileSync(TAU2_FIXTURE, "utf8"));
  change(document);
  return temporary("results.json", JSON.stringify(document, null, 2));
}

/** Runs report, rescore and records on `file`, each expecting `line`. */
async function expectEveryReaderRefuses(file: string, line: string, rescoreArgs: string[]): Promise<void> {
  const [report, rescore, records] = await Promise.all([runCli(["report", file]), runCli(["rescore", file, ...rescoreArgs]), runCli(["records", file])]);
  expectRefusal(report, line);
  expectRefusal(rescore, line);
  expectRefusal(records, line);
}

describe("τ-bench", () => {
  it("a task id given twice is refused before anything runs (also when two spellings are one index)", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-input-"));
    expectRefusal(await runCli(["run", "--task-ids", "0", "0", "1", "--log-dir", logDir, "--quiet"]), `--task-ids: task "0" ${TWICE}`);
    expectRefusal(await runCli(["run", "--task-ids", "1", "01", "--log-dir", logDir, "--quiet"]), `--task-ids: task "1" ${TWICE}`);
  });

  it("an empty task selection says that no task was selected, and where from", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-input-"));
    const empty = temporary("tasks.json", "[]");
    expectRefusal(await runCli(["run", "--task-file", empty, "--log-dir", logDir, "--quiet"]), `no task selected: task file ${empty} has no tasks`);
    expectRefusal(await runCli(["run", "--task-file", empty, "--task-ids", "0", "--log-dir", logDir, "--quiet"]), `no task selected: task file ${empty} has no tasks`);
    expectRefusal(
      await runCli(["run", "--start-index", "3", "--end-index", "3", "--log-dir", logDir, "--quiet"]),
      "no task selected: --start-index 3 --end-index 3 selects none of the 11 tasks of the test split of library",
    );
  });

  it("a reward outside [0, 1] is refused by report, rescore and records, naming the entry and the field", async () => {
    const file = temporary("results.json", JSON.stringify([entry(0, 0), entry(1, 0, 1.5)]));
    await expectEveryReaderRefuses(file, `${file}: entry 1: field reward: ${REWARD}`, ["--env", "library"]);
    const negative = temporary("results.json", JSON.stringify([entry(0, 0, -0.5)]));
    expectRefusal(await runCli(["report", negative]), `${negative}: entry 0: field reward: ${REWARD}`);
  });

  it("a negative or fractional trial is refused", async () => {
    const negative = temporary("results.json", JSON.stringify([entry(0, 0), entry(0, -1)]));
    await expectEveryReaderRefuses(negative, `${negative}: entry 1: field trial: ${TRIAL}`, ["--env", "library"]);
    const fraction = temporary("results.json", JSON.stringify([entry(0, 0.5)]));
    expectRefusal(await runCli(["report", fraction]), `${fraction}: entry 0: field trial: ${TRIAL}`);
  });

  it("a (task, trial) recorded twice is refused", async () => {
    const file = temporary("results.json", JSON.stringify([entry(0, 0), entry(1, 0), entry(0, 0, 0)]));
    await expectEveryReaderRefuses(file, `${file}: entries 0 and 2 are both task 0 trial 0; is it several runs' results in one file?`, ["--env", "library"]);
  });

  it("a results file without an episode is refused, not an n/a table", async () => {
    const file = temporary("results.json", "[]");
    await expectEveryReaderRefuses(file, `${file}: the results file holds no episode (an empty list)`, ["--env", "library"]);
  });

  it("resume refuses a checkpoint line whose reward is out of bounds, naming the line", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-input-"));
    const first = await runCli(["run", "--task-ids", "0", "1", "--log-dir", logDir, "--quiet"]);
    expect(first.exitCode).toBe(0);
    const checkpoint = `${/Results saved to (.+)\.json/.exec(first.stdout)![1]}.checkpoint.jsonl`;
    const lines = readFileSync(checkpoint, "utf8").trimEnd().split("\n");
    expect(lines[2]).toContain('"reward": 1.0');
    writeFileSync(checkpoint, [...lines.slice(0, 2), lines[2].replace('"reward": 1.0', '"reward": 2.0'), ""].join("\n"));
    expectRefusal(await runCli(["run", "--task-ids", "0", "1", "--log-dir", logDir, "--quiet"]), `${checkpoint}: line 3 (task 1): field reward: ${REWARD}, got 2`);
  });
});

describe("τ²", () => {
  it("a task id given twice is refused before anything runs", async () => {
    const saveTo = join(mkdtempSync(join(tmpdir(), "taubridge-input-")), "results.json");
    expectRefusal(await runCli(["tau2", "run", ...TAU2_OFFLINE, "--task-ids", "create_task_1", "create_task_1", "--save-to", saveTo, "--quiet"]), `--task-ids: task "create_task_1" ${TWICE}`);
  });

  it("a reward outside [0, 1] is refused by report, rescore and records, naming the simulation and the field", async () => {
    const file = tau2Results((document) => {
      document.simulations[2].reward_info.reward = 1.5;
    });
    await expectEveryReaderRefuses(file, `${file}: simulations[2] (task update_task_with_user_tools): field reward_info.reward: ${REWARD}`, []);
  });

  it("a negative or fractional trial is refused", async () => {
    const negative = tau2Results((document) => {
      document.simulations[1].trial = -1;
    });
    await expectEveryReaderRefuses(negative, `${negative}: simulations[1] (task update_task_with_message_history): field trial: ${TRIAL}`, []);
    const fraction = tau2Results((document) => {
      document.simulations[0].trial = 0.5;
    });
    expectRefusal(await runCli(["report", fraction]), `${fraction}: simulations[0] (task create_task_1): field trial: ${TRIAL}`);
  });

  it("a (task, trial) recorded twice is refused", async () => {
    const file = tau2Results((document) => {
      document.simulations[3].trial = 0;
    });
    await expectEveryReaderRefuses(file, `${file}: simulations 0 and 3 are both task create_task_1 trial 0; is it several runs' results in one file?`, []);
  });

  it("a results file without a simulation is refused, not an n/a table", async () => {
    const file = tau2Results((document) => {
      document.simulations = [];
    });
    await expectEveryReaderRefuses(file, `${file}: the results file holds no simulation (field simulations is empty)`, []);
  });
});

describeWithTau2Data("τ² runs", (tau2Data) => {
  it.concurrent("an empty task file says that no task was selected", async () => {
    const dataDir = linkedDataCopy(tau2Data, { "mock/tasks.json": "[]" });
    const result = await runTau2(TAU2_OFFLINE, { data: dataDir, saveTo: join(dataDir, "out", "results.json") });
    expectRefusal(result, `no task selected: mock's task file ${join(dataDir, "mock", "tasks.json")} has no tasks`);
  });

  it.concurrent("resume refuses a results file whose reward is out of bounds", async () => {
    const saveTo = join(mkdtempSync(join(tmpdir(), "taubridge-input-")), "results.json");
    const first = await runTau2([...TAU2_OFFLINE, "--num-tasks", "2"], { data: tau2Data, saveTo });
    expect(first.exitCode).toBe(0);
    const document = JSON.parse(readFileSync(saveTo, "utf8"));
    document.simulations[1].reward_info.reward = -1;
    writeFileSync(saveTo, JSON.stringify(document, null, 2));
    const task = document.simulations[1].task_id;
    expectRefusal(await runTau2([...TAU2_OFFLINE, "--num-tasks", "2"], { data: tau2Data, saveTo }), `${saveTo}: simulations[1] (task ${task}): field reward_info.reward: ${REWARD}`);
  });
});
