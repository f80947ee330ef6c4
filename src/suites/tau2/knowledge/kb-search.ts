/**
 * One KB search tool as `RetrievalPipeline.retrieve(query, top_k=k, return_timing=True)` +
 * `_format_kb_search_result` run it, for any retriever and an optional reranker: the text of
 * `KB_search(query)` (k absent) and of AllTools' `KB_search_dense(query, k)` /
 * `KB_search_bm25(query, k)`.
 *
 * Stages, each timed like the original (`time.perf_counter` around them): input preprocessing (the
 * query embedding of a dense retriever; nothing for BM25), retrieval (the retriever's own `top_k`,
 * then the pipeline's stable descending re-sort), the pipeline's `results[:k]` (Python slicing: a
 * negative k drops from the end, 0 gives nothing, and k can never raise the retriever's `top_k`),
 * then post-processing (the reranker; with none, the empty stage still measures a few nanoseconds,
 * which prints `reranking=0ms` as in the original).
 */
import type { PyValue } from "../../../value/index.ts";
import type { Bm25Retriever, RetrievalResult } from "./retrievers.ts";
import type { DenseRetriever } from "./dense.ts";
import type { KnowledgeBase } from "./knowledge-base.ts";
import { retrievalMessages } from "./messages.ts";
import { pySliceTo } from "./dense.ts";
import type { PointwiseReranker } from "./reranker.ts";
import { type Clock, formatKbSearchText } from "./search-tools.ts";

/** A retriever split into the pipeline's two stages (see {@link bm25Stages}, {@link denseStages}). */
export interface RetrieverStages<Prepared> {
  /** Input preprocessing (may raise the original's exception, e.g. a blank query for embeddings). */
  prepare(query: PyValue | undefined): Prepared | Promise<Prepared>;
  /** Retrieval: the retriever's `top_k` results. */
  rank(prepared: Prepared): RetrievalResult[];
}

/** BM25 has no input preprocessing: the query goes to the retriever as is. */
export function bm25Stages(retriever: Bm25Retriever): RetrieverStages<PyValue | undefined> {
  return { prepare: (query) => query, rank: (query) => retriever.retrieve(query) };
}

/** Dense retrieval: the query embedding is input preprocessing, the cosine ranking retrieval. */
export function denseStages(retriever: DenseRetriever): RetrieverStages<ArrayLike<number>> {
  return { prepare: (query) => retriever.embedQuery(query), rank: (vector) => retriever.rank(vector) };
}

/** What a {@link KbSearchPipeline} is built from. */
export interface KbSearchPipelineOptions {
  /** The τ² data directory (the tool's sentences are read from its sources). */
  readonly dataRoot: string;
  /** The pointwise reranker of the `*_reranker*` variants. */
  readonly reranker?: PointwiseReranker;
  /** Default `performance.now`; `FROZEN_CLOCK` for reproducible texts. */
  readonly clock?: Clock;
}

/** A KB search tool: retriever stages, optional reranker, the original's text. */
export class KbSearchPipeline<Prepared = unknown> {
  private readonly clock: Clock;

  constructor(
    readonly knowledgeBase: KnowledgeBase,
    private readonly stages: RetrieverStages<Prepared>,
    private readonly options: KbSearchPipelineOptions,
  ) {
    retrievalMessages.load(options.dataRoot);
    this.clock = options.clock ?? (() => performance.now());
  }

  /**
   * The tool's text for `query` (and `k`, when the tool has one: `None` slices nothing, a bool is
   * 0 or 1, anything but an int raises slicing's TypeError after the retrieval, as in the original).
   * Raises what the stages raise.
   */
  async search(query: PyValue | undefined, k?: PyValue): Promise<string> {
    const inputStart = this.clock();
    const prepared = await this.stages.prepare(query);
    const inputPreprocessingMs = this.clock() - inputStart;
    const retrievalStart = this.clock();
    let results = this.stages.rank(prepared);
    const retrievalMs = this.clock() - retrievalStart;
    results = stableDescending(results);
    if (k !== undefined && k !== null) results = pySliceTo(results, sliceStop(k));
    const postprocessingStart = this.clock();
    if (this.options.reranker) results = await this.options.reranker.rerank(query, results, (id) => this.knowledgeBase.get(id)?.content);
    const postprocessingMs = this.clock() - postprocessingStart;
    return formatKbSearchText(this.knowledgeBase, results, { inputPreprocessingMs, retrievalMs, postprocessingMs });
  }
}

/** A slice bound as Python takes it: an int (a bool is one), else NaN, which `pySliceTo` refuses with slicing's TypeError. */
function sliceStop(k: PyValue): number {
  if (typeof k === "boolean") return k ? 1 : 0;
  if (typeof k === "number") return k;
  if (typeof k === "bigint") return k < 0n ? Math.max(Number(k), Number.MIN_SAFE_INTEGER) : Math.min(Number(k), Number.MAX_SAFE_INTEGER);
  return Number.NaN;
}

/** `sorted(all_results.items(), key=score, reverse=True)` over the retriever's (unique-id) results. */
function stableDescending(results: readonly RetrievalResult[]): RetrievalResult[] {
  return results
    .map((result, index) => ({ result, index }))
    .sort((a, b) => (a.result[1] > b.result[1] ? -1 : a.result[1] < b.result[1] ? 1 : a.index - b.index))
    .map(({ result }) => result);
}
