/**
 * τ³'s two offline retrievers over a {@link KnowledgeBase}, as `knowledge/retrievers/*.py` rank:
 *
 * - **BM25** (`BM25Indexer` + `BM25Retriever`): `content.lower().split()` indexed (the title is not),
 *   the query tokenized the same way; a falsy or whitespace-only query gives no results; otherwise
 *   every document is ranked by `sorted(…, key=score, reverse=True)` — stable, so ties keep index
 *   order — and the first `top_k` kept, zero scores included (an unknown word returns the first ten
 *   documents with score 0.0).
 * - **grep** (`GrepRetriever`): the query compiled as a Python regex (IGNORECASE unless
 *   `case_sensitive`; an invalid one searched as `re.escape(query)`), score = `len(findall(content))`,
 *   documents without a match dropped, the same stable descending sort and `top_k`.
 *
 * A result is `[id, score]` with the score a float64, as the original's `(doc_id, float)` pairs.
 */
import { PY_RE_IGNORECASE, type PyValue, isPyReError, pyBool, pyLower, pyReCompile, pyReEscape, pySplitWhitespace, pyStrip } from "../../../value/index.ts";
import { BM25_DEFAULTS, Bm25Okapi, type Bm25Parameters } from "./bm25.ts";
import type { KnowledgeBase } from "./knowledge-base.ts";

/** One ranked document: its id and its score. */
export type RetrievalResult = readonly [id: string, score: number];

/** Python's `sorted(items, key=score, reverse=True)`: descending, equal scores in their original order. */
function rankDescending<T>(items: readonly T[], score: (item: T) => number): T[] {
  return items
    .map((item, index) => ({ item, index, value: score(item) }))
    .sort((a, b) => (a.value > b.value ? -1 : a.value < b.value ? 1 : a.index - b.index))
    .map(({ item }) => item);
}

/** `BM25Indexer` + `BM25Retriever` over a knowledge base. */
export class Bm25Retriever {
  readonly index: Bm25Okapi;
  private readonly ids: readonly string[];

  constructor(
    knowledgeBase: KnowledgeBase,
    readonly topK = 10,
    parameters: Bm25Parameters = BM25_DEFAULTS,
  ) {
    const documents = knowledgeBase.documents;
    this.ids = documents.map((document) => document.id);
    this.index = new Bm25Okapi(
      documents.map((document) => tokenize(document.content)),
      parameters,
    );
  }

  /** `retrieve({"query": query})`: the `top_k` best documents (none for an empty query). */
  retrieve(query: PyValue | undefined): RetrievalResult[] {
    if (!pyBool(query) || pyStrip(query) === "") return [];
    const scores = this.index.getScores(tokenize(query as string));
    const ranked = rankDescending([...scores.keys()], (index) => scores[index]);
    return ranked.slice(0, Math.min(this.topK, this.ids.length)).map((index) => [this.ids[index], scores[index]] as const);
  }
}

/** `text.lower().split()`, BM25's tokens. */
export function tokenize(text: string): string[] {
  return pySplitWhitespace(pyLower(text));
}

/** `GrepRetriever` over a knowledge base. */
export class GrepRetriever {
  private readonly documents: ReadonlyArray<{ id: string; content: string }>;

  constructor(
    knowledgeBase: KnowledgeBase,
    readonly topK = 10,
    readonly caseSensitive = false,
  ) {
    this.documents = knowledgeBase.documents.map(({ id, content }) => ({ id, content }));
  }

  /**
   * `retrieve({"query": pattern})`. A pattern Python accepts but the regex translation cannot
   * reproduce throws `RegexTranslationError` (a loud failure, never a different search).
   */
  retrieve(pattern: PyValue | undefined): RetrievalResult[] {
    if (pyStrip(pattern) === "") return [];
    const compiled = compileOrEscape(pattern as string, this.caseSensitive ? 0 : PY_RE_IGNORECASE);
    const results: RetrievalResult[] = [];
    for (const { id, content } of this.documents) {
      const count = compiled.findallCount(content);
      if (count > 0) results.push([id, count]);
    }
    return rankDescending(results, ([, score]) => score).slice(0, this.topK);
  }
}

/** `re.compile(pattern, flags)`, or on `re.error` the pattern escaped. */
function compileOrEscape(pattern: string, flags: number) {
  try {
    return pyReCompile(pattern, flags);
  } catch (error) {
    if (!isPyReError(error)) throw error;
    return pyReCompile(pyReEscape(pattern), flags);
  }
}
