/**
 * Failure-analysis facts on hand-built failing trajectories of both suites, read through each
 * suite's own reader (a τ-bench results list as the original writes it; a τ² results.json), so the
 * facts come from the canonical record exactly as `taubridge analyze` gets it; and on the published
 * gpt-4o airline trajectories, where every failed episode is listed with exactly the ground-truth
 * actions it misses.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeRecords, analysisText } from "../../src/analysis/analyze.ts";
import { breakdownOf, breakdownText } from "../../src/analysis/breakdown.ts";
import { episodeFacts, sameValue } from "../../src/analysis/facts.ts";
import { loadResultsFile } from "../../src/suites/tau-bench/codec.ts";
import { tauBenchRecords } from "../../src/suites/tau-bench/records.ts";
import { readTau2Results } from "../../src/suites/tau2/codec.ts";
import { tau2Record } from "../../src/suites/tau2/records.ts";
import { runCli } from "../support/cli.ts";
import { missingSharedReason, tauBenchDirectory } from "../support/shared-data.ts";

const directory = mkdtempSync(join(tmpdir(), "taubridge-facts-"));

const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } });

/** A τ-bench entry in the original's format: the agent looks the user up, cancels the wrong order and says a wrong total. */
function tauBenchFile(): string {
  const entry = {
    task_id: 7,
    reward: 0.0,
    info: {
      task: {
        user_id: "u1",
        actions: [
          { name: "find_user", kwargs: { email: "a@b.c" } },
          { name: "cancel_order", kwargs: { order_id: "#W1", reason: "no longer needed" } },
          { name: "refund", kwargs: { order_id: "#W1", amount: 10 } },
        ],
        instruction: "Cancel order #W1.",
        outputs: ["1,234", "refunded"],
      },
      source: "user",
      user_cost: 0.0,
      reward_info: { reward: 0.0, info: { r_outputs: 0.0, outputs: { "1,234": false, refunded: true } }, actions: [] },
    },
    traj: [
      { role: "system", content: "policy" },
      { role: "user", content: "Hi, cancel #W1 please." },
      { role: "assistant", content: null, tool_calls: [call("c1", "find_user", { email: "a@b.c" })] },
      { role: "tool", tool_call_id: "c1", name: "find_user", content: "u1" },
      { role: "assistant", content: null, tool_calls: [call("c2", "cancel_order", { order_id: "#W2", reason: "no longer needed" })] },
      { role: "tool", tool_call_id: "c2", name: "cancel_order", content: "Error: order not found" },
      { role: "assistant", content: null, tool_calls: [call("c3", "get_order", { order_id: "#W1" })] },
      { role: "tool", tool_call_id: "c3", name: "get_order", content: "{}" },
      { role: "assistant", content: "Your order is refunded." },
      { role: "user", content: "###STOP###" },
    ],
    trial: 0,
  };
  const path = join(directory, "tau-bench.json");
  writeFileSync(path, JSON.stringify([entry, { ...entry, trial: 1, reward: 1.0, info: { ...entry.info, reward_info: { reward: 1.0, info: { r_actions: 1.0, gt_data_hash: "x" }, actions: [] } } }]));
  return path;
}

/** A τ² results file: the agent updates with a wrong amount, skips a communicate item; an env and an NL assertion fail. */
function tau2File(): string {
  const task = {
    id: "t1",
    user_scenario: { instructions: { domain: "mock", reason_for_call: "update", known_info: "user_1", task_instructions: "ask" } },
    evaluation_criteria: {
      actions: [
        { action_id: "a0", name: "get_user", arguments: { user_id: "user_1" } },
        { action_id: "a1", name: "update_task", arguments: { task_id: "task_1", status: "done", note: "x" }, compare_args: ["task_id", "status"] },
        { action_id: "a2", requestor: "user", name: "toggle_airplane_mode", arguments: {} },
      ],
      env_assertions: [{ env_type: "user", func_name: "assert_airplane_mode", arguments: { on: false }, assert_value: true }],
      communicate_info: ["task_1 is done"],
      nl_assertions: ["The agent apologised"],
      reward_basis: ["DB", "ACTION", "COMMUNICATE", "ENV_ASSERTION", "NL_ASSERTION"],
    },
  };
  const t = (turn: number) => `2026-01-01T00:00:0${turn}`;
  const simulation = {
    id: "sim-1",
    task_id: "t1",
    timestamp: t(0),
    start_time: t(0),
    end_time: t(9),
    duration: 9.0,
    termination_reason: "user_stop",
    agent_cost: 0.01,
    user_cost: 0.002,
    reward_info: {
      reward: 0.0,
      db_check: { db_match: false, db_reward: 0.0 },
      env_assertions: [{ env_assertion: task.evaluation_criteria.env_assertions[0], met: false, reward: 0.0 }],
      action_checks: [
        { action: task.evaluation_criteria.actions[0], action_match: true, action_reward: 1.0, tool_type: "read" },
        { action: task.evaluation_criteria.actions[1], action_match: false, action_reward: 0.0, tool_type: "write" },
        { action: task.evaluation_criteria.actions[2], action_match: false, action_reward: 0.0, tool_type: "write" },
      ],
      nl_assertions: [{ nl_assertion: "The agent apologised", met: false, justification: "no apology" }],
      communicate_checks: [{ info: "task_1 is done", met: false, justification: "" }],
      reward_basis: ["DB", "ACTION", "COMMUNICATE", "ENV_ASSERTION", "NL_ASSERTION"],
      reward_breakdown: { DB: 0.0, ACTION: 0.0 },
      info: null,
    },
    messages: [
      { role: "assistant", content: "Hi! How can I help you today?", turn_idx: 0, timestamp: t(1) },
      { role: "user", content: "Mark task_1 done.", turn_idx: 1, timestamp: t(2) },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", name: "get_user", arguments: { user_id: "user_1" }, requestor: "assistant" }], turn_idx: 2, timestamp: t(3) },
      { role: "tool", id: "c1", content: "{}", requestor: "assistant", error: false, turn_idx: 3, timestamp: t(4) },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c2", name: "update_task", arguments: { task_id: "task_1", status: "pending", note: "y" }, requestor: "assistant" }],
        turn_idx: 4,
        timestamp: t(5),
      },
      { role: "tool", id: "c2", content: "Error: bad status", requestor: "assistant", error: true, turn_idx: 5, timestamp: t(6) },
      { role: "assistant", content: "Updated.", turn_idx: 6, timestamp: t(7) },
      { role: "user", content: "###STOP###", turn_idx: 7, timestamp: t(8) },
    ],
    trial: 0,
    seed: 300,
    info: null,
  };
  const path = join(directory, "results.json");
  writeFileSync(path, JSON.stringify({ timestamp: t(0), info: { num_trials: 1, environment_info: { domain_name: "mock" } }, tasks: [task], simulations: [simulation] }));
  return path;
}

describe("facts of a hand-built failing τ-bench episode (the original's results format)", () => {
  const [failed, passed] = tauBenchRecords("x", loadResultsFile(tauBenchFile()), "retail");

  it("the record carries the task's ground truth and the output verdicts", () => {
    expect(failed.expected?.actions.map((action) => action.name)).toEqual(["find_user", "cancel_order", "refund"]);
    expect(failed.expected?.outputs).toEqual([
      { text: "1,234", met: false },
      { text: "refunded", met: true },
    ]);
  });

  it("missing actions, the argument diff naming the field, extras, outputs not said, first divergence and tool errors", () => {
    const facts = episodeFacts(failed);
    expect(facts.missingActions.map((action) => [action.expectedIndex, action.name])).toEqual([
      [1, "cancel_order"],
      [2, "refund"],
    ]);
    expect(facts.argumentDiffs).toHaveLength(1);
    expect(facts.argumentDiffs[0]).toMatchObject({ expectedIndex: 1, name: "cancel_order", step: { stepIndex: 1, messageIndex: 4 }, fields: [{ field: "order_id", expected: "#W1", actual: "#W2" }] });
    expect(facts.extraActions.map((step) => [step.name, step.messageIndex])).toEqual([["get_order", 6]]);
    expect(facts.missingOutputs).toEqual(["1,234"]);
    expect(facts.firstDivergence).toMatchObject({ expectedIndex: 1, expected: { name: "cancel_order" }, actual: { name: "cancel_order", stepIndex: 1, messageIndex: 4 } });
    expect(facts.toolErrors).toMatchObject([{ name: "cancel_order", result: "Error: order not found", messageIndex: 4 }]);
    expect(facts.groundTruth).toBe(true);
  });

  it("analyze lists only the failed episode", async () => {
    const analysis = await analyzeRecords([failed, passed]);
    expect(analysis.episodes.map((episode) => [episode.taskId, episode.trial])).toEqual([["7", 0]]);
    expect(analysis.summary).toMatchObject({ episodes: 2, failed: 1, episodesWithMissingActions: 1, episodesWithArgumentDiffs: 1, episodesWithMissingOutputs: 1, byFault: null });
    expect(analysis.needsJudge.length).toBeGreaterThan(0);
    expect(analysisText(analysis)).toContain('different arguments: cancel_order at message 4: order_id expected "#W1", got "#W2"');
  });
});

describe("facts of a hand-built failing τ² simulation (results.json)", () => {
  const path = tau2File();
  const results = readTau2Results(path);
  const record = tau2Record(results.simulations[0], "mock", results.tasks[0]);

  it("the record carries the gold actions with the evaluator's matches, communicate items and assertions", () => {
    expect(record.expected?.actions.map((action) => [action.name, action.requestor, action.matched, action.toolType])).toEqual([
      ["get_user", "agent", true, "read"],
      ["update_task", "agent", false, "write"],
      ["toggle_airplane_mode", "user", false, "write"],
    ]);
    expect(record.expected?.databaseMatch).toBe(false);
    expect(record.expected?.instruction).toContain("reason_for_call: update");
  });

  it("facts: compare_args decide the differing fields; the user's missing action; unmet assertions; the tool error", () => {
    const facts = episodeFacts(record);
    expect(facts.missingActions.map((action) => [action.name, action.requestor])).toEqual([
      ["update_task", "agent"],
      ["toggle_airplane_mode", "user"],
    ]);
    // `note` differs too, but the task compares only task_id and status.
    expect(facts.argumentDiffs).toMatchObject([{ name: "update_task", step: { messageIndex: 4 }, fields: [{ field: "status", expected: "done", actual: "pending" }] }]);
    expect(facts.extraActions).toEqual([]);
    expect(facts.missingOutputs).toEqual(["task_1 is done"]);
    expect(facts.unmetAssertions).toEqual([
      { kind: "env", text: 'user.assert_airplane_mode({"on":false})', justification: null },
      { kind: "nl", text: "The agent apologised", justification: "no apology" },
    ]);
    expect(facts.toolErrors).toMatchObject([{ name: "update_task", result: "Error: bad status" }]);
    expect(facts.databaseMatch).toBe(false);
    expect(facts.firstDivergence).toMatchObject({ expectedIndex: 1, actual: { name: "update_task" } });
  });

  it("report --breakdown's numbers: components, read/write action correctness, DB match, gold actions by tool", () => {
    const breakdown = breakdownOf([record]);
    expect(breakdown).toEqual({
      episodes: 1,
      byComponent: [
        { component: "DB", mean: 0, episodes: 1 },
        { component: "ACTION", mean: 0, episodes: 1 },
      ],
      byTool: [
        { tool: "toggle_airplane_mode", expected: 1, performed: 0 },
        { tool: "update_task", expected: 1, performed: 0 },
        { tool: "get_user", expected: 1, performed: 1 },
      ],
      readActions: { total: 1, correct: 1 },
      writeActions: { total: 2, correct: 0 },
      database: { match: 0, mismatch: 1, notChecked: 0 },
      terminations: { user_stop: 1 },
    });
    expect(breakdownText(breakdown, "text")).toMatch(/Write actions correct[\s\S]*0\/2/);
  });

  it("taubridge analyze reads it from the command line, as JSON", async () => {
    const result = await runCli(["analyze", path, "--format", "json"]);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const json = JSON.parse(result.stdout) as { episodes: Array<{ taskId: string; facts: { missingActions: unknown[] } }>; summary: { failed: number } };
    expect(json.summary.failed).toBe(1);
    expect(json.episodes[0].taskId).toBe("t1");
    expect(json.episodes[0].facts.missingActions).toHaveLength(2);
  });
});

describe("report --breakdown on a τ-bench results file (frozen schema-1 run: a pass, an infrastructure error, a fail)", () => {
  it("leaves the infrastructure error out of the numbers but counts its termination", async () => {
    const file = join(import.meta.dirname, "..", "fixtures", "results", "v1", "library-test-tool-calling-agent-model-0.0_ids_0-1-2_user-user-model-llm.json");
    const result = await runCli(["report", file, "--breakdown", "--format", "json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const { breakdown } = JSON.parse(result.stdout);
    // Task 0 passed (r_outputs 1) performing its 3 gold actions; task 2 failed (r_outputs 0) performing none of its 6.
    expect(breakdown.episodes).toBe(2);
    expect(breakdown.byComponent).toEqual([{ component: "outputs", mean: 0.5, episodes: 2 }]);
    const byTool = Object.fromEntries((breakdown.byTool as Array<{ tool: string; expected: number; performed: number }>).map((row) => [row.tool, [row.expected, row.performed]]));
    expect(byTool).toEqual({
      find_member_id_by_name_zip: [1, 1],
      search_catalog: [1, 1],
      get_book_details: [1, 1],
      find_member_id_by_email: [1, 0],
      get_member_details: [1, 0],
      get_loan_details: [2, 0],
      renew_loan: [2, 0],
    });
    expect(breakdown.readActions).toBeNull();
    expect(breakdown.terminations).toEqual({ user_stop: 2, infra_error: 1 });
  }, 300_000);
});

describe.skipIf(!tauBenchDirectory)(`the published gpt-4o airline trajectories${tauBenchDirectory ? "" : ` (${missingSharedReason})`}`, () => {
  const path = join(tauBenchDirectory ?? "", "historical_trajectories", "gpt-4o-airline.json");

  it("every failed episode is listed, with exactly the ground-truth actions it misses", async () => {
    const raw = JSON.parse(readFileSync(path, "utf8")) as Array<{
      task_id: number;
      trial: number;
      reward: number;
      info: { task: { actions: Array<{ name: string; kwargs: unknown }> } };
      traj: Array<Record<string, unknown>>;
    }>;
    const analysis = await analyzeRecords(tauBenchRecords(path, loadResultsFile(path), "airline"));
    const failed = raw.filter((entry) => entry.reward < 1 - 1e-6);
    expect(failed).toHaveLength(116);
    expect(analysis.episodes.map((episode) => `${episode.taskId}/${episode.trial}`)).toEqual(failed.map((entry) => `${entry.task_id}/${entry.trial}`));
    // Independently: a gold action is missed when no call of the trajectory (each used once) has its name and arguments.
    for (const [index, entry] of failed.entries()) {
      const calls = entry.traj.flatMap((message) =>
        Array.isArray(message.tool_calls)
          ? (message.tool_calls as Array<{ function: { name: string; arguments: string } }>).map((item) => ({ name: item.function.name, kwargs: JSON.parse(item.function.arguments) as unknown }))
          : [],
      );
      const used = new Set<number>();
      const missed = entry.info.task.actions.filter((action) => {
        const at = calls.findIndex((item, position) => !used.has(position) && item.name === action.name && sameValue(item.kwargs, action.kwargs));
        if (at >= 0) used.add(at);
        return at < 0;
      });
      expect(
        analysis.episodes[index].facts.missingActions.map(({ name, arguments: args }) => ({ name, kwargs: args })),
        `task ${entry.task_id} trial ${entry.trial}`,
      ).toEqual(missed);
    }
    // Two read by hand: task 1 trial 0 never cancels Z7GOZK; task 5 trial 0 changes the flights but not the passengers or bags.
    const episode = (task: string, trial: number) => analysis.episodes.find((item) => item.taskId === task && item.trial === trial);
    expect(episode("1", 0)?.facts.missingActions).toEqual([{ name: "cancel_reservation", arguments: { reservation_id: "Z7GOZK" }, requestor: "agent", expectedIndex: 0 }]);
    expect(episode("5", 0)?.facts.missingActions.map((action) => action.name)).toEqual(["update_reservation_passengers", "update_reservation_baggages"]);
  });
});
