/**
 * The Python A2A agent of docs/a2a.md (`docs/examples/python-a2a-agent.py`: plain HTTP/JSON-RPC on
 * the standard library, since PyPI's `a2a-sdk` cannot be installed here), run with python3 and
 * evaluated by taubridge on both suites: with its model answering the same decisions the in-process
 * agent's model makes (the scripted OpenAI-compatible server), every task scores the same. The
 * docs show the file verbatim.
 */
import { execa } from "execa";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBenchmark, type BenchmarkResult } from "../../app/index.ts";
import { startScriptedModelServer, type ScriptStep } from "../../src/testing/index.ts";
import type { Decision } from "../support/a2a-agents.ts";
import { oracleScripts } from "../support/a2a-decisions.ts";
import { tau2BenchDirectory, tauBenchDirectory } from "../support/shared-data.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const AGENT = join(ROOT, "docs", "examples", "python-a2a-agent.py");
const python = await execa("python3", ["--version"], { reject: false });
const hasPython = python.exitCode === 0;
if (!hasPython) console.warn("skipped: python3 is not installed (the Python A2A agent example needs it)");

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

/** The decisions as the Python agent's model writes them (JSON actions in text), and as tool calls for the in-process agent. */
function asText(decision: Decision): ScriptStep {
  if ("say" in decision) return { content: JSON.stringify({ name: "respond", arguments: { content: decision.say } }) };
  const [call] = decision.calls;
  return { content: `{"name": ${JSON.stringify(call.name)}, "arguments": ${typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments)}}` };
}
function asToolCalls(decision: Decision): ScriptStep {
  if ("say" in decision) return { content: decision.say };
  return { tool_calls: decision.calls.map((call, index) => ({ id: `c${index}`, name: call.name, arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments) })) };
}

/** Starts the example agent (any free port), its model on the scripted server. */
async function pythonAgent(steps: ScriptStep[]): Promise<string> {
  const model = await startScriptedModelServer({ scripts: { "agent-model": steps } });
  opened.push(model);
  const child = execa("python3", [AGENT], { env: { PORT: "0", MODEL_URL: model.baseURL, MODEL: "agent-model" }, reject: false });
  opened.push({ close: async () => void child.kill("SIGTERM") });
  return new Promise<string>((resolve, reject) => {
    let seen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match) resolve(match[1]);
    });
    void child.then((result) => reject(new Error(`the Python agent exited: ${result.stderr}`)));
  });
}

const rewards = (result: BenchmarkResult) => result.episodes.map((episode) => [String(episode.taskId), episode.reward, episode.termination]);
const temp = () => mkdtempSync(join(tmpdir(), "a2a-py-"));

describe.skipIf(!hasPython)("the Python A2A agent of docs/a2a.md", () => {
  it("is shown verbatim in docs/a2a.md", () => {
    expect(readFileSync(join(ROOT, "docs", "a2a.md"), "utf8")).toContain(readFileSync(AGENT, "utf8").trim());
  });

  it.skipIf(!tau2BenchDirectory)("τ² mock: scores what the same decisions score in process (llm_agent)", async () => {
    const data = tau2BenchDirectory as string;
    const ids = ["create_task_1", "update_task_1", "impossible_task_1"];
    const scripts = oracleScripts(data, "mock", ids);
    const common = { suite: "tau2", domain: "mock", dataDir: data, user: "scripted", taskIds: ids, maxConcurrency: 1 };
    const model = await startScriptedModelServer({ scripts: { "agent-model": scripts.flat().map(asToolCalls) } });
    opened.push(model);
    const inProcess = await runBenchmark({
      ...common,
      agent: "llm_agent",
      agentLlm: "agent-model",
      agentLlmArgs: { temperature: 0, api_base: model.baseURL },
      saveTo: join(temp(), "r.json"),
    } as never);
    const url = await pythonAgent(scripts.flat().map(asText));
    const remote = await runBenchmark({ ...common, agent: "a2a_agent", agentA2aEndpoint: url, saveTo: join(temp(), "r.json") } as never);
    expect(rewards(remote)).toEqual(rewards(inProcess));
    expect(rewards(remote).map(([, reward]) => reward)).toEqual([1, 1, 1]);
  });

  it.skipIf(!tauBenchDirectory)("τ-bench retail: scores what the same decisions score in process (tool-calling)", async () => {
    const data = tauBenchDirectory as string;
    const tasks = JSON.parse(readFileSync(join(data, "retail", "tasks_test.json"), "utf8")) as Array<{ actions: Array<{ name: string; kwargs: Record<string, unknown> }> }>;
    // Task 5 leaves out its last action: it fails both ways.
    const scripts: Decision[][] = [0, 5].map((id) => [
      ...(id === 5 ? tasks[id].actions.slice(0, -1) : tasks[id].actions).map((action) => ({ calls: [{ name: action.name, arguments: action.kwargs }] })),
      { say: "Done." },
    ]);
    const common = { env: "retail", dataDir: data, userStrategy: "scripted", taskIds: [0, 5], quiet: true };
    const model = await startScriptedModelServer({ scripts: { "agent-model": scripts.flat().map(asToolCalls) } });
    opened.push(model);
    const inProcess = await runBenchmark({ ...common, agentStrategy: "tool-calling", model: "agent-model", modelProvider: "vllm", baseUrl: model.baseURL, logDir: temp() });
    const url = await pythonAgent(scripts.flat().map(asText));
    const remote = await runBenchmark({ ...common, agentStrategy: "a2a", agentEndpoint: url, logDir: temp() });
    expect(rewards(remote)).toEqual(rewards(inProcess));
    expect(rewards(remote).map(([, reward]) => reward)).toEqual([1, 0]);
  });
});
