/**
 * The chat-completions path of the model clients: one POST over an undici `Pool` per endpoint,
 * with the `openai` SDK's exact wire behaviour and none of its per-call machinery.
 *
 * Why: at a thousand concurrent simulations the harness is CPU-bound, and the SDK's per-call work
 * (building options, headers and the URL, re-serialising the whole history, formatting log details,
 * a WHATWG `Response`) was most of a call's cost (issue 28: 0.92–1.09 ms of client CPU per call
 * with a 21 KB body, against 0.07 ms for a `Pool` request with the body already built). So:
 *
 * - **URL and headers come from the SDK itself**, once per client: the SDK instance (plain,
 *   `AzureOpenAI`, `BedrockOpenAI`) builds its request for the model (`prepareOptions`,
 *   `buildRequest`, `prepareRequest`: the base URL and its query, Azure's deployment path and
 *   `api-version`, the auth header, `User-Agent`, the `X-Stainless-*` headers, a provider's default
 *   headers), and every call sends those. They do not change from call to call: the SDK runs with
 *   `maxRetries: 0` (ours is the one retry layer, so `X-Stainless-Retry-Count` is always 0) and one
 *   timeout per client.
 * - **The body is the SDK's** (`JSON.stringify` of the request object), built by
 *   {@link ChatBodyWriter}: a message object already sent is serialised once and reused while it is
 *   unchanged (checked leaf by leaf, so a message edited in place is serialised again).
 * - **Answers and errors as the SDK gives them**: a non-2xx answer becomes the SDK's own error class
 *   (`APIError.generate`: `RateLimitError`, `BadRequestError`, …, with the parsed error body and
 *   the headers the retry layer reads `retry-after` from); a network failure an
 *   `APIConnectionError` carrying undici's error (`ECONNREFUSED` stays visible); an abort
 *   `APIUserAbortError`; a 2xx body is parsed as the SDK parses it (JSON when the media type says
 *   so, else the text, which the client then refuses as unusable).
 *
 * `test/model-transport.test.ts` sends the same requests through both paths for every provider and
 * compares them byte for byte (method, URL, headers, body), and their errors.
 */
import type OpenAI from "openai";
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { interceptors, Pool, type Dispatcher } from "undici";

/** What a client sends with every chat completion: the URL and the headers the SDK builds. */
export interface ChatTarget {
  origin: string;
  /** Path and query (`/v1/chat/completions`, `/openai/deployments/x/chat/completions?api-version=…`). */
  path: string;
  headers: Record<string, string>;
}

interface SdkInternals {
  prepareOptions(options: unknown): Promise<void>;
  buildRequest(options: unknown, props: { retryCount: number }): Promise<{ req: { headers: Headers }; url: string }>;
  prepareRequest(request: unknown, context: { url: string; options: unknown }): Promise<void>;
}

/**
 * The SDK's own request for a chat completion of `model`, as `chat.completions.create` would make
 * it with `{ timeout, maxRetries: 0 }`: its URL and headers (the body is the caller's).
 */
export async function chatTarget(sdk: OpenAI, model: string, timeoutMs: number): Promise<ChatTarget> {
  const internals = sdk as unknown as SdkInternals;
  const options = { method: "post", path: "/chat/completions", body: { model }, timeout: timeoutMs, maxRetries: 0, stream: false, __security: { bearerAuth: true } };
  await internals.prepareOptions(options);
  const { req, url } = await internals.buildRequest(options, { retryCount: 0 });
  await internals.prepareRequest(req, { url, options });
  const headers: Record<string, string> = {};
  req.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const parsed = new URL(url);
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, headers };
}

const pools = new Map<string, Dispatcher>();

/**
 * One keep-alive connection pool per origin for the whole process, with the settings of the SDK
 * path's dispatcher (`http-transport.ts`): 30 s idle keep-alive (up to 10 min when the server
 * allows), no connection limit (the run's queues bound the load), redirects followed (up to 5).
 */
function poolFor(origin: string): Dispatcher {
  let pool = pools.get(origin);
  if (!pool) {
    pool = new Pool(origin, { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: null }).compose(interceptors.redirect({ maxRedirections: 5 }));
    pools.set(origin, pool);
  }
  return pool;
}

/** Response headers as the SDK's `Response` holds them (for the errors it builds). */
function headersOf(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.append(name, value);
  }
  return headers;
}

function headerText(raw: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = raw[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/** `JSON.parse`, or undefined (the SDK's `safeJSON`). */
function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What the SDK's fetch path rejects with when the request fails before an answer: its connection errors. */
function connectionError(error: unknown, signal: AbortSignal): Error {
  if (signal.aborted) return new APIUserAbortError();
  const cause = error instanceof Error ? error : new Error(String(error));
  const isTimeout = cause.name === "AbortError" || /timed? ?out/i.test(String(cause) + ("cause" in cause ? String(cause.cause) : ""));
  if (isTimeout) return new APIConnectionTimeoutError();
  return new APIConnectionError({ cause });
}

/**
 * One POST of `body` to the target, answered as `chat.completions.create` answers: the parsed body
 * of a 2xx (JSON when the media type says so, else its text; `null` for 204), the SDK's error for
 * anything else. `signal` aborts it (`APIUserAbortError`).
 */
export async function postChat(target: ChatTarget, body: string, signal: AbortSignal): Promise<unknown> {
  let answer: Dispatcher.ResponseData;
  try {
    answer = await poolFor(target.origin).request({ path: target.path, method: "POST", headers: target.headers, body, signal });
  } catch (error) {
    throw connectionError(error, signal);
  }
  const status = answer.statusCode;
  let text: string;
  try {
    text = status === 204 ? "" : await answer.body.text();
  } catch (error) {
    throw connectionError(error, signal);
  }
  if (status < 200 || status >= 300) {
    const json = safeJson(text);
    throw APIError.generate(status, json as object | undefined, json === undefined ? text : undefined, headersOf(answer.headers));
  }
  if (status === 204) return null;
  const mediaType = headerText(answer.headers, "content-type")?.split(";")[0]?.trim();
  if (mediaType?.includes("application/json") || mediaType?.endsWith("+json")) {
    if (headerText(answer.headers, "content-length") === "0") return undefined;
    return JSON.parse(text);
  }
  return text;
}

const SNAPSHOT_END = Symbol("end");

/**
 * The leaves of a plain JSON-like value in a fixed walk order (keys and primitives), or undefined
 * when it holds anything else (class instances, `toJSON`): such a message is serialised every time.
 */
function snapshot(value: unknown, into: unknown[]): boolean {
  if (value === null || typeof value !== "object") {
    into.push(value);
    return true;
  }
  if (Array.isArray(value)) {
    into.push(value.length);
    for (const item of value) if (!snapshot(item, into)) return false;
    into.push(SNAPSHOT_END);
    return true;
  }
  const prototype: unknown = Object.getPrototypeOf(value as object);
  if ((prototype !== Object.prototype && prototype !== null) || typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    into.push(key);
    if (!snapshot((value as Record<string, unknown>)[key], into)) return false;
  }
  into.push(SNAPSHOT_END);
  return true;
}

/** Whether `value` still has the leaves recorded from `recorded` (starting at `position.index`). */
function unchanged(value: unknown, recorded: readonly unknown[], position: { index: number }): boolean {
  if (value === null || typeof value !== "object") return recorded[position.index++] === value;
  if (Array.isArray(value)) {
    if (recorded[position.index++] !== value.length) return false;
    for (const item of value) if (!unchanged(item, recorded, position)) return false;
    return recorded[position.index++] === SNAPSHOT_END;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (recorded[position.index++] !== key) return false;
    if (!unchanged((value as Record<string, unknown>)[key], recorded, position)) return false;
  }
  return recorded[position.index++] === SNAPSHOT_END;
}

interface SerializedMessage {
  json: string;
  leaves: unknown[];
}

/**
 * Builds chat-completion bodies as `JSON.stringify` of `{ ...params, model, messages, tools?,
 * temperature?, tool_choice? }` (the client's body, byte for byte), serialising each message
 * object once: a conversation's history is sent again on every turn, and re-serialising it was a
 * visible share of a call's CPU. A cached message is reused only while its leaves are the same
 * values (strings compared by identity first, so the check costs a few comparisons per message,
 * not its length); a message changed in place is serialised again. Tool lists are cached the same
 * way, by identity.
 */
export class ChatBodyWriter {
  private readonly messages = new WeakMap<object, SerializedMessage>();

  /** The JSON of one value, from the cache when it is the same object with the same leaves. */
  private serialized(value: unknown): string {
    if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
    const cached = this.messages.get(value);
    if (cached && unchanged(value, cached.leaves, { index: 0 })) return cached.json;
    const json = JSON.stringify(value) ?? "null";
    const leaves: unknown[] = [];
    if (snapshot(value, leaves)) this.messages.set(value, { json, leaves });
    return json;
  }

  /** The body text; `params` first (their keys cannot clash with the client's: it refuses those). */
  write(parts: {
    params: Record<string, unknown> | undefined;
    model: string;
    messages: readonly unknown[];
    tools: readonly unknown[] | undefined;
    temperature: number | undefined;
    toolChoice: unknown;
  }): string {
    let text = "{";
    if (parts.params) {
      const params = JSON.stringify(parts.params);
      if (params.length > 2) text += `${params.slice(1, -1)},`;
    }
    text += `"model":${JSON.stringify(parts.model)},"messages":[`;
    const { messages } = parts;
    for (let index = 0; index < messages.length; index++) {
      if (index > 0) text += ",";
      text += this.serialized(messages[index]);
    }
    text += "]";
    if (parts.tools !== undefined) text += `,"tools":${this.serialized(parts.tools)}`;
    if (parts.temperature !== undefined) text += `,"temperature":${JSON.stringify(parts.temperature)}`;
    if (parts.toolChoice !== undefined) {
      const choice = JSON.stringify(parts.toolChoice);
      if (choice !== undefined) text += `,"tool_choice":${choice}`;
    }
    return `${text}}`;
  }
}
