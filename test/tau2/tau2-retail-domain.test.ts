import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTau2Domain } from "../../src/engine/tau2/domain.ts";
import type { Tau2Environment, Tau2ToolResult } from "../../src/engine/tau2/environment.ts";
import { toolsOf } from "../../src/engine/tau2/toolkit.ts";
import { readTau2Tasks } from "../../src/tasks/tau2-tasks.ts";
import { type PyDict, type PyModel, type PyValue, parsePythonJson, pyGetAttr } from "../../src/value/index.ts";
import { tau2RetailDomain } from "../../domains/tau2-retail/index.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";
import { checkGroundTruthReplay, checkToolProbes, expectNoProblems, readFixture } from "./fixture-checks.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

/** One assistant tool step; arguments are JSON text so ints and floats keep their Python types. */
function call(environment: Tau2Environment, name: string, argumentsJson: string): Tau2ToolResult {
  return environment.getResponse({ id: "call", name, arguments: parsePythonJson(argumentsJson) as PyDict, requestor: "assistant" });
}

/** `db.<table>[key]` of the agent database, as a model. */
function row(environment: Tau2Environment, table: string, key: string): PyModel {
  return (pyGetAttr(environment.agent.db, table) as PyDict).get(key) as PyModel;
}

describe.skipIf(!data)("τ² retail domain against the reference fixtures", () => {
  const domain = loadTau2Domain(tau2RetailDomain, data as string);
  const tasks = new Map(readTau2Tasks(join(data as string, "retail", "tasks.json")).map((task) => [task.id, task]));

  it("replays every ground-truth action with the original's results, error flags and hashes", () => {
    const fixture = readFixture(data as string, "gt_replay_retail.json");
    const entries = (fixture.get("sets") as PyDict).get("tasks") as PyValue[];
    expectNoProblems(entries.flatMap((entry) => checkGroundTruthReplay(domain, tasks.get((entry as PyDict).get("id") as string)!, entry as PyDict)));
  });

  it("answers every tool probe as the original does", () => {
    expectNoProblems(checkToolProbes(domain, tasks, readFixture(data as string, "tool_probes_retail.json")));
  });

  it("lists the agent tools with τ²'s names, order, tool types and mutates_state, and has no user tools", () => {
    const fixture = readFixture(data as string, "tools_retail.json");
    const expected = (fixture.get("agent_tool_info") as PyDict[]).map((info) => [info.get("name"), info.get("tool_type"), info.get("mutates_state")]);
    const actual = toolsOf(tau2RetailDomain.agentToolkit).map((tool) => [tool.name, tool.tool?.type, tool.tool?.mutatesState]);
    expect(actual).toEqual(expected);
    expect(fixture.get("user_tool_info")).toBeNull();
    expect(tau2RetailDomain.userToolkit).toBeUndefined();
    expect(tau2RetailDomain.databases.user).toBeUndefined();
  });
});
