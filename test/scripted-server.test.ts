import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { Command } from "commander";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../src/errors/error-tree.ts";
import { registerTestingCommand, runTestingServe } from "../src/cli/testing-command.ts";
import { startScriptedModelServer, UnconsumedStepsError, UnexpectedModelCallError, type ScriptedModelServer, type ScriptedModelServerOptions } from "../src/testing/index.ts";

const API_KEY = "sk-scripted-test-key-0123456789abcdef";

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  server = await startScriptedModelServer(options);
  return server;
}

function client(target: ScriptedModelServer): OpenAI {
  return new OpenAI({ apiKey: API_KEY, baseURL: target.baseURL, maxRetries: 0, timeout: 120_000 }); // a hang detector, generous for a loaded machine
}

const user = (content: string) => ({ role: "user" as const, content });

describe("scripted model server: routing", () => {
  it("routes by the request's model so an agent model and a user model share one server", async () => {
    const target = await start({
      scripts: {
        "agent-model": [{ content: "agent turn 1" }, { content: "agent turn 2" }],
        "user-model": [{ content: "user turn 1" }],
      },
    });
    const openai = client(target);
    const agent1 = await openai.chat.completions.create({ model: "agent-model", messages: [user("hi")] });
    const userReply = await openai.chat.completions.create({ model: "user-model", messages: [user("hello")] });
    const agent2 = await openai.chat.completions.create({ model: "agent-model", messages: [user("again")] });
    expect(agent1.choices[0]?.message.content).toBe("agent turn 1");
    expect(userReply.choices[0]?.message.content).toBe("user turn 1");
    expect(agent2.choices[0]?.message.content).toBe("agent turn 2");
    expect(agent1.model).toBe("agent-model");
    expect(target.requestsFor("agent-model").map((record) => record.answeredBy)).toEqual(["agent-model#0", "agent-model#1"]);
    expect(target.requestsFor("user-model")).toHaveLength(1);
    target.assertAllConsumed();
    target.assertNoFailures();
  });

  it("uses the '*' script for other models and answers 404 when no script fits", async () => {
    const target = await start({ scripts: { known: [{ content: "k" }] } });
    const openai = client(target);
    const error = await openai.chat.completions.create({ model: "other", messages: [user("x")] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(target.failures[0]?.code).toBe("model_not_found");
    await target.close();

    const fallback = await start({ scripts: { "*": [{ content: "default" }], special: [{ content: "special" }] } });
    const reply = await client(fallback).chat.completions.create({ model: "anything", messages: [user("x")] });
    expect(reply.choices[0]?.message.content).toBe("default");
  });

  it("picks the first unconsumed step whose match condition holds", async () => {
    const target = await start({
      steps: [
        { label: "after tool", match: { lastMessageRole: "tool" }, content: "I see the order." },
        { label: "greeting", match: { lastMessageContains: "hello" }, content: "Hi there!" },
        { label: "with tools", match: { hasTool: "get_order" }, tool_calls: [{ name: "get_order", arguments: { id: "#1" } }] },
        { label: "system", match: { systemContains: "retail" }, content: "retail agent" },
      ],
    });
    const openai = client(target);
    const greeting = await openai.chat.completions.create({ model: "m", messages: [user("well hello")] });
    expect(greeting.choices[0]?.message.content).toBe("Hi there!");
    const call = await openai.chat.completions.create({
      model: "m",
      messages: [user("where is my order")],
      tools: [{ type: "function", function: { name: "get_order", parameters: { type: "object", properties: {} } } }],
    });
    expect(call.choices[0]?.message.tool_calls?.[0]).toMatchObject({ type: "function", function: { name: "get_order", arguments: '{"id":"#1"}' } });
    const afterTool = await openai.chat.completions.create({
      model: "m",
      messages: [
        user("where is my order"),
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_order", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "call_1", content: '{"status": "shipped"}' },
      ],
    });
    expect(afterTool.choices[0]?.message.content).toBe("I see the order.");
    const system = await openai.chat.completions.create({ model: "m", messages: [{ role: "system", content: "You are a retail agent" }, user("x")] });
    expect(system.choices[0]?.message.content).toBe("retail agent");
    target.assertAllConsumed();
  });

  it("supports repeated and unlimited steps and a responder for programmatic behaviour", async () => {
    const target = await start({
      scripts: {
        echo: [{ content: "twice", times: 2 }],
        forever: [{ content: "always", times: "unlimited" }],
      },
      responder: (request) => (request.model === "echo" ? { content: `echo: ${String(request.messages.at(-1)?.content)}`, usage: { prompt_tokens: 3, completion_tokens: 2 } } : undefined),
    });
    const openai = client(target);
    const contents: (string | null | undefined)[] = [];
    for (let turn = 0; turn < 3; turn += 1) {
      const reply = await openai.chat.completions.create({ model: "echo", messages: [user(`turn ${turn}`)] });
      contents.push(reply.choices[0]?.message.content);
    }
    expect(contents).toEqual(["twice", "twice", "echo: turn 2"]);
    expect(target.requests[2]?.answeredBy).toBe("responder");
    for (let turn = 0; turn < 3; turn += 1) {
      const reply = await openai.chat.completions.create({ model: "forever", messages: [user("x")] });
      expect(reply.choices[0]?.message.content).toBe("always");
    }
    target.assertAllConsumed(); // unlimited steps never count as unconsumed
  });
});

describe("scripted model server: responses", () => {
  it("passes malformed tool-call arguments through verbatim, with ids and finish reason", async () => {
    const malformed = '{"order_id": "#W123", "reason": ';
    const target = await start({
      steps: [
        {
          tool_calls: [{ name: "cancel_order", arguments: malformed, id: "call_custom" }, { name: "noop" }],
          usage: { prompt_tokens: 10, completion_tokens: 4 },
        },
      ],
    });
    const reply = await client(target).chat.completions.create({ model: "m", messages: [user("cancel")] });
    const message = reply.choices[0]?.message;
    expect(message?.content).toBeNull();
    expect(reply.choices[0]?.finish_reason).toBe("tool_calls");
    expect(message?.tool_calls).toEqual([
      { id: "call_custom", type: "function", function: { name: "cancel_order", arguments: malformed } },
      { id: "call_0_1", type: "function", function: { name: "noop", arguments: "{}" } },
    ]);
    expect(reply.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 });
  });

  it("estimates usage deterministically when the step gives none", async () => {
    const target = await start({ steps: [{ content: "12345678" }] });
    const reply = await client(target).chat.completions.create({ model: "m", messages: [user("x")] });
    expect(reply.usage?.completion_tokens).toBe(2);
    expect(reply.usage?.prompt_tokens).toBeGreaterThan(0);
  });

  it("streams content and tool-call deltas in OpenAI's SSE format, with a final usage chunk", async () => {
    const malformed = '{"a": 1, "b": [unclosed';
    const target = await start({
      steps: [
        { content: "Hello there, how can I help?", usage: { prompt_tokens: 7, completion_tokens: 6 } },
        {
          tool_calls: [
            { name: "lookup", arguments: malformed },
            { name: "second", arguments: { x: "y" } },
          ],
          usage: { prompt_tokens: 9, completion_tokens: 5 },
        },
        { content: "no usage requested" },
      ],
    });
    const openai = client(target);

    const stream = await openai.chat.completions.create({ model: "m", messages: [user("hi")], stream: true, stream_options: { include_usage: true } });
    let text = "";
    let chunks = 0;
    let usage: OpenAI.Completions.CompletionUsage | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      chunks += 1;
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe("Hello there, how can I help?");
    expect(chunks).toBeGreaterThan(3);
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 6 });

    // The SDK's stream helper reassembles tool-call deltas: the malformed arguments survive verbatim.
    const runner = openai.chat.completions.stream({ model: "m", messages: [user("look it up")], stream_options: { include_usage: true } });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.tool_calls?.map((call) => call.type === "function" && [call.function.name, call.function.arguments])).toEqual([
      ["lookup", malformed],
      ["second", '{"x":"y"}'],
    ]);
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
    expect(final.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 5 });

    // Raw wire format: SSE data lines, [DONE] terminator, no usage chunk unless asked for.
    const response = await fetch(`${target.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [user("x")], stream: true }),
    });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const raw = await response.text();
    const events = raw.split("\n\n").filter(Boolean);
    expect(events.every((event) => event.startsWith("data: "))).toBe(true);
    expect(events.at(-1)).toBe("data: [DONE]");
    const payloads = events.slice(0, -1).map((event) => JSON.parse(event.slice(6)) as { object: string; usage?: unknown; choices: unknown[] });
    expect(payloads.every((payload) => payload.object === "chat.completion.chunk" && payload.choices.length === 1)).toBe(true);
  });

  it("answers scripted HTTP errors with retry-after headers and custom bodies", async () => {
    const target = await start({
      steps: [{ error: { status: 429, retryAfter: 2, retryAfterMs: 1500 } }, { error: { status: 503, body: "upstream down", headers: { "x-extra": "1" } } }],
    });
    const first = await fetch(`${target.baseURL}/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages: [] }) });
    expect(first.status).toBe(429);
    expect(first.headers.get("retry-after")).toBe("2");
    expect(first.headers.get("retry-after-ms")).toBe("1500");
    expect(((await first.json()) as { error: { type: string } }).error.type).toBe("rate_limit_error");
    const second = await fetch(`${target.baseURL}/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages: [] }) });
    expect(second.status).toBe(503);
    expect(second.headers.get("x-extra")).toBe("1");
    expect(await second.text()).toBe("upstream down");
    target.assertNoFailures(); // scripted errors are not failures
  });

  it("delays a response when asked", async () => {
    const target = await start({ steps: [{ content: "slow", delayMs: 150 }] });
    const started = Date.now();
    const reply = await client(target).chat.completions.create({ model: "m", messages: [user("x")] });
    expect(reply.choices[0]?.message.content).toBe("slow");
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it("lists script names on GET /v1/models", async () => {
    const target = await start({ scripts: { "agent-model": [], "user-model": [], "*": [] } });
    const models = await client(target).models.list();
    expect(models.data.map((model) => model.id).sort()).toEqual(["agent-model", "user-model"]);
  });
});

describe("scripted model server: recording and failures", () => {
  it("records every request with its body and headers, never the authorization header", async () => {
    const target = await start({ steps: [{ content: "ok" }] });
    await client(target).chat.completions.create({ model: "m", messages: [user("record me")], temperature: 0 });
    await fetch(`${target.url}/unknown`, { headers: { "x-api-key": API_KEY } });
    expect(target.requests).toHaveLength(2);
    const [completion, unknown] = target.requests;
    expect(completion).toMatchObject({ method: "POST", path: "/v1/chat/completions", model: "m", stream: false, status: 200, hadAuthorization: true });
    expect(completion?.body).toEqual({ model: "m", messages: [user("record me")], temperature: 0 });
    expect(completion?.headers["content-type"]).toBe("application/json");
    expect(completion?.headers.authorization).toBeUndefined();
    expect(unknown).toMatchObject({ method: "GET", path: "/unknown", status: 404 });
    expect(JSON.stringify(target.requests)).not.toContain(API_KEY);
    expect(target.failures.map((failure) => failure.code)).toEqual(["not_found"]);
  });

  it("answers 500 with a clear error when the script is exhausted, and records it", async () => {
    const target = await start({ scripts: { agent: [{ content: "only one" }] } });
    const openai = client(target);
    await openai.chat.completions.create({ model: "agent", messages: [user("1")] });
    const error = (await openai.chat.completions.create({ model: "agent", messages: [user("2")] }).catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error.status).toBe(500);
    expect(error.message).toContain('Script "agent" has no step left');
    expect(error.code).toBe("script_exhausted");
    expect(target.failures).toHaveLength(1);
    expect(target.failures[0]).toMatchObject({ requestIndex: 1, code: "script_exhausted" });
    expect(() => target.assertNoFailures()).toThrow(UnexpectedModelCallError);
    target.assertAllConsumed();
  });

  it("reports unconsumed steps", async () => {
    const target = await start({ scripts: { agent: [{ content: "a" }, { label: "never", content: "b", times: 2 }] } });
    await client(target).chat.completions.create({ model: "agent", messages: [user("1")] });
    expect(target.pending()).toEqual([{ script: "agent", index: 1, label: "never", remaining: 2 }]);
    expect(() => target.assertAllConsumed()).toThrow(UnconsumedStepsError);
    expect(() => target.assertAllConsumed()).toThrow(/agent#1 \(never\) ×2/);
  });

  it("rejects malformed requests and malformed responder steps without crashing", async () => {
    const target = await start({ steps: [], responder: () => ({ content: "x", error: { status: 500 } }) });
    const bad = await fetch(`${target.baseURL}/chat/completions`, { method: "POST", body: "{not json" });
    expect(bad.status).toBe(400);
    const invalid = await fetch(`${target.baseURL}/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages: [] }) });
    expect(invalid.status).toBe(500);
    expect(target.failures.map((failure) => failure.code)).toEqual(["invalid_request", "invalid_step"]);
    expect(target.requests[0]?.body).toBe("{not json");
  });

  it("validates scripts with zod before listening", async () => {
    await expect(startScriptedModelServer({ steps: [{ content: "x", error: { status: 500 } }] })).rejects.toThrow(ConfigError);
    await expect(startScriptedModelServer({ steps: [{ error: { status: 200 } }] })).rejects.toThrow(/status/);
    await expect(startScriptedModelServer({ steps: [{ contnet: "typo" } as never] })).rejects.toThrow(/contnet/);
  });
});

describe("taubridge testing serve", () => {
  it("registers `testing serve` on the main program", () => {
    const program = new Command();
    registerTestingCommand(program);
    const testing = program.commands.find((command) => command.name() === "testing");
    const serve = testing?.commands.find((command) => command.name() === "serve");
    expect(serve?.options.map((option) => option.long)).toEqual(["--script", "--port", "--host", "--record"]);
  });

  it("serves a script file until stopped and writes the record file", async () => {
    const directory = await mkdtemp(join(tmpdir(), "taubridge-serve-"));
    try {
      const scriptPath = join(directory, "script.json");
      const recordPath = join(directory, "record.json");
      await writeFile(scriptPath, JSON.stringify({ scripts: { agent: [{ content: "from file" }, { content: "unused" }] } }));
      const controller = new AbortController();
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let output = "";
      stdout.on("data", (data: Buffer) => (output += data.toString()));
      let errors = "";
      stderr.on("data", (data: Buffer) => (errors += data.toString()));
      const running = runTestingServe({ script: scriptPath, port: 0, host: "127.0.0.1", record: recordPath }, { signal: controller.signal, stdout, stderr });
      while (!output.includes("listening on")) await new Promise((resolve) => setTimeout(resolve, 10));
      const baseURL = /listening on (\S+)/.exec(output)?.[1] ?? "";
      const openai = new OpenAI({ apiKey: API_KEY, baseURL, maxRetries: 0 });
      // A key sent in the body (τ²'s LLM arguments do) is recorded redacted, like the Authorization header is left out.
      const reply = await openai.chat.completions.create({ model: "agent", messages: [user("x")], api_key: "body-secret-0123456" } as never);
      expect((reply as OpenAI.Chat.Completions.ChatCompletion).choices[0]?.message.content).toBe("from file");
      controller.abort();
      await running;
      const text = await readFile(recordPath, "utf8");
      expect(text).not.toContain("body-secret-0123456");
      expect(text).not.toContain(API_KEY);
      const record = JSON.parse(text) as { requests: Array<{ body: Record<string, unknown> }>; pending: unknown[] };
      expect(record.requests[0].body.api_key).toBe("[REDACTED]");
      expect(record.requests).toHaveLength(1);
      expect(record.pending).toHaveLength(1);
      expect(errors).toContain("1 request(s), 0 failure(s), 1 unconsumed step(s)");
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it("fails with a ConfigError on an invalid script file", async () => {
    const directory = await mkdtemp(join(tmpdir(), "taubridge-serve-"));
    try {
      const scriptPath = join(directory, "bad.json");
      await writeFile(scriptPath, JSON.stringify({ scripts: { agent: [{ times: 0 }] } }));
      await expect(runTestingServe({ script: scriptPath, port: 0, host: "127.0.0.1" }, { signal: AbortSignal.abort() })).rejects.toThrow(ConfigError);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
