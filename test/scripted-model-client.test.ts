/**
 * The in-process scripted model client (`taubridge/testing`): same script format as the HTTP
 * server, every call recorded, strict about unexpected calls and leftover steps, and pluggable
 * into a whole run through `buildRun(config, { models })`.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, InfraError } from "../src/errors/error-tree.ts";
import type { ChatMessage } from "../src/core/types.ts";
import { ModelCallError } from "../src/model/errors.ts";
import type { ToolDefinition } from "../src/model/types.ts";
import { buildRun } from "./support/registries.ts";
import { runBatch } from "../src/suites/tau-bench/batch.ts";
import { createScriptedModelClient, createScriptedModels, UnconsumedStepsError, UnexpectedModelCallError } from "../src/testing/index.ts";

const messages: ChatMessage[] = [
  { role: "system", content: "You help at a library desk." },
  { role: "user", content: "Is The Night Ferry on the shelf?" },
];
const tools: ToolDefinition[] = [{ type: "function", function: { name: "search_catalog", parameters: { type: "object", properties: { query: { type: "string" } } } } }];

describe("scripted model client", () => {
  it("answers steps in order, records every call (messages copied, tools, temperature, tool choice, namespace) and the usage", async () => {
    const client = createScriptedModelClient({
      scripts: {
        "desk-model": [
          { label: "search", tool_calls: [{ name: "search_catalog", arguments: { query: "Night Ferry" } }], usage: { prompt_tokens: 120, completion_tokens: 8 } },
          { label: "answer", match: { lastMessageRole: "tool" }, content: "Yes, at Eastside.", usage: { prompt_tokens: 150, completion_tokens: 5 } },
        ],
      },
      prices: { "desk-model": { input: 1, output: 2 } },
      temperature: 0,
    });
    expect(client.model).toBe("desk-model");
    const history: ChatMessage[] = [...messages];
    const first = await client.complete({ messages: history, tools, toolChoice: "auto", cacheNamespace: "trial:2" });
    expect(first.message).toEqual({ role: "assistant", content: null, tool_calls: [{ id: "call_0_0", type: "function", function: { name: "search_catalog", arguments: '{"query":"Night Ferry"}' } }] });
    expect(first.finishReason).toBe("tool_calls");
    expect(first.cost).toBeCloseTo((120 * 1 + 8 * 2) / 1e6, 15);
    history.push({ ...first.message }, { role: "tool", tool_call_id: "call_0_0", name: "search_catalog", content: "[]" });
    const second = await client.complete({ messages: history, temperature: 0.5 });
    expect(second.message).toEqual({ role: "assistant", content: "Yes, at Eastside." });
    history.push({ role: "user", content: "changed after the call" });

    expect(client.calls.map((call) => call.answeredBy)).toEqual(["desk-model#0 (search)", "desk-model#1 (answer)"]);
    expect(client.calls[0]).toMatchObject({ index: 0, model: "desk-model", role: "agent", script: "desk-model", temperature: 0, toolChoice: "auto", cacheNamespace: "trial:2" });
    expect(client.calls[0].tools).toEqual(tools);
    expect(client.calls[0].body).toEqual({ model: "desk-model", messages, tools, temperature: 0, tool_choice: "auto" });
    expect(client.calls[1].messages).toHaveLength(4); // a copy: the later push is not visible
    expect(client.calls[1].body).toEqual({ model: "desk-model", messages: client.calls[1].messages, temperature: 0.5 });
    expect(client.usage.toJSON()).toMatchObject({ calls: 2, promptTokens: 270, completionTokens: 13 });
    expect(client.describe()).toMatchObject({ role: "agent", model: "desk-model", apiKeyEnv: null, userPrices: true });
    client.assertDone();
  });

  it("an unexpected call rejects, is recorded, and fails assertDone() naming the call", async () => {
    const client = createScriptedModelClient({ steps: [{ content: "only answer" }] });
    await client.complete({ messages });
    const error = await client.complete({ messages: [...messages, { role: "user", content: "and another thing" }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnexpectedModelCallError);
    expect(String((error as Error).message)).toMatch(/no step left that matches call #1 .*last message: user: "and another thing"/);
    expect(client.calls).toHaveLength(2);
    expect(client.calls[1].answeredBy).toBeNull();
    expect(client.failures).toHaveLength(1);
    expect(() => client.assertDone()).toThrow(UnexpectedModelCallError);
    expect(() => client.verify()).toThrow(/1 unexpected request\(s\): #1 /);
  });

  it("a call for a model with no script and no '*' script is unexpected", async () => {
    const models = createScriptedModels({ scripts: { "agent-model": [] } });
    await expect(models.client("other-model").complete({ messages })).rejects.toThrow(/no script for model "other-model" \(scripts: agent-model\)/);
    expect(models.failures.map((failure) => failure.code)).toEqual(["model_not_found"]);
    expect(() => models.assertDone()).toThrow(UnexpectedModelCallError);
  });

  it("leftover steps fail assertDone() with their script, index and label; unlimited steps never count", async () => {
    const client = createScriptedModelClient({
      steps: [
        { label: "greeting", content: "Hi" },
        { label: "never asked", content: "bye" },
        { label: "fallback", content: "again", times: "unlimited" },
      ],
    });
    await client.complete({ messages });
    expect(client.pending()).toEqual([{ script: "*", index: 1, label: "never asked", remaining: 1 }]);
    expect(() => client.assertDone()).toThrow(UnconsumedStepsError);
    expect(() => client.assertDone()).toThrow(/1 step\(s\) never consumed: \*#1 \(never asked\)/);
    await client.complete({ messages });
    await client.complete({ messages });
    client.assertDone();
  });

  it("matches like the server: first step with uses left whose match holds; the responder answers the rest", async () => {
    const client = createScriptedModelClient({
      steps: [
        { match: { hasTool: "search_catalog" }, content: "with tools", times: 2 },
        { match: { systemContains: "library desk", lastMessageContains: "shelf" }, content: "no tools" },
      ],
      responder: (request) => (request.messages.length > 2 ? { content: `responder saw ${request.messages.length}` } : undefined),
    });
    expect((await client.complete({ messages })).message.content).toBe("no tools");
    expect((await client.complete({ messages, tools })).message.content).toBe("with tools");
    expect((await client.complete({ messages: [...messages, { role: "assistant", content: "x" }] })).message.content).toBe("responder saw 3");
    expect(client.calls.map((call) => call.answeredBy)).toEqual(["*#1", "*#0", "responder"]);
    expect(() => client.assertDone()).toThrow(/never consumed: \*#0$/); // one use of the times: 2 step is left
  });

  it("an error step rejects with a ModelCallError (an infra error) carrying the status; usage counts the failure", async () => {
    const client = createScriptedModelClient({ steps: [{ error: { status: 503 } }, { content: "recovered" }] });
    const error = (await client.complete({ messages }).catch((caught: unknown) => caught)) as ModelCallError;
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toBeInstanceOf(InfraError);
    expect(error.status).toBe(503);
    expect(error.retryable).toBe(true);
    expect((await client.complete({ messages })).message.content).toBe("recovered");
    expect(client.usage.toJSON()).toMatchObject({ calls: 1, failedCalls: 1 });
    client.assertDone();
  });

  it("a delayed step honours the abort signal; an unpriced model's cost is null", async () => {
    const client = createScriptedModelClient({ steps: [{ content: "late", delayMs: 5_000 }, { content: "quick" }] });
    const controller = new AbortController();
    const pending = client.complete({ messages, signal: controller.signal });
    controller.abort(new Error("episode timed out"));
    await expect(pending).rejects.toThrow("episode timed out");
    const quick = await client.complete({ messages });
    expect(quick.cost).toBeNull();
    expect(quick.usage.promptTokens).toBeGreaterThan(0); // the server's deterministic estimate
  });

  it("rejects a malformed script with a ConfigError", () => {
    expect(() => createScriptedModelClient({ steps: [{ content: "x", tool_call: [] } as never] })).toThrow(ConfigError);
    expect(() => createScriptedModelClient({ steps: [{ error: { status: 500 }, content: "x" }] })).toThrow(/either an error or a response/);
  });
});

describe("scripted models in a whole run (buildRun(config, { models }))", () => {
  it("a tool-calling agent and an llm user on the library domain score 1.0 with no HTTP at all", async () => {
    const models = createScriptedModels({
      scripts: {
        "agent-model": [
          { tool_calls: [{ name: "find_member_id_by_name_zip", arguments: { first_name: "Hana", last_name: "Sato", zip: "98103" } }] },
          { tool_calls: [{ name: "search_catalog", arguments: { query: "Clara Ashdown" } }] },
          { tool_calls: [{ name: "get_book_details", arguments: { book_id: "B1014" } }] },
          { match: { lastMessageRole: "tool" }, content: "A copy is on the shelf at Eastside." },
        ],
        "user-model": [{ content: "Hana Sato, 98103. Which Clara Ashdown books do you have?" }, { match: { lastMessageContains: "Eastside" }, content: "###STOP###" }],
      },
    });
    const built = buildRun(
      {
        env: "library",
        agentStrategy: "tool-calling",
        userStrategy: "llm",
        model: "agent-model",
        userModel: "user-model",
        taskIds: [0],
        logDir: mkdtempSync(join(tmpdir(), "taubridge-scripted-client-")),
        quiet: true,
      },
      { models: models.runModels({ agent: "agent-model", user: "user-model" }) },
    );
    const outcome = await runBatch(built);
    models.assertDone();
    expect(outcome.summaries[0]).toMatchObject({ reward: 1, termination: "user_stop" });
    expect(models.callsFor("agent-model")).toHaveLength(4);
    expect(models.callsFor("user-model").map((call) => call.role)).toEqual(["user", "user"]);
    expect(models.callsFor("agent-model")[0].body.tools).toEqual(built.domain.toolSchemas.json);
    const results = JSON.parse(readFileSync(outcome.resultsPath, "utf8"));
    expect(results[0].taubridge.usage.agent).toMatchObject({ calls: 4, cost: null });
  });
});
