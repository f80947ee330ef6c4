/**
 * Issue 29: τ²'s scripted user performs the task's user-side ground-truth actions whatever the agent
 * says — it exists to check the pipeline with the oracle — so with any other agent a do-nothing
 * agent can score. Said where it matters: in `taubridge strategies`, and as a line under the report
 * of a run (and of `report` on its results file) that pairs the scripted user with another agent.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);
const DO_NOTHING = join(import.meta.dirname, "..", "fixtures", "tau2", "do-nothing-agent.mjs");
const NOTE = /^⚠ the scripted user performs the task's user-side actions whatever the agent says/m;

function tau2Run(agent: readonly string[]) {
  const saveTo = join(mkdtempSync(join(tmpdir(), "taubridge-scripted-note-")), "results.json");
  return { saveTo, run: runCli(["tau2", "run", "--domain", "mock", "--task-ids", "create_task_1", ...agent, "--user", "scripted", "--data-dir", data as string, "--save-to", saveTo, "--quiet"]) };
}

describe.skipIf(!data)("the scripted τ² user is for checking the pipeline with the oracle", () => {
  it("a run pairing it with another agent says so under the report, and so does `report` on its results", async () => {
    const { saveTo, run } = tau2Run(["--agent", "module", "--agent-module", DO_NOTHING]);
    const result = await run;
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(NOTE);
    expect(result.stdout).toContain("--user user_simulator");
    const report = await runCli(["report", saveTo]);
    expect(report.exitCode, report.stderr).toBe(0);
    expect(report.stdout).toMatch(NOTE);
  }, 300_000);

  it("with the oracle, nothing is said", async () => {
    const { saveTo, run } = tau2Run(["--agent", "oracle"]);
    const result = await run;
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(NOTE);
    expect((await runCli(["report", saveTo])).stdout).not.toMatch(NOTE);
  }, 300_000);

  it("`taubridge strategies` says what it does and what its scores mean with another agent", async () => {
    const result = await runCli(["strategies"]);
    const tau2Users = result.stdout.slice(result.stdout.indexOf("τ²-bench")).split("User strategies:")[1] ?? "";
    const scripted = tau2Users.split("\n").find((line) => /^ {4}scripted /.test(line)) ?? "";
    expect(scripted).toContain("whatever the agent says");
    expect(scripted).toContain("with any other agent its scores mean little");
  }, 300_000);
});
