/**
 * taubridge's own agents on τ² domains, as the participants they are (no wrapper): the function
 * agent (its tool calls are its messages, sent to the environment as hops; several calls in one
 * turn are one message and one hop) solving a mock task end to end with the scripted τ² user, and
 * an agent that runs tools inside its turn through the kernel's step path (as a framework does
 * through the bridge): each step is recorded as a tool-call message and its result, counted as two
 * hops, and a step that spends the budget ends the episode inside the turn and refuses the next one.
 */
import { readTau2FirstAgentMessage } from "../../src/suites/tau2/engine/upstream-text.ts";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tau2MockDomain } from "../../domains/tau2-mock/index.ts";
import { FunctionAgent } from "../../src/participants/function-agent.ts";
import type { DomainView, Participant } from "../../src/core/contracts.ts";
import { loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import { evaluateTau2Simulation } from "../../src/suites/tau2/evaluator.ts";
import { runTau2Episode } from "../../src/suites/tau2/loop.ts";
import { readTau2Tasks } from "../../src/suites/tau2/tasks.ts";
import { tau2ScriptedUser } from "../../src/suites/tau2/participants/scripted-user.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";
import { readFixture } from "./fixture-checks.ts";
import { type PyDict, toJs } from "../../src/value/index.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);
const greeting = data ? readTau2FirstAgentMessage(data) : "";

describe.skipIf(!data)("taubridge agents on τ² domains", () => {
  const domain = () => loadTau2Domain(tau2MockDomain, data as string);
  const task = () => readTau2Tasks(join(data as string, "mock", "tasks.json")).find((candidate) => candidate.id === "create_task_1")!;
  const view = (): DomainView => {
    const tools = toJs(readFixture(data as string, "tools_mock.json").get("agent") as PyDict) as Record<string, unknown>[];
    return { name: "mock", policy: "policy", toolNames: tools.map((tool) => (tool as { function: { name: string } }).function.name), toolSchemas: { json: tools, pythonJson: JSON.stringify(tools) } };
  };
  const views = () => ({ agent: view, user: view });

  it("the function agent creates the task through τ² hops and scores 1.0", async () => {
    const agent = new FunctionAgent(async ({ messages, tools }) => {
      expect(tools.map((tool) => (tool as { function: { name: string } }).function.name)).toContain("create_task");
      const last = messages[messages.length - 1];
      if (last.role === "tool") return { content: "Your task Important Meeting is created." };
      if (messages.some((message) => message.role === "tool")) return { content: "Anything else?" };
      return { toolCalls: [{ name: "create_task", arguments: { user_id: "user_1", title: "Important Meeting" } }] };
    });
    const outcome = await runTau2Episode({ domain: domain(), task: task(), trial: 0, seed: null, agent, user: tau2ScriptedUser, views: views(), firstAgentMessage: greeting });
    expect(outcome.termination).toBe("user_stop");
    const info = await evaluateTau2Simulation({ domain: domain(), task: task(), termination: outcome.termination, messages: outcome.messages });
    expect(info.reward.value).toBe(1);
    expect(outcome.messages.map((message) => message.role)).toEqual(["assistant", "user", "assistant", "tool", "assistant", "user"]);
  });

  it("several tool calls in one turn are one assistant message and one environment hop; the agent gets all results at once", async () => {
    const agent = new FunctionAgent(async ({ messages }) => {
      const results = messages.filter((message) => message.role === "tool");
      if (results.length === 2) return { content: `Created two tasks: ${results.map((result) => String(result.content)).join(" / ")}` };
      if (results.length > 0) return { content: "Anything else?" };
      return {
        toolCalls: [
          { name: "create_task", arguments: { user_id: "user_1", title: "Important Meeting" } },
          { name: "create_task", arguments: { user_id: "user_1", title: "Follow-up" } },
        ],
      };
    });
    const outcome = await runTau2Episode({ domain: domain(), task: task(), trial: 0, seed: null, agent, user: tau2ScriptedUser, views: views(), firstAgentMessage: greeting });
    expect(outcome.messages.map((message) => message.role)).toEqual(["assistant", "user", "assistant", "tool", "tool", "assistant", "user"]);
    const calls = outcome.messages[2] as { tool_calls: Array<{ name: string; requestor: string }> };
    expect(calls.tool_calls.map((call) => [call.name, call.requestor])).toEqual([
      ["create_task", "assistant"],
      ["create_task", "assistant"],
    ]);
    expect(outcome.messages[5]).toMatchObject({ role: "assistant", content: expect.stringContaining("Created two tasks") });
    expect(outcome.errors).toBe(0);
  });

  it("steps inside a turn go through the step path: recorded, two hops each, and the budget ends the turn", async () => {
    const outcomes: Array<{ observation: string; refused: boolean; done: boolean }> = [];
    const framework: Participant = {
      name: "inside",
      start: (context) => ({
        async next() {
          for (let index = 0; index < 3; index++) {
            const outcome = await context.steps!.step({ action: { name: "get_users", kwargs: new Map() }, origin: "bridge", toolCallId: `fw_${index}` });
            outcomes.push(outcome);
          }
          return { content: "Here are the users.", toolCalls: [] };
        },
      }),
    };
    // greeting → user hello (1 hop) → the agent's turn: two steps = 4 hops → 5 ≥ max 5: the episode ends inside the turn.
    const outcome = await runTau2Episode({ domain: domain(), task: task(), trial: 0, seed: null, agent: framework, user: tau2ScriptedUser, views: views(), firstAgentMessage: greeting, maxSteps: 5 });
    expect(outcome.termination).toBe("max_steps");
    expect(outcomes.map((entry) => entry.refused)).toEqual([false, false, true]);
    expect(outcomes[0].observation).toContain("user_1");
    expect(outcome.messages.map((message) => message.role)).toEqual(["assistant", "user", "assistant", "tool", "assistant", "tool"]);
    expect(outcome.steps).toBe(5);
  });
});
