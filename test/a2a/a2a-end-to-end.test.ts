/**
 * A remote agent over A2A, evaluated end to end like any agent strategy, on both suites: scripted
 * agents built on the real SDKs (`@a2a-js/sdk` 1.3.0 speaking 1.0 and 0.3, and 0.3.14) make the same
 * decisions as an in-process agent on the scripted model server (τ-bench's tool-calling agent; τ²'s
 * `llm_agent`), and every task scores the same. Also: several tool calls in one turn, the protocol
 * log kept with each episode and in its canonical record, the protocol summary in `report`, the CLI
 * spellings (`run --agent-strategy a2a --agent-endpoint`, `tau2 run --agent a2a_agent
 * --agent-a2a-endpoint`), a dead endpoint stopping the run before its first episode (exit 2), and
 * an agent whose replies break the protocol ending its episodes as `agent_error` on τ² too.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBenchmark, type BenchmarkResult } from "../../app/index.ts";
import type { EpisodeRecord } from "../../src/core/episode-record.ts";
import { readTau2Results, rewardOf } from "../../src/suites/tau2/codec.ts";
import { startScriptedModelServer, type ScriptStep } from "../../src/testing/index.ts";
import { startScriptedAgent, type AgentStyle, type Decision, type ReplyFormat, type ScriptedAgent } from "../support/a2a-agents.ts";
import { oracleScripts } from "../support/a2a-decisions.ts";
import { runCli } from "../support/cli.ts";
import { missingTau2Reason, tau2BenchDirectory, tauBenchDirectory, warnIfMissingShared } from "../support/shared-data.ts";

warnIfMissingShared();
if (!tau2BenchDirectory) console.warn(missingTau2Reason);

const temp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

/** The scripted model's steps for the same decisions: one completion per decision. */
function modelSteps(scripts: Decision[][]): ScriptStep[] {
  return scripts
    .flat()
    .map((decision) =>
      "say" in decision
        ? { content: decision.say }
        : { tool_calls: decision.calls.map((call, index) => ({ id: `c${index}`, name: call.name, arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments) })) },
    );
}

async function agentOf(sdk: "1.3" | "0.3", scripts: Decision[][], style: AgentStyle, format: ReplyFormat): Promise<ScriptedAgent> {
  const agent = await startScriptedAgent({ sdk, scripts: scripts.map((script) => [...script]), style, format });
  opened.push(agent);
  return agent;
}

const rewards = (result: BenchmarkResult) => result.episodes.map((episode) => [String(episode.taskId), episode.reward, episode.termination]);

/** The peers each suite is checked against: SDK, protocol version, agent style, reply format, delivery. */
const PEERS = [
  { name: "SDK 1.3.0 speaking A2A 1.0, ADK-like tasks with artifacts, bare JSON", sdk: "1.3", options: {}, style: "task", format: "json" },
  {
    name: "SDK 1.3.0 speaking A2A 0.3 (legacy compat), input-required task, streamed, <json> tags",
    sdk: "1.3",
    options: { version: "0.3", mode: "stream" },
    style: "input-required",
    format: "json-tag",
  },
  { name: "SDK 0.3.14, message-only agent (AgentBeats purple style), {tool_call} wrappers, polled", sdk: "0.3", options: { mode: "poll" }, style: "message", format: "tool_call" },
] as const;

describe.skipIf(!tauBenchDirectory)("τ-bench retail: a remote agent scores what the same decisions score in-process", () => {
  const data = tauBenchDirectory as string;
  const tasks = JSON.parse(readFileSync(join(data, "retail", "tasks_test.json"), "utf8")) as Array<{ actions: Array<{ name: string; kwargs: Record<string, unknown> }>; outputs: string[] }>;
  const ids = [0, 2, 5];
  // Task 5 leaves out its last (writing) action, so it fails both ways: equality is not just "all 1".
  const scripts: Decision[][] = ids.map((id) => {
    const actions = id === 5 ? tasks[id].actions.slice(0, -1) : tasks[id].actions;
    return [
      ...actions.map((action) => ({ calls: [{ name: action.name, arguments: action.kwargs }] })),
      { say: tasks[id].outputs.length > 0 ? `The answer is ${tasks[id].outputs.join(", ")}.` : "Done." },
    ];
  });
  let inProcess: BenchmarkResult;

  it("in process: the tool-calling agent on the scripted model", async () => {
    const server = await startScriptedModelServer({ scripts: { "agent-model": modelSteps(scripts) } });
    opened.push(server);
    inProcess = await runBenchmark({
      env: "retail",
      dataDir: data,
      agentStrategy: "tool-calling",
      model: "agent-model",
      modelProvider: "vllm",
      baseUrl: server.baseURL,
      userStrategy: "scripted",
      taskIds: ids,
      logDir: temp("a2a-tau-"),
      quiet: true,
    });
    server.assertAllConsumed();
    expect(rewards(inProcess)).toEqual([
      ["0", 1, "user_stop"],
      ["2", 1, "user_stop"],
      ["5", 0, "user_stop"],
    ]);
  });

  for (const peer of PEERS) {
    it(`remote: ${peer.name}`, async () => {
      const agent = await agentOf(peer.sdk, scripts, peer.style, peer.format);
      const result = await runBenchmark({
        env: "retail",
        dataDir: data,
        agentStrategy: "a2a",
        agentEndpoint: agent.url,
        agentOption: peer.options,
        userStrategy: "scripted",
        taskIds: ids,
        logDir: temp("a2a-tau-"),
        quiet: true,
      });
      expect(rewards(result)).toEqual(rewards(inProcess));
      expect(agent.conversations.size).toBe(3);
      // Every scripted call was executed once, in order (the agent's transcript holds what the harness stepped).
      const entries = JSON.parse(readFileSync(result.resultsPath, "utf8")) as Array<{ traj: Array<{ role: string; tool_calls?: Array<{ function: { name: string } }> }> }>;
      const stepped = entries.map((entry) => entry.traj.flatMap((message) => (message.tool_calls ?? []).map((call) => call.function.name)));
      expect(stepped).toEqual(scripts.map((script) => script.flatMap((decision) => ("calls" in decision ? decision.calls.map((call) => call.name) : []))));
      const methods = new Set(agent.requests.map((request) => request.body.method));
      if (peer.sdk === "1.3" && !("version" in peer.options)) expect(methods).toEqual(new Set(["SendMessage"]));
      else if ("mode" in peer.options && peer.options.mode === "stream") expect(methods).toEqual(new Set(["message/stream"]));
      else expect(methods.has("message/send")).toBe(true);
      // The first message carries the policy, the tools and the user's first words; later ones only what is new.
      const first = [...agent.conversations.values()][0];
      expect(first[0]).toContain("Here's a list of tools you can use");
      expect(first[0]).toContain('"name": "exchange_delivered_order_items"');
      expect(first[1]).toMatch(/^Tool 'find_user_id_by_name_zip' result: /);
    });
  }

  it("the CLI: run --agent-strategy a2a --agent-endpoint; the results keep every exchange; report and records show them", async () => {
    const agent = await agentOf("1.3", scripts, "message", "json");
    const logDir = temp("a2a-cli-");
    const run = await runCli(["run", "--env", "retail", "--data-dir", data, "--agent-strategy", "a2a", "--agent-endpoint", agent.url, "--task-ids", "0", "2", "5", "--log-dir", logDir, "--quiet"]);
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/A2A 1\.0 at http:\/\/127\.0\.0\.1:\d+: \d+ requests over 3 episode\(s\), 0 retries/);
    expect(run.stdout).toMatch(/latency: p50 [\d.]+ ms, p95 [\d.]+ ms, max [\d.]+ ms/);
    expect(run.stdout).toMatch(/tokens: \d+ in \/ \d+ out \(estimated from the message text/);
    const resultsPath = (run.stdout.match(/Results saved to (\S+)/) as RegExpMatchArray)[1];
    const report = await runCli(["report", resultsPath, "--format", "json"]);
    const json = JSON.parse(report.stdout) as { protocol: { requests: number; episodes: number; errors: Record<string, number>; latencyMs: { p50: number } } };
    const requests = scripts.flat().length;
    expect(json.protocol).toMatchObject({ protocol: "a2a", versions: ["1.0"], episodes: 3, requests, retries: 0, errors: {} });
    const records = (await runCli(["records", resultsPath])).stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as EpisodeRecord);
    expect(records.map((record) => record.protocol?.exchanges.length)).toEqual(scripts.map((script) => script.length));
    const exchange = records[0].protocol?.exchanges[0];
    expect(exchange).toMatchObject({ turn: 1, attempt: 1, method: "SendMessage", httpStatus: 200, rpcErrorCode: null, protocolVersion: "1.0", error: null });
    expect(exchange?.requestBytes).toBeGreaterThan(1000);
    expect(records[0].protocol?.agent).toEqual({ name: "scripted-agent", version: "1.0.0" });
  });

  it("a dead endpoint stops the run before the first episode: exit 2, one line naming the URL", async () => {
    const agent = await agentOf("1.3", scripts, "message", "json");
    await agent.close();
    const logDir = temp("a2a-dead-");
    const run = await runCli(["run", "--env", "retail", "--data-dir", data, "--agent-strategy", "a2a", "--agent-endpoint", agent.url, "--task-ids", "0", "--log-dir", logDir, "--quiet"]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(`taubridge: the A2A agent at ${agent.url} does not answer: connection refused (nothing is listening there) (fetching ${agent.url}/.well-known/agent-card.json)`);
  });
});

describe.skipIf(!tau2BenchDirectory)("τ² mock and telecom: a remote agent scores what the same decisions score in-process", () => {
  const data = tau2BenchDirectory as string;

  /** τ²'s oracle decisions; `merge` puts a read before the first write, in the same turn (several calls in one turn). */
  function scriptsFor(taskSetName: string, ids: readonly string[], merge = false): Decision[][] {
    const scripts = oracleScripts(data, taskSetName, ids);
    const first = scripts[0][0];
    if (merge && "calls" in first) first.calls.unshift({ name: "get_users", arguments: "{}" });
    return scripts;
  }

  async function compare(domain: string, taskSetName: string | undefined, ids: readonly string[], scripts: Decision[][]) {
    const common = { suite: "tau2", domain, dataDir: data, user: "scripted", taskIds: [...ids], maxConcurrency: 1, ...(taskSetName ? { taskSetName } : {}) };
    const server = await startScriptedModelServer({ scripts: { "agent-model": modelSteps(scripts) } });
    opened.push(server);
    const inProcess = await runBenchmark({
      ...common,
      agent: "llm_agent",
      agentLlm: "agent-model",
      agentLlmArgs: { temperature: 0, api_base: server.baseURL },
      saveTo: join(temp("a2a-t2-"), "results.json"),
    } as never);
    server.assertAllConsumed();
    const remote: Array<{ peer: string; result: BenchmarkResult; agent: ScriptedAgent; path: string }> = [];
    for (const peer of PEERS) {
      const agent = await agentOf(peer.sdk, scripts, peer.style, peer.format);
      const path = join(temp("a2a-t2-"), "results.json");
      const result = await runBenchmark({ ...common, agent: "a2a_agent", agentA2aEndpoint: agent.url, agentOption: peer.options, saveTo: path } as never);
      remote.push({ peer: peer.name, result, agent, path });
    }
    return { inProcess, remote };
  }

  it("mock: five tasks (message history, a transfer, several tool calls in one turn) score the same on every peer", async () => {
    const ids = ["create_task_1", "update_task_1", "update_task_with_message_history", "update_task_with_user_tools", "impossible_task_1"];
    const scripts = scriptsFor("mock", ids, true);
    const { inProcess, remote } = await compare("mock", undefined, ids, scripts);
    expect(inProcess.episodes.every((episode) => episode.termination === "user_stop" || episode.termination === "agent_stop")).toBe(true);
    for (const { peer, result, path } of remote) {
      expect({ peer, rewards: rewards(result) }).toEqual({ peer, rewards: rewards(inProcess) });
      const simulations = readTau2Results(path).simulations;
      // The first turn of create_task_1 was one message with two tool calls.
      const firstAgentMessage = simulations[0].messages.find((message) => message.role === "assistant" && (message as { tool_calls?: unknown }).tool_calls) as
        | { tool_calls: Array<{ name: string }> }
        | undefined;
      const firstAgentCalls = firstAgentMessage?.tool_calls.map((call) => call.name);
      expect(firstAgentCalls).toEqual(["get_users", "create_task"]);
      const protocol = simulations[0].info?.protocol as { exchanges: unknown[]; endpoint: string };
      expect(protocol.exchanges.length).toBeGreaterThanOrEqual(scripts[0].length);
    }
    // The task that starts mid-conversation: the earlier messages went to the agent with its first turn.
    const history = [...remote[0].agent.conversations.values()][2][0];
    expect(history).toMatch(/Now here are the user messages:\n(user|assistant): /);
  });

  it("telecom: the agent's tool and the user's own device tool, same reward as in process", async () => {
    const ids = ["[mobile_data_issue]user_abroad_roaming_disabled_off[PERSONA:Hard]"];
    const scripts = scriptsFor("telecom_small", ids);
    const { inProcess, remote } = await compare("telecom", "telecom_small", ids, scripts);
    expect(rewards(inProcess)).toEqual([[ids[0], 1, "user_stop"]]);
    for (const { peer, result, path } of remote) {
      expect({ peer, rewards: rewards(result) }).toEqual({ peer, rewards: rewards(inProcess) });
      const [simulation] = readTau2Results(path).simulations;
      const calls = simulation.messages.flatMap((message) =>
        message.role === "assistant" || message.role === "user" ? (message.tool_calls ?? []).map((call) => `${call.requestor}:${call.name}`) : [],
      );
      expect(calls).toEqual(["assistant:enable_roaming", "user:toggle_roaming"]);
      expect(rewardOf(simulation.reward_info)).toBe(1);
    }
  });

  it("the CLI: tau2 run --agent a2a_agent --agent-a2a-endpoint; an agent that breaks the protocol ends as agent_error, not as a retried crash", async () => {
    const agent = await startScriptedAgent({ sdk: "0.3", scripts: [[{ say: "" }]], style: "message", format: "tool_call" });
    opened.push(agent);
    const path = join(temp("a2a-t2-cli-"), "results.json");
    const run = await runCli([
      "tau2",
      "run",
      "--domain",
      "mock",
      "--data-dir",
      data,
      "--agent",
      "a2a_agent",
      "--agent-a2a-endpoint",
      agent.url,
      "--user",
      "scripted",
      "--task-ids",
      "create_task_1",
      "--save-to",
      path,
      "--quiet",
    ]);
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    const [simulation] = readTau2Results(path).simulations;
    expect(simulation.termination_reason).toBe("agent_error");
    expect(simulation.info?.error).toMatch(/has no text and no tool call \(empty_response\)/);
    expect(agent.conversations.size).toBe(1); // no retry of the whole simulation
    expect(run.stdout).toMatch(/errors: empty_response ×1/);
  });
});
