/**
 * The bridge against the REAL FastWorkflow package. Runs only where `python3 -c "import fastworkflow"`
 * succeeds (it cannot here: PyPI is unreachable and FastWorkflow needs dspy, litellm and torch), and
 * prints why it skipped otherwise.
 *
 * 1. Contract (no LLM needed): the post-import hook patches `CommandExecutor.invoke_command` and
 *    `workflow_agent._execute_workflow_query` when FastWorkflow imports them, and the originals have
 *    the signatures the bridge relies on.
 * 2. End to end (also needs a trained workflow and an LLM endpoint): set
 *    `TAUBRIDGE_FASTWORKFLOW_WORKFLOW` to a trained retail workflow (`fastworkflow examples fetch
 *    retail_workflow`, then `fastworkflow train ...`) and `TAUBRIDGE_FASTWORKFLOW_ENV` to its env
 *    files (comma-separated: `fastworkflow.env,fastworkflow.passwords.env`, with `LLM_*` and
 *    `LITELLM_PROXY_API_BASE` pointing at a model). One τ-bench retail episode then runs with a
 *    scripted user; an LLM agent is not deterministic, so only the bridge's guarantees are checked.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { PythonBridgeChild } from "../bridge/transport/index.ts";
import { FastWorkflowAgent, parseFastWorkflowOptions } from "../adapters/fastworkflow/index.ts";
import { loadDomain } from "../src/suites/tau-bench/engine/domain.ts";
import { runEpisode } from "../src/suites/tau-bench/loop.ts";
import { scriptedUser } from "../src/suites/tau-bench/participants/scripted-user.ts";
import { tauBenchDirectory } from "./support/shared-data.ts";

const python = process.env.TAUBRIDGE_PYTHON ?? "python3";
const probe = spawnSync(python, ["-c", "import fastworkflow, sys; print(getattr(fastworkflow, '__version__', '?'))"], { encoding: "utf8" });
const fastworkflowInstalled = probe.status === 0;
if (!fastworkflowInstalled) {
  const reason = (probe.stderr || probe.error?.message || "").trim().split("\n").pop();
  console.warn(`skipped: the real FastWorkflow package is not importable with ${python} (${reason}); these tests run only where it is installed`);
}
const workflow = process.env.TAUBRIDGE_FASTWORKFLOW_WORKFLOW;
const envFiles = process.env.TAUBRIDGE_FASTWORKFLOW_ENV;
if (fastworkflowInstalled && (!workflow || !envFiles || !tauBenchDirectory)) {
  console.warn("skipped: real FastWorkflow end to end needs TAUBRIDGE_FASTWORKFLOW_WORKFLOW, TAUBRIDGE_FASTWORKFLOW_ENV and TAUBRIDGE_SHARED");
}

describe.skipIf(!fastworkflowInstalled)("real FastWorkflow: patch contract", () => {
  it("patches both targets on import and finds the signatures the bridge relies on", async () => {
    const child = await PythonBridgeChild.start({ debug: true });
    try {
      const executor = await child.request<{ patched: string[]; signatures: Record<string, string> }>("debug.import", {
        module: "fastworkflow.command_executor",
        signatures: ["CommandExecutor.invoke_command", "CommandExecutor.perform_action"],
      });
      expect(executor.patched).toContain("fastworkflow.command_executor:CommandExecutor.invoke_command");
      expect(executor.signatures["CommandExecutor.invoke_command"]).toMatch(/chat_session.*command/);
      expect(executor.signatures["CommandExecutor.perform_action"]).toMatch(/workflow.*action/);
      const agent = await child.request<{ patched: string[]; signatures: Record<string, string> }>("debug.import", {
        module: "fastworkflow.workflow_agent",
        signatures: ["_execute_workflow_query"],
      });
      expect(agent.patched).toContain("fastworkflow.workflow_agent:_execute_workflow_query");
      expect(agent.signatures._execute_workflow_query).toMatch(/^\(command.*chat_session_obj/);
    } finally {
      await child.close();
    }
  }, 300_000);
});

describe.skipIf(!fastworkflowInstalled || !workflow || !envFiles || !tauBenchDirectory)("real FastWorkflow: one retail episode", () => {
  it("runs to the end with every benchmark command stepped by the bridge", async () => {
    const { retailDomain } = await import("../domains/retail/index.ts");
    const domain = loadDomain(retailDomain, tauBenchDirectory);
    const agent = new FastWorkflowAgent(parseFastWorkflowOptions({ workflowPath: workflow!, envFile: envFiles! }));
    const result = await runEpisode({ domain, task: domain.tasks()[5]!, taskIndex: 5, trial: 0, agent, user: scriptedUser, maxSteps: 30 });
    expect(result.termination).not.toBe("infra_error");
    for (const step of result.steps) expect(["bridge", "agent"]).toContain(step.origin);
  }, 600_000);
});
