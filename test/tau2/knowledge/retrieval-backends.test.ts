/**
 * `createRetrievalBackends` end to end over real HTTP: the real `openai` SDK against the scripted
 * server on 127.0.0.1 for the embeddings (the original's two embedders' request shapes, the disk
 * cache without secrets, a dead endpoint) and for the pointwise reranker's chat calls (ratings
 * scripted per document, filtered by the minimum score).
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ModelEndpointRefusedError } from "../../../src/model/errors.ts";
import { denseStages, FROZEN_CLOCK, formatPositional, KbSearchPipeline, KnowledgeBase } from "../../../src/suites/tau2/knowledge/index.ts";
import { readPointwiseRerankerPrompt, readQwenQueryInstruction } from "../../../src/suites/tau2/knowledge/messages.ts";
import { createRetrievalBackends } from "../../../src/suites/tau2/retrieval-backends.ts";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedRequest } from "../../../src/testing/index.ts";
import { describeWithTau2Data } from "../../support/shared-data.ts";

const SECRET = "sk-backends-secret-9876543210";
const env = { TEST_EMBEDDINGS_KEY: SECRET, TEST_RERANKER_KEY: SECRET };

const knowledgeBase = new KnowledgeBase([
  { id: "doc_pair", title: "Pair", content: "alpha beta" },
  { id: "doc_gamma", title: "Gamma", content: "gamma alpha" },
  { id: "doc_alpha", title: "Alpha", content: "alpha" },
  { id: "doc_double", title: "Double", content: "alpha alpha beta" },
]);

/** The scripted rating of each document, by content ("oops" is not JSON; "" is an answer without content). */
const RATINGS: Record<string, string> = {
  alpha: '{"relevance_score": 9}',
  "gamma alpha": '{"relevance_score": 7}',
  "alpha alpha beta": '{"relevance_score": 12}',
  "alpha beta": '{"relevance_score": 4}',
};

/** The document inside a reranker prompt: the text after the query, found by the contents we know. */
function ratedContent(request: ScriptedRequest): string {
  const prompt = String(request.messages[0]?.content);
  const contents = Object.keys(RATINGS).sort((a, b) => b.length - a.length);
  return contents.find((content) => prompt.includes(`\n${content}\n`) && !prompt.endsWith(`\n${content}`)) ?? "";
}

async function deadURL(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

describeWithTau2Data("createRetrievalBackends over the scripted server", (dataRoot) => {
  let server: ScriptedModelServer;
  let overrides: Record<string, string> = {};
  beforeAll(async () => {
    server = await startScriptedModelServer({
      embeddingDimensions: 4096,
      responder: (request) => {
        const content = ratedContent(request);
        return { content: overrides[content] ?? RATINGS[content] ?? "" };
      },
    });
  });
  afterAll(() => server.close());
  const embeddingRequests = () => server.requests.filter((request) => request.path.endsWith("/embeddings"));

  it("openai embedder: the model as named, base64 float32, one request for all documents, cached on disk without the key", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "taubridge-backends-"));
    const settings = { dataRoot, cacheDir, env, embedder: { kind: "openai" as const, model: "text-embedding-3-large", baseUrl: server.baseURL, apiKeyVariable: "TEST_EMBEDDINGS_KEY" } };
    const before = embeddingRequests().length;
    const backends = createRetrievalBackends(settings);
    const [retriever, same] = await Promise.all([backends.dense!(knowledgeBase), backends.dense!(knowledgeBase)]);
    expect(same).toBe(retriever);
    const sent = embeddingRequests().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0].body).toMatchObject({ model: "text-embedding-3-large", encoding_format: "base64", input: ["alpha beta", "gamma alpha", "alpha", "alpha alpha beta"] });
    // doc_pair and doc_gamma tie exactly (1/√2): the higher index comes first (dense.ts, "Ranking").
    expect((await retriever.retrieve("alpha")).map(([id]) => id)).toEqual(["doc_alpha", "doc_double", "doc_gamma", "doc_pair"]);
    const files = readdirSync(join(cacheDir, "embeddings"));
    expect(files).toHaveLength(1);
    for (const name of files) expect(readFileSync(join(cacheDir, "embeddings", name)).toString("latin1")).not.toContain(SECRET);
    const fresh = createRetrievalBackends(settings);
    const beforeFresh = embeddingRequests().length;
    await fresh.dense!(knowledgeBase);
    expect(embeddingRequests().length).toBe(beforeFresh);
  });

  it("openrouter qwen embedder: the OpenRouter id, float answers, the instruction on queries only", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "taubridge-backends-"));
    const backends = createRetrievalBackends({
      dataRoot,
      cacheDir,
      env,
      embedder: { kind: "openrouter", model: "qwen3-embedding-8b", baseUrl: server.baseURL, apiKeyVariable: "TEST_EMBEDDINGS_KEY" },
    });
    const before = embeddingRequests().length;
    const retriever = await backends.dense!(knowledgeBase, { topK: 2 });
    expect((await retriever.retrieve("alpha")).length).toBe(2);
    const [documents, query] = embeddingRequests()
      .slice(before)
      .map((request) => request.body as { model: string; encoding_format: string; input: string[] });
    expect(documents).toMatchObject({ model: "qwen/qwen3-embedding-8b", encoding_format: "float", input: ["alpha beta", "gamma alpha", "alpha", "alpha alpha beta"] });
    expect(query.input).toEqual([`Instruct: ${readQwenQueryInstruction(dataRoot)}\nQuery:alpha`]);
  });

  it("a dead embeddings endpoint is an error naming its URL", async () => {
    const url = await deadURL();
    const backends = createRetrievalBackends({
      dataRoot,
      cacheDir: mkdtempSync(join(tmpdir(), "taubridge-backends-")),
      env,
      embedder: { kind: "openai", model: "m", baseUrl: url, apiKeyVariable: "TEST_EMBEDDINGS_KEY" },
    });
    const error = await backends.dense!(knowledgeBase).catch((caught: unknown) => caught);
    expect(ModelEndpointRefusedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(url);
    expect((error as Error).message).not.toContain(SECRET);
  });

  it("reranker: one structured-output call per document, the prompt from the original's source, kept when rated >= min score, best first", async () => {
    const backends = createRetrievalBackends({
      dataRoot,
      cacheDir: mkdtempSync(join(tmpdir(), "taubridge-backends-")),
      env,
      embedder: { kind: "openai", model: "m", baseUrl: server.baseURL, apiKeyVariable: "TEST_EMBEDDINGS_KEY" },
      reranker: { model: "rerank-model", provider: "openai-compatible", baseUrl: server.baseURL, apiKeyVariable: "TEST_RERANKER_KEY" },
    });
    const pipeline = new KbSearchPipeline(knowledgeBase, denseStages(await backends.dense!(knowledgeBase)), { dataRoot, reranker: backends.reranker!(), clock: FROZEN_CLOCK });
    const text = await pipeline.search("alpha");
    expect(text.match(/ID: \S+|Score: \S+/g)).toEqual(["ID: doc_double", "Score: 10.0000", "ID: doc_alpha", "Score: 9.0000", "ID: doc_gamma", "Score: 7.0000"]);
    expect(text).toMatch(/\[Timing: retrieval=0ms, total=0ms\]$/);
    const calls = server.requestsFor("rerank-model");
    expect(calls).toHaveLength(4);
    const template = readPointwiseRerankerPrompt(dataRoot);
    const prompts = calls.map((call) => (call.body as { messages: Array<{ role: string; content: string }> }).messages);
    expect(prompts).toContainEqual([{ role: "user", content: formatPositional(template, ["alpha", "alpha alpha beta"]) }]);
    const body = calls[0].body as Record<string, unknown>;
    expect(body.response_format).toMatchObject({ type: "json_schema", json_schema: { name: "RelevanceScore", strict: true, schema: { required: ["relevance_score"], additionalProperties: false } } });
    expect(body).not.toHaveProperty("reasoning_effort");
  });

  it("reranker: reranker_min_score, a rating that does not parse is dropped, an answer without content rates 0", async () => {
    overrides = { alpha: "oops", "gamma alpha": "" };
    try {
      const backends = createRetrievalBackends({
        dataRoot,
        cacheDir: mkdtempSync(join(tmpdir(), "taubridge-backends-")),
        env,
        embedder: { kind: "openai", model: "m", baseUrl: server.baseURL, apiKeyVariable: "TEST_EMBEDDINGS_KEY" },
        reranker: { model: "gpt-5-mini", provider: "openai-compatible", baseUrl: server.baseURL },
      });
      const retriever = await backends.dense!(knowledgeBase);
      const search = (minScore: number) => new KbSearchPipeline(knowledgeBase, denseStages(retriever), { dataRoot, reranker: backends.reranker!({ minScore }), clock: FROZEN_CLOCK }).search("alpha");
      expect((await search(0)).match(/ID: \S+|Score: \S+/g)).toEqual(["ID: doc_double", "Score: 10.0000", "ID: doc_pair", "Score: 4.0000", "ID: doc_gamma", "Score: 0.0000"]);
      expect((await search(11)).match(/ID:/g)).toBeNull();
      expect((server.requestsFor("gpt-5-mini")[0].body as Record<string, unknown>).reasoning_effort).toBe("low");
    } finally {
      overrides = {};
    }
  });

  it("reranker: an endpoint that refuses connections fails the search instead of finding nothing", async () => {
    const backends = createRetrievalBackends({
      dataRoot,
      cacheDir: mkdtempSync(join(tmpdir(), "taubridge-backends-")),
      env,
      embedder: { kind: "openai", model: "m", baseUrl: server.baseURL, apiKeyVariable: "TEST_EMBEDDINGS_KEY" },
      reranker: { model: "rerank-model", provider: "openai-compatible", baseUrl: await deadURL() },
    });
    const pipeline = new KbSearchPipeline(knowledgeBase, denseStages(await backends.dense!(knowledgeBase)), { dataRoot, reranker: backends.reranker!() });
    const error = await pipeline.search("alpha").catch((caught: unknown) => caught);
    expect(ModelEndpointRefusedError.isInstance(error)).toBe(true);
  });
});
