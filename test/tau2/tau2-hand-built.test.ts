/**
 * (The hand-built tool messages carry placeholder results, so the evaluator replays them leniently,
 * as `tau2 evaluate-trajs` does; the strict replay of live runs is covered by the fixture suites.)
 *
 * τ²'s evaluators and orchestrator rules on trajectories and participants built by hand (mock and
 * telecom domains): action matching as `compare_with_tool_call` does it, the communicate check, the
 * product over the basis, premature terminations; dual-control routing, the protocol checks, and
 * `max_steps` overriding a stop on the same hop.
 */
import { readTau2FirstAgentMessage } from "../../src/suites/tau2/engine/upstream-text.ts";
import { evaluatorMessages } from "../../src/suites/tau2/engine/engine-messages.ts";
import { describe, expect, it } from "vitest";
import { tau2MockDomain } from "../../domains/tau2-mock/index.ts";
import { tau2TelecomDomain } from "../../domains/tau2-telecom/index.ts";
import type { Participant, Turn } from "../../src/core/contracts.ts";
import { loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import { evaluateTau2Simulation } from "../../src/suites/tau2/evaluator.ts";
import { runTau2Episode, Tau2ProtocolError } from "../../src/suites/tau2/loop.ts";
import type { Tau2SimulationMessage } from "../../src/suites/tau2/simulation.ts";
import { type Tau2Task, tau2Schemas } from "../../src/suites/tau2/tasks.ts";
import { PyFloat, type PyDict, type PyValue } from "../../src/value/index.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

const args = (entries: Record<string, PyValue>): PyDict => new Map(Object.entries(entries));

function task(criteria: Record<string, unknown> | null): Tau2Task {
  return tau2Schemas().task.parse({ id: "hand", user_scenario: { instructions: "x" }, evaluation_criteria: criteria });
}

function say(role: "assistant" | "user", content: string, at: number): Tau2SimulationMessage {
  return { role, content, tool_calls: null, timestamp: `2025-01-01T00:00:${String(at).padStart(2, "0")}`, cost: 0, usage: null, raw_data: null };
}

function call(name: string, entries: Record<string, PyValue>, at: number, id = `c${at}`): Tau2SimulationMessage[] {
  return [
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id, name, arguments: args(entries), requestor: "assistant" }],
      timestamp: `2025-01-01T00:00:${String(at).padStart(2, "0")}`,
      cost: 0,
      usage: null,
      raw_data: null,
    },
    { role: "tool", id, content: "{}", requestor: "assistant", error: false, timestamp: `2025-01-01T00:00:${String(at).padStart(2, "0")}.5` },
  ];
}

function scripted(turns: Turn[], isStop?: (turn: Turn) => boolean): Participant<Tau2Task> {
  return { name: "scripted", start: () => ({ next: async () => turns.shift() ?? { content: "###STOP###", toolCalls: [] }, isStop }) };
}

const gold = (extra: Record<string, unknown> = {}) => ({ action_id: "a", name: "get_users", arguments: {}, ...extra });

describe.skipIf(!data)("τ² evaluator on hand-built trajectories", () => {
  const mock = () => loadTau2Domain(tau2MockDomain, data as string);
  const actionReward = async (goldAction: Record<string, unknown>, messages: Tau2SimulationMessage[]) =>
    (await evaluateTau2Simulation({ domain: mock(), task: task({ actions: [goldAction], reward_basis: ["ACTION"] }), termination: "user_stop", messages, strictReplay: false })).reward.value;

  it("matches actions on the tool call's own keys (extra keys in the call fail, missing ones do not)", async () => {
    const create = { action_id: "a", name: "create_task", arguments: args({ user_id: "user_1", title: "T" }) };
    expect(await actionReward(create, call("create_task", { user_id: "user_1", title: "T" }, 1))).toBe(1);
    expect(await actionReward(create, call("create_task", { title: "T" }, 1))).toBe(1);
    expect(await actionReward(create, call("create_task", { user_id: "user_1", title: "T", description: "d" }, 1))).toBe(0);
    expect(await actionReward(create, call("create_task", { user_id: "user_2", title: "T" }, 1))).toBe(0);
    expect(await actionReward({ ...create, compare_args: [] }, call("create_task", { anything: 1 }, 1))).toBe(1);
    expect(await actionReward({ ...create, compare_args: ["title"] }, call("create_task", { user_id: "other", title: "T" }, 1))).toBe(1);
    expect(
      await actionReward(gold({ name: "update_task_status", arguments: args({ task_id: "task_1", status: 1 }) }), call("update_task_status", { task_id: "task_1", status: new PyFloat(1) }, 1)),
    ).toBe(1);
    expect(await actionReward(gold({ name: "update_task_status", arguments: args({ task_id: "task_1", status: "1" }) }), call("update_task_status", { task_id: "task_1", status: 1 }, 1))).toBe(0);
  });

  it("communicate: case-insensitive, commas removed from the agent's words, only the agent's messages count", async () => {
    const reward = async (info: string, messages: Tau2SimulationMessage[]) =>
      (await evaluateTau2Simulation({ domain: mock(), task: task({ communicate_info: [info], reward_basis: ["COMMUNICATE"] }), termination: "agent_stop", messages })).reward.value;
    expect(await reward("1628", [say("assistant", "That is 1,628 dollars.", 1)])).toBe(1);
    expect(await reward("Refund", [say("assistant", "your REFUND is done", 1)])).toBe(1);
    expect(await reward("1628", [say("user", "1628", 1)])).toBe(0);
  });

  it("multiplies only the basis' components, and scores premature or criterion-less runs as τ² does", async () => {
    const domain = mock();
    const criteria = { actions: [{ action_id: "a", name: "create_task", arguments: args({ user_id: "user_1", title: "T" }) }], communicate_info: ["done"], reward_basis: ["DB", "COMMUNICATE"] };
    const info = await evaluateTau2Simulation({
      domain,
      task: task(criteria),
      termination: "user_stop",
      messages: [...call("create_task", { user_id: "user_1", title: "T" }, 1), say("assistant", "All good", 2)],
      strictReplay: false,
    });
    expect(info.reward.value).toBe(0);
    expect(info.reward_breakdown).toEqual({ DB: new PyFloat(1), COMMUNICATE: new PyFloat(0) });
    expect(info.action_checks?.[0].action_match).toBe(true); // computed, not in the basis
    const premature = await evaluateTau2Simulation({ domain, task: task(criteria), termination: "too_many_errors", messages: [] });
    expect(premature.reward.value).toBe(0);
    expect(premature.info).toEqual({ note: "Simulation terminated prematurely. Termination reason: too_many_errors" });
    expect((await evaluateTau2Simulation({ domain, task: task(null), termination: "user_stop", messages: [] })).info).toEqual({ note: evaluatorMessages.text("noCriteria") });
  });
});

describe.skipIf(!data)("τ² orchestrator rules on hand-built participants", () => {
  const greeting = data ? readTau2FirstAgentMessage(data) : "";

  it("routes the user's tool calls to the user's device and the agent's to the agent's tools (dual control)", async () => {
    const domain = loadTau2Domain(tau2TelecomDomain, data as string);
    const agent = scripted([
      { content: null, toolCalls: [{ id: "a1", name: "toggle_airplane_mode", arguments: new Map() }] },
      { content: "Please check your status bar.", toolCalls: [] },
    ]);
    const user = scripted([
      { content: "My phone has no service.", toolCalls: [] },
      { content: null, toolCalls: [{ id: "u1", name: "check_status_bar", arguments: new Map() }] },
      { content: "Thanks ###STOP###", toolCalls: [] },
    ]);
    const outcome = await runTau2Episode({ domain, task: task(null), trial: 0, seed: null, agent, user, firstAgentMessage: greeting });
    const tools = outcome.messages.filter((message) => message.role === "tool");
    expect(tools.map((message) => [message.requestor, message.error])).toEqual([
      ["assistant", true],
      ["user", false],
    ]);
    expect(tools[0].content).toBe("Error: Tool 'toggle_airplane_mode' not found.");
    expect(outcome.errors).toBe(1);
    expect(outcome.termination).toBe("user_stop");
  });

  it("with the protocol enforced, a message with text and tool calls ends the run as agent_error; without, it goes to the environment", async () => {
    const domain = loadTau2Domain(tau2MockDomain, data as string);
    const mixed = (): Turn[] => [
      { content: "Let me look.", toolCalls: [{ id: "a1", name: "get_users", arguments: new Map() }] },
      { content: "Done.", toolCalls: [] },
    ];
    const user = () =>
      scripted([
        { content: "Hello", toolCalls: [] },
        { content: "###STOP###", toolCalls: [] },
      ]);
    const enforced = await runTau2Episode({ domain, task: task(null), trial: 0, seed: null, agent: scripted(mixed()), user: user(), firstAgentMessage: greeting, enforceCommunicationProtocol: true });
    expect(enforced.termination).toBe("agent_error");
    const lenient = await runTau2Episode({ domain, task: task(null), trial: 0, seed: null, agent: scripted(mixed()), user: user(), firstAgentMessage: greeting });
    expect(lenient.termination).toBe("user_stop");
    expect(lenient.messages.some((message) => message.role === "tool")).toBe(true);
  });

  it("an empty message crashes the attempt (τ² retries it); max_steps overrides a stop on the same hop", async () => {
    const domain = loadTau2Domain(tau2MockDomain, data as string);
    const empty = runTau2Episode({ domain, task: task(null), trial: 0, seed: null, agent: scripted([]), user: scripted([{ content: "  ", toolCalls: [] }]), firstAgentMessage: greeting });
    await expect(empty).rejects.toBeInstanceOf(Tau2ProtocolError);
    const stopAtBudget = await runTau2Episode({
      domain,
      task: task(null),
      trial: 0,
      seed: null,
      agent: scripted([{ content: "Sure.", toolCalls: [] }]),
      user: scripted([
        { content: "Hello", toolCalls: [] },
        { content: "Bye ###STOP###", toolCalls: [] },
      ]),
      firstAgentMessage: greeting,
      maxSteps: 3,
    });
    expect(stopAtBudget.termination).toBe("max_steps");
    expect(stopAtBudget.steps).toBe(3);
  });
});
