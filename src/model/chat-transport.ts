/**
 * The chat-completions path of the model clients: one POST over undici keep-alive connections per endpoint,
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
import type { Client, Dispatcher } from "undici";
import { leaveAbort, waitAbort, type AbortWaiter } from "./abort-relay.ts";
import { AttemptTimeoutError } from "./retry.ts";
import { redirectHandler, undiciClient } from "./undici-parts.ts";

/** What a client sends with every chat completion: the URL and the headers the SDK builds. */
export interface ChatTarget {
  origin: string;
  /** Path and query (`/v1/chat/completions`, `/openai/deployments/x/chat/completions?api-version=…`). */
  path: string;
  headers: Record<string, string>;
  /** The same headers as undici's flat `[name, value, …]` list (it takes that without looking for an iterator or listing keys). */
  headerList: string[];
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
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, headers, headerList: Object.entries(headers).flat() };
}

/**
 * The keep-alive connections to one origin: undici `Client`s (one connection each, no
 * pipelining), lent one per request from a stack of idle ones — the most recently freed first —
 * with a new one made when none is idle (no connection limit: the run's queues bound the load).
 *
 * Why not undici's `Pool` (which this replaced, with the same settings): it looks for a free
 * connection by walking all of them, twice per request (once to pick one, once more to learn
 * whether any is left), and at a thousand calls in flight that walk over ~1,000–1,800 busy
 * connections was 2–3% of the harness's CPU. The stack gives the same choice in constant time. A
 * connection comes back when undici says it can take a request again (its `drain`, which for a
 * keep-alive answer comes a full event-loop turn after it, as with the `Pool`: a server that closes
 * a connection it said it would keep is not written to), or at once when undici says it is not
 * busy. One whose connecting failed is dropped, as the `Pool` drops it. Requests are the same bytes
 * on the same kind of connection: only the choice of connection is ours.
 *
 * Redirects are followed as undici's redirect interceptor follows them (at most
 * {@link MAX_REDIRECTIONS}), by its own `RedirectHandler`, but one is made only for an answer that
 * is a redirect ({@link ChatAnswerHandler}): composing the interceptor put a `RedirectHandler`, its
 * option copies and a wrapping handler in front of every call (~2% of the harness's CPU at a
 * thousand simulations), for answers that are never redirects from a chat endpoint in practice.
 */
class OriginConnections {
  private readonly idle: Connection[] = [];

  constructor(private readonly origin: string) {}

  private connection(): Connection {
    const client = new (undiciClient())(this.origin, { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 });
    const connection: Connection = { client, failed: false };
    client.on("drain", () => {
      if (usable(connection)) this.idle.push(connection);
    });
    client.on("connectionError", () => {
      connection.failed = true;
      const index = this.idle.indexOf(connection);
      if (index >= 0) this.idle.splice(index, 1);
    });
    return connection;
  }

  dispatch(options: Dispatcher.DispatchOptions, handler: ChatAnswerHandler): void {
    let connection = this.idle.pop();
    while (connection && !usable(connection)) connection = this.idle.pop();
    connection ??= this.connection();
    // A redirect is followed on the same connection's client, as the interceptor composed on it followed it.
    handler.redirectVia(connection.client, options, this.origin);
    // `true`: it can take another request now (undici's answer); `false`: it comes back on its `drain`.
    if (connection.client.dispatch(options, handler)) this.idle.push(connection);
  }
}

/** One keep-alive connection: its undici `Client`. */
interface Connection {
  client: Client;
  failed: boolean;
}

/** How many redirects a call follows (what the redirect interceptor was composed with). */
const MAX_REDIRECTIONS = 5;

/** The statuses undici's `RedirectHandler` follows (with a `location`). */
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([300, 301, 302, 303, 307, 308]);

const usable = (connection: Connection) => !connection.failed && !connection.client.destroyed && !connection.client.closed;

const origins = new Map<string, OriginConnections>();

/** The connections to `origin`, shared by every client of the process (every role and episode reuses warm connections). */
function connectionsTo(origin: string): OriginConnections {
  let connections = origins.get(origin);
  if (!connections) {
    connections = new OriginConnections(origin);
    origins.set(origin, connections);
  }
  return connections;
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
function connectionError(error: unknown): Error {
  const cause = error instanceof Error ? error : new Error(String(error));
  const isTimeout = cause.name === "AbortError" || /timed? ?out/i.test(String(cause) + ("cause" in cause ? String(cause.cause) : ""));
  if (isTimeout) return new APIConnectionTimeoutError();
  return new APIConnectionError({ cause });
}

/**
 * A dispatch handler (undici's handler API) that collects one answer — status, headers and the
 * body as text — and settles the call with it as {@link answerOf} reads it, or ends the request
 * early when the caller's signal aborts (rejecting with the SDK's `APIUserAbortError`) or the
 * attempt's time is up (rejecting with {@link AttemptTimeoutError}). Dispatching it directly skips
 * what `request()` adds per call for a body read whole (its request handler, a `Readable` body
 * stream and its consumer), and the attempt needs no `AbortController` of its own: one timer, and
 * the caller's signal listened to through its relay (`abort-relay.ts`). The answer is read here,
 * not in an `async` function awaiting the handler: every suspended `async` frame of a call lives as
 * long as the call waits for the model (~500 ms at a thousand simulations), long enough for the
 * garbage collector to copy it and promote it.
 */
class ChatAnswerHandler implements Dispatcher.DispatchHandler, AbortWaiter {
  /** Where a redirect is followed from: the client and options the request was dispatched with (until an answer is a redirect). */
  private client: Client | undefined;
  private options: Dispatcher.DispatchOptions | undefined;
  /** The origin the request goes to (a relative redirect location resolves against it). */
  private origin: string | undefined;
  /** undici's `RedirectHandler`, once an answer was a redirect: it gets that answer and sends the next request, whose answer it hands to {@link sink}. */
  private redirect: Dispatcher.DispatchHandler | undefined;
  private status = 0;
  private headers: Record<string, string | string[] | undefined> | undefined;
  private readonly chunks: Buffer[] = [];
  private controller: Dispatcher.DispatchController | undefined;
  /** Why the request was ended early, once it was (the controller is told when it arrives). */
  private stopped: Error | undefined;
  private settled = false;
  private readonly timer: NodeJS.Timeout;
  /** The caller's signal while this handler waits on it (its relay calls {@link aborted}). */
  private signal: AbortSignal | undefined;

  constructor(
    signal: AbortSignal | undefined,
    timeoutMs: number,
    private readonly resolve: (answer: unknown) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.timer = setTimeout(() => this.stop(new AttemptTimeoutError(timeoutMs)), timeoutMs);
    if (signal === undefined) return;
    if (waitAbort(signal, this)) this.signal = signal;
    else this.stop(new APIUserAbortError());
  }

  /** The caller's signal aborted. */
  aborted(): void {
    this.signal = undefined;
    this.stop(new APIUserAbortError());
  }

  private stop(reason: Error): void {
    if (this.settled) return;
    this.stopped = reason;
    this.controller?.abort(reason);
    this.finish();
    this.reject(reason);
  }

  private finish(): void {
    this.settled = true;
    clearTimeout(this.timer);
    if (this.signal !== undefined) leaveAbort(this.signal, this);
    this.signal = undefined;
  }

  /** The client, options and origin the request goes out with: a redirect answering it is followed from them. */
  redirectVia(client: Client, options: Dispatcher.DispatchOptions, origin: string): void {
    this.client = client;
    this.options = options;
    this.origin = origin;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.started(controller);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>, statusMessage?: string): void {
    if (this.redirect) {
      this.redirect.onResponseStart?.(controller, statusCode, headers, statusMessage ?? "");
      return;
    }
    const { client, options } = this;
    if (client && options && REDIRECT_STATUSES.has(statusCode) && headers.location !== undefined) {
      // What the redirect interceptor did for every request, now for this one: undici's handler
      // (with a copy of the options, as the interceptor gave it) takes this answer and follows it.
      // With the request's origin, as the interceptor of a dispatcher that is given one has it: a
      // relative location resolves against the request's URL, and a redirect within the origin
      // keeps the request's authorization headers (as the SDK's `fetch` does), where without it
      // undici's handler took every location for another origin's.
      this.client = undefined;
      this.options = undefined;
      const redirect: Dispatcher.DispatchHandler = new (redirectHandler())((next, handler) => client.dispatch(next, handler), MAX_REDIRECTIONS, { origin: this.origin, ...options }, this.sink());
      this.redirect = redirect;
      redirect.onResponseStart?.(controller, statusCode, headers, statusMessage ?? "");
      return;
    }
    this.answered(statusCode, headers);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.redirect) this.redirect.onResponseData?.(controller, chunk);
    else this.chunks.push(chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: Record<string, string | string[] | undefined>): void {
    if (this.redirect) this.redirect.onResponseEnd?.(controller, trailers);
    else this.ended();
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    if (this.redirect) this.redirect.onResponseError?.(controller, error);
    else this.failed(error);
  }

  /** The handler a `RedirectHandler` reports the followed request's answer to. */
  private sink(): Dispatcher.DispatchHandler {
    return {
      onRequestStart: (controller) => this.started(controller),
      onResponseStart: (_controller, statusCode, headers) => this.answered(statusCode, headers),
      onResponseData: (_controller, chunk) => {
        this.chunks.push(chunk);
      },
      onResponseEnd: () => this.ended(),
      onResponseError: (_controller, error) => this.failed(error),
    };
  }

  private started(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.stopped) controller.abort(this.stopped);
  }

  private answered(statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.status = statusCode;
    this.headers = headers;
  }

  private ended(): void {
    if (this.settled) return;
    this.finish();
    const { chunks } = this;
    const body = chunks.length === 1 ? (chunks[0] as Buffer).toString("utf8") : Buffer.concat(chunks).toString("utf8");
    let answer: unknown;
    try {
      answer = answerOf(this.status, this.headers ?? {}, body);
    } catch (error) {
      this.reject(error);
      return;
    }
    this.resolve(answer);
  }

  private failed(error: Error): void {
    if (this.settled) return;
    this.finish();
    this.reject(connectionError(error));
  }
}

/**
 * One POST of `body` to the target, answered as `chat.completions.create` answers: the parsed body
 * of a 2xx (JSON when the media type says so, else its text; `null` for 204), the SDK's error for
 * anything else. `signal` aborts it (`APIUserAbortError`); after `timeoutMs` it fails with
 * {@link AttemptTimeoutError}.
 */
export function postChat(target: ChatTarget, body: string | Uint8Array, signal: AbortSignal | undefined, timeoutMs: number): Promise<unknown> {
  if (signal?.aborted) return Promise.reject(new APIUserAbortError());
  return new Promise<unknown>((resolve, reject) => {
    connectionsTo(target.origin).dispatch({ path: target.path, method: "POST", headers: target.headerList, body }, new ChatAnswerHandler(signal, timeoutMs, resolve, reject));
  });
}

/** An answer read as the SDK reads it: a 2xx body parsed ({@link postChat}), else thrown as the SDK's error. */
function answerOf(status: number, headers: Record<string, string | string[] | undefined>, body: string): unknown {
  const text = status === 204 ? "" : body;
  if (status < 200 || status >= 300) {
    const json = safeJson(text);
    throw APIError.generate(status, json as object | undefined, json === undefined ? text : undefined, headersOf(headers));
  }
  if (status === 204) return null;
  const mediaType = headerText(headers, "content-type")?.split(";")[0]?.trim();
  if (mediaType?.includes("application/json") || mediaType?.endsWith("+json")) {
    if (headerText(headers, "content-length") === "0") return undefined;
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

/**
 * Objects {@link immutable} has found deeply frozen: they stay so (a frozen object's values cannot
 * be replaced, and these hold only primitives and such objects), so the walk is not repeated when
 * they come again (a task's tool list is a new frozen array of the same frozen tool schemas).
 */
const provenImmutable = new WeakSet<object>();

/** `Object.prototype.__lookupGetter__`: a property's getter, if it has one, found without allocating a descriptor. */
const getterOf = (Object.prototype as unknown as { __lookupGetter__(this: object, key: PropertyKey): unknown }).__lookupGetter__;

/**
 * Whether `value` can never change: a primitive, or a frozen plain object or array (no `toJSON`,
 * no getter) whose values are all such. A message made that way (the τ² participants freeze the
 * messages they send) is serialised once and reused without checking its leaves again.
 *
 * Only what `JSON.stringify` reads is looked at: an object's own enumerable string keys (a frozen
 * object's other properties cannot become enumerable), an array's elements, and any own `toJSON`.
 * A getter is looked for with `__lookupGetter__`, not `Object.getOwnPropertyDescriptors`, whose
 * descriptor objects were most of this check's cost (2% of the harness's CPU at a thousand
 * simulations: every message a participant sends is checked once).
 */
function immutable(value: unknown): boolean {
  if (value === null || typeof value !== "object") return true;
  if (provenImmutable.has(value)) return true;
  if (!Object.isFrozen(value)) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      if (getterOf.call(value, index) !== undefined || !immutable(value[index])) return false;
    }
  } else {
    const prototype: unknown = Object.getPrototypeOf(value);
    if ((prototype !== Object.prototype && prototype !== null) || Object.hasOwn(value, "toJSON")) return false;
    for (const key of Object.keys(value)) {
      if (getterOf.call(value, key) !== undefined || !immutable((value as Record<string, unknown>)[key])) return false;
    }
  }
  provenImmutable.add(value);
  return true;
}

interface SerializedMessage {
  /** The value's JSON as UTF-8. */
  bytes: Buffer;
  /** Its leaves when it was serialised, to check it is unchanged; `null` when it cannot change ({@link immutable}). */
  leaves: unknown[] | null;
}

/** Bodies are carved from slabs of this size (one larger than a quarter of it gets its own buffer). */
const SLAB_BYTES = 1 << 20;
let slab = Buffer.allocUnsafeSlow(0);
let slabUsed = 0;

/**
 * `size` bytes of fresh memory: a slice of a shared slab, never handed out twice (a slab is freed
 * when the last slice cut from it is). Allocating each piece of memory (tens of kilobytes) as a
 * buffer of its own was a visible share of a call's CPU at a thousand concurrent simulations, and
 * its external memory made the garbage collector run more often.
 */
function freshBytes(size: number): Buffer {
  if (size > SLAB_BYTES >> 2) return Buffer.allocUnsafeSlow(size);
  if (slabUsed + size > slab.length) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabUsed = 0;
  }
  const bytes = slab.subarray(slabUsed, slabUsed + size);
  // The next slice starts on an 8-byte boundary.
  slabUsed = (slabUsed + size + 7) & ~7;
  return bytes;
}

/** A conversation's memory has room for this share more than its body, plus {@link HEADROOM_BYTES}, so that it is rarely moved as it grows. */
const HEADROOM_SHARE = 0.5;
const HEADROOM_BYTES = 4096;

/**
 * One conversation's last body (its messages array's): the memory it was written in, and what its
 * bytes were made of, so that the next body is written in place — only the messages added since
 * and the tail are written; the head and the history already there are not touched.
 */
interface ConversationBody {
  /** Memory of the conversation's own: each body is a prefix of it. */
  memory: Buffer;
  /** The body last made in it until {@link ChatBodyWriter.release} says nothing reads it any more; the memory is not written while it is set. */
  lent: Buffer | undefined;
  /** What the head (`{…params,"model":…,"messages":[`) was made of: the params' bytes (from the cache) and the model, … */
  params: Buffer | undefined;
  model: string;
  /** … and where it ends. */
  headEnd: number;
  /** The messages whose bytes follow the head, in order, … */
  sent: unknown[];
  /** … whether each cannot change ({@link immutable}: then the same object has the same bytes), … */
  fixed: boolean[];
  /** … the cached bytes each was written from (a changeable message is the same while the cache gives the same bytes), … */
  pieces: Buffer[];
  /** … and where each one's bytes end (its comma, if any, before it). */
  ends: number[];
}

const OPEN_BRACE = 0x7b;

/**
 * Builds chat-completion bodies as the UTF-8 bytes of `JSON.stringify` of `{ ...params, model,
 * messages, tools?, temperature?, tool_choice? }` (the client's body, byte for byte), serialising
 * each message object once: a conversation's history is sent again on every turn, and
 * re-serialising and re-encoding it was a visible share of a call's CPU. A cached message is
 * reused while it cannot have changed: it is deeply frozen ({@link immutable}), or its leaves are
 * the same values (strings compared by identity first, so the check costs a few comparisons per
 * leaf, not the text's length); a message changed in place is serialised again. Tool lists and
 * params are cached the same way, by identity.
 *
 * A conversation (one messages array, which a participant appends to) has memory of its own, and
 * its next body is written there in place: the head and the messages already written stay, and
 * only the messages added since and the tail (tools, temperature, tool choice) are written after
 * them. Copying the whole history into fresh memory for every call (~30 KB for a τ² telecom
 * conversation) was, with the page faults of that fresh memory, most of the cost of building a
 * body. The memory is written again only once {@link release} was told that the last body made in
 * it is no longer read (the model client says so when a call has its answer: the server has read
 * the request); until then, or when the history no longer starts with the messages written (one
 * was replaced or changed in place), the body is written anew, into fresh memory if need be.
 */
export class ChatBodyWriter {
  private readonly messages = new WeakMap<object, SerializedMessage>();
  private readonly conversations = new WeakMap<readonly unknown[], ConversationBody>();

  /** The JSON bytes of one value, from the cache when it is the same object with the same leaves. */
  private serialized(value: unknown): Buffer {
    if (value === null || typeof value !== "object") return Buffer.from(JSON.stringify(value) ?? "null");
    const cached = this.messages.get(value);
    if (cached && (cached.leaves === null || unchanged(value, cached.leaves, { index: 0 }))) return cached.bytes;
    const bytes = Buffer.from(JSON.stringify(value) ?? "null");
    if (immutable(value)) this.messages.set(value, { bytes, leaves: null });
    else {
      const leaves: unknown[] = [];
      if (snapshot(value, leaves)) this.messages.set(value, { bytes, leaves });
    }
    return bytes;
  }

  /** Whether `value`'s cached bytes can never change (it is {@link immutable}). */
  private fixed(value: unknown): boolean {
    return value === null || typeof value !== "object" || this.messages.get(value)?.leaves === null;
  }

  /**
   * The body bytes; `params` first (their keys cannot clash with the client's: it refuses those).
   * They may be written over once {@link release} is told nobody reads them any more.
   */
  write(parts: {
    params: Record<string, unknown> | undefined;
    model: string;
    messages: readonly unknown[];
    tools: readonly unknown[] | undefined;
    temperature: number | undefined;
    toolChoice: unknown;
  }): Buffer {
    const params = parts.params ? this.serialized(parts.params) : undefined;
    // A params value whose JSON is not an object (a `toJSON`) is spliced as text, as it always was.
    if (params !== undefined && params[0] !== OPEN_BRACE) return this.writeAnew(parts, undefined);
    const { messages, model } = parts;
    const conversation = this.conversations.get(messages);
    if (conversation === undefined || conversation.lent !== undefined || conversation.params !== params || conversation.model !== model) return this.writeAnew(parts, params);
    const { sent, fixed, pieces, ends } = conversation;
    const limit = Math.min(sent.length, messages.length);
    let kept = 0;
    while (kept < limit && messages[kept] === sent[kept] && (fixed[kept] || this.serialized(messages[kept]) === pieces[kept])) kept++;
    sent.length = kept;
    fixed.length = kept;
    pieces.length = kept;
    ends.length = kept;
    return this.continue(conversation, parts, kept > 0 ? (ends[kept - 1] as number) : conversation.headEnd);
  }

  /** A body in fresh memory of the conversation's own: the head, then every message. */
  private writeAnew(parts: Parameters<ChatBodyWriter["write"]>[0], params: Buffer | undefined): Buffer {
    let head = "{";
    if (params === undefined && parts.params) {
      const text = JSON.stringify(parts.params);
      if (text.length > 2) head += `${text.slice(1, -1)},`;
    } else if (params !== undefined && params.length > 2) {
      head += `${params.toString("utf8", 1, params.length - 1)},`;
    }
    head += `"model":${JSON.stringify(parts.model)},"messages":[`;
    const headBytes = Buffer.from(head);
    const conversation: ConversationBody = {
      memory: freshBytes(0),
      lent: undefined,
      params,
      model: parts.model,
      headEnd: headBytes.length,
      sent: [],
      fixed: [],
      pieces: [],
      ends: [],
    };
    // A params value that is not an object's JSON is never reused (its bytes are not compared).
    if (params !== undefined || !parts.params) this.conversations.set(parts.messages, conversation);
    return this.continue(conversation, parts, 0, headBytes);
  }

  /**
   * Writes the messages from `sent.length` on and the tail after `offset` (the head's or the last
   * kept message's end; `head` when the memory is new), moving the bytes kept to larger fresh
   * memory when they do not fit.
   */
  private continue(conversation: ConversationBody, parts: Parameters<ChatBodyWriter["write"]>[0], offset: number, head?: Buffer): Buffer {
    const { messages } = parts;
    const { sent, fixed, pieces, ends } = conversation;
    const from = sent.length;
    let size = offset + (head?.length ?? 0);
    for (let index = from; index < messages.length; index++) {
      const message = messages[index];
      const bytes = this.serialized(message);
      sent.push(message);
      fixed.push(this.fixed(message));
      pieces.push(bytes);
      size += (index > 0 ? 1 : 0) + bytes.length;
      ends.push(size);
    }
    const tools = parts.tools !== undefined ? this.serialized(parts.tools) : undefined;
    let tail = "";
    if (parts.temperature !== undefined) tail += `,"temperature":${JSON.stringify(parts.temperature)}`;
    if (parts.toolChoice !== undefined) {
      const choice = JSON.stringify(parts.toolChoice);
      if (choice !== undefined) tail += `,"tool_choice":${choice}`;
    }
    tail += "}";
    const toolsSize = tools !== undefined ? TOOLS_KEY.length + tools.length : 0;
    const total = size + 1 + toolsSize + Buffer.byteLength(tail);
    let { memory } = conversation;
    if (total > memory.length) {
      const grown = freshBytes(Math.ceil(total * (1 + HEADROOM_SHARE)) + HEADROOM_BYTES);
      memory.copy(grown, 0, 0, offset);
      memory = grown;
      conversation.memory = grown;
    }
    let at = offset;
    if (head !== undefined) at += head.copy(memory, at);
    for (let index = from; index < messages.length; index++) {
      if (index > 0) memory[at++] = COMMA;
      at += (pieces[index] as Buffer).copy(memory, at);
    }
    memory[at++] = CLOSE_BRACKET;
    if (tools !== undefined) {
      at += TOOLS_KEY.copy(memory, at);
      at += tools.copy(memory, at);
    }
    at += memory.write(tail, at, "utf8");
    const body = memory.subarray(0, at);
    conversation.lent = body;
    return body;
  }

  /**
   * Says that `body`, made by {@link write} for `messages`, is read by nobody any more (its call
   * has its answer, or has ended for good): the conversation's next body may be written over it.
   */
  release(messages: readonly unknown[], body: Buffer): void {
    const conversation = this.conversations.get(messages);
    if (conversation !== undefined && conversation.lent === body) conversation.lent = undefined;
  }
}

const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
const TOOLS_KEY = Buffer.from(',"tools":');
