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
import { PyException, pyMathLog } from "../value/index.ts";

/** The parameters of `BM25Okapi(corpus, k1=1.5, b=0.75, epsilon=0.25)`. */
export interface Bm25Parameters {
  readonly k1: number;
  readonly b: number;
  readonly epsilon: number;
}

/** rank_bm25's defaults, which τ³'s `BM25Indexer` uses. */
export const BM25_DEFAULTS: Bm25Parameters = { k1: 1.5, b: 0.75, epsilon: 0.25 };

/** The documents containing a word, with the word's frequency in each. */
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
  private readonly idfs = new Map<string, number>();
  private readonly postings = new Map<string, Posting>();
  /** `k1 · (1 − b + b · len / avgdl)` per document, as numpy computes it for every query token. */
  private readonly lengthNorms: Float64Array;

  constructor(corpus: readonly (readonly string[])[], parameters: Bm25Parameters = BM25_DEFAULTS) {
    this.parameters = parameters;
    this.corpusSize = corpus.length;
    this.docLen = corpus.map((document) => document.length);
    let total = 0;
    corpus.forEach((document, index) => {
      total += document.length;
      this.addDocument(document, index);
    });
    if (this.corpusSize === 0) throw new PyException("division by zero", "ZeroDivisionError");
    this.avgdl = total / this.corpusSize;
    this.averageIdf = this.computeIdfs();
    const { k1, b } = parameters;
    this.lengthNorms = Float64Array.from(this.docLen, (length) => k1 * (1 - b + (b * length) / this.avgdl));
  }

  /** One document's term frequencies, in first-occurrence order (`frequencies` dict, then `nd`). */
  private addDocument(document: readonly string[], index: number): void {
    const frequencies = new Map<string, number>();
    for (const word of document) frequencies.set(word, (frequencies.get(word) ?? 0) + 1);
    for (const [word, frequency] of frequencies) {
      let posting = this.postings.get(word);
      if (!posting) this.postings.set(word, (posting = { documents: [], frequencies: [] }));
      posting.documents.push(index);
      posting.frequencies.push(frequency);
    }
  }

  /** `_calc_idf`: every word's idf, the average over the vocabulary, and the epsilon floor. */
  private computeIdfs(): number {
    const logs = new Map<number, number>();
    const log = (x: number) => logs.get(x) ?? logs.set(x, pyMathLog(x)).get(x)!;
    let sum = 0;
    const negative: string[] = [];
    for (const [word, posting] of this.postings) {
      const df = posting.documents.length;
      const idf = log(this.corpusSize - df + 0.5) - log(df + 0.5);
      this.idfs.set(word, idf);
      sum += idf;
      if (idf < 0) negative.push(word);
    }
    if (this.idfs.size === 0) throw new PyException("division by zero", "ZeroDivisionError");
    const average = sum / this.idfs.size;
    const floor = this.parameters.epsilon * average;
    for (const word of negative) this.idfs.set(word, floor);
    return average;
  }

  /** The number of distinct words. */
  get vocabularySize(): number {
    return this.idfs.size;
  }

  /** `idf.get(word)`: undefined for a word no document has. */
  idf(word: string): number | undefined {
    return this.idfs.get(word);
  }

  /** `get_scores(query)`: one float64 score per document, in index order. */
  getScores(query: readonly string[]): Float64Array {
    const scores = new Float64Array(this.corpusSize);
    const factor = this.parameters.k1 + 1;
    for (const word of query) {
      const idf = this.idfs.get(word);
      const posting = this.postings.get(word);
      if (!idf || !posting) continue;
      for (let index = 0; index < posting.documents.length; index++) {
        const document = posting.documents[index];
        const frequency = posting.frequencies[index];
        scores[document] += idf * ((frequency * factor) / (frequency + this.lengthNorms[document]));
      }
    }
    return scores;
  }
}
