/**
 * The policy engine: every built-in rule on a passing and a failing trajectory; regex and sequence
 * rules; rule files (YAML and JSON) and their errors naming the file and the rule; `semantic` rules
 * through the real embeddings client against the scripted server's embeddings endpoint, and `llm`
 * rules through the real model client against a scripted judge; the adherence score; and
 * `report --policy` on a results file.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EpisodeRecord, RecordMessage, RecordStep } from "../../src/core/episode-record.ts";
import { adherenceScore, BUILTIN_PROFILES, builtinHits, checkPolicy, deterministicHits } from "../../src/analysis/policy/engine.ts";
import { loadPolicyFile, parsePolicy } from "../../src/analysis/policy/rules.ts";
import { createEmbeddingClient } from "../../src/model/embedding-client.ts";
import { createModelClient } from "../../src/model/model-client.ts";
import { startScriptedModelServer, type ScriptedModelServer } from "../../src/testing/index.ts";
import { runCli } from "../support/cli.ts";

type Turn = { role: RecordMessage["role"]; content?: string | null; calls?: Array<{ name: string; arguments?: Record<string, unknown>; result?: string; error?: boolean }> };

/** A record from turns: each call gets an id, a tool message after its turn, and a step. */
function record(domain: string, turns: Turn[]): EpisodeRecord {
  const messages: RecordMessage[] = [];
  const steps: RecordStep[] = [];
  let id = 0;
  for (const turn of turns) {
    const calls = (turn.calls ?? []).map((call) => ({ ...call, id: `c${id++}` }));
    messages.push({
      role: turn.role,
      content: turn.content ?? null,
      ...(calls.length ? { toolCalls: calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments ?? {}, requestor: "agent" as const })) } : {}),
    });
    for (const call of calls) {
      steps.push({
        name: call.name,
        arguments: call.arguments ?? {},
        requestor: "agent",
        origin: "agent",
        toolCallId: call.id,
        frameworkToolName: null,
        result: call.result ?? "{}",
        error: call.error ?? false,
      });
      messages.push({ role: "tool", content: call.result ?? "{}", toolCallId: call.id, requestor: "agent", error: call.error ?? false });
    }
  }
  return {
    schemaVersion: 2,
    suite: "tau2",
    domain,
    taskId: "t",
    trial: 0,
    seed: null,
    termination: "user_stop",
    reward: 1,
    rewardBreakdown: {},
    messages,
    steps,
    planned: [],
    unmappedTools: [],
    usage: { agent: null, user: null },
    cost: { agent: null, user: null },
    error: null,
    durationSeconds: null,
    expected: null,
    review: null,
    native: null,
  };
}

const retail = BUILTIN_PROFILES.retail;
const ids = (hits: ReturnType<typeof builtinHits>) => hits.map((hit) => [hit.ruleId, hit.messageIndex]);

describe("built-in rules, each on a passing and a failing trajectory", () => {
  const authenticate: Turn = { role: "assistant", calls: [{ name: "find_user_id_by_email", arguments: { email: "a@b.c" }, result: "u1" }] };

  it("write-without-confirmation: the previous user turn must confirm", () => {
    const passing = record("retail", [
      { role: "user", content: "cancel #W1" },
      authenticate,
      { role: "user", content: "Yes, please go ahead." },
      { role: "assistant", calls: [{ name: "cancel_pending_order" }] },
    ]);
    const failing = record("retail", [
      { role: "user", content: "cancel #W1" },
      authenticate,
      { role: "user", content: "What would that cost?" },
      { role: "assistant", calls: [{ name: "cancel_pending_order" }] },
    ]);
    expect(ids(builtinHits(passing, retail, ["write-without-confirmation"]))).toEqual([]);
    expect(ids(builtinHits(failing, retail, ["write-without-confirmation"]))).toEqual([["write-without-confirmation", 4]]);
  });

  it("multiple-tool-calls: one call per turn", () => {
    const passing = record("retail", [authenticate, { role: "assistant", calls: [{ name: "get_order_details" }] }]);
    const failing = record("retail", [authenticate, { role: "assistant", calls: [{ name: "get_order_details" }, { name: "get_user_details" }] }]);
    expect(builtinHits(passing, retail, ["multiple-tool-calls"])).toEqual([]);
    expect(ids(builtinHits(failing, retail, ["multiple-tool-calls"]))).toEqual([["multiple-tool-calls", 2]]);
  });

  it("text-and-tool-call: no words with a tool call", () => {
    const passing = record("retail", [{ role: "assistant", content: "Let me look.", calls: [] }, authenticate]);
    const failing = record("retail", [{ role: "assistant", content: "Let me look.", calls: [{ name: "find_user_id_by_email", result: "u1" }] }]);
    expect(builtinHits(passing, retail, ["text-and-tool-call"])).toEqual([]);
    expect(ids(builtinHits(failing, retail, ["text-and-tool-call"]))).toEqual([["text-and-tool-call", 0]]);
  });

  it("act-before-authentication: account tools wait for a successful lookup; generic tools do not", () => {
    const passing = record("retail", [{ role: "assistant", calls: [{ name: "list_all_product_types" }] }, authenticate, { role: "assistant", calls: [{ name: "get_order_details" }] }]);
    const failedLookup = record("retail", [
      { role: "assistant", calls: [{ name: "find_user_id_by_email", result: "Error: user not found", error: true }] },
      { role: "assistant", calls: [{ name: "get_order_details" }] },
    ]);
    expect(builtinHits(passing, retail, ["act-before-authentication"])).toEqual([]);
    expect(builtinHits(failedLookup, retail, ["act-before-authentication"])).toMatchObject([{ ruleId: "act-before-authentication", messageIndex: 2, stepIndex: 1, severity: "critical" }]);
  });

  it("transfer-without-message: a message must follow the transfer (and match the file's pattern when given)", () => {
    const passing = record("airline", [
      { role: "assistant", calls: [{ name: "transfer_to_human_agents" }] },
      { role: "assistant", content: "You are being transferred." },
      { role: "user", content: "###TRANSFER###" },
    ]);
    const failing = record("airline", [
      { role: "assistant", calls: [{ name: "transfer_to_human_agents" }] },
      { role: "user", content: "hello?" },
    ]);
    const profile = BUILTIN_PROFILES.airline;
    expect(builtinHits(passing, profile, ["transfer-without-message"])).toEqual([]);
    expect(ids(builtinHits(failing, profile, ["transfer-without-message"]))).toEqual([["transfer-without-message", 0]]);
    expect(ids(builtinHits(passing, { ...profile, transferMessage: "please hold" }, ["transfer-without-message"]))).toEqual([["transfer-without-message", 0]]);
    // τ-bench ends the episode at the transfer: nothing to check.
    expect(builtinHits(record("airline", [{ role: "assistant", calls: [{ name: "transfer_to_human_agents" }] }]), profile, ["transfer-without-message"])).toEqual([]);
  });
});

describe("regex and sequence rules", () => {
  const episode = record("retail", [
    { role: "assistant", content: "I promise a refund." },
    { role: "assistant", calls: [{ name: "cancel_pending_order", arguments: { order_id: "#W1", reason: "ordered by mistake" } }] },
    { role: "assistant", calls: [{ name: "get_order_details", arguments: { order_id: "#W1" } }] },
    { role: "assistant", calls: [{ name: "cancel_pending_order", arguments: { order_id: "#W2", reason: "no longer needed" } }] },
  ]);
  const policy = parsePolicy(
    {
      rules: [
        { id: "promise", type: "regex", severity: "medium", pattern: "\\bpromise\\b" },
        { id: "mistake-reason", type: "regex", severity: "low", target: "tool_arguments", tools: ["cancel_pending_order"], pattern: "mistake" },
        { id: "details-first", type: "sequence", severity: "high", condition: { requireBefore: { tool: "get_order_details", before: "cancel_pending_order" } } },
        { id: "one-cancel", type: "sequence", severity: "medium", condition: { maxCalls: { tool: "cancel_pending_order", count: 1 } } },
        { id: "no-w2", type: "sequence", severity: "critical", condition: { forbid: { tool: "cancel_pending_order", arguments: { order_id: "#W2" } } } },
        { id: "nothing-after", type: "sequence", severity: "low", condition: { forbidAfter: { tool: "cancel_pending_order", after: "get_order_details" } } },
      ],
    },
    "inline",
  );
  it("each rule hits where it should, pointing at the message", () => {
    const hits = policy.rules.flatMap((rule) => deterministicHits(episode, rule)).map((hit) => [hit.ruleId, hit.messageIndex]);
    expect(hits).toEqual([
      ["promise", 0],
      ["mistake-reason", 1],
      ["details-first", 1],
      ["one-cancel", 5],
      ["no-w2", 5],
      ["nothing-after", 5],
    ]);
  });
  it("adherence: weights low 1, medium 2, high 4, critical 8 out of 8; strictness picks the severities", () => {
    const hits = policy.rules.flatMap((rule) => deterministicHits(episode, rule));
    expect(adherenceScore(hits, "high")).toBe(0);
    expect(adherenceScore(hits, "low")).toBe(0); // the critical hit alone
    expect(
      adherenceScore(
        hits.filter((hit) => hit.severity !== "critical"),
        "medium",
      ),
    ).toBe(0.5);
    expect(
      adherenceScore(
        hits.filter((hit) => hit.severity === "low"),
        "high",
      ),
    ).toBe(0.75);
    expect(adherenceScore([], "high")).toBe(1);
  });
});

describe("rule files", () => {
  const directory = mkdtempSync(join(tmpdir(), "taubridge-policy-"));
  it("YAML and JSON load; an error names the file, the rule and the field", () => {
    const yaml = join(directory, "p.yaml");
    writeFileSync(yaml, "domain: retail\nrules:\n  - id: a\n    type: regex\n    severity: high\n    pattern: refund\n");
    expect(loadPolicyFile(yaml).rules).toMatchObject([{ id: "a", type: "regex", target: "agent_messages", flags: "i" }]);
    const json = join(directory, "p.json");
    writeFileSync(json, JSON.stringify({ rules: [{ id: "b", type: "semantic", severity: "urgent", examples: ["x"] }] }));
    expect(() => loadPolicyFile(json)).toThrow(`${json}: rule "b": field severity:`);
    writeFileSync(json, JSON.stringify({ rules: [{ id: "c", type: "regex", severity: "low", pattern: "(" }] }));
    expect(() => loadPolicyFile(json)).toThrow(/rule "c": field pattern: /);
    writeFileSync(json, JSON.stringify({ rules: [{ type: "llm", severity: "low" }] }));
    expect(() => loadPolicyFile(json)).toThrow("rules[0]:");
    writeFileSync(yaml, "rules: [\n");
    expect(() => loadPolicyFile(yaml)).toThrow(`${yaml}: not valid YAML`);
  });
});

describe("semantic and llm rules against the scripted server", () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await startScriptedModelServer({
      scripts: {
        judge: [
          { match: { lastMessageContains: "guaranteed" }, content: "Yes.", times: "unlimited" },
          { content: "no", times: "unlimited" },
        ],
      },
    });
  });
  afterAll(() => server.close());

  const episode = record("retail", [
    { role: "user", content: "refund?" },
    { role: "assistant", content: "That refund is not my problem at all" },
    { role: "assistant", content: "Your refund is guaranteed tomorrow" },
    { role: "assistant", content: "Anything else I can do for you?" },
  ]);
  const policy = parsePolicy(
    {
      builtins: "none",
      rules: [
        { id: "dismissive", type: "semantic", severity: "high", examples: ["not my problem"], threshold: 0.6 },
        { id: "no-guarantees", type: "llm", severity: "medium", question: "Does the agent guarantee an outcome it cannot promise?" },
      ],
    },
    "inline",
  );

  it("without an embedder or judge the rules are skipped and say why", async () => {
    const report = await checkPolicy([episode], policy);
    expect(report.episodes[0].hits).toEqual([]);
    expect(report.skipped.map((row) => row.ruleId)).toEqual(["dismissive", "no-guarantees"]);
  });

  it("with them: the similar message and the one the judge says yes to are hits, at their message", async () => {
    const embedder = createEmbeddingClient({ model: "embed", provider: "openai-compatible", baseURL: server.baseURL, encodingFormat: "float" });
    const judge = createModelClient({ role: "judge", model: "judge", provider: "openai-compatible", baseURL: server.baseURL });
    const report = await checkPolicy([episode], policy, { models: { embed: (texts) => embedder.embed(texts), judge } });
    expect(report.skipped).toEqual([]);
    expect(report.episodes[0].hits.map((hit) => [hit.ruleId, hit.messageIndex])).toEqual([
      ["dismissive", 1],
      ["no-guarantees", 2],
    ]);
    expect(report.episodes[0].adherence).toBe(1 - 4 / 8);
    expect(judge.usage.toJSON().calls).toBe(3);
    expect(server.requests.filter((request) => request.path.endsWith("/embeddings"))).toHaveLength(1);
  });
});

describe("report --policy on a results file", () => {
  it("adds the Policy column and lists hits with --per-task", async () => {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-report-policy-"));
    const entry = {
      task_id: 0,
      reward: 1.0,
      info: {},
      traj: [
        { role: "system", content: "x" },
        { role: "user", content: "cancel order #W1" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "cancel_pending_order", arguments: '{"order_id": "#W1"}' } }] },
        { role: "tool", tool_call_id: "c1", name: "cancel_pending_order", content: "{}" },
      ],
      trial: 0,
    };
    const results = join(directory, "retail.json");
    writeFileSync(results, JSON.stringify([entry]));
    const policy = join(directory, "policy.yaml");
    writeFileSync(policy, "profile:\n  writeTools: [cancel_pending_order]\nbuiltins: [write-without-confirmation]\n");
    const result = await runCli(["report", results, "--policy", policy, "--per-task", "--policy-strictness", "high"]);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/│ Policy │/);
    expect(result.stdout).toMatch(/│ 0\.500\s+│/);
    expect(result.stdout).toContain("cancel_pending_order without an explicit confirmation in the previous user turn");
    const json = await runCli(["report", results, "--policy", policy, "--format", "json"]);
    expect(JSON.parse(json.stdout).policy).toMatchObject({ adherence: 0.5, episodes: [{ hits: [{ ruleId: "write-without-confirmation", messageIndex: 2, stepIndex: 0 }] }] });
  });
});
