/**
 * τ³ banking_knowledge with taubridge's own agents: the function agent and a framework agent (AI SDK,
 * through the bridge) search the knowledge base, unlock a discoverable tool and call it — the
 * discoverable-tool mechanics reach them as the tools the domain offers, stepped by the environment.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { readTau2Results } from "../../src/suites/tau2/codec.ts";
import { startScriptedModelServer } from "../../src/testing/index.ts";
import { runTau2 } from "../support/cli.ts";
import { describeWithTau2Data } from "../support/shared-data.ts";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/tau2/${name}`, import.meta.url));
const TASK = ["--domain", "banking_knowledge", "--task-ids", "task_001", "--retrieval-config", "bm25", "--user", "scripted"];

/** The tool results of the run's only simulation, in order (the agent's and the user's), with their error flags. */
function toolResults(file: string): Array<{ content: string; error: boolean }> {
  const [simulation] = readTau2Results(file).simulations;
  return simulation.messages.flatMap((message) => (message.role === "tool" ? [{ content: message.content as string, error: (message as { error: boolean }).error }] : []));
}

/** What the agent's three steps must have answered: ten documents, the unlock sentence, the dispute history. */
function expectDiscoverableFlow(results: Array<{ content: string; error: boolean }>): void {
  // Then the scripted user makes task_001's own call (apply_for_credit_card) with its user tools.
  expect(results).toHaveLength(4);
  expect(results.every((result) => !result.error)).toBe(true);
  expect(results[0].content.split("\n   ID: ")).toHaveLength(11);
  expect(results[1].content).toMatch(/^Tool unlocked: get_user_dispute_history_7291/);
  expect(results[2].content).toContain("Transaction dispute history for user 123:");
  expect(results[3].content).toMatch(/^Credit card application submitted/);
}

describeWithTau2Data("τ³ banking_knowledge with taubridge's own agents", (data) => {
  it("the function agent: KB_search, unlock, call", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "tau3-bank-module-")), "results.json");
    const result = await runTau2([...TASK, "--agent", "module", "--agent-option", `module=${fixture("banking-agent.mjs")}`], { data, saveTo: file });
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expectDiscoverableFlow(toolResults(file));
  }, 300_000);

  it("an AI SDK agent through the bridge: the same three tools, answered by the environment", async () => {
    const server = await startScriptedModelServer({
      steps: [
        { tool_calls: [{ id: "v1", name: "KB_search", arguments: '{"query": "dispute history"}' }] },
        { tool_calls: [{ id: "v2", name: "unlock_discoverable_agent_tool", arguments: '{"agent_tool_name": "get_user_dispute_history_7291"}' }] },
        { tool_calls: [{ id: "v3", name: "call_discoverable_agent_tool", arguments: JSON.stringify({ agent_tool_name: "get_user_dispute_history_7291", arguments: '{"user_id": "123"}' }) }] },
        { content: "You have no open disputes.", times: "unlimited" },
      ],
    });
    try {
      const file = join(mkdtempSync(join(tmpdir(), "tau3-bank-vercel-")), "results.json");
      const agent = ["--agent", "vercel-ai", "--agent-option", `module=${fixture("banking-vercel-agent.ts")}`, "--agent-llm", "scripted-model", "--agent-base-url", server.baseURL];
      const result = await runTau2([...TASK, ...agent], { data, saveTo: file });
      expect(result.stderr).toBe("");
      expect(result.exitCode).toBe(0);
      expectDiscoverableFlow(toolResults(file));
    } finally {
      await server.close();
    }
  }, 300_000);
});
