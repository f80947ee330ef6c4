import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getEventListeners } from "node:events";
import { inspect } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, InfraError, UnknownNameError } from "../src/errors/error-tree.ts";
import type { ChatMessage } from "../src/core/types.ts";
import {
  cacheKey,
  computeCost,
  createModelClient,
  loadPriceFile,
  ModelCallError,
  ModelTimeoutError,
  parsePriceTable,
  parseRetryAfter,
  PLACEHOLDER_API_KEY,
  PROVIDER_NAMES,
  ResponseCache,
  UsageTotals,
  type ModelClientConfig,
  type ToolDefinition,
} from "../src/model/index.ts";
import { CostCalculator, type CostInput } from "../src/model/pricing.ts";
import { REDACTED } from "../src/secrets/redact.ts";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedModelServerOptions } from "../src/testing/index.ts";

const SECRET = "sk-test-SECRET-key-0123456789abcdefXYZ";
const ENV = { OPENAI_API_KEY: SECRET };
const FAST_RETRY = { initialDelayMs: 5, maxDelayMs: 20 };

let server: ScriptedModelServer | undefined;
let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "taubridge-model-"));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(directory, { recursive: true, force: true });
});

async function start(options: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  server = await startScriptedModelServer(options);
  return server;
}

function clientFor(target: ScriptedModelServer, config: Partial<ModelClientConfig> = {}, env: Record<string, string> = ENV) {
  return createModelClient({ model: "gpt-4o", provider: "openai", baseURL: target.baseURL, timeoutMs: 5_000, maxAttempts: 3, retry: FAST_RETRY, ...config }, { env });
}

const messages: ChatMessage[] = [
  { role: "system", content: "You are a retail agent." },
  { role: "user", content: "Where is my order #W123?" },
];

const tools: ToolDefinition[] = [
  {
    type: "function",
    function: {
      name: "get_order_details",
      description: "Get the status and details of an order.",
      parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
    },
  },
];

/** Every way an error could be shown or stored. */
function allRenderings(error: unknown): string {
  const value = error as Error;
  return [value.message, value.stack ?? "", JSON.stringify(error), inspect(error, { depth: null, showHidden: true }), String(error)].join("\n");
}

describe("model client: completions through the real openai SDK", () => {
  it("returns a plain answer with usage, latency and cost", async () => {
    const target = await start({ steps: [{ content: "Your order has shipped.", usage: { prompt_tokens: 1000, completion_tokens: 100 } }] });
    const client = clientFor(target);
    const result = await client.complete({ messages });
    expect(result.message).toEqual({ role: "assistant", content: "Your order has shipped." });
    expect(result.usage).toEqual({ promptTokens: 1000, completionTokens: 100 });
    // gpt-4o list price from genai-prices: $2.50 in / $10 out per 1M tokens.
    expect(result.cost).toBeCloseTo(0.0035, 10);
    expect(result.costSource).toBe("genai-prices");
    expect(result.cached).toBe(false);
    expect(result.attempts).toBe(1);
    expect(result.finishReason).toBe("stop");
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(client.usage.toJSON()).toMatchObject({ calls: 1, promptTokens: 1000, completionTokens: 100, unpricedCalls: 0 });
    expect(client.usage.cost).toBeCloseTo(0.0035, 10);
    // The request carried exactly what the client was asked to send (no temperature unless set).
    expect(target.requests[0]?.body).toEqual({ model: "gpt-4o", messages });
    expect(target.requests[0]?.hadAuthorization).toBe(true);
  });

  it("returns tool calls and sends tools, temperature and tool choice", async () => {
    const target = await start({
      steps: [{ tool_calls: [{ id: "call_abc", name: "get_order_details", arguments: '{"order_id": "#W123"}' }], usage: { prompt_tokens: 50, completion_tokens: 20 } }],
    });
    const client = clientFor(target, { temperature: 0.5, params: { max_tokens: 256 } });
    const result = await client.complete({ messages, tools, temperature: 0, toolChoice: "auto" });
    expect(result.message).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_abc", type: "function", function: { name: "get_order_details", arguments: '{"order_id": "#W123"}' } }],
    });
    expect(result.finishReason).toBe("tool_calls");
    expect(target.requests[0]?.body).toEqual({ model: "gpt-4o", messages, tools, temperature: 0, tool_choice: "auto", max_tokens: 256 });

    // The configured temperature applies when the call gives none; empty tool lists are not sent.
    await expect(client.complete({ messages, tools: [] })).rejects.toThrow(ModelCallError); // script exhausted → 500s
    const body = target.requests.at(-1)?.body as Record<string, unknown>;
    expect(body.temperature).toBe(0.5);
    expect(body).not.toHaveProperty("tools");
  });

  it("prices with a user price file, which overrides the catalogue; unknown models cost null", async () => {
    const priceFile = join(directory, "prices.json");
    await writeFile(priceFile, JSON.stringify({ "my-local-model": { input: 1, output: 2 }, "openai:gpt-4o": { input: 100, output: 100, cachedInput: 10 }, "gpt-4o": { input: 999, output: 999 } }));
    const prices = await loadPriceFile(priceFile);
    const usage = { prompt_tokens: 1000, completion_tokens: 500 };
    const target = await start({
      scripts: {
        "my-local-model": [{ content: "a", usage }],
        "gpt-4o": [{ content: "b", usage: { ...usage, cached_tokens: 400 } }],
        "totally-unknown-model": [
          { content: "c", usage },
          { content: "d", usage },
        ],
      },
    });

    const local = clientFor(target, { model: "my-local-model", provider: "vllm", prices }, {});
    const localResult = await local.complete({ messages });
    expect(localResult.cost).toBeCloseTo((1000 * 1 + 500 * 2) / 1e6, 12);
    expect(localResult.costSource).toBe("price-file");

    // provider:model wins over the bare model key; cached prompt tokens use cachedInput.
    const openai = clientFor(target, { model: "gpt-4o", prices });
    const openaiResult = await openai.complete({ messages });
    expect(openaiResult.usage).toEqual({ promptTokens: 1000, completionTokens: 500, cachedPromptTokens: 400 });
    expect(openaiResult.cost).toBeCloseTo((600 * 100 + 400 * 10 + 500 * 100) / 1e6, 12);

    const unknown = clientFor(target, { model: "totally-unknown-model", prices });
    const unknownResult = await unknown.complete({ messages });
    expect(unknownResult.cost).toBeNull();
    expect(unknownResult.costSource).toBeNull();
    await unknown.complete({ messages });
    expect(unknown.usage.toJSON()).toEqual({
      calls: 2,
      cachedCalls: 0,
      promptTokens: 2000,
      completionTokens: 1000,
      cost: null,
      unpricedCalls: 2,
      pricedCost: 0,
      cachedCost: 0,
      failedCalls: 0,
    });
  });

  it("does not guess catalogue prices for local servers", () => {
    const usage = { promptTokens: 1000, completionTokens: 100 };
    const base = { model: "gpt-4o", baseURL: "http://localhost:8000/v1", usage };
    expect(computeCost({ ...base, provider: "vllm", catalogue: "none" }).cost).toBeNull();
    expect(computeCost({ ...base, provider: "openai-compatible", catalogue: "by-base-url" }).cost).toBeNull();
    expect(computeCost({ ...base, provider: "openai", catalogue: { providerId: "openai" } }).cost).toBeCloseTo(0.0035, 10);
    expect(computeCost({ ...base, model: "claude-3-5-sonnet-latest", provider: "anthropic", catalogue: { providerId: "anthropic" } }).cost).toBeCloseTo(0.0045, 10);
    expect(computeCost({ ...base, provider: "openai", catalogue: { providerId: "openai" }, usage: { ...usage, reported: false } }).cost).toBeNull();
    expect(() => parsePriceTable({ m: { input: -1, output: 1 } })).toThrow(ConfigError);
    expect(() => parsePriceTable({ m: { input: 1 } })).toThrow(/output/);
  });

  it("gives the same prices when the catalogue lookups are remembered", () => {
    // The first call resolves the provider from the base URL (and learns unknown models); later
    // calls take the remembered route and must price identically.
    const usage = { promptTokens: 1000, completionTokens: 100 };
    const viaURL = { provider: "openrouter", catalogue: "by-base-url" as const, baseURL: "https://api.openai.com/v1", usage };
    const first = computeCost({ ...viaURL, model: "gpt-4o" });
    expect(first).toEqual({ cost: expect.closeTo(0.0035, 10), source: "genai-prices" });
    expect(computeCost({ ...viaURL, model: "gpt-4o" })).toEqual(first);
    expect(computeCost({ ...viaURL, model: "gpt-4o", usage: { promptTokens: 2000, completionTokens: 200 } }).cost).toBeCloseTo(0.007, 10);
    for (let call = 0; call < 2; call++) {
      expect(computeCost({ ...viaURL, model: "no-such-model-anywhere" })).toEqual({ cost: null, source: null });
      expect(computeCost({ ...viaURL, model: "no-such-model-anywhere", prices: { "no-such-model-anywhere": { input: 1, output: 2 } } }).cost).toBeCloseTo(0.0012, 10);
    }
  });

  it("prices a client's calls with a calculator made once exactly as computeCost prices each call", () => {
    // A fresh base URL, so the first call through each path resolves it and the later ones are remembered.
    const usages = [
      { promptTokens: 1000, completionTokens: 100 },
      { promptTokens: 2000, completionTokens: 200, cachedPromptTokens: 500 },
      { promptTokens: 5, completionTokens: 1, reported: false as const },
    ];
    const inputs: Array<Omit<CostInput, "usage">> = [
      { provider: "openrouter", model: "gpt-4o", catalogue: "by-base-url", baseURL: "https://api.openai.com/v1/" },
      { provider: "openrouter", model: "no-such-model-at-all", catalogue: "by-base-url", baseURL: "https://api.openai.com/v1/" },
      {
        provider: "fireworks",
        model: "short-name",
        catalogueModel: "accounts/fireworks/models/no-such-model",
        catalogue: { providerId: "fireworks" },
        baseURL: "https://api.fireworks.ai/inference/v1",
      },
      { provider: "vllm", model: "local", catalogue: "none", baseURL: "http://localhost:8000/v1" },
      { provider: "vllm", model: "local", catalogue: "none", baseURL: "http://localhost:8000/v1", prices: { "vllm:local": { input: 1, output: 2, cachedInput: 0.5 } } },
      { provider: "openai", model: "gpt-4o", catalogue: { providerId: "openai" }, baseURL: undefined, prices: { "gpt-4o": { input: 3, output: 4 } } },
    ];
    for (const input of inputs) {
      const calculator = new CostCalculator(input);
      for (let round = 0; round < 2; round++) {
        for (const usage of usages) expect(calculator.cost(usage)).toEqual(computeCost({ ...input, usage }));
      }
    }
  });
});

describe("model client: retries, errors and timeouts", () => {
  it("survives a 429 storm within bounded attempts, honouring retry-after", async () => {
    const target = await start({
      steps: [
        { error: { status: 429, retryAfter: 0 } },
        { error: { status: 429, retryAfterMs: 120 } },
        { error: { status: 429, retryAfterMs: 120 } },
        { content: "finally", usage: { prompt_tokens: 5, completion_tokens: 1 } },
      ],
    });
    // A backoff far beyond the test's own timeout: the test only finishes if the server's retry-after is used instead.
    const client = clientFor(target, { maxAttempts: 4, retry: { initialDelayMs: 3_600_000, maxDelayMs: 3_600_000 } });
    const started = performance.now();
    const result = await client.complete({ messages });
    const elapsed = performance.now() - started;
    expect(result.message.content).toBe("finally");
    expect(result.attempts).toBe(4);
    expect(elapsed).toBeGreaterThanOrEqual(230);
    expect(target.requests).toHaveLength(4);
    target.assertAllConsumed();
  });

  it("retries a 500 then succeeds", async () => {
    const target = await start({ steps: [{ error: { status: 500 } }, { content: "ok" }] });
    const client = clientFor(target);
    const result = await client.complete({ messages });
    expect(result.message.content).toBe("ok");
    expect(result.attempts).toBe(2);
    expect(client.usage.calls).toBe(1);
  });

  it("gives up after maxAttempts with the HTTP status, and never retries a 400", async () => {
    const target = await start({
      scripts: {
        flaky: [{ error: { status: 503 }, times: 3 }, { content: "too late" }],
        broken: [{ error: { status: 400, body: { error: { message: "bad tool schema", type: "invalid_request_error" } } } }, { content: "never" }],
      },
    });
    const flaky = clientFor(target, { model: "flaky", maxAttempts: 3 });
    const error = (await flaky.complete({ messages }).catch((caught: unknown) => caught)) as ModelCallError;
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toBeInstanceOf(InfraError);
    expect(error.status).toBe(503);
    expect(error.attempts).toBe(3);
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/agent model "flaky" \(openai at http:\/\/127\.0\.0\.1:\d+\/v1\): HTTP 503 after 3 attempts/);
    expect(target.requestsFor("flaky")).toHaveLength(3);
    expect(flaky.usage.failedCalls).toBe(1);
    expect(flaky.usage.calls).toBe(0);

    const broken = clientFor(target, { model: "broken", maxAttempts: 5, role: "judge" });
    const badRequest = (await broken.complete({ messages }).catch((caught: unknown) => caught)) as ModelCallError;
    expect(badRequest.status).toBe(400);
    expect(badRequest.attempts).toBe(1);
    expect(badRequest.retryable).toBe(false);
    expect(badRequest.role).toBe("judge");
    expect(badRequest.responseBody).toMatchObject({ message: "bad tool schema" });
    expect(target.requestsFor("broken")).toHaveLength(1);
  });

  it("times out each attempt and reports a ModelTimeoutError", async () => {
    // The slow answer would come long after the test's own timeout: the client must give up by itself.
    const target = await start({ steps: [{ content: "slow", delayMs: 3_600_000, times: 2 }] });
    const client = clientFor(target, { timeoutMs: 200, maxAttempts: 2 });
    const error = (await client.complete({ messages }).catch((caught: unknown) => caught)) as ModelTimeoutError;
    expect(error).toBeInstanceOf(ModelTimeoutError);
    expect(error.timeoutMs).toBe(200);
    expect(error.attempts).toBe(2);
    expect(error.message).toContain("timed out after 200 ms (2 attempts)");
    expect(target.requests).toHaveLength(2);
  });

  it("stops at once when the caller aborts, rejecting with the signal's reason", async () => {
    const target = await start({ steps: [{ error: { status: 429, retryAfterMs: 10_000 } }, { content: "never" }] });
    const client = clientFor(target, { maxAttempts: 3 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("run cancelled")), 100);
    await expect(client.complete({ messages, signal: controller.signal })).rejects.toThrow("run cancelled");
    expect(target.requests).toHaveLength(1);
  });

  it("gives a long-lived signal one listener at most: no MaxListenersExceededWarning however many calls share it", async () => {
    const target = await start({ steps: [{ content: "ok", times: "unlimited" }] });
    const client = clientFor(target);
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      // One episode's signal, passed to every call of the episode (the user simulator's and the agent's).
      const episode = new AbortController();
      for (let call = 0; call < 15; call++) await client.complete({ messages, signal: episode.signal });
      expect(getEventListeners(episode.signal, "abort").length).toBeLessThanOrEqual(1);
      await Promise.all(Array.from({ length: 12 }, () => client.complete({ messages, signal: episode.signal })));
      expect(getEventListeners(episode.signal, "abort").length).toBeLessThanOrEqual(1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("parses retry-after headers within 0–60 s only", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter({ "retry-after-ms": "250" })).toBe(250);
    expect(parseRetryAfter({ "retry-after-ms": "250", "retry-after": "9" })).toBe(250);
    expect(parseRetryAfter({ "retry-after": "2" })).toBe(2_000);
    expect(parseRetryAfter({ "retry-after": "0" })).toBe(0);
    expect(parseRetryAfter({ "retry-after": "120" })).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "Wed, 01 Jan 2025 00:00:05 GMT" }, now)).toBe(5_000);
    expect(parseRetryAfter({ "retry-after": "soon" })).toBeUndefined();
    expect(parseRetryAfter(new Headers({ "Retry-After": "1" }))).toBe(1_000);
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe("model client: response cache", () => {
  it("replays a cached response identically with zero requests to the server", async () => {
    const target = await start({
      steps: [{ content: "cached answer", tool_calls: [{ id: "call_1", name: "get_order_details", arguments: '{"order_id":"#W1"}' }], usage: { prompt_tokens: 1000, completion_tokens: 100 } }],
    });
    const cacheDirectory = join(directory, "cache");
    const first = clientFor(target, { cache: cacheDirectory });
    const original = await first.complete({ messages, tools, temperature: 0 });
    expect(original.cached).toBe(false);
    expect(target.requests).toHaveLength(1);

    // A fresh client (another process, another API key) on the same directory: no request at all.
    const second = clientFor(target, { cache: cacheDirectory }, { OPENAI_API_KEY: "sk-another-key-000000000000000000" });
    const replay = await second.complete({ messages, tools, temperature: 0 });
    expect(target.requests).toHaveLength(1);
    expect(replay.cached).toBe(true);
    expect(replay.attempts).toBe(0);
    expect(replay.message).toEqual(original.message);
    expect(replay.usage).toEqual(original.usage);
    expect(replay.cost).toBe(original.cost);
    expect(replay.finishReason).toBe(original.finishReason);
    expect(second.usage.toJSON()).toMatchObject({ calls: 1, cachedCalls: 1, promptTokens: 1000, completionTokens: 100 });
    expect(second.usage.cachedCost).toBeCloseTo(0.0035, 10);
    expect(second.cache?.stats.hits).toBe(1);

    // Anything that changes the request (temperature, namespace such as the trial) misses.
    await expect(second.complete({ messages, tools, temperature: 0, cacheNamespace: "trial:1" })).rejects.toThrow(ModelCallError);
    expect(target.requests.length).toBeGreaterThan(1);

    // One JSON file per key, no temp files left over, no API key anywhere.
    const shards = await readdir(cacheDirectory);
    const files = (await Promise.all(shards.map((shard) => readdir(join(cacheDirectory, shard))))).flat();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{64}\.json$/);
    const text = await readFile(join(cacheDirectory, shards[0] ?? "", files[0] ?? ""), "utf8");
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text)).toMatchObject({ schemaVersion: 1, request: { model: "gpt-4o", provider: "openai" } });
  });

  it("keys on the whole request but not on key order or the API key", () => {
    const base = { provider: "openai", model: "m", baseURL: "http://x/v1", messages: [{ role: "user", content: "hi" }] };
    const key = cacheKey(base);
    expect(cacheKey({ baseURL: "http://x/v1/", messages: [{ content: "hi", role: "user" }], model: "m", provider: "openai" })).toBe(key);
    expect(cacheKey({ ...base, temperature: 0 })).not.toBe(key);
    expect(cacheKey({ ...base, tools })).not.toBe(key);
    expect(cacheKey({ ...base, toolChoice: "required" })).not.toBe(key);
    expect(cacheKey({ ...base, model: "m2" })).not.toBe(key);
    expect(cacheKey({ ...base, baseURL: "http://y/v1" })).not.toBe(key);
    expect(cacheKey({ ...base, params: { seed: 1 } })).not.toBe(key);
    expect(cacheKey({ ...base, namespace: "trial:0" })).not.toBe(key);
  });

  it("treats a corrupt entry as a miss", async () => {
    const cache = new ResponseCache(directory);
    const key = "ab".padEnd(64, "0");
    await cache.set(
      key,
      { provider: "openai", model: "m", baseURL: "http://x", messages: [] },
      {
        message: { role: "assistant", content: "x" },
        usage: { promptTokens: 1, completionTokens: 1 },
        cost: null,
        finishReason: "stop",
        latencyMs: 1,
      },
    );
    expect((await cache.get(key))?.message.content).toBe("x");
    await writeFile(cache.pathFor(key), "{ truncated");
    expect(await cache.get(key)).toBeUndefined();
    expect(cache.stats).toMatchObject({ hits: 1, misses: 1, corrupt: 1, writes: 1 });
  });
});

describe("model client: configuration and secrets", () => {
  it("rejects unknown providers with the list of known ones", () => {
    const error = (() => {
      try {
        createModelClient({ model: "m", provider: "openia", timeoutMs: 1000, maxAttempts: 1 }, { env: ENV });
      } catch (caught) {
        return caught;
      }
    })() as UnknownNameError;
    expect(error).toBeInstanceOf(UnknownNameError);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.known).toEqual(PROVIDER_NAMES);
    expect(error.message).toContain("openai, openai-compatible, vllm, ollama, llamacpp, lmstudio, openrouter, anthropic");
  });

  it("validates the config with zod and needs keys only where the provider does", () => {
    expect(() => createModelClient({ model: "", provider: "openai" }, { env: ENV })).toThrow(ConfigError);
    expect(() => createModelClient({ model: "m", provider: "openai", maxAttempts: 0 }, { env: ENV })).toThrow(/maxAttempts/);
    expect(() => createModelClient({ model: "m", provider: "openai", bogus: 1 } as never, { env: ENV })).toThrow(/bogus/);
    expect(() => createModelClient({ model: "m", provider: "openai", params: { messages: [] } }, { env: ENV })).toThrow(/may not set/);
    expect(() => createModelClient({ model: "m", provider: "openai-compatible" }, { env: {} })).toThrow(/set baseURL/);
    expect(() => createModelClient({ model: "m", provider: "openrouter" }, { env: {} })).toThrow(/OPENROUTER_API_KEY/);
    expect(() => createModelClient({ model: "m", provider: "anthropic" }, { env: {} })).toThrow(/ANTHROPIC_API_KEY/);
    expect(() => createModelClient({ model: "m", provider: "ollama", apiKeyEnv: "MY_KEY" }, { env: {} })).toThrow(/MY_KEY/);

    const ollama = createModelClient({ model: "llama3.1", provider: "ollama" }, { env: {} });
    expect(ollama.baseURL).toBe("http://localhost:11434/v1");
    expect(ollama.describe()).toMatchObject({ provider: "ollama", apiKeyEnv: null, timeoutMs: 120_000, maxAttempts: 6, temperature: null });
    expect(createModelClient({ model: "m", provider: "vllm" }, { env: {} }).baseURL).toBe("http://localhost:8000/v1");
    expect(createModelClient({ model: "m", provider: "llamacpp" }, { env: {} }).baseURL).toBe("http://localhost:8080/v1");
    expect(createModelClient({ model: "m", provider: "lmstudio" }, { env: {} }).baseURL).toBe("http://localhost:1234/v1");
    expect(createModelClient({ model: "m", provider: "openrouter" }, { env: { OPENROUTER_API_KEY: "k" } }).baseURL).toBe("https://openrouter.ai/api/v1");
    expect(createModelClient({ model: "m", provider: "anthropic", role: "user" }, { env: { ANTHROPIC_API_KEY: "k" } }).baseURL).toBe("https://api.anthropic.com/v1/");
  });

  it("never puts the key in config errors, even when the key itself is passed as apiKeyEnv", () => {
    let caught: unknown;
    try {
      createModelClient({ model: "m", provider: "openai", apiKeyEnv: SECRET }, { env: ENV });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect(allRenderings(caught)).not.toContain(SECRET);
    expect((caught as Error).message).toContain("NAME of an environment variable");
  });

  it("never exposes the API key in errors, results, descriptions or recorded requests", async () => {
    const target = await start({
      scripts: {
        "gpt-4o": [
          { error: { status: 401, body: { error: { message: `Incorrect API key provided: ${SECRET}. Also sk-abc***xyz`, type: "invalid_request_error", code: "invalid_api_key" } } } },
          { content: `ok` },
        ],
        local: [{ content: "local ok" }],
      },
    });
    const client = clientFor(target);
    const error = await client.complete({ messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).status).toBe(401);
    expect(allRenderings(error)).not.toContain(SECRET);
    expect(allRenderings(error)).toContain(REDACTED);
    expect(inspect((error as ModelCallError).responseBody, { depth: null })).not.toContain(SECRET);

    const result = await client.complete({ messages });
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(JSON.stringify(client.describe())).not.toContain(SECRET);
    expect(inspect(client, { depth: 6, showHidden: true })).not.toContain(SECRET);
    expect(JSON.stringify(client.usage)).not.toContain(SECRET);
    expect(JSON.stringify(target.requests)).not.toContain(SECRET);
    expect(target.requests.every((record) => record.hadAuthorization && record.headers.authorization === undefined)).toBe(true);

    // Local servers get a placeholder key, not some other variable's value.
    const local = clientFor(target, { model: "local", provider: "vllm" }, { ...ENV });
    await local.complete({ messages });
    expect(local.describe().apiKeyEnv).toBeNull();
    expect(PLACEHOLDER_API_KEY).not.toContain("sk-");
  });
});

describe("usage totals", () => {
  it("sums tokens always, and cost only while every call is priced", () => {
    const totals = new UsageTotals();
    totals.add({ usage: { promptTokens: 10, completionTokens: 5 }, cost: 0.5, cached: false });
    totals.add({ usage: { promptTokens: 20, completionTokens: 1 }, cost: 0.25, cached: true });
    expect(totals.cost).toBe(0.75);
    totals.add({ usage: { promptTokens: 1, completionTokens: 1 }, cost: null, cached: false });
    totals.addFailure();
    expect(totals.toJSON()).toEqual({
      calls: 3,
      cachedCalls: 1,
      promptTokens: 31,
      completionTokens: 7,
      cost: null,
      unpricedCalls: 1,
      pricedCost: 0.75,
      cachedCost: 0.25,
      failedCalls: 1,
    });
    const merged = UsageTotals.fromJSON(totals.toJSON());
    merged.merge(new UsageTotals());
    expect(merged.toJSON()).toEqual(totals.toJSON());
    expect(new UsageTotals().cost).toBe(0); // no calls: nothing spent, a known zero
  });
});
