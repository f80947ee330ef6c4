import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tau2TelecomDomain, tau2TelecomWorkflowDomain } from "../../domains/tau2-telecom/index.ts";
import { loadTau2Domain } from "../../src/engine/tau2/domain.ts";
import type { Tau2Assertion, Tau2DatabaseHash, Tau2ReplayMessage, Tau2Requestor, Tau2ToolCall } from "../../src/engine/tau2/environment.ts";
import { applyTaskInitialState, environmentHop, toReplayMessage } from "../../src/engine/tau2/task-state.ts";
import { toolsOf } from "../../src/engine/tau2/toolkit.ts";
import { readTau2Splits, readTau2Tasks, type Tau2Task } from "../../src/tasks/tau2-tasks.ts";
import { PyException, type PyDict, type PyValue } from "../../src/value/index.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";
import { checkGroundTruthReplay, checkToolProbes, expectNoProblems, readFixture } from "./fixture-checks.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

function get(value: PyValue | undefined, key: string): PyValue {
  return (value as PyDict).get(key) as PyValue;
}

describe.skipIf(!data)("τ² telecom domain against the reference fixtures", () => {
  const domain = loadTau2Domain(tau2TelecomDomain, data as string);
  const allTasks = readTau2Tasks(join(data as string, "telecom", "tasks.json"));
  const smallTasks = readTau2Tasks(join(data as string, "telecom", "tasks_small.json"));
  const tasksById = new Map(allTasks.map((task) => [task.id, task]));
  const smallById = new Map(smallTasks.map((task) => [task.id, task]));
  const replay = readFixture(data as string, "gt_replay_telecom.json");
  const sets = replay.get("sets") as PyDict;
  const setTasks: Record<string, Map<string, Tau2Task>> = { base: tasksById, tasks_small: smallById };

  for (const setName of ["base", "tasks_small"]) {
    it(`replays every ground-truth action of the ${setName} set with the original's results, error flags and hashes`, () => {
      const entries = sets.get(setName) as PyValue[];
      expect(entries.length).toBe(setName === "base" ? 114 : 20);
      expectNoProblems(entries.flatMap((entry) => checkGroundTruthReplay(domain, setTasks[setName].get(get(entry, "id") as string) as Tau2Task, entry as PyDict)));
    });

    it(`builds the evaluator's gold state of the ${setName} set (make_tool_call without sync_tools)`, () => {
      const problems: string[] = [];
      for (const entry of sets.get(setName) as PyValue[]) {
        const task = setTasks[setName].get(get(entry, "id") as string) as Tau2Task;
        const environment = domain.createEnvironment();
        const state = task.initial_state;
        environment.setState(state?.initialization_data, state?.initialization_actions, (state?.message_history ?? []).map(toReplayMessage));
        let raised = 0;
        for (const step of get(entry, "steps") as PyValue[]) {
          try {
            environment.makeToolCall(get(step, "name") as string, get(step, "requestor") as Tau2Requestor, get(step, "arguments") as PyDict);
          } catch (error) {
            if (!PyException.isInstance(error)) throw error;
            raised++;
          }
        }
        const gold = get(entry, "evaluator_gold");
        const expected = get(gold, "final_hash") as PyDict;
        const hash: Tau2DatabaseHash = environment.hash();
        if (hash.agent !== expected.get("agent") || hash.user !== expected.get("user")) problems.push(`${task.id}: gold hash`);
        if (raised !== (get(gold, "raised") as PyValue[]).length) problems.push(`${task.id}: gold raised ${raised}`);
      }
      expectNoProblems(problems);
    });
  }

  it("answers every tool probe as the original does (the random bill id probe excepted)", () => {
    expectNoProblems(checkToolProbes(domain, tasksById, readFixture(data as string, "tool_probes_telecom.json")));
  });

  it("reproduces every tool result of the reference simulations (evaluator_telecom.json) and their env assertion outcomes", () => {
    const problems: string[] = [];
    let compared = 0;
    const fixture = readFixture(data as string, "evaluator_telecom.json");
    for (const entry of fixture.get("tasks") as PyDict[]) {
      const task = setTasks[entry.get("task_set") as string].get(entry.get("task_id") as string) as Tau2Task;
      for (const variant of entry.get("variants") as PyDict[]) {
        const label = `${task.id} ${variant.get("variant") as string}`;
        const messages = variant.get("messages") as PyDict[];
        const environment = domain.createEnvironment();
        applyTaskInitialState(environment, task);
        const trajectory: Tau2ReplayMessage[] = [];
        messages.forEach((message, index) => {
          const calls = (message.get("tool_calls") ?? []) as PyDict[];
          if (message.get("role") === "tool") {
            trajectory.push({ role: "tool", id: message.get("id") as string, content: message.get("content") as string, requestor: message.get("requestor") as Tau2Requestor, error: message.get("error") as boolean });
            return;
          }
          const toolCalls: Tau2ToolCall[] = calls.map((call) => ({ id: call.get("id") as string, name: call.get("name") as string, arguments: call.get("arguments") as PyDict, requestor: call.get("requestor") as Tau2Requestor }));
          trajectory.push({ role: message.get("role") as "assistant" | "user", tool_calls: toolCalls.length > 0 ? toolCalls : null });
          toolCalls.forEach((call, offset) => {
            const recorded = messages[index + 1 + offset];
            const result = environmentHop(environment, call);
            compared++;
            if (result.content !== recorded.get("content") || result.error !== recorded.get("error")) problems.push(`${label} message ${index} ${call.name}: ${result.content}`);
          });
        });
        const assertions = (get(variant.get("reward_info"), "env_assertions") ?? []) as PyDict[];
        if (assertions.length === 0) continue;
        const predicted = domain.createEnvironment();
        applyTaskInitialState(predicted, task, trajectory);
        for (const check of assertions) {
          const assertion = check.get("env_assertion") as PyDict;
          const call: Tau2Assertion = {
            env_type: assertion.get("env_type") as Tau2Requestor,
            func_name: assertion.get("func_name") as string,
            arguments: assertion.get("arguments") as PyDict,
            assert_value: assertion.get("assert_value") as boolean,
          };
          if (predicted.runAssertion(call) !== check.get("met")) problems.push(`${label} ${call.func_name}: met`);
          compared++;
        }
      }
    }
    expectNoProblems(problems);
    expect(compared).toBeGreaterThan(200);
  });

  it("lists the agent and user tools with the original's names, order, types and mutates_state", () => {
    const tools = readFixture(data as string, "tools_telecom.json");
    const info = (kit: typeof tau2TelecomDomain.agentToolkit) =>
      toolsOf(kit).map((tool) => ({ name: tool.name, tool_type: tool.tool?.type, mutates_state: tool.tool?.mutatesState }));
    const expected = (key: string) =>
      (tools.get(key) as PyDict[]).map((entry) => ({ name: entry.get("name"), tool_type: entry.get("tool_type"), mutates_state: entry.get("mutates_state") }));
    expect(info(tau2TelecomDomain.agentToolkit)).toEqual(expected("agent_tool_info"));
    expect(info(tau2TelecomDomain.userToolkit as typeof tau2TelecomDomain.agentToolkit)).toEqual(expected("user_tool_info"));
  });

  it("validates all 2,285 tasks and runs the initialization of every base and small task", () => {
    expect(allTasks.length).toBe(2285);
    const splits = readTau2Splits(join(data as string, "telecom", "split_tasks.json")) as Record<string, string[]>;
    const base = new Set(splits.base);
    const toInitialize = [...allTasks.filter((task) => base.has(task.id)), ...smallTasks];
    expect(toInitialize.length).toBe(134);
    for (const task of toInitialize) applyTaskInitialState(domain.createEnvironment(), task);
  });

  it("runs the initialization of every one of the 2,285 tasks", () => {
    const failures: string[] = [];
    for (const task of allTasks) {
      try {
        applyTaskInitialState(domain.createEnvironment(), task);
      } catch (error) {
        failures.push(`${task.id}: ${String(error)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("composes the policies as spec §2.8 (manual, workflow, and their solo variants)", () => {
    const prompts = readFixture(data as string, "prompts_telecom.json");
    const agents = prompts.get("llm_agent") as PyDict;
    expect(domain.policy()).toBe(get(agents.get("telecom"), "policy"));
    const workflow = loadTau2Domain(tau2TelecomWorkflowDomain, data as string);
    expect(workflow.policy()).toBe(get(agents.get("telecom-workflow"), "policy"));
    expect(domain.policy(true)).toMatch(/^<main_policy>\n[\s\S]*\n<\/main_policy>\n<tech_support_policy>\n[\s\S]*\n<\/tech_support_policy>$/);
    expect(workflow.policy(true)).not.toBe(workflow.policy(false));
  });
});
