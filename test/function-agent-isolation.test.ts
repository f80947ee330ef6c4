/**
 * Function agents run in worker threads (`--agent-isolation worker`, the default): agent code that
 * loops forever, ends its process, returns a promise that never settles or leaves a rejection
 * unhandled fails only its own turn (or warns), and the run goes on to the next episode and writes
 * its results — on both suites, through the CLI. Every hostile agent misbehaves in trial 0 only
 * (`test/fixtures/function-agent/hostile-agent.mjs`); trial 1 must then work.
 *
 * No timing dependence: an endless `while (true) {}` can only end by the episode timeout (3 s:
 * the next episode, which starts a fresh worker, must fit in it too, on a loaded machine); the
 * other cases run without a timeout, so a turn that is not failed at once hangs the test.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/errors/error-tree.ts";
import { loadFunctionAgent } from "../src/participants/function-agent.ts";
import { readTau2Results } from "../src/suites/tau2/codec.ts";
import { runCli, runTau2 } from "./support/cli.ts";
import { missingTau2Reason, tau2BenchDirectory } from "./support/shared-data.ts";

const FIXTURES = join(import.meta.dirname, "fixtures", "function-agent");
const HOSTILE = join(FIXTURES, "hostile-agent.mjs");
const NAMED = 'the agent "module"';

interface TauResult {
  trial: number;
  reward: number;
  info: { error?: string };
  taubridge: { termination: string };
}

function tauResults(logDir: string): TauResult[] {
  const file = readdirSync(logDir).find((name) => name.endsWith(".json") && !name.includes("checkpoint") && !name.endsWith(".meta.json"));
  const results = JSON.parse(readFileSync(join(logDir, file!), "utf8")) as TauResult[];
  return results.sort((left, right) => left.trial - right.trial);
}

function runTau(exportName: string, extra: string[] = []) {
  const logDir = mkdtempSync(join(tmpdir(), "taubridge-isolation-"));
  const run = runCli([
    "run",
    "--agent-strategy",
    "module",
    "--agent-module",
    HOSTILE,
    "--agent-option",
    `export=${exportName}`,
    "--task-ids",
    "2",
    "--num-trials",
    "2",
    "--log-dir",
    logDir,
    "--quiet",
    ...extra,
  ]);
  return { run, logDir };
}

describe.concurrent("function agents in worker threads: τ-bench", () => {
  it("an endless loop in respond() is stopped by --episode-timeout (timeout recorded), and the next episode runs", async () => {
    const { run, logDir } = runTau("loop", ["--episode-timeout", "3"]);
    const result = await run;
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const [looped, next] = tauResults(logDir);
    expect(looped.taubridge.termination).toBe("timeout");
    expect(looped.info.error).toBe("episode timed out after 3000 ms");
    expect(next).toMatchObject({ reward: 1, taubridge: { termination: "user_stop" } });
  });

  it("process.exit(0) in respond() fails its episode as agent_error naming the agent; the run completes with results", async () => {
    const { run, logDir } = runTau("exit");
    const result = await run;
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const [exited, next] = tauResults(logDir);
    expect(exited.taubridge.termination).toBe("agent_error");
    expect(exited.info.error).toMatch(/^the agent "module" called process\.exit\(0\)/);
    expect(next).toMatchObject({ reward: 1, taubridge: { termination: "user_stop" } });
  });

  it("a promise that never settles fails its turn at once (agent_error), without any timeout", async () => {
    const { run, logDir } = runTau("never");
    const result = await run;
    expect(result.exitCode).toBe(0);
    const [stuck, next] = tauResults(logDir);
    expect(stuck.taubridge.termination).toBe("agent_error");
    expect(stuck.info.error).toMatch(/^the agent "module"'s turn can never finish/);
    expect(next).toMatchObject({ reward: 1, taubridge: { termination: "user_stop" } });
  });

  it("a rejection nobody handles is a warning line; the episodes run on", async () => {
    const { run, logDir } = runTau("reject");
    const result = await run;
    expect(result.exitCode).toBe(0);
    const lines = result.stderr.trim().split("\n");
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^\[taubridge\] warning: a promise was rejected and never handled in the agent module .*hostile-agent\.mjs: stray rejection from the agent$/);
    expect(tauResults(logDir).map((result) => [result.reward, result.taubridge.termination])).toEqual([
      [1, "user_stop"],
      [1, "user_stop"],
    ]);
  });

  it("--agent-isolation none runs respond() in the harness's own thread (same results); a wrong value is one line, exit 2", async () => {
    const { run, logDir } = runTau("reject", ["--agent-isolation", "none"]);
    const result = await run;
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toMatch(/^\[taubridge\] warning: a promise was rejected and never handled \(most likely in agent code\): stray rejection from the agent$/m);
    expect(tauResults(logDir).map((result) => result.reward)).toEqual([1, 1]);
    const wrong = await runTau("reject", ["--agent-isolation", "process"]).run;
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr.trim()).toBe('taubridge: --agent-isolation: must be one of worker, none, got "process"');
  });
});

describe("function agents in worker threads: loading", () => {
  it("a missing module or an export that is no function is a one-line ConfigError when the agent is built", async () => {
    await expect(loadFunctionAgent(join(FIXTURES, "missing-agent.mjs"))).rejects.toSatisfy(
      (error) => ConfigError.isInstance(error) && /^agent module not found: .*missing-agent\.mjs$/.test((error as Error).message),
    );
    await expect(loadFunctionAgent(HOSTILE, "notAFunction")).rejects.toThrow(/^agent module .*hostile-agent\.mjs: "notAFunction" must be a function/);
    await expect(loadFunctionAgent(HOSTILE, "nothing")).rejects.toThrow(/has no export "nothing"/);
    const agent = await loadFunctionAgent(join(FIXTURES, "broken-agent.ts"));
    await agent.close?.();
  });

  it("a missing module stops the CLI run in one line, exit 2", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-isolation-"));
    const result = await runCli(["run", "--agent-strategy", "module", "--agent-module", join(FIXTURES, "missing-agent.mjs"), "--task-ids", "2", "--log-dir", logDir, "--quiet"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toMatch(/^taubridge: --agent-module .*missing-agent\.mjs: no such file$/);
  });
});

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

describe.skipIf(!data).concurrent("function agents in worker threads: τ²", () => {
  const run = (exportName: string, extra: string[] = []) => {
    const saveTo = join(mkdtempSync(join(tmpdir(), "tau2-isolation-")), "results.json");
    const args = ["--domain", "mock", "--task-ids", "create_task_1", "--agent", "module", "--agent-module", HOSTILE, "--agent-option", `export=${exportName}`];
    const child = runTau2([...args, "--user", "scripted", "--num-trials", "2", "--max-concurrency", "1", "--max-retries", "0", ...extra], { data: data as string, saveTo });
    return { child, simulations: () => readTau2Results(saveTo).simulations.sort((left, right) => left.trial - right.trial) };
  };

  it("an endless loop in respond() is stopped by --timeout (termination timeout), and the next episode runs", async () => {
    const { child, simulations } = run("loop", ["--timeout", "3"]);
    const result = await child;
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const [looped, next] = simulations();
    expect(looped.termination_reason).toBe("timeout");
    expect(next.termination_reason).toBe("user_stop");
  });

  it("process.exit(0) in respond() crashes only its attempt (τ²: infrastructure_error naming the agent); the run completes with results", async () => {
    const { child, simulations } = run("exit");
    const result = await child;
    expect(result.exitCode).toBe(3); // τ²'s runs exit 3 when an episode ended in an infrastructure error
    const [exited, next] = simulations();
    expect(exited.termination_reason).toBe("infrastructure_error");
    expect(exited.info).toMatchObject({ error_type: "AgentProtocolError" });
    expect((exited.info as { error: string }).error).toMatch(/^the agent "module" called process\.exit\(0\)/);
    expect(next.termination_reason).toBe("user_stop");
  });

  it("a promise that never settles crashes its attempt at once, without any timeout", async () => {
    const { child, simulations } = run("never");
    const result = await child;
    expect(result.exitCode).toBe(3);
    const [stuck, next] = simulations();
    expect(stuck.termination_reason).toBe("infrastructure_error");
    expect((stuck.info as { error: string }).error).toContain(`${NAMED}'s turn can never finish`);
    expect(next.termination_reason).toBe("user_stop");
  });

  it("a rejection nobody handles is a warning line; the episodes run on", async () => {
    const { child, simulations } = run("reject");
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toMatch(/^\[taubridge\] warning: a promise was rejected and never handled in the agent module .*: stray rejection from the agent$/m);
    expect(simulations().map((simulation) => simulation.termination_reason)).toEqual(["user_stop", "user_stop"]);
  });
});
