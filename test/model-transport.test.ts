/**
 * The model client's own chat-completions path (`src/model/chat-transport.ts`, over undici keep-alive Clients)
 * sends what the `openai` SDK's `chat.completions.create` sends, byte for byte, for every provider
 * (method, URL with its query, every header in order, the body), and fails as it fails (the same
 * error classes, messages, statuses, retry decisions and attempts). Both clients call a raw HTTP
 * server that records requests as they arrive on the socket.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../src/core/types.ts";
import { createModelClient, LITELLM_PREFIXES, type ModelClient, type ToolDefinition } from "../src/model/index.ts";
import { ChatBodyWriter } from "../src/model/chat-transport.ts";
import { resolveLitellmModel } from "../src/model/providers.ts";

interface Captured {
  method: string;
  url: string;
  /** As sent: names in their case, in order. */
  rawHeaders: string[];
  body: string;
}

type Answer = { status: number; headers?: Record<string, string>; body: string };

const COMPLETION = JSON.stringify({
  id: "c1",
  object: "chat.completion",
  created: 0,
  model: "m",
  choices: [
    { index: 0, message: { role: "assistant", content: "ok", tool_calls: [{ id: "t1", type: "function", function: { name: "get_order", arguments: '{"id":"#W1"}' } }] }, finish_reason: "tool_calls" },
  ],
  usage: { prompt_tokens: 12, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 4 } },
});

let server: Server;
let url: string;
const captured: Captured[] = [];
let answers: Answer[] = [];

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      captured.push({ method: request.method ?? "", url: request.url ?? "", rawHeaders: request.rawHeaders, body: Buffer.concat(chunks).toString("utf8") });
      const answer = answers.shift() ?? { status: 200, headers: { "content-type": "application/json" }, body: COMPLETION };
      response.writeHead(answer.status, answer.headers ?? {});
      response.end(answer.status === 204 ? undefined : answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const KEY = "transport-test-key-0123456789";

/** Each provider's environment, its endpoint pointed at the recording server in the provider's own path shape. */
const ENVIRONMENTS: Record<string, (base: string) => { env: Record<string, string>; baseURL?: string }> = {
  openai: (base) => ({ env: { OPENAI_API_KEY: KEY }, baseURL: `${base}/v1` }),
  anthropic: (base) => ({ env: { ANTHROPIC_API_KEY: KEY }, baseURL: `${base}/v1/` }),
  gemini: (base) => ({ env: { GEMINI_API_KEY: KEY }, baseURL: `${base}/v1beta/openai/` }),
  azure: (base) => ({ env: { AZURE_API_KEY: KEY, AZURE_API_BASE: base, AZURE_API_VERSION: "2024-10-21" } }),
  deepseek: (base) => ({ env: { DEEPSEEK_API_KEY: KEY, DEEPSEEK_API_BASE: `${base}/beta` } }),
  mistral: (base) => ({ env: { MISTRAL_API_KEY: KEY, MISTRAL_API_BASE: `${base}/v1` } }),
  groq: (base) => ({ env: { GROQ_API_KEY: KEY, GROQ_API_BASE: `${base}/openai/v1` } }),
  together_ai: (base) => ({ env: { TOGETHER_API_KEY: KEY, TOGETHER_AI_API_BASE: `${base}/v1` } }),
  fireworks_ai: (base) => ({ env: { FIREWORKS_API_KEY: KEY, FIREWORKS_API_BASE: `${base}/inference/v1` } }),
  xai: (base) => ({ env: { XAI_API_KEY: KEY, XAI_API_BASE: `${base}/v1` } }),
  openrouter: (base) => ({ env: { OPENROUTER_API_KEY: KEY, OPENROUTER_API_BASE: `${base}/api/v1`, OR_SITE_URL: "https://example.org", OR_APP_NAME: "evals" } }),
  ollama: (base) => ({ env: { OLLAMA_API_BASE: base } }),
  ollama_chat: (base) => ({ env: {}, baseURL: base }),
  hosted_vllm: (base) => ({ env: { HOSTED_VLLM_API_BASE: `${base}/v1` } }),
  lm_studio: (base) => ({ env: { LM_STUDIO_API_BASE: `${base}/v1`, LM_STUDIO_API_KEY: KEY } }),
  bedrock: (base) => ({ env: { AWS_BEARER_TOKEN_BEDROCK: KEY, AWS_BEDROCK_BASE_URL: `${base}/openai/v1` } }),
};

const tools: ToolDefinition[] = [
  { type: "function", function: { name: "get_order", description: "Get an order — its “status”.", parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } } },
];

function history(): ChatMessage[] {
  return [
    { role: "system", content: "You are a retail agent.\nPolicy: be kind. Ünïcödé ✓ \u2028 </script>" },
    { role: "user", content: "Where is order #W1?" },
    { role: "assistant", content: null, tool_calls: [{ id: "t0", type: "function", function: { name: "get_order", arguments: '{"id": "#W1"}' } }] },
    { role: "tool", tool_call_id: "t0", content: '{"status": "shipped", "total": 1.5e-7}' },
  ] as ChatMessage[];
}

/** A client of one provider for the model string, through the SDK or the own path, with the given settings. */
function clientFor(prefix: string, transport: "sdk" | "pool", extra: Record<string, unknown> = {}): ModelClient {
  const setup = (ENVIRONMENTS[prefix] as (base: string) => { env: Record<string, string>; baseURL?: string })(url);
  const { provider, model } = resolveLitellmModel(`${prefix}/model-${prefix}`, { hasBaseURL: setup.baseURL !== undefined, setting: "--agent-llm", providerSetting: "--agent-provider" });
  return createModelClient(
    { model, provider, ...(setup.baseURL ? { baseURL: setup.baseURL } : {}), timeoutMs: 4_000, maxAttempts: 2, retry: { initialDelayMs: 1, maxDelayMs: 2 }, ...extra },
    { env: setup.env, transport },
  );
}

/** What a client sent for one call (the request recorded by the server). */
async function sent(client: ModelClient, request: Parameters<ModelClient["complete"]>[0]): Promise<{ captured: Captured; result: unknown }> {
  const before = captured.length;
  const result = await client.complete(request);
  expect(captured.length).toBe(before + 1);
  return { captured: captured[before] as Captured, result: { ...result, latencyMs: 0 } };
}

describe("the client's own chat path sends what the SDK sends", () => {
  it("covers every provider prefix", () => {
    expect(Object.keys(ENVIRONMENTS).sort()).toEqual(Object.keys(LITELLM_PREFIXES).sort());
  });

  for (const prefix of Object.keys(ENVIRONMENTS)) {
    it(`${prefix}/: identical method, URL, headers and body; identical results`, async () => {
      const request = { messages: history(), tools, toolChoice: "auto" as const, temperature: 0, params: { seed: 300, max_tokens: 512, metadata: { run: "x", nested: [1, 2.5, null] } } };
      const sdk = await sent(clientFor(prefix, "sdk"), request);
      const pool = await sent(clientFor(prefix, "pool"), request);
      expect(pool.captured).toEqual(sdk.captured);
      expect(pool.result).toEqual(sdk.result);
      // And the SDK's body is JSON.stringify of the request object, in the client's key order.
      expect(JSON.parse(sdk.captured.body)).toMatchObject({ seed: 300, messages: request.messages, tools, temperature: 0, tool_choice: "auto" });
    });
  }

  it("identical with the client's own temperature and parameters, no tools, and a params-free request", async () => {
    for (const request of [{ messages: history() }, { messages: history(), params: { reasoning_effort: "low" } }, { messages: history(), tools: [] as ToolDefinition[], toolChoice: null as never }]) {
      const extra = { temperature: 0.7, params: { top_p: 0.5, extra_headers: { "X-Org": "a" } } };
      const sdk = await sent(clientFor("openai", "sdk", extra), request);
      const pool = await sent(clientFor("openai", "pool", extra), request);
      expect(pool.captured).toEqual(sdk.captured);
    }
  });

  /** The requests a client sent and the answer it gave for one call whose first answer is `status` to `location`. */
  const followed = async (transport: "sdk" | "pool", status: number, location: string) => {
    answers = [
      { status, headers: { location }, body: "" },
      { status: 200, headers: { "content-type": "application/json" }, body: COMPLETION },
    ];
    const before = captured.length;
    const result = await clientFor("openai", transport).complete({ messages: history() });
    answers = [];
    return { requests: captured.slice(before), message: result.message };
  };
  /** Both paths follow the redirect to `path`, with the same requests (method, URL, every header, body) and answer. */
  const expectFollowedAlike = async (status: number, location: string, path: string) => {
    const sdk = await followed("sdk", status, location);
    const pool = await followed("pool", status, location);
    expect(sdk.requests.map((request) => request.url)).toEqual(["/v1/chat/completions", path]);
    expect(pool).toEqual(sdk);
  };

  it("follows a redirect to an absolute location as the SDK does (307, 308: the same POST, headers and body to the new location; 303: a GET), and answers from there", async () => {
    for (const status of [307, 308, 303]) await expectFollowedAlike(status, `${url}/v1/moved/chat/completions`, "/v1/moved/chat/completions");
  });
  it("follows a redirect to a relative location as the SDK does: resolved against the request's URL, the same request with its headers (the origin is the same)", async () => {
    await expectFollowedAlike(307, "/v1/moved/chat/completions", "/v1/moved/chat/completions");
    await expectFollowedAlike(307, "moved/completions", "/v1/chat/moved/completions");
  });
});

describe("the client's own chat path fails as the SDK fails", () => {
  const cases: Array<[string, Answer[]]> = [
    [
      "400 with an error body (not retried)",
      [{ status: 400, headers: { "content-type": "application/json" }, body: JSON.stringify({ error: { message: "bad tool schema", type: "invalid_request_error" } }) }],
    ],
    [
      "429 twice with retry-after-ms (retried, then given up)",
      [
        { status: 429, headers: { "content-type": "application/json", "retry-after-ms": "5" }, body: JSON.stringify({ error: { message: "slow down" } }) },
        { status: 429, headers: { "content-type": "application/json", "retry-after-ms": "5" }, body: JSON.stringify({ error: { message: "slow down" } }) },
      ],
    ],
    [
      "500 with a text body, then 502",
      [
        { status: 500, headers: { "content-type": "text/plain" }, body: "upstream exploded" },
        { status: 502, body: "" },
      ],
    ],
    ["200 with a body that is not JSON", [{ status: 200, headers: { "content-type": "application/json" }, body: "{ truncated" }]],
    ["200 that is not JSON at all", [{ status: 200, headers: { "content-type": "text/html" }, body: "<html>proxy login</html>" }]],
    ["200 without choices", [{ status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ id: "x", choices: [] }) }]],
    ["204", [{ status: 204, body: "" }]],
  ];
  const failure = async (transport: "sdk" | "pool", answered: Answer[]) => {
    answers = answered.map((answer) => ({ ...answer }));
    const error = (await clientFor("openai", transport)
      .complete({ messages: history() })
      .catch((caught: unknown) => caught)) as Record<string, unknown> & Error;
    answers = [];
    return {
      name: error.name,
      message: error.message,
      status: error.status,
      attempts: error.attempts,
      retryable: error.retryable,
      responseBody: error.responseBody,
      cause: (error.cause as Error | undefined)?.name,
    };
  };
  for (const [what, answered] of cases) {
    it(what, async () => {
      const sdk = await failure("sdk", answered);
      const pool = await failure("pool", answered);
      expect(sdk.name).toMatch(/Model/);
      expect(pool).toEqual(sdk);
    });
  }

  it("a refused connection: the same ModelEndpointRefusedError, not retried", async () => {
    const refused = async (transport: "sdk" | "pool") => {
      const client = createModelClient({ model: "m", provider: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", maxAttempts: 3 }, { env: {}, transport });
      const error = (await client.complete({ messages: history() }).catch((caught: unknown) => caught)) as Error & Record<string, unknown>;
      return { name: error.name, message: error.message, code: error.code, attempts: error.attempts, neverAnswered: error.neverAnswered };
    };
    const sdk = await refused("sdk");
    expect(sdk).toMatchObject({ name: "ModelEndpointRefusedError", code: "ECONNREFUSED", attempts: 1, neverAnswered: true });
    expect(await refused("pool")).toEqual(sdk);
  });

  it("a timeout and a caller's abort", async () => {
    const slow = createServer((_request, response) => setTimeout(() => response.end("{}"), 2_000));
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/v1`;
    try {
      for (const transport of ["sdk", "pool"] as const) {
        const client = createModelClient({ model: "m", provider: "openai-compatible", baseURL: base, timeoutMs: 100, maxAttempts: 1 }, { env: {}, transport });
        const timedOut = (await client.complete({ messages: history() }).catch((caught: unknown) => caught)) as Error;
        expect(timedOut.name, transport).toBe("ModelTimeoutError");
        expect(timedOut.message).toContain("timed out after 100 ms (1 attempt)");
        const controller = new AbortController();
        const reason = new Error("run interrupted");
        setTimeout(() => controller.abort(reason), 50);
        const longer = createModelClient({ model: "m", provider: "openai-compatible", baseURL: base, timeoutMs: 5_000, maxAttempts: 1 }, { env: {}, transport });
        await expect(longer.complete({ messages: history(), signal: controller.signal })).rejects.toBe(reason);
      }
    } finally {
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});

describe("the body writer", () => {
  it("serialises a growing history once per message and again when a message changes in place", () => {
    const writer = new ChatBodyWriter();
    const messages: Array<Record<string, unknown>> = [
      { role: "system", content: "policy" },
      { role: "user", content: "hi" },
    ];
    const expected = () => JSON.stringify({ seed: 1, model: "m", messages, tools, temperature: 0, tool_choice: "auto" });
    const write = () => writer.write({ params: { seed: 1 }, model: "m", messages, tools, temperature: 0, toolChoice: "auto" }).toString("utf8");
    expect(write()).toBe(expected());
    messages.push({ role: "assistant", content: "hello", tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: "{}" } }] });
    expect(write()).toBe(expected());
    // Edited in place: a string, a nested field, a key added and one deleted.
    (messages[1] as { content: string }).content = "hi there";
    expect(write()).toBe(expected());
    ((messages[2] as { tool_calls: Array<{ function: { arguments: string } }> }).tool_calls[0] as { function: { arguments: string } }).function.arguments = '{"x":1}';
    expect(write()).toBe(expected());
    (messages[0] as Record<string, unknown>).name = "sys";
    expect(write()).toBe(expected());
    delete (messages[0] as Record<string, unknown>).name;
    expect(write()).toBe(expected());
    // What JSON.stringify drops or turns into null, and values with toJSON.
    messages.push({ role: "user", content: undefined, when: new Date(0), extra: () => 1 });
    expect(write()).toBe(expected());
    expect(writer.write({ params: {}, model: "m", messages: [undefined, null, 1] as never, tools: undefined, temperature: Number.NaN, toolChoice: undefined }).toString("utf8")).toBe(
      JSON.stringify({ model: "m", messages: [undefined, null, 1], temperature: Number.NaN }),
    );
  });

  it("writes a conversation's next body in place once the last is released, and never over a body still lent", () => {
    const writer = new ChatBodyWriter();
    const frozenTools = Object.freeze([Object.freeze({ type: "function", function: Object.freeze({ name: "f", parameters: Object.freeze({}) }) })]);
    const messages: unknown[] = [Object.freeze({ role: "system", content: "policy \u00e9" })];
    let params: Record<string, unknown> = { seed: 1 };
    let model = "m";
    let temperature: number | undefined = 0;
    let tools: readonly unknown[] | undefined = frozenTools;
    const expected = () => JSON.stringify({ ...params, model, messages, ...(tools ? { tools } : {}), ...(temperature !== undefined ? { temperature } : {}), tool_choice: "auto" });
    const write = () => writer.write({ params, model, messages, tools, temperature, toolChoice: "auto" });
    const lent: Array<{ body: Buffer; text: string }> = [];
    // A fixed sequence of edits, each body compared with the SDK's serialisation; odd steps keep their first body lent.
    const edits: Array<() => void> = [
      () => messages.push(Object.freeze({ role: "user", content: "hi" })),
      () => messages.push(Object.freeze({ role: "assistant", content: "x".repeat(70_000) })),
      () => messages.push({ role: "user", content: "mutable" }),
      () => {
        (messages[3] as { content: string }).content = "changed in place";
      },
      () => messages.splice(2, 1),
      () => {
        params = { seed: 2, max_tokens: 5 };
      },
      () => {
        params.seed = 3;
      },
      () => {
        model = "n";
      },
      () => {
        tools = undefined;
        temperature = undefined;
      },
      () => messages.push(Object.freeze({ role: "tool", tool_call_id: "a", content: "\u{1F600}" })),
      () => {
        messages[0] = Object.freeze({ role: "system", content: "other" });
      },
      () => messages.push(Object.freeze({ role: "user", content: "y".repeat(300_000) })),
      () => messages.splice(1),
    ];
    for (const [step, edit] of edits.entries()) {
      edit();
      const body = write();
      expect(body.toString("utf8")).toBe(expected());
      if (step % 2 === 1) lent.push({ body, text: body.toString("utf8") });
      else writer.release(messages, body);
      // Written again unchanged (anew after a lent body, else in place), then released: the next edit is written in place.
      const again = write();
      expect(again.toString("utf8")).toBe(expected());
      writer.release(messages, again);
    }
    // Bodies never released were never written over.
    for (const { body, text } of lent) expect(body.toString("utf8")).toBe(text);
  });

  it("gives a released conversation's next body the same memory, the history's bytes left where they are", () => {
    const writer = new ChatBodyWriter();
    const messages: unknown[] = [Object.freeze({ role: "system", content: "policy" })];
    const write = () => writer.write({ params: undefined, model: "m", messages, tools: undefined, temperature: undefined, toolChoice: undefined });
    const first = write();
    writer.release(messages, first);
    messages.push(Object.freeze({ role: "user", content: "hi" }));
    const second = write();
    expect(second.toString("utf8")).toBe(JSON.stringify({ model: "m", messages }));
    expect(second.buffer).toBe(first.buffer);
    expect(second.byteOffset).toBe(first.byteOffset);
    // Not released: the next body is somewhere else.
    messages.push(Object.freeze({ role: "assistant", content: "hello" }));
    const third = write();
    expect(third.toString("utf8")).toBe(JSON.stringify({ model: "m", messages }));
    expect(third.buffer === second.buffer && third.byteOffset === second.byteOffset).toBe(false);
    expect(second.toString("utf8")).toBe(JSON.stringify({ model: "m", messages: messages.slice(0, 2) }));
  });

  it("keeps a deeply frozen message as bytes and checks a partly frozen one leaf by leaf", () => {
    const writer = new ChatBodyWriter();
    const frozen = Object.freeze({ role: "user", content: "caf\u00e9 \u{1F600}", tool_calls: Object.freeze([Object.freeze({ id: "a" })]) });
    const inner = { id: "b" };
    const partly = Object.freeze({ role: "assistant", content: null, tool_calls: Object.freeze([inner]) });
    const messages = [frozen, partly];
    const body = () => writer.write({ params: undefined, model: "m", messages, tools: undefined, temperature: undefined, toolChoice: undefined });
    const first = body();
    expect(first.toString("utf8")).toBe(JSON.stringify({ model: "m", messages }));
    expect(first.equals(Buffer.from(JSON.stringify({ model: "m", messages })))).toBe(true);
    // Sent again after the frozen array's unfrozen element changed: the partly frozen message is serialised anew.
    inner.id = "c";
    expect(body().toString("utf8")).toBe(JSON.stringify({ model: "m", messages }));
  });

  it("does not take a frozen message with a getter, an own toJSON or a class instance inside as unchanging", () => {
    const writer = new ChatBodyWriter();
    let count = 0;
    const withGetter = Object.freeze(
      Object.defineProperty({ role: "user" }, "content", {
        enumerable: true,
        get: () => `call ${count}`,
      }),
    );
    const elementGetter = Object.freeze(Object.defineProperty([] as unknown[], 0, { enumerable: true, get: () => count }));
    const toJson = Object.freeze(Object.defineProperty({ role: "user", content: "x" }, "toJSON", { value: () => ({ role: "user", content: `json ${count}` }) }));
    const dated = Object.freeze({ role: "user", content: "x", when: new Date(0) });
    const messages = [withGetter, Object.freeze({ role: "user", content: elementGetter }), toJson, dated];
    const body = () => writer.write({ params: undefined, model: "m", messages, tools: undefined, temperature: undefined, toolChoice: undefined }).toString("utf8");
    expect(body()).toBe(JSON.stringify({ model: "m", messages }));
    count = 1;
    expect(body()).toBe(JSON.stringify({ model: "m", messages }));
    expect(body()).toContain('"content":"call 1"');
    expect(body()).toContain('"content":[1]');
    expect(body()).toContain('"content":"json 1"');
  });
});

describe("the client's own path reuses keep-alive connections", () => {
  /** A server that answers every completion and counts the TCP connections it accepted; `close` answers with `connection: close`. */
  async function countingServer(close: boolean) {
    let connections = 0;
    let requests = 0;
    const counting = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        requests++;
        response.writeHead(200, { "content-type": "application/json", ...(close ? { connection: "close" } : {}) });
        response.end(COMPLETION);
      });
    });
    counting.on("connection", () => connections++);
    await new Promise<void>((resolve) => counting.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(counting.address() as AddressInfo).port}/v1`;
    return {
      client: () => createModelClient({ model: "m", provider: "openai-compatible", baseURL: base, maxAttempts: 1 }, { env: {}, transport: "pool" }),
      counts: () => ({ connections, requests }),
      close: () => new Promise((resolve) => counting.close(resolve)),
    };
  }
  const turnOfTheLoop = () => new Promise((resolve) => setImmediate(resolve));

  it("calls one after another use at most two connections (a connection is lent again one event-loop turn after its answer)", async () => {
    const server = await countingServer(false);
    try {
      const client = server.client();
      for (let call = 0; call < 8; call++) expect((await client.complete({ messages: history() })).message.content).toBe("ok");
      expect(server.counts()).toEqual({ connections: 2, requests: 8 });
    } finally {
      await server.close();
    }
  });

  it("calls at once open a connection each, and later calls reuse them", async () => {
    const server = await countingServer(false);
    try {
      const client = server.client();
      const batch = async () => {
        const results = await Promise.all(Array.from({ length: 6 }, () => client.complete({ messages: history() })));
        expect(results.map((result) => result.message.content)).toEqual(Array(6).fill("ok"));
      };
      await batch();
      expect(server.counts()).toEqual({ connections: 6, requests: 6 });
      await turnOfTheLoop();
      await turnOfTheLoop();
      await batch();
      expect(server.counts()).toEqual({ connections: 6, requests: 12 });
    } finally {
      await server.close();
    }
  });

  it("a server that closes each connection after its answer still answers every call, each on a new connection", async () => {
    const server = await countingServer(true);
    try {
      const client = server.client();
      for (let call = 0; call < 4; call++) expect((await client.complete({ messages: history() })).message.content).toBe("ok");
      expect(server.counts()).toEqual({ connections: 4, requests: 4 });
    } finally {
      await server.close();
    }
  });
});
