/**
 * τ³'s pointwise LLM reranker (`postprocessors/pointwise_llm_reranker.py`, the only reranker a
 * banking_knowledge variant uses), with the chat model injected (any OpenAI-compatible client of
 * the reranker's own role; `src/model`'s `ModelClient` is one).
 *
 * For each retrieved document with non-empty content, one chat call: the original's
 * `DEFAULT_POINTWISE_PROMPT` (read from its source at run time) filled with `str.format(query,
 * content)`, as a single user message, with the structured output `RelevanceScore
 * {relevance_score: int}` (what `client.beta.chat.completions.parse(response_format=RelevanceScore)`
 * sends: a strict `json_schema`) and `reasoning_effort` for `gpt-5*` models. Up to
 * `maxConcurrency` (20) calls at once. A rating is clamped to 0–10; an answer without content (a
 * refusal) rates 0; a call that fails or an answer that does not parse drops the document (the
 * original catches every exception per document). The documents rated `>= minScore` (5 in every
 * variant, `reranker_min_score` overrides) are returned with the rating as their score, best first
 * (a stable sort: equal ratings keep the retrieval order).
 *
 * One departure, on purpose: an error `isFatal` accepts (the factory passes "the endpoint refuses
 * connections or rejects the key or model") is thrown instead of dropping the document, so a
 * misconfigured reranker is an infrastructure error of the episode rather than searches that
 * silently find nothing.
 */
import { TaubridgeError, errorMarker } from "../../../errors/error-tree.ts";
import { type PyValue } from "../../../value/index.ts";
import type { z } from "zod";
import { lazySchema } from "../../../data/lazy-zod.ts";
import { readPointwiseRerankerPrompt } from "./messages.ts";
import type { RetrievalResult } from "./retrievers.ts";

/** A chat endpoint as the reranker needs it (`ChatModel.complete` fits). */
export interface RerankerChat {
  complete(request: { messages: readonly { role: "user"; content: string }[]; params?: Record<string, unknown> }): Promise<{ message: { content: string | null }; finishReason?: string | null }>;
}

/** How the reranker is built (defaults: the original's `PipelineSpec` and `PointwiseLLMReranker`). */
export interface PointwiseRerankerOptions {
  /** The τ² data directory (the prompt is read from its sources). */
  readonly dataRoot: string;
  readonly chat: RerankerChat;
  /** The model name as sent; `reasoning_effort` is only sent for names starting with `gpt-5`. */
  readonly model: string;
  /** `reranker_min_score` (default 5, `PipelineSpec.reranker_min_score`). */
  readonly minScore?: number;
  /** Default `"low"`; `null` sends none. */
  readonly reasoningEffort?: string | null;
  /** Calls in flight at once (default 20, `DEFAULT_MAX_CONCURRENCY`). */
  readonly maxConcurrency?: number;
  /** Errors to throw instead of dropping the document (default: none, as the original). */
  readonly isFatal?: (error: unknown) => boolean;
}

/** `RelevanceScore` as the openai SDK's `to_strict_json_schema` renders the pydantic model. */
const RELEVANCE_SCORE_FORMAT = {
  type: "json_schema",
  json_schema: {
    name: "RelevanceScore",
    strict: true,
    schema: {
      type: "object",
      title: "RelevanceScore",
      properties: { relevance_score: { title: "Relevance Score", type: "integer" } },
      required: ["relevance_score"],
      additionalProperties: false,
    },
  },
} as const;

/** pydantic's lax `int` from JSON: an integer, a float without fraction, or an integer string. */
const relevanceScoreSchema = lazySchema((z) =>
  z.object({
    relevance_score: z.union([
      z.number().int(),
      z
        .string()
        .regex(/^\s*[+-]?\d+\s*$/)
        .transform(Number),
    ]),
  }),
);

/** An answer that cannot be a rating (the SDK's parse raising): the document is dropped. */
class UnusableRating extends TaubridgeError {
  static readonly marker: symbol = errorMarker("UnusableRating");
}

/** Python's `template.format(*values)` for automatically numbered `{}` fields (and `{{`, `}}`). */
export function formatPositional(template: string, values: readonly string[]): string {
  let next = 0;
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (whole, field: string | undefined) => {
    if (whole === "{{") return "{";
    if (whole === "}}") return "}";
    if (field !== "" || next >= values.length) throw new Error(`unsupported format field {${field ?? ""}} in the reranker prompt`);
    return values[next++];
  });
}

/** The pointwise LLM reranker over one knowledge base's contents. */
export class PointwiseReranker {
  private readonly template: string;
  readonly minScore: number;

  constructor(private readonly options: PointwiseRerankerOptions) {
    this.template = readPointwiseRerankerPrompt(options.dataRoot);
    this.minScore = options.minScore ?? 5;
  }

  /** `PointwiseLLMReranker.process`: the results kept by their ratings, best first. */
  async rerank(query: PyValue | undefined, results: readonly RetrievalResult[], contentOf: (id: string) => string | undefined): Promise<RetrievalResult[]> {
    if (results.length === 0) return [];
    const toRate = results.map(([id]) => [id, contentOf(id) ?? ""] as const).filter(([, passage]) => passage !== "");
    const ratings = await mapConcurrently(toRate, this.options.maxConcurrency ?? 20, async ([id, passage]) => {
      try {
        return [id, await this.rate(String(query), passage)] as const;
      } catch (error) {
        if (this.options.isFatal?.(error)) throw error;
        return undefined;
      }
    });
    const kept = ratings.filter((rating): rating is readonly [string, number] => rating !== undefined && rating[1] >= this.minScore);
    return kept
      .map(([id, rating], index) => ({ id, rating, index }))
      .sort((a, b) => b.rating - a.rating || a.index - b.index)
      .map(({ id, rating }) => [id, rating] as const);
  }

  /** `_rate_passage`: one call, the rating clamped to 0–10 (no parsed answer: 0). */
  async rate(query: string, passage: string): Promise<number> {
    const { chat, model, reasoningEffort = "low" } = this.options;
    const params: Record<string, unknown> = { response_format: RELEVANCE_SCORE_FORMAT };
    if (reasoningEffort && model.startsWith("gpt-5")) params.reasoning_effort = reasoningEffort;
    const answer = await chat.complete({ messages: [{ role: "user", content: formatPositional(this.template, [query, passage]) }], params });
    if (answer.finishReason === "length" || answer.finishReason === "content_filter") throw new UnusableRating(`finish_reason ${answer.finishReason}`);
    const content = answer.message.content;
    if (!content) return 0;
    let parsed: z.infer<ReturnType<typeof relevanceScoreSchema>>;
    try {
      parsed = relevanceScoreSchema().parse(JSON.parse(content));
    } catch (error) {
      throw new UnusableRating(`not a RelevanceScore: ${(error as Error).message}`);
    }
    return Math.max(0, Math.min(10, parsed.relevance_score));
  }
}

/** `ThreadPoolExecutor(max_workers).map`: at most `limit` calls in flight, results in input order. */
async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
