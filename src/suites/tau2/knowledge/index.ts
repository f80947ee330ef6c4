/**
 * The retrieval engine of τ³'s banking_knowledge domain: the knowledge base, BM25 as rank_bm25
 * computes it, grep with Python's `re`, the texts of the KB search and grep tools, and the
 * model-backed pieces with their endpoints injected (dense retrieval with a disk cache of document
 * embeddings, the pointwise LLM reranker). See README.md for the contract and what this folder may
 * import; `src/suites/tau2/retrieval-backends.ts` builds the model-backed pieces over real clients.
 */
export { KnowledgeBase, type KnowledgeDocument } from "./knowledge-base.ts";
export { BM25_DEFAULTS, Bm25Okapi, type Bm25Parameters } from "./bm25.ts";
export { Bm25Retriever, GrepRetriever, type RetrievalResult, tokenize } from "./retrievers.ts";
export { type Clock, FROZEN_CLOCK, formatKbSearchText, type KnowledgeSearchOptions, KnowledgeSearchTools, type RetrievalTiming } from "./search-tools.ts";
export { qwenQueryFormatter, retrievalMessages } from "./messages.ts";
export { DenseRetriever, type DenseRetrieverOptions, type Embedder, pySliceTo } from "./dense.ts";
export { DocumentEmbeddingCache, type EmbeddedDocument, type EmbeddingSpaceIdentity } from "./embedding-cache.ts";
export { formatPositional, PointwiseReranker, type PointwiseRerankerOptions, type RerankerChat } from "./reranker.ts";
export { bm25Stages, denseStages, KbSearchPipeline, type KbSearchPipelineOptions, type RetrieverStages } from "./kb-search.ts";
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
export { SHELL_TIMEOUT_SECONDS, type SandboxCommandResult, SandboxManager, type SandboxOptions, SandboxRuntimeError, checkSandboxRuns, sandboxEnvironment, sanitizeFilename } from "./sandbox.ts";
export { SRT_VERSION, type SandboxAvailability, type SandboxRuntime, checkSandboxAvailability, findOnPath, locateSandboxRuntime, requiredSandboxTools, sandboxInstallHint } from "./sandbox-runtime.ts";
export { shellToolText } from "./shell-tool.ts";
