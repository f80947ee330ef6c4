/**
 * `taubridge tau2 run` end to end on the mock domain (offline: oracle agent, scripted user), with
 * tau2's flag spellings: results file in τ²'s schema, per-trial seeds as tau2 derives them,
 * resume (same file, more tasks) without duplicates, a mismatched resume refused, unsupported
 * flags refused by name, report and rescore of the written file; and, in process, a crashing
 * participant saved as `infrastructure_error` after τ²'s retries.
 */
import { readTau2FirstAgentMessage } from "../../src/suites/tau2/engine/upstream-text.ts";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tau2Registries } from "../support/tau2-registries.ts";
import type { Participant } from "../../src/core/contracts.ts";
import { Registry } from "../../src/core/registry.ts";
import { readTau2Results, resultsText } from "../../src/suites/tau2/codec.ts";
import { type Tau2ParticipantFactory, TAU2_RUN_DEFAULTS, buildTau2Run } from "../../src/suites/tau2/build.ts";
import { runTau2Batch } from "../../src/suites/tau2/batch.ts";
import type { Tau2Task } from "../../src/suites/tau2/tasks.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";
import { runCli } from "../support/cli.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

const taubridge = runCli;

const offline = ["--domain", "mock", "--agent", "oracle", "--user", "scripted", "--data-dir", data ?? ""];

describe.skipIf(!data)("taubridge tau2 run (mock, offline)", () => {
  it("runs with tau2's flags and writes a τ² results file with tau2's seeds", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "tau2-run-")), "results.json");
    const result = await taubridge([
      "tau2",
      "run",
      ...offline,
      "--task-split-name",
      "base",
      "--num-trials",
      "2",
      "--seed",
      "300",
      "--max-concurrency",
      "2",
      "--max-steps",
      "200",
      "--max-errors",
      "10",
      "--save-to",
      file,
      "--quiet",
    ]);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/oracle \(no model\) on mock/);
    expect(result.stdout).toMatch(/0\.800/);
    expect(result.stdout).toMatch(/score without checking everything/);
    const stored = readTau2Results(file);
    expect(stored.simulations).toHaveLength(20);
    expect(stored.tasks).toHaveLength(10);
    expect(new Set(stored.simulations.map((simulation) => `${simulation.trial}:${simulation.seed}`))).toEqual(new Set(["0:626729", "1:373753"]));
    expect([...stored.info.keys()].slice(0, 5)).toEqual(["git_commit", "num_trials", "max_steps", "max_errors", "user_info"]);
    const first = stored.simulations.find((simulation) => simulation.task_id === "create_task_1")!;
    expect(first.messages[0]).toMatchObject({ role: "assistant", content: readTau2FirstAgentMessage(data as string), turn_idx: 0 });
    expect(first.termination_reason).toBe("user_stop");
    const report = await taubridge(["report", file, "--format", "json"]);
    expect(report.exitCode).toBe(0);
    // One report shape for both suites: τ²'s pass^k under the same keys as τ-bench's.
    expect(JSON.parse(report.stdout).passK).toEqual({ "1": 0.8, "2": 0.8 });
    const rescore = await taubridge(["rescore", file, "--data-dir", data as string]);
    expect(rescore.stdout).toMatch(/Rewards: 20\/20 agree/);
  });

  it("resumes the same file without losing or duplicating simulations, and refuses other settings naming what changed", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "tau2-run-")), "results.json");
    const partial = await taubridge(["tau2", "run", ...offline, "--task-ids", "create_task_1", "update_task_1", "--save-to", file, "--quiet"]);
    expect(partial.exitCode).toBe(0);
    const whole = await taubridge(["tau2", "run", ...offline, "--save-to", file]);
    expect(whole.exitCode).toBe(0);
    expect(whole.stderr).toMatch(/resumed 2 finished episodes, running 8/);
    // The run's pass rate counts the resumed episodes (both succeeded), not only this process's.
    expect(whole.stderr).toMatch(/2\/10 episodes, pass rate 100\.0%/);
    const keys = readTau2Results(file).simulations.map((simulation) => `${simulation.trial}|${simulation.task_id}`);
    expect(keys).toHaveLength(10);
    expect(new Set(keys).size).toBe(10);
    const other = await taubridge(["tau2", "run", ...offline, "--max-steps", "50", "--save-to", file]);
    expect(other.exitCode).toBe(2);
    expect(other.stderr.trim().split("\n")).toHaveLength(1);
    expect(other.stderr).toMatch(/holds a different run \(changed: --max-steps\).*--accept-changes/);
    const accepted = await taubridge(["tau2", "run", ...offline, "--max-steps", "50", "--save-to", file, "--accept-changes"]);
    expect(accepted.exitCode).toBe(0);
    expect(accepted.stderr).toMatch(/resuming despite changes since the stored run \(--accept-changes\): --max-steps/);
  }, 600_000);

  it("runs from the library API with tau2's options in camel case", async () => {
    const { runTau2Benchmark } = await import("../../app/index.ts");
    const file = join(mkdtempSync(join(tmpdir(), "tau2-api-")), "results.json");
    const result = await runTau2Benchmark({ domain: "mock", agent: "oracle", user: "scripted", dataDir: data as string, saveTo: file, numTrials: 1 });
    expect(result.metrics.averageReward).toBeCloseTo(0.8, 10);
    expect(result.simulations).toHaveLength(10);
    expect(result.outputPath).toBe(file);
  });

  it("taubridge run --suite tau2 is taubridge tau2 run", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "tau2-suite-")), "results.json");
    const result = await taubridge(["run", "--suite", "tau2", ...offline, "--task-ids", "create_task_1", "--save-to", file, "--quiet", "--format", "json"]);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).passK).toEqual({ "1": 1 });
  });

  it("--help shows τ²'s own names and τ²'s defaults, not τ-bench's flags", async () => {
    const help = (await taubridge(["tau2", "run", "--help"])).stdout.replace(/\s+/g, " ");
    for (const name of ["-d, --domain <domain>", "--agent <name>", "--user <name>", "--agent-llm <name>", "--task-split-name <split>", "--max-retries <n>", "--timeout <seconds>"])
      expect(help).toContain(name);
    expect(help).toContain("--agent <name> agent under test (`taubridge strategies` lists them) (default: llm_agent)");
    expect(help).not.toMatch(/--log-dir|--start-index|--env |τ-bench/);
    const refused = await taubridge(["tau2", "run", ...offline, "--log-dir", "x"]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr.trim()).toBe("taubridge: --log-dir applies to --suite tau-bench only, not to tau2");
  });

  it("refuses tau2 flags it does not support, by name and with the reason", async () => {
    const result = await taubridge(["tau2", "run", ...offline, "--user-persona", "{}"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/--user-persona is not supported by taubridge: τ³ runtime personas are not implemented/);
  });

  it("takes --provider-limit with --queue only (the limit is shared by a queue's workers)", async () => {
    const result = await taubridge(["tau2", "run", ...offline, "--provider-limit", "openai=4"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe("taubridge: --provider-limit and --rate-limit are shared by the workers of a queue: give --queue (in one process, --max-concurrency bounds each endpoint)");
  });

  it("saves a simulation whose participant crashes on every attempt as infrastructure_error, and re-runs it on resume", async () => {
    const crashing: Participant<Tau2Task> = {
      name: "crashing",
      start: () => ({
        next: async () => {
          throw new Error("model endpoint went away");
        },
      }),
    };
    const agents = new Registry<Tau2ParticipantFactory>("τ² agent");
    agents.register("crashing", () => crashing);
    agents.register("oracle", tau2Registries.agents.get("oracle"));
    const registries = { ...tau2Registries, agents };
    const file = join(mkdtempSync(join(tmpdir(), "tau2-run-")), "results.json");
    const options = {
      ...TAU2_RUN_DEFAULTS,
      domain: "mock",
      agent: "crashing",
      user: "scripted",
      agentLlm: "x",
      userLlm: "x",
      agentLlmArgs: {},
      userLlmArgs: {},
      taskIds: ["create_task_1"],
      timeout: null,
      maxRetries: 1,
      retryDelay: 0,
      dataDir: data as string,
      saveTo: file,
    };
    const result = await runTau2Batch(await buildTau2Run(options, registries));
    expect(result.metrics.infraErrors).toBe(1);
    const [simulation] = readTau2Results(file).simulations;
    expect(simulation.termination_reason).toBe("infrastructure_error");
    expect(simulation.info).toMatchObject({ error: "model endpoint went away", failed_after_attempts: 2 });
    // The report names the error of an infrastructure failure, as it does for τ-bench.
    const report = await taubridge(["report", file, "--per-task"]);
    expect(report.stdout).toMatch(/infra_error=1: model endpoint went away/);
    expect(report.stdout).toMatch(/create_task_1\s*│\s*0\s*│\s*infra_error\s*│\s*model endpoint went away/);
    const again = await buildTau2Run({ ...options, agent: "oracle" }, registries).catch((error: Error) => error);
    // The agent is part of the run's settings: resuming with another agent is refused; with the same one the infra error is re-run.
    expect(again).toBeInstanceOf(Error);
    const retried = await buildTau2Run(options, registries);
    expect(retried.units).toHaveLength(1);
  });

  it("names the file, the simulation, its task and the field of a malformed results file", async () => {
    const { writeFileSync } = await import("node:fs");
    const file = join(mkdtempSync(join(tmpdir(), "tau2-run-")), "results.json");
    await taubridge(["tau2", "run", ...offline, "--task-ids", "create_task_1", "--save-to", file, "--quiet"]);
    writeFileSync(file, readFileSync(file, "utf8").replace('"termination_reason": "user_stop"', '"termination_reason": "finished"'));
    expect(() => readTau2Results(file)).toThrow(`${file}: simulations[0] (task create_task_1): field termination_reason: `);
    const report = await taubridge(["report", file]);
    expect(report.exitCode).toBe(2);
    expect(report.stderr).toMatch(/simulations\[0\] \(task create_task_1\): field termination_reason/);
  });

  it("writes the same text when a results file is read back and written again", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "tau2-run-")), "results.json");
    await taubridge(["tau2", "run", ...offline, "--task-ids", "update_task_with_message_history", "--save-to", file, "--quiet"]);
    const stored = readTau2Results(file);
    const text = resultsText({ timestamp: stored.timestamp, info: stored.info as never, tasks: stored.tasks, simulations: stored.simulations, taubridge: { flaggedTasks: [] } });
    // τ²'s own part byte for byte; taubridge's block (flagged tasks, the run manifest) is the run's, not the document's.
    const original = readFileSync(file, "utf8");
    const ownPart = (printed: string) => printed.slice(0, printed.indexOf('\n  "taubridge": {'));
    expect(ownPart(original)).toContain('"simulation_index": null');
    expect(ownPart(`${text}\n`)).toBe(ownPart(original));
  });
});

describe.skipIf(!data)("taubridge tau2 run killed mid-run", () => {
  it("resumes from the checkpoint lines without losing or duplicating simulations", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "tau2-kill-")), "results.json");
    const args = [
      "tau2",
      "run",
      "--domain",
      "telecom",
      "--agent",
      "oracle",
      "--user",
      "scripted",
      "--data-dir",
      data as string,
      "--task-split-name",
      "base",
      "--max-concurrency",
      "1",
      "--save-to",
      file,
    ];
    const first = runCli(args);
    // Kill it hard once a few simulations are checkpointed (one line each in the checkpoint file).
    const checkpoint = `${file}.checkpoint.jsonl`;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const lines = existsSync(checkpoint) ? readFileSync(checkpoint, "utf8").split("\n").filter(Boolean).length : 0;
        if (lines >= 5) {
          clearInterval(timer);
          resolve();
        }
      }, 5);
      first.on("exit", () => {
        clearInterval(timer);
        resolve();
      });
    });
    first.kill("SIGKILL");
    await first;
    expect(existsSync(`${file}.checkpoint.jsonl`)).toBe(true);
    const second = await taubridge([...args, "--quiet"]);
    expect(second.exitCode).toBe(0);
    const { simulations } = readTau2Results(file);
    const keys = simulations.map((simulation) => simulation.task_id);
    expect(keys).toHaveLength(114);
    expect(new Set(keys).size).toBe(114);
    // Those read back from the checkpoint, where a policy line holds the text once, have it as every other simulation does.
    expect(new Set(simulations.map((simulation) => simulation.policy)).size).toBe(1);
    expect(simulations[0].policy).toMatch(/^<main_policy>/);
    expect(existsSync(`${file}.checkpoint.jsonl`)).toBe(false);
  }, 300_000);
});
