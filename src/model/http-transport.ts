/**
 * The HTTP transport under every model client: a `fetch`-shaped function over undici's `request`
 * and one keep-alive connection pool per process.
 *
 * Why not the global `fetch`: on Node 20 each WHATWG fetch builds Request/Response objects, web
 * streams for the body, and writes the request as an async iterable (several socket writes). For
 * a harness that makes thousands of small chat-completion calls this is most of the CPU spent per
 * call (measured: ~0.8 ms of CPU per loopback call with `fetch` vs ~0.3 ms with `request`; see the
 * README's benchmark table). The SDK only needs the `fetch` contract — status, headers, a body it
 * can read — so we answer with a {@link BufferedResponse} (a real `Response` whose body methods
 * serve the bytes already read, without building a web stream — on Node 20 stream construction
 * alone is a visible share of a call), or a plain `Response` over the live stream for server-sent
 * events.
 *
 * Semantics kept from `fetch`: the abort signal cancels connect, send and body read (rejecting with
 * the signal's reason, an `AbortError`, which the SDK maps to its timeout/abort errors); redirects
 * are followed (up to 5); network failures reject, so the SDK reports a connection error. Bodies
 * the SDK may send that are not plain bytes (multipart forms, streams) go to the global `fetch`.
 */
import { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import { undiciPackage } from "./undici-parts.ts";

/** Statuses whose response must not carry a body (the `Response` constructor rejects one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** The `fetch` signature the `openai` SDK accepts as its `fetch` option. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

let sharedDispatcher: Dispatcher | undefined;

/**
 * One pool for the whole process: every role and every episode that talks to the same origin
 * reuses warm connections. Idle sockets do not keep the process alive (undici unrefs them).
 */
function dispatcher(): Dispatcher {
  if (sharedDispatcher) return sharedDispatcher;
  const { Agent, interceptors } = undiciPackage();
  sharedDispatcher = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: null }).compose(interceptors.redirect({ maxRedirections: 5 }));
  return sharedDispatcher;
}

/**
 * A `Response` for a body that has been read completely. It is constructed without a body stream
 * (so `body` is `null`) and serves `json()`, `text()`, `arrayBuffer()`, `bytes()` and `blob()` from
 * the buffer, once each like a fetch body. Only the SDK sees it; it reads through those methods.
 */
function defineBufferedResponse() {
  // Typed as a plain constructor so the body methods can be redefined (the DOM typings declare them as
  // properties); at run time this is the global `Response`, so `instanceof Response` holds.
  const BodylessResponse = Response as unknown as new (
    body: null,
    init: { status: number; headers: Headers },
  ) => {
    readonly status: number;
    readonly headers: Headers;
  };
  return class BufferedResponse extends BodylessResponse {
    readonly #bytes: Uint8Array;
    #used = false;

    constructor(bytes: Uint8Array, init: { status: number; headers: Headers }) {
      super(null, init);
      this.#bytes = bytes;
    }

    get bodyUsed(): boolean {
      return this.#used;
    }

    #take(): Uint8Array {
      if (this.#used) throw new TypeError("Body is unusable: Body has already been read");
      this.#used = true;
      return this.#bytes;
    }

    async bytes(): Promise<Uint8Array<ArrayBuffer>> {
      return this.#take() as Uint8Array<ArrayBuffer>;
    }

    async arrayBuffer(): Promise<ArrayBuffer> {
      const bytes = this.#take();
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    }

    async text(): Promise<string> {
      return Buffer.from(this.#take()).toString("utf8");
    }

    async json(): Promise<unknown> {
      return JSON.parse(await this.text());
    }

    async blob(): Promise<Blob> {
      return new Blob([this.#take() as Uint8Array<ArrayBuffer>], { type: this.headers.get("content-type") ?? "" });
    }

    clone(): BufferedResponse {
      if (this.#used) throw new TypeError("Response.clone: Body has already been consumed.");
      return new BufferedResponse(this.#bytes, { status: this.status, headers: new Headers(this.headers) });
    }
  };
}

export type BufferedResponse = InstanceType<ReturnType<typeof defineBufferedResponse>>;
let bufferedResponse: ReturnType<typeof defineBufferedResponse> | undefined;

/**
 * The {@link BufferedResponse} class, defined on first use: the first read of the global `Response`
 * loads Node's whole `fetch` implementation (40–90 ms here), which a run whose model calls all go
 * through undici's `Client` (the chat path) never needs — only this `fetch`-shaped path does.
 */
export function bufferedResponseClass(): ReturnType<typeof defineBufferedResponse> {
  bufferedResponse ??= defineBufferedResponse();
  return bufferedResponse;
}

function requestHeaders(headers: RequestInit["headers"]): Record<string, string> {
  const result: Record<string, string> = {};
  if (!headers) return result;
  if (headers instanceof Headers) {
    headers.forEach((value, name) => {
      result[name] = value;
    });
  } else if (Array.isArray(headers)) {
    for (const [name, value] of headers) result[name.toLowerCase()] = value;
  } else {
    for (const [name, value] of Object.entries(headers)) result[name.toLowerCase()] = String(value);
  }
  return result;
}

function responseHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.append(name, value);
  }
  return headers;
}

function isPlainBody(body: RequestInit["body"]): body is string | Uint8Array | null | undefined {
  return body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
}

/**
 * A `fetch` for the model clients (see the module comment for why it is not the global one).
 * Exported so embedders can reuse it, and tests can exercise it directly.
 */
export const keepAliveFetch: FetchFunction = async (input, init = {}) => {
  if (input instanceof Request || !isPlainBody(init.body)) return fetch(input, init);
  const url = typeof input === "string" ? input : input.href;
  const method = (init.method ?? "GET").toUpperCase() as Dispatcher.HttpMethod;
  const answer = await undiciPackage().request(url, {
    method,
    headers: requestHeaders(init.headers),
    body: init.body ?? null,
    signal: init.signal ?? undefined,
    dispatcher: dispatcher(),
  });
  const headers = responseHeaders(answer.headers);
  const status = answer.statusCode;
  if (NULL_BODY_STATUSES.has(status)) {
    await answer.body.dump();
    return new Response(null, { status, headers });
  }
  const contentType = headers.get("content-type") ?? "";
  if (contentType.includes("text/event-stream")) {
    // Streamed completions: hand the live body over instead of waiting for the end.
    return new Response(Readable.toWeb(answer.body) as ReadableStream<Uint8Array>, { status, headers });
  }
  return new (bufferedResponseClass())(await answer.body.bytes(), { status, headers }) as unknown as Response;
};
