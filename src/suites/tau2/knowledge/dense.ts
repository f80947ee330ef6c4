/**
 * τ³'s dense retrieval (`EmbeddingIndexer` + `EmbeddingEncoder` + `CosineRetriever`) over a
 * {@link KnowledgeBase}, with the embeddings endpoint injected (this folder stays free of HTTP
 * clients: see README.md; `src/model/embedding-client.ts` is the real one).
 *
 * - **Documents**: every document's `content` (not the title), in index order, embedded once — read
 *   from the {@link DocumentEmbeddingCache} when one is given, else computed and stored there.
 * - **Query**: a falsy or whitespace-only query raises the encoder's `ValueError` before any call
 *   (the original's text, read from `embedding_encoder.py`); otherwise the query, formatted as the
 *   embedder formats queries (Qwen: `Instruct: …\nQuery:…`), is embedded once per process and text
 *   (the original's module-level query cache).
 * - **Cosine** (`_cosine_similarity_single`), in float64 as numpy computes it on the float64 array
 *   `np.array(embeddings)` gives: the query divided by its norm (a zero query scores every document
 *   0.0), each document divided by its norm (a zero norm divides by 1), then the dot products.
 *   numpy's sums are a BLAS `ddot`/`dgemv` and a pairwise `add.reduce` whose order of additions is
 *   the library's; here they are sequential sums, so a score can differ from the original's in the
 *   last bits (≈1e-16) — never in the printed `:.4f`, except for a value on a rounding boundary.
 * - **Ranking** (`np.argsort(scores)[::-1][:top_k]`): descending scores; numpy's default sort is not
 *   stable, so the original leaves the order of exactly equal scores unspecified; here equal scores
 *   come higher index first (the reverse of a stable ascending sort). The knowledge base has no two
 *   documents with the same content, so ties do not arise with a real model.
 */
import { DataError } from "../../../errors/error-tree.ts";
import { type PyValue, PyException, pyBool, pyStrip } from "../../../value/index.ts";
import type { DocumentEmbeddingCache, EmbeddedDocument, EmbeddingSpaceIdentity } from "./embedding-cache.ts";
import type { KnowledgeBase } from "./knowledge-base.ts";
import { embeddingEncoderMessages } from "./messages.ts";
import type { RetrievalResult } from "./retrievers.ts";

/** An embeddings endpoint as dense retrieval needs it (`src/model`'s `EmbeddingClient` is one). */
export interface Embedder {
  /** The embedding space, without secrets (the document cache keys on it). */
  readonly identity: EmbeddingSpaceIdentity;
  /** One vector per text, in order. */
  embed(texts: readonly string[]): Promise<ArrayLike<number>[]>;
}

/** How a dense retriever is built. */
export interface DenseRetrieverOptions {
  /** The τ² data directory (the encoder's error text is read from its sources). */
  readonly dataRoot: string;
  /** The retriever's `top_k` (`PipelineSpec.top_k`, 10 unless the variant's kwargs say otherwise). */
  readonly topK?: number;
  /** Where document embeddings are kept between runs; none = always computed. */
  readonly cache?: DocumentEmbeddingCache;
  /** The text actually embedded for a query (Qwen's instruction prefix); default: the query itself. */
  readonly formatQuery?: (query: string) => string;
}

/** Document vectors divided by their norms, as rows of one float64 array. */
function normalizedRows(vectors: readonly ArrayLike<number>[]): { rows: Float64Array; dimensions: number } {
  const dimensions = vectors[0]?.length ?? 0;
  const rows = new Float64Array(vectors.length * dimensions);
  vectors.forEach((vector, row) => {
    if (vector.length !== dimensions) throw new Error(`document embedding ${row} has ${vector.length} dimensions, the first has ${dimensions}`);
    let squares = 0;
    for (let index = 0; index < dimensions; index++) squares += vector[index] * vector[index];
    const norm = Math.sqrt(squares) || 1;
    for (let index = 0; index < dimensions; index++) rows[row * dimensions + index] = vector[index] / norm;
  });
  return { rows, dimensions };
}

/** Python's `items[:stop]` for an int `stop` (a negative one drops that many from the end). */
export function pySliceTo<T>(items: readonly T[], stop: number): T[] {
  if (!Number.isInteger(stop)) throw new PyException("slice indices must be integers or None or have an __index__ method", "TypeError");
  return items.slice(0, stop < 0 ? Math.max(0, items.length + stop) : stop);
}

/** Cosine retrieval over one knowledge base in one embedding space. */
export class DenseRetriever {
  private readonly ids: readonly string[];
  private readonly queryVectors = new Map<string, ArrayLike<number>>();
  private readonly formatQuery: (query: string) => string;

  private constructor(
    knowledgeBase: KnowledgeBase,
    readonly embedder: Embedder,
    private readonly documents: { rows: Float64Array; dimensions: number },
    readonly topK: number,
    formatQuery: ((query: string) => string) | undefined,
  ) {
    this.ids = knowledgeBase.documents.map((document) => document.id);
    this.formatQuery = formatQuery ?? ((query) => query);
  }

  /** Embeds (or reads from the cache) every document's content, then answers queries. */
  static async create(knowledgeBase: KnowledgeBase, embedder: Embedder, options: DenseRetrieverOptions): Promise<DenseRetriever> {
    embeddingEncoderMessages.load(options.dataRoot);
    const documents: EmbeddedDocument[] = knowledgeBase.documents.map(({ id, content }) => ({ id, text: content }));
    if (documents.length === 0) throw new DataError("dense retrieval over a knowledge base without documents");
    let vectors: ArrayLike<number>[] | undefined = options.cache?.read(embedder.identity, documents);
    if (!vectors) {
      vectors = await embedder.embed(documents.map((document) => document.text));
      if (vectors.length !== documents.length) throw new Error(`the embedder returned ${vectors.length} vectors for ${documents.length} documents`);
      options.cache?.write(embedder.identity, documents, vectors);
    }
    return new DenseRetriever(knowledgeBase, embedder, normalizedRows(vectors), options.topK ?? 10, options.formatQuery);
  }

  /** `EmbeddingEncoder.process`: the query's vector (blank query → `ValueError`, as the original). */
  async embedQuery(query: PyValue | undefined): Promise<ArrayLike<number>> {
    if (!pyBool(query) || pyStrip(query) === "") throw new PyException(embeddingEncoderMessages.format("blankInput", { "self.input_key": "query" }), "ValueError");
    const text = this.formatQuery(query as string);
    let vector = this.queryVectors.get(text);
    if (!vector) {
      [vector] = await this.embedder.embed([text]);
      this.queryVectors.set(text, vector);
    }
    return vector;
  }

  /** `CosineRetriever.retrieve`: the `top_k` documents by cosine similarity to a query vector. */
  rank(queryVector: ArrayLike<number>): RetrievalResult[] {
    const scores = this.cosineScores(queryVector);
    const order = [...scores.keys()].sort((a, b) => (scores[a] > scores[b] ? -1 : scores[a] < scores[b] ? 1 : b - a));
    return pySliceTo(order, Math.min(this.topK, this.ids.length)).map((index) => [this.ids[index], scores[index]] as const);
  }

  /** Embeds the query and ranks (the encoder and the retriever in one step). */
  async retrieve(query: PyValue | undefined): Promise<RetrievalResult[]> {
    return this.rank(await this.embedQuery(query));
  }

  /** `_cosine_similarity_single`: every document's cosine similarity to the query, in index order. */
  cosineScores(queryVector: ArrayLike<number>): Float64Array {
    const { rows, dimensions } = this.documents;
    if (queryVector.length !== dimensions) throw new Error(`the query embedding has ${queryVector.length} dimensions, the documents ${dimensions}`);
    const scores = new Float64Array(this.ids.length);
    let squares = 0;
    for (let index = 0; index < dimensions; index++) squares += queryVector[index] * queryVector[index];
    const norm = Math.sqrt(squares);
    if (norm === 0) return scores;
    const query = Float64Array.from({ length: dimensions }, (_, index) => queryVector[index] / norm);
    for (let row = 0; row < scores.length; row++) {
      let dot = 0;
      const offset = row * dimensions;
      for (let index = 0; index < dimensions; index++) dot += rows[offset + index] * query[index];
      scores[row] = dot;
    }
    return scores;
  }
}
