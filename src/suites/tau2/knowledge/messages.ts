/**
 * The sentences and formats of τ³'s retrieval tools, read from `domains/banking_knowledge/
 * retrieval_mixins.py` in the data directory, and the texts of its online retrieval pieces (the
 * embedding encoder's error, the Qwen query instruction, the pointwise reranker's prompt) from
 * `knowledge/**` (see src/suites/tau2/engine/upstream-messages.ts), never
 * written into this project: each key says where the original writes it (function, position among
 * its string literals). The only module of src/suites/tau2/knowledge that reaches outside src/value and the
 * error tree (the dependency rule allows this one import).
 */
import { UpstreamMessages, readUpstreamConstant } from "../engine/upstream-messages.ts";

/** `_format_kb_search_result` (KB_search) and `GrepMixin.grep`. */
export const retrievalMessages = new UpstreamMessages("domains/banking_knowledge/retrieval_mixins.py", {
  noRelevantDocuments: { in: "_format_kb_search_result", at: 0 },
  emptyTimingRetrieval: { in: "_format_kb_search_result", at: 1 },
  emptyTimingReranking: { in: "_format_kb_search_result", at: 2 },
  emptyTimingTotal: { in: "_format_kb_search_result", at: 3 },
  searchUntitled: { in: "_format_kb_search_result", at: 4 },
  searchResult: { in: "_format_kb_search_result", at: 6 },
  searchSeparator: { in: "_format_kb_search_result", at: 7 },
  timingRetrieval: { in: "_format_kb_search_result", at: 8 },
  timingReranking: { in: "_format_kb_search_result", at: 9 },
  timingTotal: { in: "_format_kb_search_result", at: 10 },
  noMatches: { in: "GrepMixin.grep", at: 0 },
  grepUntitled: { in: "GrepMixin.grep", at: 1 },
  grepResult: { in: "GrepMixin.grep", at: 3 },
  grepSeparator: { in: "GrepMixin.grep", at: 4 },
  shellNoSandbox: { in: "ShellMixin.shell", at: 0 },
  shellGrepWord: { in: "ShellMixin.shell", at: 1 },
  shellNoMatches: { in: "ShellMixin.shell", at: 2 },
  shellErrorWithStderr: { in: "ShellMixin.shell", at: 3 },
  shellFailedWithCode: { in: "ShellMixin.shell", at: 4 },
  shellNoOutput: { in: "ShellMixin.shell", at: 5 },
});

/** The keys of {@link retrievalMessages}. */
export type RetrievalMessageKey = Parameters<typeof retrievalMessages.text>[0];

/**
 * `knowledge/sandbox_manager.py`: the names of the sandbox's directories and files, the documents'
 * and `INDEX.md`'s texts, the command screening's patterns and answers, the output sanitizing and
 * `run_command`'s answers (the `shell` tool of terminal_use, terminal_use_write and alltools).
 */
export const sandboxMessages = new UpstreamMessages("knowledge/sandbox_manager.py", {
  sandboxDirectory: { in: "SandboxManager.__init__", at: 0 },
  knowledgeBaseDirectory: { in: "SandboxManager.__init__", at: 1 },
  settingsFile: { in: "SandboxManager.__init__", at: 2 },
  singleQuoted: { in: "SandboxManager._has_escape_pattern", at: 0 },
  quotedReplacement: { in: "SandboxManager._has_escape_pattern", at: 1 },
  doubleQuoted: { in: "SandboxManager._has_escape_pattern", at: 2 },
  absolutePathStart: { in: "SandboxManager._has_escape_pattern", at: 6 },
  absolutePathWhole: { in: "SandboxManager._has_escape_pattern", at: 7 },
  absolutePath: { in: "SandboxManager._has_escape_pattern", at: 8 },
  absolutePathAtStart: { in: "SandboxManager._has_escape_pattern", at: 10 },
  lsLine: { in: "SandboxManager._sanitize_output", at: 0 },
  lsLineSanitized: { in: "SandboxManager._sanitize_output", at: 1 },
  userHome: { in: "SandboxManager._sanitize_output", at: 2 },
  userHomeSanitized: { in: "SandboxManager._sanitize_output", at: 3 },
  markdownFile: { in: "SandboxManager.export_documents", at: 12 },
  markdownDocument: { in: "SandboxManager.export_documents", at: 14 },
  indexFile: { in: "SandboxManager._create_index_file", at: 2 },
  indexTitle: { in: "SandboxManager._create_index_file", at: 5 },
  indexTotal: { in: "SandboxManager._create_index_file", at: 6 },
  indexDocuments: { in: "SandboxManager._create_index_file", at: 7 },
  indexEntry: { in: "SandboxManager._create_index_file", at: 13 },
  blocked: { in: "SandboxManager.run_command", at: 1 },
  dependenciesMissing: { in: "SandboxManager.run_command", at: 4 },
  timedOut: { in: "SandboxManager.run_command", at: 7 },
  commandFailed: { in: "SandboxManager.run_command", at: 10 },
});

/** `_SANDBOX_USER`, `_SANDBOX_GROUP`, `_SANDBOX_DATE` of `sandbox_manager.py`: what `ls -l` lines show instead of the real owner and date. */
export function readSandboxListingStandIns(dataRoot: string): { user: string; group: string; date: string } {
  let standIns = listingStandIns.get(dataRoot);
  if (!standIns) {
    const read = (name: string) => readUpstreamConstant(dataRoot, "knowledge/sandbox_manager.py", name);
    standIns = { user: read("_SANDBOX_USER"), group: read("_SANDBOX_GROUP"), date: read("_SANDBOX_DATE") };
    listingStandIns.set(dataRoot, standIns);
  }
  return standIns;
}

const listingStandIns = new Map<string, { user: string; group: string; date: string }>();

/** `EmbeddingEncoder.process`: the `ValueError` a blank query raises before any embedding call. */
export const embeddingEncoderMessages = new UpstreamMessages("knowledge/input_preprocessors/embedding_encoder.py", {
  blankInput: { in: "EmbeddingEncoder.process", at: 1 },
});

/** `OpenRouterEmbedder._format_text`: how a Qwen query is prefixed with its instruction. */
export const openRouterEmbedderMessages = new UpstreamMessages("knowledge/embedders/openrouter_embedder.py", {
  instructedQuery: { in: "OpenRouterEmbedder._format_text", at: 0 },
});

/** `DEFAULT_QWEN_QUERY_INSTRUCTION` of `openrouter_embedder.py` (the task description Qwen3 embeddings put before a query). */
export function readQwenQueryInstruction(dataRoot: string): string {
  return readUpstreamConstant(dataRoot, "knowledge/embedders/openrouter_embedder.py", "DEFAULT_QWEN_QUERY_INSTRUCTION");
}

/** `DEFAULT_POINTWISE_PROMPT` of `pointwise_llm_reranker.py`: a `str.format` template with two positional `{}` (query, document). */
export function readPointwiseRerankerPrompt(dataRoot: string): string {
  return readUpstreamConstant(dataRoot, "knowledge/postprocessors/pointwise_llm_reranker.py", "DEFAULT_POINTWISE_PROMPT");
}

/**
 * `OpenRouterEmbedder._format_text` for a Qwen model's queries: `Instruct: <instruction>\nQuery:<query>`
 * with `DEFAULT_QWEN_QUERY_INSTRUCTION` (documents are embedded without it).
 */
export function qwenQueryFormatter(dataRoot: string): (query: string) => string {
  openRouterEmbedderMessages.load(dataRoot);
  const instruction = readQwenQueryInstruction(dataRoot);
  return (query) => openRouterEmbedderMessages.format("instructedQuery", { "self.query_instruction": instruction, text: query });
}
