/**
 * The embeddings client (`src/model/embedding-client.ts`) over the real `openai` SDK against the
 * scripted server's `POST /v1/embeddings` on 127.0.0.1: the vectors are the documented hashed bag
 * of words (components computed by hand with Python's hashlib), in both number formats, batched as
 * asked; a dead endpoint is an error naming its URL; the key never leaves its closure.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../src/errors/error-tree.ts";
import { createEmbeddingClient } from "../src/model/embedding-client.ts";
import { ModelEndpointRefusedError } from "../src/model/errors.ts";
import { scriptedEmbedding, scriptedTokenComponent, startScriptedModelServer, type ScriptedModelServer } from "../src/testing/index.ts";
import { refusedPort } from "./support/refused-port.ts";

const SECRET = "sk-test-embeddings-0123456789";

describe("the scripted embeddings endpoint", () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await startScriptedModelServer();
  });
  afterAll(() => server.close());

  it("hashes tokens as documented (sha256 of the token, first four bytes big-endian, mod dimensions)", () => {
    // python3: int.from_bytes(hashlib.sha256(b"alpha").digest()[:4], "big") % 64 == 45, … % 4096 == 1709
    expect([scriptedTokenComponent("alpha"), scriptedTokenComponent("beta"), scriptedTokenComponent("gamma")]).toEqual([45, 39, 61]);
    expect(scriptedTokenComponent("alpha", 4096)).toBe(1709);
    const vector = scriptedEmbedding("Alpha, alpha! BETA");
    expect(vector[45]).toBe(2);
    expect(vector[39]).toBe(1);
    expect(vector.reduce((sum, value) => sum + value, 0)).toBe(3);
    expect(scriptedEmbedding("?!").every((value) => value === 0)).toBe(true);
  });

  it("answers the real openai SDK in float and base64 (float32) form", async () => {
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: "unused", maxRetries: 0 });
    const asFloat = await client.embeddings.create({ model: "m", input: ["alpha beta", "gamma"], encoding_format: "float" });
    expect(asFloat.data.map((item) => item.embedding)).toEqual([scriptedEmbedding("alpha beta"), scriptedEmbedding("gamma")]);
    expect(asFloat.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    const asDefault = await client.embeddings.create({ model: "m", input: "alpha beta" }); // the SDK asks for base64 and decodes float32
    expect(asDefault.data[0].embedding).toEqual(scriptedEmbedding("alpha beta"));
  });

  it("rejects an empty input string with a 400, as OpenAI does", async () => {
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: "unused", maxRetries: 0 });
    await expect(client.embeddings.create({ model: "m", input: ["ok", ""] })).rejects.toMatchObject({ status: 400 });
  });
});

describe("createEmbeddingClient", () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await startScriptedModelServer({ embeddingDimensions: 8 });
  });
  afterAll(() => server.close());

  it("embeds in order, in one request by default and in batches when asked", async () => {
    const texts = ["alpha", "beta gamma", "delta delta", "alpha beta"];
    const single = createEmbeddingClient({ model: "emb", provider: "openai-compatible", baseURL: server.baseURL });
    const before = server.requests.length;
    expect(await single.embed(texts)).toEqual(texts.map((text) => scriptedEmbedding(text, 8)));
    expect(server.requests.length - before).toBe(1);
    const batched = createEmbeddingClient({ model: "emb", provider: "openai-compatible", baseURL: server.baseURL, batchSize: 3 });
    expect(await batched.embed(texts)).toEqual(texts.map((text) => scriptedEmbedding(text, 8)));
    const sent = server.requests.slice(-2).map((request) => (request.body as { input: string[]; encoding_format: string }).input);
    expect(sent).toEqual([texts.slice(0, 3), texts.slice(3)]);
  });

  it("names its number format in every request (base64 by default, float for OpenRouter-style embedders)", async () => {
    const float = createEmbeddingClient({ model: "emb", provider: "openai-compatible", baseURL: server.baseURL, encodingFormat: "float" });
    await float.embed(["alpha"]);
    expect((server.requests.at(-1)?.body as { encoding_format: string }).encoding_format).toBe("float");
    const base64 = createEmbeddingClient({ model: "emb", provider: "openai-compatible", baseURL: server.baseURL });
    await base64.embed(["alpha"]);
    expect((server.requests.at(-1)?.body as { encoding_format: string }).encoding_format).toBe("base64");
  });

  it("keeps the key out of its identity and out of recorded requests", async () => {
    const client = createEmbeddingClient({ model: "emb", provider: "openai-compatible", baseURL: server.baseURL, apiKeyEnv: "EMB_KEY" }, { env: { EMB_KEY: SECRET } });
    await client.embed(["alpha"]);
    expect(JSON.stringify(client)).not.toContain(SECRET);
    expect(client.identity).toEqual({ model: "emb", endpoint: server.baseURL, encodingFormat: "base64" });
    expect(server.requests.at(-1)?.hadAuthorization).toBe(true);
    expect(JSON.stringify(server.requests.at(-1))).not.toContain(SECRET);
  });

  it("needs the key it is told to read", () => {
    expect(() => createEmbeddingClient({ model: "text-embedding-3-large" }, { env: {} })).toThrow(ConfigError);
    expect(() => createEmbeddingClient({ model: "text-embedding-3-large" }, { env: {} })).toThrow(/OPENAI_API_KEY/);
  });

  it("fails at once on a dead endpoint, naming the model and the URL", async () => {
    const url = `http://127.0.0.1:${await refusedPort()}/v1`;
    const client = createEmbeddingClient({ model: "emb", provider: "openai-compatible", baseURL: url, apiKeyEnv: "EMB_KEY" }, { env: { EMB_KEY: SECRET } });
    const error = await client.embed(["alpha"]).catch((caught: unknown) => caught);
    expect(ModelEndpointRefusedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(url);
    expect((error as Error).message).toContain('embeddings model "emb"');
    expect((error as Error).message).not.toContain(SECRET);
  });
});
