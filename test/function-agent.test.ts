/**
 * The function agent (`--agent-strategy module`): an in-house agent written as one `respond()`
 * function, run on the bundled library domain (no shared data, no model) through the build and
 * batch layers and through the CLI.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/errors/error-tree.ts";
import { buildRun } from "./support/registries.ts";
import { runBatch } from "../src/suites/tau-bench/batch.ts";
import { runEpisode } from "../src/suites/tau-bench/loop.ts";
import { loadFunctionAgent } from "../src/participants/function-agent.ts";
import { scriptedUser } from "../src/suites/tau-bench/participants/scripted-user.ts";
import { runCli } from "./support/cli.ts";

const FIXTURES = join(import.meta.dirname, "fixtures", "function-agent");
const RENEWAL = join(FIXTURES, "renewal-agent.mjs");
// The sources, not dist/ (which `npm run build` may not have refreshed).

describe("function agent", () => {
  it("runs a plain JavaScript respond() module to reward 1.0, several tool calls per answer stepped in order", async () => {
    const built = buildRun({
      env: "library",
      agentStrategy: "module",
      userStrategy: "scripted",
      agentOptions: { module: RENEWAL },
      taskIds: [2],
      logDir: mkdtempSync(join(tmpdir(), "taubridge-fn-")),
      quiet: true,
    });
    const outcome = await runBatch(built);
    expect(outcome.summaries).toHaveLength(1);
    expect(outcome.summaries[0]).toMatchObject({ reward: 1, termination: "user_stop" });
    const agent = await loadFunctionAgent(RENEWAL);
    const task = built.tasks[2];
    const episode = await runEpisode({ domain: built.domain, task, taskIndex: 2, trial: 0, agent, user: scriptedUser, maxSteps: 30 });
    expect(episode.steps.map((step) => step.action.name)).toEqual([
      "find_member_id_by_email",
      "get_member_details",
      "get_loan_details",
      "get_loan_details",
      "get_loan_details",
      "renew_loan",
      "renew_loan",
      "respond",
    ]);
    // One assistant message holds the three loan look-ups; each result comes back as its own tool message.
    const assistant = episode.traj.filter((message) => message.role === "assistant");
    expect(assistant.map((message) => (message as { tool_calls?: unknown[] }).tool_calls?.length ?? 0)).toEqual([1, 1, 3, 2, 0]);
    expect(episode.traj.at(-1)).toEqual({ role: "user", content: "###STOP###" });
    expect(episode.rewardBreakdown).toEqual({ actions: 1, outputs: 1 });
  });

  it("a malformed tool call from a TypeScript module becomes an error observation and counts as a step", async () => {
    const built = buildRun({
      env: "library",
      agentStrategy: "module",
      userStrategy: "scripted",
      agentOptions: { module: join(FIXTURES, "broken-agent.ts") },
      taskIds: [2],
      logDir: mkdtempSync(join(tmpdir(), "taubridge-fn-")),
      quiet: true,
    });
    const agent = await loadFunctionAgent(join(FIXTURES, "broken-agent.ts"));
    const episode = await runEpisode({ domain: built.domain, task: built.tasks[2], taskIndex: 2, trial: 0, agent, user: scriptedUser, maxSteps: 30 });
    expect(episode.termination).toBe("user_stop");
    expect(episode.reward).toBe(0);
    const tool = episode.traj.find((message) => message.role === "tool") as { content: string };
    expect(tool.content).toMatch(/^Error: the arguments of get_member_details are not valid JSON/);
    expect(episode.steps.map((step) => step.action.name)).toEqual(["respond"]);

    const limited = await runEpisode({ domain: built.domain, task: built.tasks[2], taskIndex: 2, trial: 0, agent, user: scriptedUser, maxSteps: 1 });
    expect(limited.termination).toBe("max_steps");
    expect(limited.steps).toHaveLength(0);
  });

  it("needs --agent-module, and names a wrong export", async () => {
    expect(() => buildRun({ env: "library", agentStrategy: "module", userStrategy: "scripted", logDir: tmpdir() })).not.toThrow();
    const built = buildRun({ env: "library", agentStrategy: "module", userStrategy: "scripted", logDir: tmpdir() });
    await expect(Promise.resolve().then(() => built.agentFactory.create(built.context))).rejects.toThrow(ConfigError);
    await expect(loadFunctionAgent(RENEWAL, "solve")).rejects.toThrow(/has no export "solve"/);
  });

  it("runs from the command line", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-fn-"));
    const result = await runCli(["run", "--agent-strategy", "module", "--agent-module", RENEWAL, "--task-ids", "2", "--log-dir", logDir, "--quiet"]);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/1\.000/);
    const missing = await runCli(["run", "--agent-strategy", "module", "--log-dir", logDir]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr.trim()).toBe("taubridge: --agent-strategy module needs --agent-module <path to a module exporting respond()>");
  });
});
