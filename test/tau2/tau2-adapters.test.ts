/**
 * Framework agents on τ² domains, unchanged: each Node framework's retail example agent (written
 * for its own backend, knowing nothing of taubridge) runs τ² retail tasks through `taubridge tau2
 * run --agent <framework>`. Its tool calls are intercepted at the framework's tool-execution entrypoint, become
 * assistant tool calls of the τ² trajectory (recorded and counted by the τ² orchestrator's step
 * path) and are answered by the τ² environment; the ground-truth writes score 1.0.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readTau2Results, rewardOf } from "../../src/suites/tau2/codec.ts";
import { type Tau2Task, readTau2Tasks } from "../../src/suites/tau2/tasks.ts";
import { startScriptedModelServer } from "../../src/testing/index.ts";
import { pyJsonDumps } from "../../src/value/index.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";
import { runTau2 } from "../support/cli.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);
const example = (framework: string) => fileURLToPath(new URL(`../../adapters/${framework}/example/retail-agent.ts`, import.meta.url));

function groundTruthSteps(task: Tau2Task, prefix: string) {
  const calls = (task.evaluation_criteria?.actions ?? []).map((action, index) => ({ tool_calls: [{ id: `${prefix}_${index}`, name: action.name, arguments: pyJsonDumps(action.arguments) }] }));
  return [...calls, { content: `Done with ${prefix}.` }];
}

describe.skipIf(!data)("framework adapters on τ² domains", () => {
  it.each([
    ["vercel-ai", "internal"],
    ["openai-agents", "internal"],
    ["langchain", "internal"],
    ["mastra", "internal"],
    ["vercel-ai", "decision-only"],
  ])(
    "%s (bridge mode %s): the unchanged retail example agent solves τ² retail tasks through the bridge",
    async (framework, mode) => {
      const tasks = new Map(readTau2Tasks(join(data as string, "retail", "tasks.json")).map((task) => [task.id, task]));
      const server = await startScriptedModelServer({ steps: [...groundTruthSteps(tasks.get("0") as Tau2Task, "t0"), ...groundTruthSteps(tasks.get("5") as Tau2Task, "t5")] });
      try {
        const file = join(mkdtempSync(join(tmpdir(), "tau2-adapter-")), "results.json");
        const result = await runTau2(
          [
            "--domain",
            "retail",
            "--task-ids",
            "0",
            "5",
            "--agent",
            framework,
            "--agent-option",
            `module=${example(framework)}`,
            "--agent-option",
            `bridgeMode=${mode}`,
            "--agent-llm",
            "scripted-model",
            "--agent-base-url",
            server.baseURL,
            "--user",
            "scripted",
            "--max-concurrency",
            "1",
          ],
          { data: data as string, saveTo: file, env: { RETAIL_BACKEND_URL: "http://127.0.0.1:9/never-called" } },
        );
        expect(result.stderr).toBe("");
        expect(result.exitCode).toBe(0);
        const simulations = readTau2Results(file).simulations;
        expect(simulations.map((simulation) => [simulation.task_id, simulation.termination_reason, rewardOf(simulation.reward_info)])).toEqual([
          ["0", "user_stop", 1],
          ["5", "user_stop", 1],
        ]);
        const first = simulations[0];
        const calls = first.messages.flatMap((message) => (message.role === "assistant" ? (message.tool_calls ?? []).map((call) => call.id) : []));
        expect(calls).toEqual(["t0_0", "t0_1", "t0_2", "t0_3", "t0_4"]);
        expect(first.messages.filter((message) => message.role === "tool").every((message) => !(message as { error: boolean }).error)).toBe(true);
        server.assertAllConsumed();
      } finally {
        await server.close();
      }
    },
    60_000,
  );
});

describe.skipIf(!data)("the function agent on τ² telecom", () => {
  it("a respond() module enables roaming; the scripted user turns it on with their own tool: 1.0", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "tau2-module-")), "results.json");
    const module = fileURLToPath(new URL("../fixtures/tau2/roaming-agent.mjs", import.meta.url));
    const result = await runTau2(
      [
        "--domain",
        "telecom",
        "--task-set-name",
        "telecom_small",
        "--task-ids",
        "[mobile_data_issue]user_abroad_roaming_disabled_off[PERSONA:Hard]",
        "--agent",
        "module",
        "--agent-option",
        `module=${module}`,
        "--user",
        "scripted",
      ],
      { data: data as string, saveTo: file },
    );
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const [simulation] = readTau2Results(file).simulations;
    expect(simulation.termination_reason).toBe("user_stop");
    expect(rewardOf(simulation.reward_info)).toBe(1);
    const calls = simulation.messages.flatMap((message) => (message.role === "assistant" || message.role === "user" ? (message.tool_calls ?? []).map((call) => `${call.requestor}:${call.name}`) : []));
    expect(calls).toEqual(["assistant:enable_roaming", "user:toggle_roaming"]);
  }, 300_000);
});

describe.skipIf(!data)("τ-bench model strategies on τ² domains", () => {
  it("the tool-calling strategy solves a mock task (its tool calls become τ² hops)", async () => {
    const server = await startScriptedModelServer({
      steps: [{ tool_calls: [{ id: "c1", name: "create_task", arguments: '{"user_id": "user_1", "title": "Important Meeting"}' }] }, { content: "Your task is created.", times: "unlimited" }],
    });
    try {
      const file = join(mkdtempSync(join(tmpdir(), "tau2-tool-calling-")), "results.json");
      const result = await runTau2(
        [
          "--domain",
          "mock",
          "--task-ids",
          "create_task_1",
          "--agent",
          "tool-calling",
          "--agent-llm",
          "m",
          "--agent-base-url",
          server.baseURL,
          "--agent-provider",
          "openai-compatible",
          "--user",
          "scripted",
        ],
        { data: data as string, saveTo: file },
      );
      expect(result.exitCode).toBe(0);
      const [simulation] = readTau2Results(file).simulations;
      expect([simulation.termination_reason, rewardOf(simulation.reward_info)]).toEqual(["user_stop", 1]);
      const offered = (server.requests[0].body as { tools: Array<{ function: { name: string } }> }).tools.map((tool) => tool.function.name);
      expect(offered).toEqual(["create_task", "get_users", "update_task_status", "transfer_to_human_agents"]);
    } finally {
      await server.close();
    }
  }, 300_000);
});

describe.skipIf(!data)("framework adapters on τ² telecom (dual control)", () => {
  it.each(["vercel-ai", "openai-agents", "langchain", "mastra"])(
    "%s: the unchanged telecom example agent enables roaming through the bridge; the user turns it on with their own tool: 1.0",
    async (framework) => {
      const server = await startScriptedModelServer({
        steps: [
          { tool_calls: [{ id: "fw_1", name: "enable_roaming", arguments: '{"customer_id": "C1001", "line_id": "L1002"}' }] },
          { content: "Roaming is enabled on your line; please turn on data roaming on your phone." },
          { content: "You are all set.", times: "unlimited" },
        ],
      });
      try {
        const file = join(mkdtempSync(join(tmpdir(), "tau2-adapter-telecom-")), "results.json");
        const module = fileURLToPath(new URL(`../../adapters/${framework}/example/telecom-agent.ts`, import.meta.url));
        const result = await runTau2(
          [
            "--domain",
            "telecom",
            "--task-set-name",
            "telecom_small",
            "--task-ids",
            "[mobile_data_issue]user_abroad_roaming_disabled_off[PERSONA:Hard]",
            "--agent",
            framework,
            "--agent-option",
            `module=${module}`,
            "--agent-llm",
            "scripted-model",
            "--agent-base-url",
            server.baseURL,
            "--user",
            "scripted",
          ],
          { data: data as string, saveTo: file, env: { TELECOM_ACCOUNTS_URL: "http://127.0.0.1:9/never-called" } },
        );
        expect(result.stderr).toBe("");
        expect(result.exitCode).toBe(0);
        const [simulation] = readTau2Results(file).simulations;
        expect([simulation.termination_reason, rewardOf(simulation.reward_info)]).toEqual(["user_stop", 1]);
        const calls = simulation.messages.flatMap((message) =>
          message.role === "assistant" || message.role === "user" ? (message.tool_calls ?? []).map((call) => `${call.requestor}:${call.name}:${call.id}`) : [],
        );
        expect(calls[0]).toBe("assistant:enable_roaming:fw_1");
        expect(calls[1]).toMatch(/^user:toggle_roaming:/);
      } finally {
        await server.close();
      }
    },
    60_000,
  );
});

describe.skipIf(!data)("dry-run on τ²", () => {
  it("vercel-ai in dry-run mode: every call is planned (recorded in the simulation's info), none executed or in the trajectory", async () => {
    const tasks = new Map(readTau2Tasks(join(data as string, "retail", "tasks.json")).map((task) => [task.id, task]));
    const server = await startScriptedModelServer({ steps: groundTruthSteps(tasks.get("5") as Tau2Task, "t5") });
    try {
      const file = join(mkdtempSync(join(tmpdir(), "tau2-dry-")), "results.json");
      const args = ["--domain", "retail", "--task-ids", "5", "--agent", "vercel-ai", "--agent-option", `module=${example("vercel-ai")}`, "--agent-option", "bridgeMode=dry-run"];
      const result = await runTau2([...args, "--agent-llm", "scripted-model", "--agent-base-url", server.baseURL, "--user", "scripted"], { data: data as string, saveTo: file });
      expect(result.exitCode).toBe(0);
      const [simulation] = readTau2Results(file).simulations;
      expect(simulation.messages.some((message) => message.role === "tool")).toBe(false);
      expect((simulation.info?.planned_actions as Array<{ name: string }>).map((call) => call.name)).toEqual((tasks.get("5") as Tau2Task).evaluation_criteria?.actions?.map((action) => action.name));
      expect(rewardOf(simulation.reward_info)).toBe(0); // the return was planned, not made
    } finally {
      await server.close();
    }
  }, 300_000);
});

const python = process.env.TAUBRIDGE_PYTHON ?? "python3";
const pythonAvailable = spawnSync(python, ["-c", "import sys; assert sys.version_info >= (3, 8)"]).status === 0;
if (!pythonAvailable) console.warn(`skipped: no usable Python 3.8+ interpreter (${python}); set TAUBRIDGE_PYTHON`);

describe.skipIf(!data || !pythonAvailable)("the Python bridge on τ²", () => {
  it("python-bridge: an unchanged Python agent's tool functions are bridged into τ² retail (1.0); its non-benchmark tool runs natively", async () => {
    const agentDir = fileURLToPath(new URL("../fixtures/fastworkflow/generic_agent", import.meta.url));
    const targets = [
      "toy_retail_tools:find_user_id_by_name_zip",
      "toy_retail_tools:get_user_details",
      "toy_retail_tools:OrderDesk.order_details=get_order_details",
      "toy_retail_tools:OrderDesk.return_items=return_delivered_order_items",
      "toy_retail_tools:store_hours",
    ].join(",");
    const file = join(mkdtempSync(join(tmpdir(), "tau2-python-")), "results.json");
    const options = ["entry=toy_retail_agent:ToyRetailAgent", `patchTargets=${targets}`, "native=store_hours", `pythonPath=${agentDir}`].flatMap((option) => ["--agent-option", option]);
    const result = await runTau2(["--domain", "retail", "--task-ids", "5", "--agent", "python-bridge", ...options, "--user", "scripted"], { data: data as string, saveTo: file });
    expect(result.exitCode).toBe(0);
    const [simulation] = readTau2Results(file).simulations;
    expect([simulation.termination_reason, rewardOf(simulation.reward_info)]).toEqual(["user_stop", 1]);
    const calls = simulation.messages.flatMap((message) => (message.role === "assistant" ? (message.tool_calls ?? []).map((call) => call.name) : []));
    expect(calls).toEqual(["find_user_id_by_name_zip", "get_user_details", "get_order_details", "return_delivered_order_items"]);
  }, 300_000);
});
