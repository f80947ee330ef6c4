/**
 * `taubridge analyze --judge-model`: fault assignment, fault type and τ²'s conversation review of
 * each failed episode, through the run layer's judge client (the real OpenAI client) against the
 * scripted model server; without a judge no model is called. Two failed episodes of a τ-bench
 * results file in the original's format: the judge blames the agent (wrong argument) in the one
 * whose user says ZEBRA and the user in the one whose user says OKAPI.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer } from "../../src/testing/index.ts";
import { runCli } from "../support/cli.ts";

const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } });

/** A failed τ-bench entry: the agent cancels the wrong order after the user's first words. */
function failedEntry(taskId: number, words: string) {
  return {
    task_id: taskId,
    reward: 0.0,
    info: {
      task: { user_id: "u1", actions: [{ name: "cancel_order", kwargs: { order_id: "#W1" } }], instruction: "Cancel order #W1.", outputs: [] },
      source: "user",
      user_cost: 0.0,
      reward_info: { reward: 0.0, info: { r_actions: 0.0, gt_data_hash: "x" }, actions: [] },
    },
    traj: [
      { role: "system", content: "policy" },
      { role: "user", content: words },
      { role: "assistant", content: null, tool_calls: [call("c1", "cancel_order", { order_id: "#W2" })] },
      { role: "tool", tool_call_id: "c1", name: "cancel_order", content: "cancelled" },
      { role: "assistant", content: "Done." },
      { role: "user", content: "###STOP###" },
    ],
    trial: 0,
  };
}

const REVIEW = JSON.stringify({
  summary: "The agent cancelled another order.",
  errors: [{ source: "agent", severity: "critical", error_tags: ["wrong_order"], turn_idx: 2, reasoning: "order #W2 instead of #W1" }],
});

describe("analyze with a judge model (scripted server)", () => {
  let server: ScriptedModelServer;
  let path: string;
  beforeAll(async () => {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-judge-"));
    path = join(directory, "results.json");
    writeFileSync(path, JSON.stringify([failedEntry(1, "ZEBRA: cancel #W1"), failedEntry(2, "OKAPI: cancel #W1")]));
    server = await startScriptedModelServer({
      scripts: {
        "judge-model": [
          { match: { lastMessageContains: "Who is responsible", anyMessageContains: "ZEBRA" }, content: '{"classification": "B"}', times: "unlimited" },
          { match: { lastMessageContains: "Who is responsible", anyMessageContains: "OKAPI" }, content: '{"classification": "A"}', times: "unlimited" },
          { match: { lastMessageContains: "What kind of mistake" }, content: '```json\n{"classification": "B"}\n```', times: "unlimited" },
          { match: { systemContains: "You review a customer-service conversation" }, content: REVIEW, times: "unlimited" },
          { content: "scripted explanation", times: "unlimited" },
        ],
      },
    });
  });
  afterAll(() => server.close());

  it("without a judge no model is called and the output says what needs one", async () => {
    const result = await runCli(["analyze", path, "--format", "json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.summary.byFault).toBeNull();
    expect(json.judge).toBeNull();
    expect(json.needsJudge.length).toBeGreaterThan(0);
    expect(json.episodes.map((episode: { fault?: string }) => episode.fault)).toEqual([undefined, undefined]);
    expect(server.requests).toHaveLength(0);
  }, 300_000);

  it("assigns the fault and, for the agent's, the fault type; reviews each conversation; tables by fault and type", async () => {
    const result = await runCli(["analyze", path, "--format", "json", "--judge-model", "judge-model", "--judge-base-url", server.baseURL, "--review"]);
    expect(result.exitCode, result.stderr).toBe(0);
    server.assertNoFailures();
    const json = JSON.parse(result.stdout);
    const [agent, user] = json.episodes;
    expect(agent).toMatchObject({ taskId: "1", fault: "agent", faultType: "wrong_argument", faultDescription: "scripted explanation", faultTypeDescription: "scripted explanation" });
    expect(agent.review).toEqual({
      summary: "The agent cancelled another order.",
      errors: [{ source: "agent", severity: "critical", tags: ["wrong_order"], turnIndex: 2, reasoning: "order #W2 instead of #W1" }],
    });
    expect(user).toMatchObject({ taskId: "2", fault: "user", faultType: null, faultTypeDescription: null });
    expect(json.summary.byFault).toEqual([
      { fault: "user", count: 1, percent: 50 },
      { fault: "agent", count: 1, percent: 50 },
      { fault: "environment", count: 0, percent: 0 },
    ]);
    expect(json.summary.byFaultType).toContainEqual({ faultType: "wrong_argument", count: 1, percent: 100 });
    expect(json.summary.reviewErrors).toEqual({ agent: { critical: 2 } });
    // Agent fault: classify, describe, type, describe, review; user fault: classify, describe, review.
    expect(json.judge).toMatchObject({ model: "judge-model", usage: { calls: 8 } });
    expect(server.requestsFor("judge-model")).toHaveLength(8);

    const text = await runCli(["analyze", path, "--judge-model", "judge-model", "--judge-base-url", server.baseURL]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/Fault\s*│\s*Episodes/);
    expect(text.stdout).toMatch(/wrong_argument\s*│\s*1/);
  }, 300_000);
});
