/**
 * Deterministic embeddings for the scripted server's `POST /v1/embeddings`, so dense retrieval can
 * be tested end to end (real `openai` SDK, real HTTP on loopback) with vectors a test can compute
 * by hand.
 *
 * **The vector of a text** is a hashed bag of words: the text is lower-cased (`toLowerCase`) and
 * cut into tokens, the maximal runs of Unicode letters and digits (`[\p{L}\p{N}]+`); each token adds
 * 1 to component `h mod dimensions`, where `h` is the first four bytes of the token's UTF-8 SHA-256
 * read as a big-endian unsigned integer ({@link scriptedTokenComponent}). Components are small
 * integers, exact in float32, and the vectors are not normalized (cosine similarity does that). A
 * text without tokens (punctuation only) has the zero vector.
 *
 * **The protocol** is OpenAI's: `input` a string or an array of strings (token-id arrays are not
 * supported), `encoding_format` `"float"` (the default) or `"base64"` (little-endian float32 bytes);
 * answer `{object: "list", data: [{object: "embedding", index, embedding}], model, usage}` with the
 * token counts. As OpenAI does, an empty string in `input` is a 400.
 */
import { createHash } from "node:crypto";

/** Default number of components (`startScriptedModelServer({ embeddingDimensions })` changes it). */
export const SCRIPTED_EMBEDDING_DIMENSIONS = 64;

/** The tokens of a text: lower-cased runs of letters and digits. */
export function scriptedEmbeddingTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The component a token counts in: the first four bytes of its SHA-256, big-endian, modulo `dimensions`. */
export function scriptedTokenComponent(token: string, dimensions = SCRIPTED_EMBEDDING_DIMENSIONS): number {
  return createHash("sha256").update(token, "utf8").digest().readUInt32BE(0) % dimensions;
}

/** The scripted server's embedding of a text (see the module comment). */
export function scriptedEmbedding(text: string, dimensions = SCRIPTED_EMBEDDING_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const token of scriptedEmbeddingTokens(text)) vector[scriptedTokenComponent(token, dimensions)] += 1;
  return vector;
}

/** What the server sends for an embeddings request body: a status and a JSON body (an error body's message on 400). */
export function scriptedEmbeddingsAnswer(body: Record<string, unknown>, dimensions = SCRIPTED_EMBEDDING_DIMENSIONS): { status: 200; body: Record<string, unknown> } | { status: 400; message: string } {
  const model = body.model;
  if (typeof model !== "string" || model === "") return { status: 400, message: "An embeddings request needs `model` (string)" };
  const input = typeof body.input === "string" ? [body.input] : body.input;
  if (!Array.isArray(input) || input.length === 0 || !input.every((item) => typeof item === "string")) {
    return { status: 400, message: "`input` must be a non-empty string or array of strings (the scripted server does not take token ids)" };
  }
  if (input.some((item) => item === "")) return { status: 400, message: "'$.input' is invalid: an input string is empty" };
  const format = body.encoding_format ?? "float";
  if (format !== "float" && format !== "base64") return { status: 400, message: `unsupported encoding_format ${JSON.stringify(format)} (float or base64)` };
  const tokens = input.reduce((sum, text) => sum + scriptedEmbeddingTokens(text).length, 0);
  const data = input.map((text, index) => {
    const vector = scriptedEmbedding(text, dimensions);
    const embedding = format === "float" ? vector : Buffer.from(new Float32Array(vector).buffer).toString("base64");
    return { object: "embedding", index, embedding };
  });
  return { status: 200, body: { object: "list", data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } } };
}
