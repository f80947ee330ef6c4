/**
 * The offline retrieval engine of τ³'s banking_knowledge domain: the knowledge base, BM25 as
 * rank_bm25 computes it, grep with Python's `re`, and the texts of the `KB_search` and `grep` tools.
 * See README.md for the contract and what this folder may import.
 */
export { KnowledgeBase, type KnowledgeDocument } from "./knowledge-base.ts";
export { BM25_DEFAULTS, Bm25Okapi, type Bm25Parameters } from "./bm25.ts";
export { Bm25Retriever, GrepRetriever, type RetrievalResult, tokenize } from "./retrievers.ts";
export { type Clock, FROZEN_CLOCK, type KnowledgeSearchOptions, KnowledgeSearchTools } from "./search-tools.ts";
export { retrievalMessages } from "./messages.ts";
export {
  DEFAULT_RETRIEVAL_VARIANT,
  type EmbedderSpec,
  OFFLINE_VARIANTS,
  RETRIEVAL_VARIANTS,
  RETRIEVAL_VARIANT_ALIASES,
  type RetrievalBackends,
  type RetrievalToolName,
  type RetrievalVariantSpec,
  checkVariantRunnable,
  resolveRetrievalVariant,
} from "./variants.ts";
