/**
 * Issue 29: a person at the terminal plays either side of a τ² conversation, driven here through
 * stdin. As the agent (`--agent human`), typed text is a message to the user — not a `respond` tool
 * call, which τ²'s environment does not have — and `/tool name {json}` calls a domain tool. As the
 * user (`--user human`, as τ²'s `tau2 play` lets a person do), typed text is the customer's message,
 * `/tool` calls the user's own tools, and `###STOP###` ends the conversation.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readTau2Results, rewardOf } from "../../src/suites/tau2/codec.ts";
import { runCli } from "../support/cli.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

/** `taubridge tau2 run` on the mock domain with `lines` typed at the terminal. */
async function play(args: readonly string[], lines: readonly string[]) {
  const saveTo = join(mkdtempSync(join(tmpdir(), "taubridge-tau2-human-")), "results.json");
  const child = runCli(["tau2", "run", "--domain", "mock", ...args, "--data-dir", data as string, "--save-to", saveTo, "--max-concurrency", "1"]);
  child.stdin?.end(`${lines.join("\n")}\n`);
  const result = await child;
  const simulations = result.exitCode === 0 || result.exitCode === 3 ? readTau2Results(saveTo).simulations : [];
  return { result, simulations };
}

type Message = { role: string; content?: string | null; tool_calls?: Array<{ name: string }> | null };

describe.skipIf(!data)("a person plays the τ² agent (--agent human)", () => {
  it("typed text is a message to the user, /tool calls a domain tool: the task scores 1.0 with no tool error", async () => {
    const { result, simulations } = await play(
      ["--task-ids", "create_task_1", "--agent", "human", "--user", "scripted"],
      ['/tool create_task {"user_id": "user_1", "title": "Important Meeting"}', "I created the task 'Important Meeting' for you."],
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).not.toContain("not found");
    expect(simulations.map((simulation) => [simulation.termination_reason, rewardOf(simulation.reward_info)])).toEqual([["user_stop", 1]]);
    const messages = simulations[0].messages as Message[];
    expect(messages.filter((message) => message.role === "assistant" && message.content === "I created the task 'Important Meeting' for you.")).toHaveLength(1);
    expect(messages.flatMap((message) => (message.tool_calls ?? []).map((call) => call.name))).toEqual(["create_task"]);
    expect(messages.filter((message) => message.role === "tool" && String(message.content).startsWith("Error"))).toEqual([]);
  }, 300_000);
});

describe.skipIf(!data)("a person plays the τ² user (--user human)", () => {
  it("sees the scenario, types the customer's words, calls their own tools, and ends with ###STOP###: 1.0 with the oracle", async () => {
    const { result, simulations } = await play(
      ["--task-ids", "create_task_1", "--agent", "oracle", "--user", "human"],
      ["/tools", "/tool check_notifications {}", "Please create a task called Important Meeting for user_1.", "Thanks, that's all. ###STOP###"],
    );
    expect(result.exitCode, result.stderr).toBe(0);
    // The scenario, the user's tools, their results and the agent's words were shown.
    expect(result.stdout).toContain("Create a new task called 'Important Meeting' for user_1.");
    expect(result.stdout).toContain("dismiss_notification: ");
    expect(result.stdout).toMatch(/tool: .*notif_1/);
    expect(result.stdout).toContain("agent: All done");
    expect(simulations.map((simulation) => [simulation.termination_reason, rewardOf(simulation.reward_info)])).toEqual([["user_stop", 1]]);
    const userMessages = (simulations[0].messages as Message[]).filter((message) => message.role === "user");
    expect(userMessages.flatMap((message) => (message.tool_calls ?? []).map((call) => call.name))).toEqual(["check_notifications"]);
    expect(userMessages.map((message) => message.content).filter(Boolean)).toEqual(["Please create a task called Important Meeting for user_1.", "Thanks, that's all. ###STOP###"]);
  }, 300_000);

  it("is listed among τ²'s users", async () => {
    const result = await runCli(["strategies"]);
    const tau2Users = result.stdout.slice(result.stdout.indexOf("τ²-bench")).split("User strategies:")[1] ?? "";
    expect(tau2Users).toMatch(/^ {4}human {2,}a person types the user's messages/m);
  }, 300_000);
});
