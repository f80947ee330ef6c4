/**
 * The reference fixtures the knowledge tests compare with: `retrieval_banking_knowledge.json` (BM25
 * index statistics, queries, grep patterns) and the KB_search / grep probes of
 * `tool_probes_banking_knowledge.json`, both made by running the original τ²-bench code.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface RetrievalFixture {
  semantics: Record<string, string>;
  index: {
    corpus_size: number;
    avgdl: number;
    k1: number;
    b: number;
    epsilon: number;
    average_idf: number;
    vocabulary_size: number;
    index_order: string[];
    doc_len: number[];
    idf_of_query_tokens: Record<string, number | null>;
  };
  bm25_queries: Array<{ query: string; tokens: string[]; top10: Array<[string, number]>; all_scores_in_index_order?: number[]; full_ranking_ids?: string[] }>;
  grep_patterns: Array<{ pattern: string; case_insensitive_top10: Array<[string, number]>; case_sensitive_top10: Array<[string, number]> }>;
}

export function readRetrievalFixture(tau2Data: string): RetrievalFixture {
  return JSON.parse(readFileSync(join(tau2Data, "fixtures", "retrieval_banking_knowledge.json"), "utf8"));
}

export interface ToolProbe {
  id: string;
  retrieval_variant: string;
  retrieval_kwargs?: { top_k?: number; grep_top_k?: number; case_sensitive?: boolean };
  calls: Array<{ requestor: string; name: string; arguments: Record<string, unknown> }>;
  results: Array<{ content: string; error: boolean }>;
}

/** The probes' KB_search and grep calls, each with its probe and recorded result. */
export function retrievalProbeCalls(tau2Data: string): Array<{ probe: ToolProbe; call: ToolProbe["calls"][number]; result: ToolProbe["results"][number] }> {
  const fixture = JSON.parse(readFileSync(join(tau2Data, "fixtures", "tool_probes_banking_knowledge.json"), "utf8")) as { probes: ToolProbe[] };
  return fixture.probes.flatMap((probe) => probe.calls.map((call, index) => ({ probe, call, result: probe.results[index] })).filter(({ call }) => call.name === "KB_search" || call.name === "grep"));
}

/** The documents directory of the τ² data. */
export function documentsDirectory(tau2Data: string): string {
  return join(tau2Data, "banking_knowledge", "documents");
}
