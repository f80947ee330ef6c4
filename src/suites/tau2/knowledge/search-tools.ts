/**
 * The texts τ³'s offline retrieval tools return, built as `retrieval_mixins.py` builds them (its
 * sentences and formats are read from the source, messages.ts):
 *
 * - `KB_search(query)`: per result `"<i>. <title>\n   ID: <id>\n   Score: <score:.4f>\n   Content:
 *   <content>\n"` joined by `"\n"`, then the timing suffix `"\n\n[Timing: retrieval=<ms>ms[,
 *   reranking=<ms>ms], total=<ms>ms]"`; no results: the "no relevant documents" sentence and the same
 *   suffix.
 * - `grep(pattern)`: the same entries without the suffix; no match: "No matches found for pattern: …".
 *
 * The timings are wall-clock in the original (`time.perf_counter` around the pipeline's stages; with
 * no reranker the empty post-processing stage still measures a few nanoseconds, which prints
 * `reranking=0ms`). They are measured the same way here; a frozen clock (all zero, as the reference
 * fixtures were made) gives reproducible texts.
 */
import { join } from "node:path";
import { type PyValue, pyFloat, pyFormatFixed } from "../../../value/index.ts";
import { KnowledgeBase } from "./knowledge-base.ts";
import { retrievalMessages } from "./messages.ts";
import { Bm25Retriever, GrepRetriever, type RetrievalResult } from "./retrievers.ts";

/** Milliseconds from an arbitrary origin (`performance.now` by default). */
export type Clock = () => number;

/** A clock that always reads 0: every timing prints as `0ms`, as in the reference fixtures. */
export const FROZEN_CLOCK: Clock = () => 0;

/** The retrieval variant's settings (`retrieval_kwargs`) and the clock. */
export interface KnowledgeSearchOptions {
  /** `top_k` of KB_search (default 10). */
  readonly topK?: number;
  /** `grep_top_k` (default 10). */
  readonly grepTopK?: number;
  /** `case_sensitive` of grep (default false: IGNORECASE). */
  readonly caseSensitive?: boolean;
  /** The clock the timing suffix is measured with (default `performance.now`). */
  readonly clock?: Clock;
}

/** `RetrievalTiming`: the pipeline's three stages, in milliseconds. */
export interface RetrievalTiming {
  readonly inputPreprocessingMs: number;
  readonly retrievalMs: number;
  readonly postprocessingMs: number;
}

/** The KB_search and grep tools of the `bm25`, `bm25_grep` and `grep_only` variants over one knowledge base. */
export class KnowledgeSearchTools {
  readonly bm25: Bm25Retriever;
  readonly grepRetriever: GrepRetriever;
  private readonly clock: Clock;

  /** Tools over `knowledgeBase`; the tools' sentences are read from the τ² sources under `dataRoot`. */
  constructor(
    readonly knowledgeBase: KnowledgeBase,
    dataRoot: string,
    options: KnowledgeSearchOptions = {},
  ) {
    retrievalMessages.load(dataRoot);
    this.bm25 = new Bm25Retriever(knowledgeBase, options.topK ?? 10);
    this.grepRetriever = new GrepRetriever(knowledgeBase, options.grepTopK ?? 10, options.caseSensitive ?? false);
    this.clock = options.clock ?? (() => performance.now());
  }

  /** Tools over `<dataRoot>/banking_knowledge/documents` (`dataRoot` is the τ²-bench data directory). */
  static load(dataRoot: string, options: KnowledgeSearchOptions = {}): KnowledgeSearchTools {
    return new KnowledgeSearchTools(KnowledgeBase.load(join(dataRoot, "banking_knowledge", "documents")), dataRoot, options);
  }

  /** `KB_search(query)`: BM25 results with the timing suffix. */
  kbSearch(query: PyValue | undefined): string {
    const inputStart = this.clock();
    const inputPreprocessingMs = this.clock() - inputStart;
    const retrievalStart = this.clock();
    const results = this.bm25.retrieve(query);
    const retrievalMs = this.clock() - retrievalStart;
    const postprocessingStart = this.clock();
    const postprocessingMs = this.clock() - postprocessingStart;
    const timing = { inputPreprocessingMs, retrievalMs, postprocessingMs };
    return formatKbSearchText(this.knowledgeBase, results, timing);
  }

  /** `grep(pattern)`: grep results, or the no-match sentence. */
  grep(pattern: PyValue | undefined): string {
    const results = this.grepRetriever.retrieve(pattern);
    if (results.length === 0) return retrievalMessages.format("noMatches", { pattern: pattern as string });
    return formatEntries(this.knowledgeBase, results, "grep");
  }
}

/**
 * `_format_kb_search_result`: the text every KB_search tool (`KB_search`, `KB_search_bm25`,
 * `KB_search_dense`, with or without a reranker) returns for its results and stage timings.
 */
export function formatKbSearchText(knowledgeBase: KnowledgeBase, results: readonly RetrievalResult[], timing: RetrievalTiming): string {
  if (results.length === 0) return retrievalMessages.text("noRelevantDocuments") + timingSuffix(timing, "empty");
  return formatEntries(knowledgeBase, results, "search") + timingSuffix(timing, "results");
}

/** The numbered entries joined by the separator line. */
function formatEntries(knowledgeBase: KnowledgeBase, results: readonly RetrievalResult[], tool: "search" | "grep"): string {
  const untitled = retrievalMessages.text(tool === "search" ? "searchUntitled" : "grepUntitled");
  const entries = results.map(([id, score], index) => {
    const document = knowledgeBase.get(id);
    return retrievalMessages.format(tool === "search" ? "searchResult" : "grepResult", {
      i: String(index + 1),
      title: document?.title || untitled,
      doc_id: id,
      score: pyFormatFixed(pyFloat(score), 4),
      content: document?.content ?? "",
    });
  });
  return entries.join(retrievalMessages.text(tool === "search" ? "searchSeparator" : "grepSeparator"));
}

/** `[Timing: retrieval=…ms, (reranking=…ms, )total=…ms]`, each `:.0f`; reranking only when that stage took time. */
function timingSuffix(timing: RetrievalTiming, branch: "empty" | "results"): string {
  const keys = branch === "empty" ? (["emptyTimingRetrieval", "emptyTimingReranking", "emptyTimingTotal"] as const) : (["timingRetrieval", "timingReranking", "timingTotal"] as const);
  const total = timing.inputPreprocessingMs + timing.retrievalMs + timing.postprocessingMs;
  let suffix = retrievalMessages.format(keys[0], { "timing.retrieval_ms": pyFormatFixed(pyFloat(timing.retrievalMs), 0) });
  if (timing.postprocessingMs > 0) suffix += retrievalMessages.format(keys[1], { "timing.postprocessing_ms": pyFormatFixed(pyFloat(timing.postprocessingMs), 0) });
  return suffix + retrievalMessages.format(keys[2], { "timing.total_ms": pyFormatFixed(pyFloat(total), 0) });
}
