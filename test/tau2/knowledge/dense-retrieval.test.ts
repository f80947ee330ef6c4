/**
 * Dense retrieval, the document-embedding cache and the KB search pipeline of
 * src/suites/tau2/knowledge with an in-process embedder that returns the scripted server's vectors
 * (hashed bag of words, 4096 components: the four words used fall in four different components, so
 * every cosine is computed by hand below).
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, expect, it } from "vitest";
import {
  DenseRetriever,
  DocumentEmbeddingCache,
  denseStages,
  type Embedder,
  FROZEN_CLOCK,
  KbSearchPipeline,
  KnowledgeBase,
  pySliceTo,
  retrievalMessages,
} from "../../../src/suites/tau2/knowledge/index.ts";
import { scriptedEmbedding, scriptedTokenComponent } from "../../../src/testing/index.ts";
import { PyException } from "../../../src/value/index.ts";
import { describeWithTau2Data } from "../../support/shared-data.ts";

const DIMENSIONS = 4096;

/** Four documents whose cosines to "alpha" are 1, 2/√5, 1/√2 and 0. */
const knowledgeBase = new KnowledgeBase([
  { id: "doc_pair", title: "Pair", content: "alpha beta" },
  { id: "doc_gamma", title: "Gamma", content: "gamma" },
  { id: "doc_alpha", title: "Alpha", content: "alpha" },
  { id: "doc_double", title: "Double", content: "alpha alpha beta" },
]);

/** An embedder over the scripted vectors that counts what it was asked. */
function countingEmbedder(model = "scripted"): Embedder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    identity: { model, endpoint: "http://127.0.0.1:1/v1", encodingFormat: "float" },
    embed: async (texts) => {
      calls.push([...texts]);
      return texts.map((text) => scriptedEmbedding(text, DIMENSIONS));
    },
  };
}

it("the four words fall in four different components (so the hand-computed cosines hold)", () => {
  expect(new Set(["alpha", "beta", "gamma", "delta"].map((word) => scriptedTokenComponent(word, DIMENSIONS))).size).toBe(4);
});

it("pySliceTo slices as Python's items[:k]", () => {
  expect(pySliceTo([1, 2, 3], 2)).toEqual([1, 2]);
  expect(pySliceTo([1, 2, 3], 10)).toEqual([1, 2, 3]);
  expect(pySliceTo([1, 2, 3], 0)).toEqual([]);
  expect(pySliceTo([1, 2, 3], -1)).toEqual([1, 2]);
  expect(pySliceTo([1, 2, 3], -5)).toEqual([]);
  expect(() => pySliceTo([1], 1.5)).toThrow(PyException);
});

describeWithTau2Data("dense retrieval over a small knowledge base", (dataRoot) => {
  let cacheDir: string;
  const warnings: string[] = [];
  beforeEach(() => {
    cacheDir = mkdtempSync(join(tmpdir(), "taubridge-embeddings-"));
    warnings.length = 0;
  });
  const cache = () => new DocumentEmbeddingCache(cacheDir, (message) => warnings.push(message));

  it("ranks by cosine similarity, as computed by hand", async () => {
    const retriever = await DenseRetriever.create(knowledgeBase, countingEmbedder(), { dataRoot });
    const results = await retriever.retrieve("Alpha");
    expect(results.map(([id]) => id)).toEqual(["doc_alpha", "doc_double", "doc_pair", "doc_gamma"]);
    expect(results[0][1]).toBeCloseTo(1, 15);
    expect(results[1][1]).toBeCloseTo(2 / Math.sqrt(5), 15);
    expect(results[2][1]).toBeCloseTo(1 / Math.sqrt(2), 15);
    expect(results[3][1]).toBe(0);
  });

  it("keeps the retriever's top_k, and a query without tokens scores every document 0 (equal scores: higher index first)", async () => {
    const retriever = await DenseRetriever.create(knowledgeBase, countingEmbedder(), { dataRoot, topK: 2 });
    expect((await retriever.retrieve("alpha")).map(([id]) => id)).toEqual(["doc_alpha", "doc_double"]);
    expect(await retriever.retrieve("?!")).toEqual([
      ["doc_double", 0],
      ["doc_alpha", 0],
    ]);
  });

  it("raises the encoder's ValueError for a blank query, before any call", async () => {
    const embedder = countingEmbedder();
    const retriever = await DenseRetriever.create(knowledgeBase, embedder, { dataRoot });
    const callsAfterIndexing = embedder.calls.length;
    for (const blank of ["", "  \n", null]) {
      const error = await retriever.retrieve(blank).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PyException);
      expect((error as PyException).pythonType).toBe("ValueError");
      expect((error as PyException).message).toContain("'query'");
    }
    expect(embedder.calls.length).toBe(callsAfterIndexing);
  });

  it("embeds each distinct query once, formatted as the embedder formats queries; documents as they are", async () => {
    const embedder = countingEmbedder();
    const retriever = await DenseRetriever.create(knowledgeBase, embedder, { dataRoot, formatQuery: (query) => `Q: ${query}` });
    await retriever.retrieve("alpha");
    await retriever.retrieve("alpha");
    expect(embedder.calls).toEqual([["alpha beta", "gamma", "alpha", "alpha alpha beta"], ["Q: alpha"]]);
  });

  it("caches the document embeddings on disk: a second retriever makes no document call", async () => {
    const first = countingEmbedder();
    await DenseRetriever.create(knowledgeBase, first, { dataRoot, cache: cache() });
    const second = countingEmbedder();
    const retriever = await DenseRetriever.create(knowledgeBase, second, { dataRoot, cache: cache() });
    expect(first.calls.length).toBe(1);
    expect(second.calls.length).toBe(0);
    expect((await retriever.retrieve("alpha"))[1][1]).toBeCloseTo(2 / Math.sqrt(5), 15);
    expect(warnings).toEqual([]);
    expect(readdirSync(cacheDir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("misses for another model or changed documents", async () => {
    await DenseRetriever.create(knowledgeBase, countingEmbedder("a"), { dataRoot, cache: cache() });
    const otherModel = countingEmbedder("b");
    await DenseRetriever.create(knowledgeBase, otherModel, { dataRoot, cache: cache() });
    expect(otherModel.calls.length).toBe(1);
    const changed = new KnowledgeBase([...knowledgeBase.documents.slice(0, 3), { id: "doc_double", title: "Double", content: "alpha alpha beta delta" }]);
    const afterChange = countingEmbedder("a");
    await DenseRetriever.create(changed, afterChange, { dataRoot, cache: cache() });
    expect(afterChange.calls.length).toBe(1);
    expect(readdirSync(cacheDir).length).toBe(3);
  });

  it.each([
    ["garbage", (_bytes: Buffer) => Buffer.from("not a cache file")],
    ["a truncated payload", (bytes: Buffer) => bytes.subarray(0, bytes.length - 8)],
    ["a flipped vector byte", (bytes: Buffer) => Buffer.concat([bytes.subarray(0, bytes.length - 1), Buffer.from([bytes[bytes.length - 1] ^ 0xff])])],
  ])("never trusts a cache file with %s: warns, recomputes and replaces it", async (_what, damage) => {
    await DenseRetriever.create(knowledgeBase, countingEmbedder(), { dataRoot, cache: cache() });
    const [name] = readdirSync(cacheDir);
    const path = join(cacheDir, name);
    writeFileSync(path, damage(readFileSync(path)));
    const again = countingEmbedder();
    const retriever = await DenseRetriever.create(knowledgeBase, again, { dataRoot, cache: cache() });
    expect(again.calls.length).toBe(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(path);
    expect((await retriever.retrieve("alpha"))[0]).toEqual(["doc_alpha", 1]);
    const third = countingEmbedder();
    await DenseRetriever.create(knowledgeBase, third, { dataRoot, cache: cache() });
    expect(third.calls.length).toBe(0);
  });

  it("KB_search / KB_search_dense text: the original's entries, k sliced after the retriever's top_k", async () => {
    const retriever = await DenseRetriever.create(knowledgeBase, countingEmbedder(), { dataRoot, topK: 3 });
    const pipeline = new KbSearchPipeline(knowledgeBase, denseStages(retriever), { dataRoot, clock: FROZEN_CLOCK });
    const text = await pipeline.search("alpha");
    expect(text).toBe(
      "1. Alpha\n   ID: doc_alpha\n   Score: 1.0000\n   Content: alpha\n\n" +
        "2. Double\n   ID: doc_double\n   Score: 0.8944\n   Content: alpha alpha beta\n\n" +
        "3. Pair\n   ID: doc_pair\n   Score: 0.7071\n   Content: alpha beta\n" +
        "\n\n[Timing: retrieval=0ms, total=0ms]",
    );
    expect((await pipeline.search("alpha", 10)).match(/^\d+\. /gm)).toHaveLength(3);
    expect((await pipeline.search("alpha", 1)).match(/^\d+\. /gm)).toEqual(["1. "]);
    expect((await pipeline.search("alpha", -1)).match(/ID: \S+/g)).toEqual(["ID: doc_alpha", "ID: doc_double"]);
    expect(await pipeline.search("alpha", 0)).toBe(`${retrievalMessages.text("noRelevantDocuments")}\n\n[Timing: retrieval=0ms, total=0ms]`);
  });

  it("prints reranking=… whenever the post-processing stage takes time, as the original", async () => {
    const retriever = await DenseRetriever.create(knowledgeBase, countingEmbedder(), { dataRoot });
    let now = 0;
    const pipeline = new KbSearchPipeline(knowledgeBase, denseStages(retriever), { dataRoot, clock: () => (now += 1) });
    expect(await pipeline.search("alpha", 1)).toMatch(/\n\n\[Timing: retrieval=1ms, reranking=1ms, total=3ms\]$/);
  });
});
