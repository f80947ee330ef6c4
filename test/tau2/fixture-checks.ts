/**
 * Checks a τ² domain against the reference fixtures made by running the original code
 * (`<shared>/tau2-bench/fixtures/`): every ground-truth step's tool result, error flag and hashes
 * (`gt_replay_<domain>.json`), the evaluator's gold target and env assertions, and every tool probe
 * (`tool_probes_<domain>.json`). Fixture files are read with the lossless reader, so `2.0` stays a float.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { LoadedTau2Domain, Tau2DomainDefinition } from "../../src/suites/tau2/engine/domain.ts";
import { toolsOf } from "../../src/suites/tau2/engine/toolkit.ts";
import type { Tau2Assertion, Tau2DatabaseHash, Tau2Requestor, Tau2ToolCall } from "../../src/suites/tau2/engine/environment.ts";
import { applyTaskInitialState, environmentHop } from "../../src/suites/tau2/engine/task-state.ts";
import type { Tau2Task } from "../../src/suites/tau2/tasks.ts";
import { PyException, type PyDict, type PyValue, parsePythonJson, pyEquals } from "../../src/value/index.ts";

export function readFixture(tau2Data: string, file: string): PyDict {
  return parsePythonJson(readFileSync(join(tau2Data, "fixtures", file), "utf8")) as PyDict;
}

function get(value: PyValue | undefined, key: string): PyValue {
  return (value as PyDict).get(key) as PyValue;
}

function hashOf(value: PyValue): Tau2DatabaseHash {
  return { agent: get(value, "agent") as string, user: get(value, "user") as string | null };
}

function toolCall(entry: PyValue, index: number): Tau2ToolCall {
  return { id: `call_${index}`, name: get(entry, "name") as string, arguments: get(entry, "arguments") as PyDict, requestor: get(entry, "requestor") as Tau2Requestor };
}

/** One entry of `gt_replay_<domain>.json` checked step by step; returns the mismatches found. */
export function checkGroundTruthReplay(domain: LoadedTau2Domain, task: Tau2Task, entry: PyDict): string[] {
  const problems: string[] = [];
  const environment = domain.createEnvironment({ task });
  applyTaskInitialState(environment, task);
  const id = task.id;
  if (JSON.stringify(environment.hash()) !== JSON.stringify(hashOf(get(entry, "initial_hash")))) problems.push(`${id}: initial hash`);
  (get(entry, "steps") as PyValue[]).forEach((step, index) => {
    const result = environmentHop(environment, toolCall(step, index));
    if (result.content !== get(step, "content")) problems.push(`${id} step ${index} content:\n  got      ${result.content}\n  expected ${get(step, "content") as string}`);
    if (result.error !== get(step, "error")) problems.push(`${id} step ${index}: error flag ${result.error}`);
    if (JSON.stringify(environment.hash()) !== JSON.stringify(hashOf(get(step, "hash_after")))) problems.push(`${id} step ${index} (${get(step, "name") as string}): hash after`);
  });
  if (JSON.stringify(environment.hash()) !== JSON.stringify(hashOf(get(entry, "final_hash")))) problems.push(`${id}: final hash`);
  (get(entry, "env_assertions") as PyValue[]).forEach((assertion, index) => {
    const call: Tau2Assertion = {
      env_type: get(assertion, "env_type") as Tau2Requestor,
      func_name: get(assertion, "func_name") as string,
      arguments: get(assertion, "arguments") as PyDict,
      assert_value: get(assertion, "assert_value") as boolean,
    };
    const raised = get(assertion, "raised");
    try {
      const result = environment.runFunctionCall(call);
      if (raised !== null && raised !== undefined) problems.push(`${id} assertion ${index}: expected to raise ${String(raised)}`);
      else if (!pyEquals(result, get(assertion, "result"))) problems.push(`${id} assertion ${index}: result`);
    } catch (error) {
      if (!PyException.isInstance(error) || raised === null || raised === undefined) problems.push(`${id} assertion ${index}: raised ${String(error)}`);
    }
  });
  return problems;
}

/** Every probe of `tool_probes_<domain>.json`; returns the mismatches found. */
export function checkToolProbes(
  domainFor: LoadedTau2Domain | ((probe: PyDict) => LoadedTau2Domain),
  tasks: ReadonlyMap<string, Tau2Task>,
  fixture: PyDict,
  normalize: (content: string) => string = (content) => content,
): string[] {
  const problems: string[] = [];
  for (const probe of get(fixture, "probes") as PyValue[]) {
    const id = get(probe, "id") as string;
    const taskId = get(probe, "task_id");
    const task = typeof taskId === "string" ? (tasks.get(taskId) as Tau2Task) : undefined;
    const domain = typeof domainFor === "function" ? domainFor(probe as PyDict) : domainFor;
    const environment = domain.createEnvironment({ task });
    if (task) applyTaskInitialState(environment, task);
    const flag = get(probe, "nondeterministic"); // true, or a text saying why (telecom)
    const nondeterministic = flag !== undefined && flag !== null && flag !== false;
    if (JSON.stringify(environment.hash()) !== JSON.stringify(hashOf(get(probe, "initial_hash")))) problems.push(`${id}: initial hash`);
    const results = get(probe, "results") as PyValue[];
    (get(probe, "calls") as PyValue[]).forEach((call, index) => {
      const result = environmentHop(environment, toolCall(call, index));
      const expected = results[index];
      if (normalize(result.content) !== normalize(get(expected, "content") as string) && !nondeterministic)
        problems.push(`${id} call ${index} content:\n  got      ${result.content}\n  expected ${get(expected, "content") as string}`);
      if (result.error !== get(expected, "error")) problems.push(`${id} call ${index}: error flag ${result.error}`);
      if (!nondeterministic && JSON.stringify(environment.hash()) !== JSON.stringify(hashOf(get(expected, "hash_after")))) problems.push(`${id} call ${index}: hash after`);
    });
  }
  return problems;
}

/** Fails with every mismatch listed (so one run shows all of them). */
export function expectNoProblems(problems: string[]): void {
  expect(problems.join("\n")).toBe("");
}

/**
 * The fixture checks of a τ² domain with one task set (mock, airline, retail), as `it` blocks in the
 * caller's `describe`: every ground-truth step of `gt_replay_<name>.json`, every probe of
 * `tool_probes_<name>.json`, and the agent and user tools' names, order, types and mutates_state
 * (`tools_<name>.json`; a domain without user tools has no user database either).
 */
export function itMatchesTheReferenceFixtures(name: string, tau2Data: string, definition: Tau2DomainDefinition, domain: LoadedTau2Domain, tasks: ReadonlyMap<string, Tau2Task>): void {
  it("replays every ground-truth action with the original's results, error flags and hashes", () => {
    const entries = get(readFixture(tau2Data, `gt_replay_${name}.json`).get("sets") as PyDict, "tasks") as PyValue[];
    expectNoProblems(entries.flatMap((entry) => checkGroundTruthReplay(domain, tasks.get(get(entry, "id") as string) as Tau2Task, entry as PyDict)));
  });

  it("answers every tool probe as the original does", () => {
    expectNoProblems(checkToolProbes(domain, tasks, readFixture(tau2Data, `tool_probes_${name}.json`)));
  });

  it("lists the agent and user tools with τ²'s names, order, tool types and mutates_state", () => {
    const fixture = readFixture(tau2Data, `tools_${name}.json`);
    const expected = (key: string) => (fixture.get(key) as PyDict[] | null)?.map((info) => [info.get("name"), info.get("tool_type"), info.get("mutates_state")]) ?? null;
    const actual = (kit: Tau2DomainDefinition["userToolkit"]) => (kit ? toolsOf(kit).map((tool) => [tool.name, tool.tool?.type, tool.tool?.mutatesState]) : null);
    expect(actual(definition.agentToolkit)).toEqual(expected("agent_tool_info"));
    expect(actual(definition.userToolkit)).toEqual(expected("user_tool_info"));
    if (!definition.userToolkit) expect(definition.databases.user).toBeUndefined();
  });
}
