/**
 * The sentences and formats of τ³'s retrieval tools, read from `domains/banking_knowledge/
 * retrieval_mixins.py` in the data directory (see src/suites/tau2/engine/upstream-messages.ts), never
 * written into this project: each key says where the original writes it (function, position among
 * its string literals). The only module of src/suites/tau2/knowledge that reaches outside src/value and the
 * error tree (the dependency rule allows this one import).
 */
import { UpstreamMessages } from "../engine/upstream-messages.ts";

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
});

/** The keys of {@link retrievalMessages}. */
export type RetrievalMessageKey = Parameters<typeof retrievalMessages.text>[0];
