/**
 * Issue 18, class 2 (crashes and hangs): limits and output paths are refused before any work, and
 * an agent that misbehaves — a respond() that never settles, calls process.exit, leaves a stray
 * rejected promise, or blocks the thread past the episode timeout — cannot end, hang or silently
 * corrupt a run, on both suites. No test depends on timing: the busy agent blocks for longer than
 * the timeout whatever the machine's speed, and a never-settling turn is detected when the event
 * loop runs dry, not by a timer.
 */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readTau2Results } from "../src/suites/tau2/codec.ts";
import { runCli, runTau2 } from "./support/cli.ts";
import { missingTau2Reason, tau2BenchDirectory, tauBenchDirectory } from "./support/shared-data.ts";

const agentModule = (name: string) => fileURLToPath(new URL(`./fixtures/misbehaving-agents/${name}.mjs`, import.meta.url));
const scratch = (prefix: string) => mkdtempSync(join(tmpdir(), `taubridge-${prefix}-`));

/** A regular file, so that a path under it can never be created. */
function aFile(): string {
  const path = join(scratch("file"), "plain.txt");
  writeFileSync(path, "not a folder");
  return path;
}

/** Runs a τ-bench `module` agent on the bundled library domain; returns the process and its only results entry. */
async function tauBenchRun(agent: string, extra: string[] = []) {
  const logDir = scratch("misbehaving");
  const result = await runCli(["run", "--agent-strategy", "module", "--agent-module", agentModule(agent), "--task-ids", "0", "--log-dir", logDir, "--quiet", ...extra]);
  const file = readdirSync(logDir).find((name) => name.endsWith(".json") && !name.endsWith(".meta.json"));
  const entries = file ? (JSON.parse(readFileSync(join(logDir, file), "utf8")) as Array<{ reward: number; info: Record<string, unknown>; taubridge: { termination: string } }>) : [];
  return { result, entries };
}

/** Runs a τ² `module` agent on one mock task; returns the process and its only simulation. */
async function tau2Run(agent: string, extra: string[] = []) {
  const saveTo = join(scratch("misbehaving-tau2"), "results.json");
  const result = await runTau2(["--domain", "mock", "--task-ids", "create_task_1", "--agent", "module", "--agent-option", `module=${agentModule(agent)}`, "--user", "scripted", ...extra], {
    data: tau2BenchDirectory as string,
    saveTo,
  });
  return { result, simulation: readTau2Results(saveTo).simulations[0] };
}

describe("limits and output paths are refused before any work (exit 2, one line)", () => {
  it("--num-trials beyond the limit, on run and tau2 run", async () => {
    const run = await runCli(["run", "--num-trials", "1000000000", "--log-dir", scratch("limit")]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain("--num-trials");
    const tau2 = await runCli(["tau2", "run", "--domain", "mock", "--num-trials", "1000000000", "--save-to", join(scratch("limit"), "r.json")]);
    expect(tau2.exitCode).toBe(2);
    expect(tau2.stderr.trim().split("\n")).toHaveLength(1);
    expect(tau2.stderr).toContain("--num-trials");
  });

  it.skipIf(!tauBenchDirectory)("a run of more than a million episodes (τ-bench retail × 10000 trials)", async () => {
    const run = await runCli(["run", "--env", "retail", "--agent-strategy", "oracle", "--num-trials", "10000", "--data-dir", tauBenchDirectory as string, "--log-dir", scratch("size")]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr.trim()).toMatch(/^taubridge: \d+ tasks × 10000 trials = \d+ episodes; a run has at most 1000000/);
  });

  it.skipIf(!tau2BenchDirectory)(`a run of more than a million episodes (τ² telecom full × 10000 trials)${tau2BenchDirectory ? "" : ` (${missingTau2Reason})`}`, async () => {
    const run = await runCli([
      "tau2",
      "run",
      "--domain",
      "telecom",
      "--task-set-name",
      "telecom_full",
      "--agent",
      "oracle",
      "--user",
      "scripted",
      "--num-trials",
      "10000",
      "--data-dir",
      tau2BenchDirectory as string,
      "--save-to",
      join(scratch("size"), "r.json"),
    ]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr.trim()).toMatch(/^taubridge: \d+ tasks × 10000 trials = \d+ episodes; a run has at most 1000000/);
  });

  it("a --log-dir under a regular file", async () => {
    const file = aFile();
    const run = await runCli(["run", "--log-dir", join(file, "logs")]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr.trim()).toBe(`taubridge: --log-dir ${join(file, "logs")}: ${file} is a file, not a folder`);
  });

  it.skipIf(!tau2BenchDirectory)("a τ² --save-to under a regular file, and one that is a folder", async () => {
    const file = aFile();
    const under = await runCli(["tau2", "run", "--domain", "mock", "--agent", "oracle", "--user", "scripted", "--data-dir", tau2BenchDirectory as string, "--save-to", join(file, "r.json")]);
    expect(under.exitCode).toBe(2);
    expect(under.stderr.trim()).toBe(`taubridge: --save-to ${join(file, "r.json")}: ${file} is a file, not a folder`);
    const folder = scratch("folder");
    const isFolder = await runCli(["tau2", "run", "--domain", "mock", "--agent", "oracle", "--user", "scripted", "--data-dir", tau2BenchDirectory as string, "--save-to", folder]);
    expect(isFolder.exitCode).toBe(2);
    expect(isFolder.stderr).toContain("is a folder");
  });
});

describe("misbehaving τ-bench agents (bundled library domain)", () => {
  it("a respond() that never settles: an agent error naming the agent, at once; the run completes", async () => {
    const { result, entries } = await tauBenchRun("never-settles");
    expect(result.exitCode).toBe(0);
    expect(entries).toHaveLength(1);
    expect(entries[0].taubridge.termination).toBe("agent_error");
    expect(String(entries[0].info.error)).toContain('the agent "module"\'s turn can never finish');
  });

  it("process.exit(0) inside respond(): the turn fails with an agent error, results are written", async () => {
    const { result, entries } = await tauBenchRun("exits");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("agent_error=1");
    expect(result.stdout).toContain('the agent "module" called process.exit(0)');
    expect(entries).toHaveLength(1);
    expect(entries[0].taubridge.termination).toBe("agent_error");
    expect(entries[0].reward).toBe(0);
  });

  it("a stray rejected promise: one warning line, the finished run exits 0", async () => {
    const { result, entries } = await tauBenchRun("stray-rejection");
    expect(result.exitCode).toBe(0);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^\[taubridge\] warning: a promise was rejected and never handled .*: stray rejection in agent\n?$/);
    expect(entries).toHaveLength(1);
  });

  it("a synchronous busy loop longer than --episode-timeout is a timeout, not a scored user_stop", async () => {
    const { result, entries } = await tauBenchRun("busy", ["--episode-timeout", "1"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("ended by: timeout=1");
    expect(entries).toHaveLength(1);
    expect(entries[0].taubridge.termination).toBe("timeout");
  });
});

describe.skipIf(!tau2BenchDirectory)(`misbehaving τ² agents (mock)${tau2BenchDirectory ? "" : ` (${missingTau2Reason})`}`, () => {
  it("a respond() that never settles: an infrastructure error naming the agent (τ²'s spelling), exit 3", async () => {
    const { result, simulation } = await tau2Run("never-settles");
    expect(result.exitCode).toBe(3);
    expect(simulation.termination_reason).toBe("infrastructure_error");
    expect(JSON.stringify(simulation.info)).toContain('the agent \\"module\\"\'s turn can never finish');
  });

  it("process.exit(0) inside respond(): the episode fails visibly, results are written", async () => {
    const { result, simulation } = await tau2Run("exits");
    expect(result.exitCode).toBe(3);
    expect(simulation.termination_reason).toBe("infrastructure_error");
    expect(JSON.stringify(simulation.info)).toContain('the agent \\"module\\" called process.exit(0)');
  });

  it("a stray rejected promise: one warning line, the finished run exits 0", async () => {
    const { result, simulation } = await tau2Run("stray-rejection");
    expect(result.exitCode).toBe(0);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^\[taubridge\] warning: a promise was rejected and never handled .*: stray rejection in agent\n?$/);
    expect(simulation.termination_reason).toBe("user_stop");
  });

  it("a synchronous busy loop longer than --timeout is a timeout", async () => {
    const { result, simulation } = await tau2Run("busy", ["--timeout", "1"]);
    expect(result.exitCode).toBe(0);
    expect(simulation.termination_reason).toBe("timeout");
  });
});
