/**
 * One HTTP exchange with a remote agent, measured: the time to the response headers and to the
 * whole body, the bytes each way, the status. Built on undici's `request` over a keep-alive pool
 * of the participant's own (the global `fetch` builds web streams per call, which is most of the
 * client's CPU on loopback; see `src/model/http-transport.ts`). Redirects are not followed: a
 * redirect could lead anywhere, and the host allow-list must see every URL before it is called.
 *
 * Failures without an answer are thrown as {@link NoAnswerError} with what was measured; the
 * caller decides what they mean (retry, transport error, timeout).
 */
import { createRequire } from "node:module";
import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import { TaubridgeError, errorMarker } from "../../errors/error-tree.ts";
import { guardedLookup, type HostPolicy } from "./host-policy.ts";

let undiciModule: typeof import("undici") | undefined;
/**
 * undici, loaded when the first client is made: every run registers the A2A strategy, and an
 * offline run that never talks to a remote agent should not pay for loading it (a tenth of a
 * short oracle run's start-up). It is CommonJS, so `require` loads it synchronously.
 */
function undici(): typeof import("undici") {
  undiciModule ??= createRequire(import.meta.url)("undici") as typeof import("undici");
  return undiciModule;
}

/** A complete answer. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  requestBytes: number;
  responseBytes: number;
  ttfbMs: number;
  latencyMs: number;
}

/** A streamed answer: the headers have arrived, the body is read by the caller. */
export interface HttpStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
  requestBytes: number;
  ttfbMs: number;
  startedAt: number;
}

/** No HTTP answer came (or the body broke off): the cause is the network error or the abort reason. */
export class NoAnswerError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("NoAnswerError");

  constructor(
    readonly cause: unknown,
    readonly phase: "headers" | "body",
    readonly requestBytes: number,
    readonly ttfbMs: number | null,
    readonly latencyMs: number,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** The error code of a network failure (`ECONNREFUSED`, `ECONNRESET`, `UND_ERR_SOCKET`, …), if any. */
export function networkCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

export interface HttpOptions {
  /** Headers on every request (Authorization, A2A-Version is per call). */
  headers: Record<string, string>;
  policy?: HostPolicy;
}

/** The participant's HTTP client: one connection pool, closed with the participant. */
export class A2AHttp {
  private readonly dispatcher: Dispatcher;

  constructor(private readonly options: HttpOptions) {
    // Our own deadlines govern (AbortSignal); undici's 5-minute defaults would cut a long blocking send.
    this.dispatcher = new (undici().Agent)({
      keepAliveTimeout: 30_000,
      headersTimeout: 0,
      bodyTimeout: 0,
      connections: null,
      ...(options.policy ? { connect: { lookup: guardedLookup(options.policy) as never } } : {}),
    });
  }

  private headersFor(extra: Record<string, string>, body: string | undefined): Record<string, string> {
    return { ...this.options.headers, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...extra };
  }

  /** One request, its body read whole. */
  async exchange(url: string, init: { method: "GET" | "POST"; body?: string; headers?: Record<string, string>; signal: AbortSignal }): Promise<HttpAnswer> {
    const started = performance.now();
    const requestBytes = init.body === undefined ? 0 : Buffer.byteLength(init.body);
    let response: Dispatcher.ResponseData;
    try {
      response = await undici().request(url, { method: init.method, headers: this.headersFor(init.headers ?? {}, init.body), body: init.body, signal: init.signal, dispatcher: this.dispatcher });
    } catch (error) {
      throw new NoAnswerError(error, "headers", requestBytes, null, performance.now() - started);
    }
    const ttfbMs = performance.now() - started;
    let buffer: ArrayBuffer;
    try {
      buffer = await response.body.arrayBuffer();
    } catch (error) {
      throw new NoAnswerError(error, "body", requestBytes, ttfbMs, performance.now() - started);
    }
    return {
      status: response.statusCode,
      headers: response.headers,
      text: Buffer.from(buffer).toString("utf8"),
      requestBytes,
      responseBytes: buffer.byteLength,
      ttfbMs,
      latencyMs: performance.now() - started,
    };
  }

  /** A POST whose answer is read as it comes (server-sent events). */
  async stream(url: string, init: { body: string; headers?: Record<string, string>; signal: AbortSignal }): Promise<HttpStream> {
    const started = performance.now();
    const requestBytes = Buffer.byteLength(init.body);
    let response: Dispatcher.ResponseData;
    try {
      response = await undici().request(url, {
        method: "POST",
        headers: this.headersFor({ accept: "text/event-stream", ...(init.headers ?? {}) }, init.body),
        body: init.body,
        signal: init.signal,
        dispatcher: this.dispatcher,
      });
    } catch (error) {
      throw new NoAnswerError(error, "headers", requestBytes, null, performance.now() - started);
    }
    return { status: response.statusCode, headers: response.headers, body: response.body, requestBytes, ttfbMs: performance.now() - started, startedAt: started };
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

/** A header's single value. */
export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The `data:` payloads of a server-sent-event stream, one per event (multi-line data joined with
 * newlines; comments and other fields ignored), with the bytes read so far.
 */
export async function* sseData(body: Readable, counter: { bytes: number }): AsyncGenerator<string> {
  let pending = "";
  let data: string[] = [];
  body.setEncoding("utf8");
  for await (const chunk of body as AsyncIterable<string>) {
    counter.bytes += Buffer.byteLength(chunk);
    pending += chunk;
    let newline = pending.search(/\r?\n/);
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(pending[newline] === "\r" ? newline + 2 : newline + 1);
      if (line === "") {
        if (data.length > 0) yield data.join("\n");
        data = [];
      } else if (line.startsWith("data:")) data.push(line.slice(line[5] === " " ? 6 : 5));
      newline = pending.search(/\r?\n/);
    }
  }
  if (data.length > 0) yield data.join("\n");
}
