/**
 * τ³ banking_knowledge end to end through the CLI: the offline oracle and scripted user over all
 * 97 tasks with `--retrieval-config bm25` score what the original's evaluator gives the ground
 * truth (1.0 each; task_102's NL assertion answered by a scripted judge), the results file records
 * the retrieval config as τ²'s RunConfig/Info do, `rescore` agrees (also with `--fresh-tasks`);
 * `llm_agent` and `user_simulator` on the scripted OpenAI-compatible server search the knowledge
 * base, unlock and call a discoverable tool; and the refusals (default alltools without an
 * embedder, solo mode) are one line with exit code 2.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { readTau2Results, rewardOf } from "../../src/suites/tau2/codec.ts";
import { startScriptedModelServer } from "../../src/testing/index.ts";
import { runCli, runTau2 } from "../support/cli.ts";
import { describeWithTau2Data } from "../support/shared-data.ts";

const judgeMet = JSON.stringify({ results: [{ expectedOutcome: "as asserted", reasoning: "scripted", metExpectation: true }] });

describeWithTau2Data("τ³ banking_knowledge runs", (data) => {
  it("oracle + scripted user over all 97 tasks (bm25): every reward 1.0, the config recorded, rescore agrees", async () => {
    const server = await startScriptedModelServer({ scripts: { "judge-model": [{ content: judgeMet, times: "unlimited" }] } });
    try {
      const file = join(mkdtempSync(join(tmpdir(), "tau3-bank-")), "results.json");
      const args = ["--domain", "banking_knowledge", "--agent", "oracle", "--user", "scripted", "--retrieval-config", "bm25", "--max-concurrency", "8"];
      const result = await runTau2([...args, "--judge-model", "judge-model", "--judge-base-url", server.baseURL], { data, saveTo: file });
      expect(result.stderr).toBe("");
      expect(result.exitCode).toBe(0);
      const results = readTau2Results(file);
      expect(results.simulations).toHaveLength(97);
      expect(results.simulations.filter((simulation) => rewardOf(simulation.reward_info) !== 1).map((simulation) => simulation.task_id)).toEqual([]);
      const raw = JSON.parse(readFileSync(file, "utf8")) as { info: Record<string, unknown> };
      expect(raw.info.retrieval_config).toBe("bm25");
      expect(raw.info.retrieval_config_kwargs).toBeNull();
      for (const fresh of [[], ["--fresh-tasks"]]) {
        const rescore = await runCli(["rescore", file, "--data-dir", data, ...fresh]);
        expect(rescore.exitCode).toBe(0);
        expect(rescore.stdout).toContain("97/97 agree");
      }
    } finally {
      await server.close();
    }
  }, 300_000);

  it("llm_agent and user_simulator (scripted models): KB_search, unlock, call; kwargs recorded", async () => {
    const server = await startScriptedModelServer({
      scripts: {
        "agent-model": [
          { tool_calls: [{ id: "a1", name: "KB_search", arguments: '{"query": "dispute history"}' }] },
          { tool_calls: [{ id: "a2", name: "unlock_discoverable_agent_tool", arguments: '{"agent_tool_name": "get_user_dispute_history_7291"}' }] },
          { tool_calls: [{ id: "a3", name: "call_discoverable_agent_tool", arguments: '{"agent_tool_name": "get_user_dispute_history_7291", "arguments": "{\\"user_id\\": \\"123\\"}"}' }] },
          { content: "You have no open disputes.", times: "unlimited" },
        ],
        "user-model": [{ content: "Do I have any disputes?" }, { content: "Thanks! ###STOP###" }],
      },
    });
    try {
      const file = join(mkdtempSync(join(tmpdir(), "tau3-bank-model-")), "results.json");
      const endpoint = JSON.stringify({ temperature: 0.0, api_base: server.baseURL });
      const args = ["--domain", "banking_knowledge", "--task-ids", "task_001", "--retrieval-config", "bm25_grep", "--retrieval-config-kwargs", '{"top_k": 3}'];
      const models = ["--agent", "llm_agent", "--agent-llm", "agent-model", "--agent-llm-args", endpoint, "--user", "user_simulator", "--user-llm", "user-model", "--user-llm-args", endpoint];
      const result = await runTau2([...args, ...models], { data, saveTo: file });
      expect(result.stderr).toBe("");
      expect(result.exitCode).toBe(0);
      const [simulation] = readTau2Results(file).simulations;
      const tools = simulation.messages.flatMap((message) => (message.role === "tool" ? [message.content] : []));
      expect(tools[0].split("\n   ID: ")).toHaveLength(4); // top_k 3
      expect(tools[1]).toMatch(/^Tool unlocked: get_user_dispute_history_7291/);
      expect(tools[2]).toContain("Transaction dispute history for user 123:");
      const agentRequest = server.requests.find((request) => (request.body as { model: string }).model === "agent-model")?.body as { tools: Array<{ function: { name: string } }> };
      expect(agentRequest.tools.map((tool) => tool.function.name).slice(0, 3)).toEqual(["KB_search", "grep", "transfer_to_human_agents"]);
      const userRequest = server.requests.find((request) => (request.body as { model: string }).model === "user-model")?.body as { tools?: Array<{ function: { name: string } }> };
      expect(userRequest.tools?.map((tool) => tool.function.name)).toEqual(["apply_for_credit_card"]); // task_001's user_tools
      const raw = JSON.parse(readFileSync(file, "utf8")) as { info: Record<string, unknown> };
      expect(raw.info.retrieval_config).toBe("bm25_grep");
      expect(raw.info.retrieval_config_kwargs).toEqual({ top_k: 3 });
      expect(rewardOf(simulation.reward_info)).toBe(0); // the application was never made
    } finally {
      await server.close();
    }
  }, 300_000);

  it("refuses the default variant, the online ones and solo mode in one line with exit code 2", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "tau3-bank-refused-")), "results.json");
    const base = ["--domain", "banking_knowledge", "--agent", "oracle", "--user", "scripted"];
    const refusals: Array<[string[], RegExp]> = [
      [base, /alltools' needs a openai embedder \(text-embedding-3-large\), which is not available.*offline variants: no_knowledge, full_kb, golden_retrieval, bm25_grep, bm25, grep_only/],
      [[...base, "--retrieval-config", "qwen_embeddings"], /needs a openrouter embedder \(qwen3-embedding-8b\), which is not available/],
      [["--domain", "banking_knowledge", "--agent", "llm_agent_solo", "--user", "dummy_user", "--retrieval-config", "bm25"], /does not support \(τ²: mock and telecom\)|does not support/],
    ];
    for (const [args, message] of refusals) {
      const result = await runTau2(args, { data, saveTo: file, env: { OPENAI_API_KEY: "", OPENROUTER_API_KEY: "" } }); // no key of this machine makes a variant available
      expect(result.exitCode).toBe(2);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    }
  }, 300_000);

  it("replay takes --retrieval-config and applies a task's initial state", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tau3-bank-replay-"));
    const actions = join(dir, "actions.json");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(actions, JSON.stringify([{ requestor: "assistant", name: "grep", arguments: { pattern: "Sky Blue" } }]));
    const result = await runCli([
      "replay",
      "--suite",
      "tau2",
      "--env",
      "banking_knowledge",
      "--actions",
      actions,
      "--data-dir",
      data,
      "--retrieval-config",
      "grep_only",
      "--retrieval-config-kwargs",
      '{"grep_top_k": 2}',
      "--task-id",
      "task_046",
      "--format",
      "text",
    ]);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout.match(/\n {3}ID: /g)).toHaveLength(2);
    expect(result.stdout).toMatch(/db hash: agent [0-9a-f]{64}, user [0-9a-f]{64}/);
  }, 300_000);
});
