/**
 * `rank_bm25==0.2.2`'s `BM25Okapi`, bit for bit. The scores are float64 and the fixtures compare
 * them exactly, so every sum is taken in the original's order:
 *
 * - `nd` (documents per word) in first-appearance order, as the original's dict fills it;
 * - `idf = log(N − df + 0.5) − log(df + 0.5)` with a correctly rounded `math.log` (`pyMathLog`: V8's
 *   `Math.log` differs from glibc's in the last bit for some arguments), summed in `nd` order into
 *   `average_idf = Σ idf / |vocabulary|`; a negative idf becomes `epsilon · average_idf`;
 * - `avgdl = Σ len / N` (an exact integer sum, one division);
 * - `get_scores`: per query token in order, `score += idf · (tf·(k1+1) / (tf + k1·(1 − b + b·len/avgdl)))`
 *   elementwise, with numpy's evaluation order of that expression. A document without the token adds
 *   `idf · 0 = 0` and keeps its score, and a token with no idf (`idf.get(q) or 0`) adds nothing, so
 *   only the documents that contain a token are visited.
 */
import { PyException, pyMathLog } from "../../../value/index.ts";

/** The parameters of `BM25Okapi(corpus, k1=1.5, b=0.75, epsilon=0.25)`. */
export interface Bm25Parameters {
  readonly k1: number;
  readonly b: number;
  readonly epsilon: number;
}

/** rank_bm25's defaults, which τ³'s `BM25Indexer` uses. */
export const BM25_DEFAULTS: Bm25Parameters = { k1: 1.5, b: 0.75, epsilon: 0.25 };

/** The documents containing a word (ascending), with the word's frequency in each. */
interface Posting {
  readonly documents: number[];
  readonly frequencies: number[];
}

/** A BM25Okapi index over tokenized documents. */
export class Bm25Okapi {
  readonly corpusSize: number;
  readonly avgdl: number;
  readonly docLen: readonly number[];
  readonly averageIdf: number;
  readonly parameters: Bm25Parameters;
  /** Each word's number, in first-appearance order: the order of the original's `nd` and `idf` dicts. */
  private readonly wordIds = new Map<string, number>();
  private readonly postings: Posting[] = [];
  private idfs = new Float64Array(0);
  /** `k1 · (1 − b + b · len / avgdl)` per document, as numpy computes it for every query token. */
  private readonly lengthNorms: Float64Array;

  constructor(corpus: readonly (readonly string[])[], parameters: Bm25Parameters = BM25_DEFAULTS) {
    this.parameters = parameters;
    this.corpusSize = corpus.length;
    this.docLen = corpus.map((document) => document.length);
    this.index(corpus);
    if (this.corpusSize === 0) throw new PyException("division by zero", "ZeroDivisionError");
    this.avgdl = this.docLen.reduce((sum, length) => sum + length, 0) / this.corpusSize;
    this.averageIdf = this.computeIdfs();
    const { k1, b } = parameters;
    this.lengthNorms = Float64Array.from(this.docLen, (length) => k1 * (1 - b + (b * length) / this.avgdl));
  }

  /** Term frequencies per document, each document's words in first-occurrence order (the `frequencies` dicts, then `nd`). */
  private index(corpus: readonly (readonly string[])[]): void {
    let counts: Int32Array = new Int32Array(1024);
    corpus.forEach((document, index) => {
      const firstSeen: number[] = [];
      for (const word of document) {
        let id = this.wordIds.get(word);
        if (id === undefined) {
          id = this.wordIds.size;
          this.wordIds.set(word, id);
          this.postings.push({ documents: [], frequencies: [] });
          if (id >= counts.length) counts = growCounts(counts);
        }
        if (counts[id]++ === 0) firstSeen.push(id);
      }
      for (const id of firstSeen) {
        this.postings[id].documents.push(index);
        this.postings[id].frequencies.push(counts[id]);
        counts[id] = 0;
      }
    });
  }

  /** `_calc_idf`: every word's idf in `nd` order, the average over the vocabulary, and the epsilon floor. */
  private computeIdfs(): number {
    const logs = new Map<number, number>();
    const log = (x: number) => logs.get(x) ?? logs.set(x, pyMathLog(x)).get(x)!;
    this.idfs = new Float64Array(this.postings.length);
    let sum = 0;
    const negative: number[] = [];
    this.postings.forEach((posting, id) => {
      const df = posting.documents.length;
      const idf = log(this.corpusSize - df + 0.5) - log(df + 0.5);
      this.idfs[id] = idf;
      sum += idf;
      if (idf < 0) negative.push(id);
    });
    if (this.postings.length === 0) throw new PyException("division by zero", "ZeroDivisionError");
    const average = sum / this.postings.length;
    const floor = this.parameters.epsilon * average;
    for (const id of negative) this.idfs[id] = floor;
    return average;
  }

  /** The number of distinct words. */
  get vocabularySize(): number {
    return this.postings.length;
  }

  /** `idf.get(word)`: undefined for a word no document has. */
  idf(word: string): number | undefined {
    const id = this.wordIds.get(word);
    return id === undefined ? undefined : this.idfs[id];
  }

  /** `get_scores(query)`: one float64 score per document, in index order. */
  getScores(query: readonly string[]): Float64Array {
    const scores = new Float64Array(this.corpusSize);
    const factor = this.parameters.k1 + 1;
    for (const word of query) {
      const id = this.wordIds.get(word);
      if (id === undefined || !this.idfs[id]) continue;
      const idf = this.idfs[id];
      const { documents, frequencies } = this.postings[id];
      for (let index = 0; index < documents.length; index++) {
        const document = documents[index];
        const frequency = frequencies[index];
        scores[document] += idf * ((frequency * factor) / (frequency + this.lengthNorms[document]));
      }
    }
    return scores;
  }
}

/** A counts array twice as long (the vocabulary grew). */
function growCounts(counts: Int32Array): Int32Array {
  const grown = new Int32Array(counts.length * 2);
  grown.set(counts);
  return grown;
}
