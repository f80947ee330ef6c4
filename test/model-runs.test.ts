/**
 * End-to-end model runs through buildRun + runBatch, the REAL openai client and the scripted
 * server (one server, a script per model name, so the agent and the user share it):
 * - τ-bench retail (needs the shared data): ground truth → 1.0 with tokens and costs summed per
 *   role and pass^k over 2 trials; a wrong action → 0; every agent strategy and every LLM user
 *   strategy at least once, asserting on the recorded requests; a terminate tool → agent_stop;
 * - robustness, on the bundled library domain (always) and on retail (with the shared data): a 429
 *   storm survived, malformed tool-call arguments fed back and the episode still scoring 1.0, a
 *   cached rerun with zero requests and identical results, max steps, and a model outage recorded
 *   as infra_error.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { API_OUTPUT_PREFIX } from "../src/participants/chat-react-agent.ts";
import { sampleFewShotIndices } from "../src/participants/few-shot-agent.ts";
import type { Task } from "../src/core/types.ts";
import { buildRun } from "./support/registries.ts";
import { runBatch } from "../src/suites/tau-bench/batch.ts";
import type { RunConfigInput } from "../src/suites/tau-bench/run-config.ts";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptStep } from "../src/testing/index.ts";
import { USER_SEED_MESSAGE } from "../src/suites/tau-bench/participants/user-prompts.ts";
import { pyJsonDumps, pyJsonString, type PyDict } from "../src/value/index.ts";
import { scriptedRunConfig } from "./support/scripted-run-config.ts";
import { tauBenchDirectory, warnIfMissingShared } from "./support/shared-data.ts";

warnIfMissingShared();

const KEY_ENV = "TAUBRIDGE_MODEL_RUNS_TEST_KEY";
process.env[KEY_ENV] = "sk-model-runs-test";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

type Style = "tool-calling" | "act" | "react";

function actionJson(name: string, kwargs: PyDict): string {
  return `{"name": ${pyJsonString(name)}, "arguments": ${pyJsonDumps(kwargs)}}`;
}

/** The model reply that performs one action, in the strategy's own output format. */
function callStep(style: Style, name: string, kwargs: PyDict, usage?: ScriptStep["usage"]): ScriptStep {
  const extra = usage ? { usage } : {};
  if (style === "tool-calling") return { tool_calls: [{ name, arguments: pyJsonDumps(kwargs) }], ...extra };
  if (style === "act") return { content: `Action:\n${actionJson(name, kwargs)}`, ...extra };
  return { content: `Thought:\nNext I call ${name}.\nAction:\n${actionJson(name, kwargs)}`, ...extra };
}

function sayStep(style: Style, text: string, usage?: ScriptStep["usage"]): ScriptStep {
  const extra = usage ? { usage } : {};
  if (style === "tool-calling") return { content: text, ...extra };
  const respond = actionJson("respond", new Map([["content", text]]));
  return { content: style === "act" ? `Action:\n${respond}` : `Thought:\nTime to answer.\nAction:\n${respond}`, ...extra };
}

/** A task's ground-truth actions (arguments as Python JSON text, so floats stay floats) and a closing answer. */
function groundTruth(task: Task, style: Style, answer = "All done.", usage?: ScriptStep["usage"]): ScriptStep[] {
  return [...task.actions.filter((action) => action.name !== "respond").map((action) => callStep(style, action.name, action.kwargs, usage)), sayStep(style, answer, usage)];
}

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function config(target: ScriptedModelServer, overrides: Partial<RunConfigInput>): RunConfigInput {
  return scriptedRunConfig(target, KEY_ENV, overrides);
}

async function run(target: ScriptedModelServer, overrides: Partial<RunConfigInput>) {
  const built = buildRun(config(target, overrides));
  const outcome = await runBatch(built);
  return { built, outcome, results: JSON.parse(readFileSync(outcome.resultsPath, "utf8")) as Json[] };
}

const agentBodies = (target: ScriptedModelServer): Json[] => target.requestsFor("agent-model").map((request) => request.body);
const userBodies = (target: ScriptedModelServer): Json[] => target.requestsFor("user-model").map((request) => request.body);
const stop = (first: string, usage?: ScriptStep["usage"]): ScriptStep[] => [
  { content: first, ...(usage ? { usage } : {}) },
  { content: "###STOP###", ...(usage ? { usage } : {}) },
];

// ---------------------------------------------------------------------------------------------
// τ-bench retail (shared data)
// ---------------------------------------------------------------------------------------------

describe.skipIf(!tauBenchDirectory)("τ-bench retail, model-driven", () => {
  const retail = (overrides: Partial<RunConfigInput>): Partial<RunConfigInput> => ({ env: "retail", dataDir: tauBenchDirectory, ...overrides });
  let tasks: Task[];
  beforeAll(() => {
    tasks = buildRun({ env: "retail", agentStrategy: "oracle", userStrategy: "scripted", dataDir: tauBenchDirectory, logDir: tmpdir(), taskIds: [0] }).tasks;
  });

  it("tool-calling + llm user: ground truth scores 1.0 in both trials; tokens and costs summed per role; pass^k", async () => {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-prices-"));
    const priceFile = join(directory, "prices.json");
    writeFileSync(priceFile, JSON.stringify({ "agent-model": { input: 2, output: 8 }, "user-model": { input: 1, output: 2 } }));
    const agentUsage = { prompt_tokens: 1000, completion_tokens: 50 };
    const userUsage = { prompt_tokens: 200, completion_tokens: 20 };
    const task = tasks[0];
    const agentScript = groundTruth(task, "tool-calling", "Both items are exchanged.", agentUsage);
    const userScript = stop("Hi, I'm Yusuf Rossi (19122) and want to exchange two items.", userUsage);
    server = await startScriptedModelServer({ scripts: { "agent-model": [...agentScript, ...agentScript], "user-model": [...userScript, ...userScript] } });
    const { outcome, results } = await run(server, retail({ taskIds: [0], numTrials: 2, priceFile }));
    server.assertAllConsumed();
    server.assertNoFailures();
    expect(outcome.summaries.map((summary) => [summary.trial, summary.reward, summary.termination])).toEqual([
      [0, 1, "user_stop"],
      [1, 1, "user_stop"],
    ]);
    expect(outcome.metrics.passK[1]).toBe(1);
    expect(outcome.metrics.passK[2]).toBe(1);

    const calls = task.actions.length + 1;
    for (const entry of results) {
      expect(entry.reward).toBe(1);
      expect(entry.info.reward_info.info.r_actions).toBe(1);
      const agent = entry.taubridge.usage.agent;
      expect(agent).toMatchObject({ calls, promptTokens: 1000 * calls, completionTokens: 50 * calls });
      expect(agent.cost).toBeCloseTo((1000 * calls * 2 + 50 * calls * 8) / 1e6, 12);
      const user = entry.taubridge.usage.user;
      expect(user).toMatchObject({ calls: 2, promptTokens: 400, completionTokens: 40 });
      expect(user.cost).toBeCloseTo((400 * 1 + 40 * 2) / 1e6, 12);
      expect(entry.info.user_cost).toBeCloseTo((200 * 1 + 20 * 2) / 1e6, 12); // τ-bench's: the last call only
    }
    // Trials are separate cache namespaces and separate conversations: same requests, twice.
    const requests = agentBodies(server);
    expect(requests).toHaveLength(2 * calls);
    expect(requests[calls].messages).toEqual(requests[0].messages);
    expect(requests[0].tools).toHaveLength(16);
  });

  it("a wrong write scores 0 (r_actions 0)", async () => {
    const task = tasks[0];
    const script = groundTruth(task, "tool-calling");
    const exchange = task.actions.at(-1)!;
    const wrong = new Map(exchange.kwargs);
    wrong.set("item_ids", ["1151293680"]);
    wrong.set("new_item_ids", ["7706410293"]);
    script[script.length - 2] = callStep("tool-calling", exchange.name, wrong);
    server = await startScriptedModelServer({ scripts: { "agent-model": script, "user-model": stop("Hi, exchange please.") } });
    const { outcome, results } = await run(server, retail({ taskIds: [0] }));
    expect(outcome.summaries[0]).toMatchObject({ reward: 0, termination: "user_stop" });
    expect(results[0].info.reward_info.info.r_actions).toBe(0);
  });

  it("act agent + react user: no tools sent, 'API output: ' observations, the leaked thought reaches the agent", async () => {
    const task = tasks[0];
    server = await startScriptedModelServer({
      scripts: {
        "agent-model": groundTruth(task, "act"),
        "user-model": [{ content: "Thought:\nOpen politely.\nUser Response:\nI'd like to exchange two items." }, { content: "Thought:\nAll good.\nUser Response:\n###STOP###" }],
      },
    });
    const { outcome } = await run(server, retail({ agentStrategy: "act", userStrategy: "react", taskIds: [0] }));
    expect(outcome.summaries[0]).toMatchObject({ reward: 1, termination: "user_stop" });
    const requests = agentBodies(server);
    expect(requests.every((body) => body.tools === undefined)).toBe(true);
    expect(requests[0].messages[0].content).toContain('\n#Available tools\n[{"type": "function", "function": {"name": "calculate"');
    expect(requests[0].messages[1]).toEqual({ role: "user", content: "Open politely.\nUser Response:\nI'd like to exchange two items." });
    expect(requests[1].messages[3].content.startsWith(API_OUTPUT_PREFIX)).toBe(true);
    const user = userBodies(server);
    expect(user[0].messages[1]).toEqual({ role: "user", content: USER_SEED_MESSAGE });
    expect(user[0].tools).toBeUndefined();
  });

  it("react agent + verify user: Thought/Action replies parsed; every user reply verified by a separate call", async () => {
    const task = tasks[0];
    server = await startScriptedModelServer({
      scripts: {
        "agent-model": groundTruth(task, "react"),
        "user-model": [
          { content: "I want to exchange two items." },
          { match: { lastMessageContains: "Classification:" }, content: "true" },
          { content: "###STOP###" },
          { match: { lastMessageContains: "Classification:" }, content: "true" },
        ],
      },
    });
    const { outcome, results } = await run(server, retail({ agentStrategy: "react", userStrategy: "verify", taskIds: [0] }));
    expect(outcome.summaries[0]).toMatchObject({ reward: 1, termination: "user_stop" });
    expect(agentBodies(server)[0].messages[0].content).toContain("Thought:\n<");
    const verify = userBodies(server)[1].messages;
    expect(verify).toHaveLength(1);
    expect(verify[0].content).toMatch(/# Transcript:\nSystem: [\s\S]*\nCustomer: Hi! How can I help you today\?\n\n# Response:\ncontent='I want to exchange two items\.' role='assistant'/);
    expect(results[0].taubridge.usage.user.calls).toBe(4);
  });

  it("few-shot agent (official displays) + reflection user: 5 examples after the wiki, reproducible", async () => {
    const path = join(tauBenchDirectory!, "few_shot_data", "MockRetailDomainEnv-few_shot.jsonl");
    const displays = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).messages_display as string);
    expect(displays).toHaveLength(69);
    const task = tasks[0];
    server = await startScriptedModelServer({
      scripts: {
        "agent-model": groundTruth(task, "tool-calling"),
        "user-model": [
          { content: "I want to exchange two items." },
          { match: { lastMessageContains: "Classification:" }, content: "false" },
          { content: "Reflection: be specific.\nResponse: I'm Yusuf Rossi, 19122; I want to exchange a keyboard and a thermostat." },
          { content: "I'm Yusuf Rossi, 19122, and I'd like to exchange my keyboard and thermostat." },
          { match: { lastMessageContains: "Classification:" }, content: "true" },
          { content: "###STOP###" },
          { match: { lastMessageContains: "Classification:" }, content: "true" },
        ],
      },
    });
    const { outcome, results, built } = await run(server, retail({ agentStrategy: "few-shot", userStrategy: "reflection", fewShotDisplaysPath: path, taskIds: [0] }));
    server.assertAllConsumed();
    expect(outcome.summaries[0]).toMatchObject({ reward: 1, termination: "user_stop" });
    const indices = sampleFewShotIndices(69, 5, built.config.seed, 0, 0);
    const system: string = agentBodies(server)[0].messages[0].content;
    expect(system).toBe(`${built.domain.policy}\n\n${indices.map((index, position) => `Example ${position + 1}:\n${displays[index]}`).join("\n\n")}`);
    expect(system.match(/^Example \d:$/gm)).toEqual(["Example 1:", "Example 2:", "Example 3:", "Example 4:", "Example 5:"]);
    expect(results[0].taubridge.extra.fewShotExamples).toEqual(indices);
    // the agent got the reflected reply
    expect(agentBodies(server)[0].messages[1].content).toBe("I'm Yusuf Rossi, 19122, and I'd like to exchange my keyboard and thermostat.");
  });

  it("a terminate tool ends the episode as agent_stop and still scores the end state", async () => {
    const task = tasks[10];
    server = await startScriptedModelServer({ scripts: { "agent-model": groundTruth(task, "tool-calling").slice(0, -1), "user-model": [{ content: "I want refunds swapped." }] } });
    const { outcome, results } = await run(server, retail({ taskIds: [10] }));
    expect(outcome.summaries[0]).toMatchObject({ reward: 1, termination: "agent_stop" });
    expect(results[0].traj.at(-1)).toMatchObject({ role: "tool", name: "transfer_to_human_agents", content: "Transfer successful" });
  });
});

// ---------------------------------------------------------------------------------------------
// Robustness: on the bundled library domain (always runs) and on retail (with the shared data)
// ---------------------------------------------------------------------------------------------

const robustnessTargets = [
  { label: "library domain (bundled, always runs)", env: "library", dataDir: undefined as string | undefined, available: true },
  { label: "τ-bench retail (shared data)", env: "retail", dataDir: tauBenchDirectory, available: tauBenchDirectory !== undefined },
];

for (const target of robustnessTargets) {
  describe.skipIf(!target.available)(`robustness, ${target.label}`, () => {
    const where = (overrides: Partial<RunConfigInput>): Partial<RunConfigInput> => ({ env: target.env, ...(target.dataDir ? { dataDir: target.dataDir } : {}), ...overrides });
    let tasks: Task[];
    beforeAll(() => {
      tasks = buildRun({ env: target.env, agentStrategy: "oracle", userStrategy: "scripted", ...(target.dataDir ? { dataDir: target.dataDir } : {}), logDir: tmpdir(), taskIds: [0] }).tasks;
    });

    it("survives a 429 storm (retry-after 0) on both roles; failed attempts are not billed as calls", async () => {
      const task = tasks[3];
      server = await startScriptedModelServer({
        scripts: {
          "agent-model": [{ error: { status: 429, retryAfter: 0 }, times: 4 }, ...groundTruth(task, "tool-calling", `Done: ${task.outputs.join(", ")}`)],
          "user-model": [{ error: { status: 429, retryAfter: 0 }, times: 2 }, ...stop("Hi, I need help with my account.")],
        },
      });
      const { outcome, results } = await run(server, where({ taskIds: [3] }));
      server.assertAllConsumed();
      expect(outcome.summaries[0]).toMatchObject({ reward: 1, termination: "user_stop" });
      expect(server.requests.filter((request) => request.status === 429)).toHaveLength(6);
      expect(results[0].taubridge.usage.agent.calls).toBe(task.actions.length + 1);
      expect(results[0].taubridge.usage.user.calls).toBe(2);
    });

    it("malformed tool-call arguments become an error observation; the episode continues to 1.0", async () => {
      const task = tasks[0];
      const name = task.actions[0].name;
      const script = groundTruth(task, "tool-calling", `Here you are: ${task.outputs.join(", ")}`);
      const broken = pyJsonDumps(task.actions[0].kwargs).slice(0, 20);
      script.unshift({ tool_calls: [{ name, arguments: broken }] });
      server = await startScriptedModelServer({ scripts: { "agent-model": script, "user-model": stop("Hi, I need help.") } });
      const { outcome, results } = await run(server, where({ taskIds: [0] }));
      expect(outcome.summaries[0]).toMatchObject({ reward: 1, termination: "user_stop" });
      const feedback = agentBodies(server)[1].messages.at(-1);
      expect(feedback).toMatchObject({ role: "tool", name, content: expect.stringMatching(new RegExp(`^Error: the arguments of ${name} are not valid JSON: `)) });
      const entry = results[0];
      expect(entry.traj[3]).toEqual(feedback);
      expect(entry.taubridge.extra.invalidToolCalls).toEqual([{ turn: 0, toolCallId: entry.traj[2].tool_calls[0].id, name, arguments: broken, error: feedback.content }]);
      expect(entry.taubridge.steps).toHaveLength(task.actions.length + 1); // the malformed call never reached the environment
      expect(entry.taubridge.usage.agent.calls).toBe(task.actions.length + 2);
    });

    it("a cached rerun gives identical results with zero requests to the server", async () => {
      const cacheDir = mkdtempSync(join(tmpdir(), "taubridge-cache-"));
      const task = tasks[1];
      const agentScript = groundTruth(task, "tool-calling", `Answer: ${task.outputs.join(", ")}`);
      const userScript = stop("Hi, I have a question about my account.");
      server = await startScriptedModelServer({ scripts: { "agent-model": [...agentScript, ...agentScript], "user-model": [...userScript, ...userScript] } });
      const first = await run(server, where({ taskIds: [1], numTrials: 2, cacheDir }));
      const sent = server.requests.length;
      expect(sent).toBe(2 * (agentScript.length + userScript.length));
      const second = await run(server, where({ taskIds: [1], numTrials: 2, cacheDir }));
      expect(server.requests.length).toBe(sent);
      expect(second.outcome.ranEpisodes).toBe(2);
      const comparable = (entries: Json[]) => entries.map((entry) => ({ ...entry, taubridge: { ...entry.taubridge, durationMs: 0 } }));
      expect(comparable(second.results)).toEqual(comparable(first.results));
      expect(second.results.map((entry: Json) => entry.reward)).toEqual([1, 1]);
    });

    it("max steps: termination max_steps, reward 0, reward_info null, 2 + 2×maxSteps messages", async () => {
      const read = tasks[0].actions[1];
      server = await startScriptedModelServer({
        scripts: {
          "agent-model": [{ tool_calls: [{ name: read.name, arguments: pyJsonDumps(read.kwargs) }], times: "unlimited" }],
          "user-model": [{ content: "Hi" }],
        },
      });
      const { outcome, results } = await run(server, where({ taskIds: [0], maxSteps: 3 }));
      expect(outcome.summaries[0]).toMatchObject({ reward: 0, termination: "max_steps" });
      expect(results[0].info.reward_info).toBeNull();
      expect(results[0].traj).toHaveLength(8);
      expect(results[0].taubridge.usage.agent.calls).toBe(3);
    });

    it("an outage midway keeps the agent's usage of the calls that did succeed", async () => {
      const read = tasks[0].actions[1];
      server = await startScriptedModelServer({
        scripts: {
          "agent-model": [
            { tool_calls: [{ name: read.name, arguments: pyJsonDumps(read.kwargs) }], usage: { prompt_tokens: 11, completion_tokens: 3 } },
            { error: { status: 503 }, times: "unlimited" },
          ],
          "user-model": [{ content: "Hi", usage: { prompt_tokens: 5, completion_tokens: 1 } }],
        },
      });
      const { outcome, results } = await run(server, where({ taskIds: [0], modelMaxAttempts: 1 }));
      expect(outcome.summaries[0]).toMatchObject({ reward: 0, termination: "infra_error" });
      expect(results[0].taubridge.usage).toEqual({
        agent: { calls: 1, promptTokens: 11, completionTokens: 3, cost: null },
        user: { calls: 1, promptTokens: 5, completionTokens: 1, cost: null },
      });
    });

    it("an episode timeout cancels the user simulator's pending model call", async () => {
      server = await startScriptedModelServer({
        scripts: { "agent-model": [{ content: "How can I help?" }], "user-model": [{ content: "Hi" }, { content: "too late", delayMs: 20_000 }] },
      });
      const { outcome } = await run(server, where({ taskIds: [0], episodeTimeoutMs: 500 }));
      expect(outcome.summaries[0]).toMatchObject({ reward: 0, termination: "timeout" });
      const pending = server.requestsFor("user-model")[1]!;
      // The server marks a request whose client went away with 499 as soon as the socket closes.
      await expect.poll(() => pending.status, { timeout: 120_000 }).toBe(499); // a wait, not a time limit: a loaded machine may be slow to see the close
    });

    it("a model outage is recorded as infra_error (not as the agent's failure)", async () => {
      server = await startScriptedModelServer({ scripts: { "agent-model": [{ error: { status: 503, retryAfter: 0 }, times: "unlimited" }], "user-model": [{ content: "Hi" }] } });
      const { outcome, results } = await run(server, where({ taskIds: [0], modelMaxAttempts: 2 }));
      expect(outcome.summaries[0]).toMatchObject({ reward: 0, termination: "infra_error" });
      expect(results[0].info.error).toMatch(/HTTP 503 after 2 attempts/);
    });
  });
}
