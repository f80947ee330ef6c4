/**
 * The texts of the KB_search and grep tools: every KB_search / grep probe of the reference
 * fixtures compared whole (timings frozen, as the fixtures were made), and outputs rebuilt from the
 * retrieval fixture's rankings with the format its `semantics` states. The formats themselves are
 * read from the original source at run time (src/suites/tau2/knowledge/messages.ts), so these compare them with
 * what the original printed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { type Clock, FROZEN_CLOCK, KnowledgeBase, KnowledgeSearchTools, retrievalMessages } from "../../../src/suites/tau2/knowledge/index.ts";
import { PyException, pyFloat, pyFormatFixed } from "../../../src/value/index.ts";
import { describeWithTau2Data } from "../../support/shared-data.ts";
import { documentsDirectory, readRetrievalFixture, retrievalProbeCalls } from "./retrieval-fixture.ts";

/** The single-quoted literals of a fixture `semantics` sentence, with `\n` unescaped. */
function quotedLiterals(sentence: string): string[] {
  return [...sentence.matchAll(/'([^']*)'/g)].map((match) => match[1].replaceAll("\\n", "\n"));
}

describeWithTau2Data("the KB_search and grep tool texts", (tau2Data) => {
  const fixture = readRetrievalFixture(tau2Data);
  const knowledgeBase = KnowledgeBase.load(documentsDirectory(tau2Data));
  const tools = new KnowledgeSearchTools(knowledgeBase, tau2Data, { clock: FROZEN_CLOCK });
  const [entryFormat, joiner, timingFormat, noResults] = quotedLiterals(fixture.semantics.kb_search_output);
  const noMatchFormat = /'([^']*<p>)'/.exec(fixture.semantics.grep)![1]; // the one literal with the pattern's placeholder

  /** The entries of a result list, in the format the fixture's semantics state. */
  const entries = (results: ReadonlyArray<readonly [string, number]>) =>
    results
      .map(([id, score], index) => {
        const document = knowledgeBase.get(id)!;
        return entryFormat
          .replace("<i>", String(index + 1))
          .replace("<title>", document.title)
          .replace("<id>", id)
          .replace("<score:.4f>", pyFormatFixed(pyFloat(score), 4))
          .replace("<content>", document.content);
      })
      .join(joiner);
  const frozenTiming = timingFormat.replaceAll("<ms:.0f>", "0");

  const probeCalls = retrievalProbeCalls(tau2Data);
  const answered = probeCalls.filter(({ result }) => !result.error);
  it.each(answered.map(({ probe, call, result }) => [probe.id, call.name, probe, call, result] as const))("probe %s: %s gives the original's text", (_, name, probe, call, result) => {
    const kwargs = probe.retrieval_kwargs ?? {};
    const probeTools = new KnowledgeSearchTools(knowledgeBase, tau2Data, { clock: FROZEN_CLOCK, topK: kwargs.top_k, grepTopK: kwargs.grep_top_k, caseSensitive: kwargs.case_sensitive });
    const text = name === "KB_search" ? probeTools.kbSearch(call.arguments.query as string) : probeTools.grep(call.arguments.pattern as string);
    expect(text).toBe(result.content);
  });

  it("covers the probes' answered calls of both tools", () => {
    expect(answered.filter(({ call }) => call.name === "KB_search").length).toBeGreaterThanOrEqual(6);
    expect(answered.filter(({ call }) => call.name === "grep").length).toBeGreaterThanOrEqual(8);
  });

  it("raises what the original raises for a non-str query (the environment shows it as Error: …)", () => {
    const probe = probeCalls.find(({ probe }) => probe.id === "kb_search_int")!;
    let raised: unknown;
    try {
      tools.kbSearch(probe.call.arguments.query as number);
    } catch (error) {
      raised = error;
    }
    expect(raised).toBeInstanceOf(PyException);
    expect(`Error: ${(raised as PyException).message}`).toBe(probe.result.content);
  });

  it.each(fixture.bm25_queries.slice(0, 3).map((query) => [query.query, query] as const))("KB_search(%j) = the fixture's top ten in the stated format", (query, entry) => {
    expect(tools.kbSearch(query)).toBe(entries(entry.top10) + frozenTiming);
  });

  it("KB_search of an empty query is the no-result sentence with the timing suffix", () => {
    expect(tools.kbSearch("  ")).toBe(noResults + frozenTiming);
  });

  it.each(fixture.grep_patterns.map((entry) => [entry.pattern, entry] as const))("grep(%j) = the fixture's ranking in the stated format", (pattern, entry) => {
    const expected = entry.case_insensitive_top10.length > 0 ? entries(entry.case_insensitive_top10) : noMatchFormat.replace("<p>", pattern);
    expect(tools.grep(pattern)).toBe(expected);
  });

  it("prints the stages' times with Python's .0f (half to even) and the empty reranking stage when it took time", () => {
    const readings = [10, 10.25, 20, 22.5, 30, 30.5]; // input 0.25 ms, retrieval 2.5 ms, post-processing 0.5 ms
    const clock: Clock = () => readings.shift()!;
    const text = new KnowledgeSearchTools(knowledgeBase, tau2Data, { clock }).kbSearch(fixture.bm25_queries[0].query);
    expect(text.startsWith(entries(fixture.bm25_queries[0].top10))).toBe(true);
    expect(text.endsWith("[Timing: retrieval=2ms, reranking=0ms, total=3ms]")).toBe(true);
  });

  it("measures real timings by default (only the numbers differ from the frozen text)", () => {
    const text = new KnowledgeSearchTools(knowledgeBase, tau2Data).kbSearch(fixture.bm25_queries[1].query);
    const entriesText = entries(fixture.bm25_queries[1].top10);
    expect(text.slice(0, entriesText.length)).toBe(entriesText);
    expect(text.slice(entriesText.length)).toMatch(/^\n\n\[Timing: retrieval=\d+ms(, reranking=\d+ms)?, total=\d+ms\]$/);
  });

  it("names a document without a title as the original does (its fallback literal)", () => {
    const untitled = new KnowledgeBase([{ id: "doc_x", title: "", content: "zelle zelle" }]);
    const text = new KnowledgeSearchTools(untitled, tau2Data).grep("zelle");
    const fallback = retrievalMessages.text("grepUntitled");
    const source = readFileSync(join(tau2Data, "upstream-src", "src", "tau2", "domains", "banking_knowledge", "retrieval_mixins.py"), "utf8");
    expect(source).toContain(`or "${fallback}"`);
    expect(text).toBe(entryFormat.replace("<i>", "1").replace("<title>", fallback).replace("<id>", "doc_x").replace("<score:.4f>", "2.0000").replace("<content>", "zelle zelle"));
  });
});
