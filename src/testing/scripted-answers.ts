/**
 * How the scripted server writes an answer: a chat completion (plain JSON, or OpenAI's server-sent
 * event chunks with tool-call deltas and an optional usage chunk) and OpenAI-style errors. Pure
 * functions of the step's built answer, so the server's request handling stays short.
 */
import type { ServerResponse } from "node:http";
import type { ParsedStep, stepAnswer } from "./script-book.ts";

type Json = Record<string, unknown>;

/** A step's answer as `stepAnswer` builds it (content, tool calls, finish reason, usage). */
export type BuiltAnswer = ReturnType<typeof stepAnswer>;

/** What identifies one completion in its body and its chunks. */
export interface CompletionIdentity {
  id: string;
  created: number;
  model: string;
}

/** Text split into words with their whitespace, the way a model streams it. */
export function splitText(text: string): string[] {
  if (text === "") return [];
  return text.match(/\s*\S+\s*|\s+/g) ?? [text];
}

/** Text in pieces of `size` characters (tool-call arguments stream in fragments). */
export function splitFixed(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let position = 0; position < text.length; position += size) pieces.push(text.slice(position, position + size));
  return pieces;
}

/** OpenAI's error body. */
export function errorBody(message: string, type: string, code: string | null): Json {
  return { error: { message, type, param: null, code } };
}

/** The status, body and headers of a scripted error step. */
export function errorAnswer(error: NonNullable<ParsedStep["error"]>): { status: number; body: unknown; headers: Record<string, string> } {
  const headers: Record<string, string> = { ...(error.headers ?? {}) };
  if (error.retryAfter !== undefined) headers["retry-after"] = String(error.retryAfter);
  if (error.retryAfterMs !== undefined) headers["retry-after-ms"] = String(error.retryAfterMs);
  const body = error.body !== undefined ? error.body : errorBody(`Scripted error ${error.status}`, error.status === 429 ? "rate_limit_error" : "api_error", null);
  return { status: error.status, body, headers };
}

/** A non-streamed chat completion. */
export function completionBody(built: BuiltAnswer, identity: CompletionIdentity): Json {
  const message: Json = { role: "assistant", content: built.content, refusal: null };
  if (built.toolCalls.length > 0) message.tool_calls = built.toolCalls;
  return {
    id: identity.id,
    object: "chat.completion",
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, message, finish_reason: built.finishReason, logprobs: null }],
    usage: built.usage,
    system_fingerprint: "taubridge-scripted",
  };
}

/**
 * Streams a completion as OpenAI does: a role chunk, the text word by word, each tool call's name
 * then its arguments in fragments, the finish reason, a usage chunk when asked for, `[DONE]`.
 */
export function streamCompletion(response: ServerResponse, built: BuiltAnswer, identity: CompletionIdentity, withUsage: boolean): void {
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
  const base = { id: identity.id, object: "chat.completion.chunk", created: identity.created, model: identity.model, system_fingerprint: "taubridge-scripted" };
  const chunk = (delta: Json, finishReason: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] });
  const send = (data: unknown) => {
    if (!response.destroyed) response.write(`data: ${JSON.stringify(data)}\n\n`);
  };
  send(chunk({ role: "assistant", content: built.toolCalls.length > 0 && built.content === null ? null : "" }));
  for (const piece of splitText(built.content ?? "")) send(chunk({ content: piece }));
  built.toolCalls.forEach((call, position) => {
    send(chunk({ tool_calls: [{ index: position, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }));
    for (const piece of splitFixed(call.function.arguments, 8)) send(chunk({ tool_calls: [{ index: position, function: { arguments: piece } }] }));
  });
  send(chunk({}, built.finishReason));
  if (withUsage) send({ ...base, choices: [], usage: built.usage });
  if (!response.destroyed) response.end("data: [DONE]\n\n");
}
