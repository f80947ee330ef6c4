/**
 * BM25 as rank_bm25 0.2.2's BM25Okapi computes it, against the reference fixture: every index
 * statistic, the 36 queries' top ten with exact float scores, and for the first four every
 * document's score and the full ranking. Floats are compared with Object.is (bit-identical).
 */
import { describe, expect, it } from "vitest";
import { Bm25Okapi, Bm25Retriever, KnowledgeBase, tokenize } from "../../../src/suites/tau2/knowledge/index.ts";
import { PyException } from "../../../src/value/index.ts";
import { describeWithTau2Data } from "../../support/shared-data.ts";
import { documentsDirectory, readRetrievalFixture } from "./retrieval-fixture.ts";

/** `Type: message` of the PyException a thunk raises. */
function raises(thunk: () => unknown): string {
  try {
    thunk();
  } catch (error) {
    if (error instanceof PyException) return `${error.pythonType}: ${error.message}`;
    throw error;
  }
  throw new Error("did not raise");
}

describe("Bm25Okapi on a small corpus (values from rank_bm25 0.2.2)", () => {
  const index = new Bm25Okapi([["a", "b", "a"], ["a"], ["a", "c"], ["d", "b", "e", "a"]]);

  it("floors a negative idf at epsilon · average_idf and keeps a zero idf", () => {
    expect(index.avgdl).toBe(2.5);
    expect(index.averageIdf).toBe(0.0689338007650783);
    expect(index.idf("a")).toBe(0.017233450191269574); // df = N: negative, floored
    expect(index.idf("b")).toBe(0); // df = N / 2
    expect(index.idf("c")).toBe(0.8472978603872037);
    expect(index.idf("zz")).toBeUndefined();
  });

  it.each([
    [["a"], [0.023132147907744396, 0.02360746601543777, 0.01893785735304349, 0.013569645819897303]],
    [
      ["a", "b", "b"],
      [0.023132147907744396, 0.02360746601543777, 0.01893785735304349, 0.013569645819897303],
    ],
    [["zz"], [0, 0, 0, 0]],
    [
      ["c", "d"],
      [0, 0, 0.9310965498760481, 0.6671636695962234],
    ],
  ])("get_scores(%j)", (query, expected) => {
    expect([...index.getScores(query)]).toEqual(expected);
  });

  it("raises ZeroDivisionError where rank_bm25 divides by zero", () => {
    expect(raises(() => new Bm25Okapi([]))).toBe("ZeroDivisionError: division by zero");
    expect(raises(() => new Bm25Okapi([[], []]))).toBe("ZeroDivisionError: division by zero");
  });
});

describeWithTau2Data("BM25 over the banking_knowledge documents", (tau2Data) => {
  const fixture = readRetrievalFixture(tau2Data);
  const knowledgeBase = KnowledgeBase.load(documentsDirectory(tau2Data));
  const retriever = new Bm25Retriever(knowledgeBase);
  const index = retriever.index;

  it("has the fixture's index statistics", () => {
    expect(index.corpusSize).toBe(fixture.index.corpus_size);
    expect(index.parameters).toEqual({ k1: fixture.index.k1, b: fixture.index.b, epsilon: fixture.index.epsilon });
    expect(index.docLen).toEqual(fixture.index.doc_len);
    expect(Object.is(index.avgdl, fixture.index.avgdl)).toBe(true);
    expect(Object.is(index.averageIdf, fixture.index.average_idf)).toBe(true);
    expect(index.vocabularySize).toBe(fixture.index.vocabulary_size);
  });

  it("has the fixture's idf for every query token (none for unknown words)", () => {
    const idfs = Object.fromEntries(Object.keys(fixture.index.idf_of_query_tokens).map((token) => [token, index.idf(token) ?? null]));
    expect(idfs).toEqual(fixture.index.idf_of_query_tokens);
    expect(Object.keys(idfs).length).toBe(110);
  });

  it.each(fixture.bm25_queries.map((query) => [query.query, query] as const))("query %j: tokens and top ten, scores bit-identical", (_, query) => {
    expect(tokenize(query.query)).toEqual(query.tokens);
    const results = retriever.retrieve(query.query);
    expect(results.map(([id]) => id)).toEqual(query.top10.map(([id]) => id));
    results.forEach(([, score], rank) => expect(Object.is(score, query.top10[rank][1]), `rank ${rank + 1}: ${score} vs ${query.top10[rank][1]}`).toBe(true));
  });

  const complete = fixture.bm25_queries.filter((query) => query.all_scores_in_index_order);
  it.each(complete.map((query) => [query.query, query] as const))("query %j: every document's score and the full ranking", (_, query) => {
    const scores = index.getScores(tokenize(query.query));
    const expected = query.all_scores_in_index_order!;
    expect(scores.length).toBe(expected.length);
    expect([...scores].filter((score, position) => !Object.is(score, expected[position]))).toEqual([]);
    const all = new Bm25Retriever(knowledgeBase, knowledgeBase.size).retrieve(query.query);
    expect(all.map(([id]) => id)).toEqual(query.full_ranking_ids);
  });

  it("covers four complete queries", () => {
    expect(complete.length).toBe(4);
  });

  it("returns no results for an empty or whitespace query, or a falsy non-str", () => {
    for (const query of ["", "   ", "\t\n\u3000\u2028", null, 0, undefined]) expect(retriever.retrieve(query)).toEqual([]);
    expect(raises(() => retriever.retrieve(42))).toBe("AttributeError: 'int' object has no attribute 'strip'");
  });

  it("returns the first ten documents in index order, score 0.0, for an unknown word", () => {
    expect(retriever.retrieve("zzqx qqqz")).toEqual(fixture.index.index_order.slice(0, 10).map((id) => [id, 0]));
  });

  it("keeps top_k (fewer, or every document at most)", () => {
    const query = fixture.bm25_queries[0];
    expect(new Bm25Retriever(knowledgeBase, 3).retrieve(query.query)).toEqual(query.top10.slice(0, 3));
    expect(new Bm25Retriever(knowledgeBase, 10_000).retrieve(query.query).length).toBe(knowledgeBase.size);
  });
});
