/**
 * JSON-RPC over one agent's connection: every exchange measured and recorded (retries and polls
 * included), failures turned into the typed errors of `errors.ts`, retries only where no answer
 * came or the agent said 429/5xx — with the same message id, so an agent that de-duplicates on it
 * sees one message — and the v1.0 → v0.3 fallback when a v1 method is unknown (-32601).
 */
import type { ProtocolExchange } from "../../core/episode-record.ts";
import { redactText } from "../../secrets/redact.ts";
import { A2AAuthError, A2AHostRefusedError, A2AProtocolError, A2ATimeoutError, A2ATransportError } from "./errors.ts";
import { A2AHttp, headerValue, NoAnswerError, networkCode, sseData, type HttpAnswer } from "./http.ts";
import type { HostPolicy } from "./host-policy.ts";
import { isObject, jsonText, numberField, type Plain, type PlainObject, parseJson } from "./json.ts";
import { type A2AVersion, METHODS, rpcBody } from "./wire.ts";

/** One call's circumstances. */
export interface CallContext {
  /** The agent turn (0: discovery). */
  turn: number;
  messageId: string | null;
  /** The episode's signal: aborting it abandons the call (the episode ended or the run was cancelled). */
  signal: AbortSignal;
  /** `performance.now()` by which the turn must be answered. */
  deadline: number;
  record(exchange: ProtocolExchange): void;
}

/** What a recorded exchange adds once its result is read. */
export type ExchangeFacts = Partial<Pick<ProtocolExchange, "contextId" | "taskId" | "taskState" | "tokens">>;

export interface ConnectionSettings {
  rpcUrl: string;
  version: A2AVersion;
  /** Retries after a failure with no answer or a 429/5xx (default 2). */
  retries: number;
  /** First backoff in ms (doubled per retry, plus up to 50% jitter). */
  retryDelayMs: number;
  /** Switch to v0.3 once when a v1.0 method is unknown (`version=auto`). */
  fallback: boolean;
  policy?: HostPolicy;
  /** Diagnostics of every exchange (`--a2a-debug`), secrets removed. */
  debug?: (line: string) => void;
  /** Values never printed (the bearer token). */
  secrets: readonly string[];
}

const RETRY_STATUSES = (status: number) => status === 429 || status >= 500;

/** How late a deadline's timer may fire before the event loop counts as having been blocked. */
const STALL_MS = 250;

/**
 * A signal aborted by `parent` or after `ms`, with a cleanup. (`AbortSignal.any` with
 * `AbortSignal.timeout` costs about a third of a millisecond per call on Node 20 and keeps every
 * signal alive until it fires: too much for one per exchange.)
 *
 * A blocked event loop (a server starting fifty evaluations on a loaded machine) must not turn
 * into the agent's timeout: after a block, timers run before the I/O that arrived meanwhile. So a
 * timer that fires late by more than `STALL_MS` waits once more for as long as it was late (the time
 * this process could not have read an answer), and the abort itself waits for two turns of the
 * loop's I/O phase.
 */
export function deadlineSignal(parent: AbortSignal, ms: number): { signal: AbortSignal; timedOut(): boolean; done(): void } {
  const controller = new AbortController();
  let timedOut = false;
  let finished = false;
  const expire = () => {
    if (finished || controller.signal.aborted) return;
    timedOut = true;
    controller.abort(new DOMException("the deadline passed", "TimeoutError"));
  };
  let due = performance.now() + ms;
  let graced = false;
  const fire = () => {
    const late = performance.now() - due;
    if (late > STALL_MS && !graced) {
      graced = true;
      due = performance.now() + late;
      timer = setTimeout(fire, late);
      return;
    }
    setImmediate(() => setImmediate(expire));
  };
  let timer = setTimeout(fire, ms);
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done: () => {
      finished = true;
      clearTimeout(timer);
      parent.removeEventListener("abort", onAbort);
    },
  };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/** The wait a 429/503 asks for (`Retry-After` in seconds), capped; undefined when none. */
function retryAfterMs(answer: HttpAnswer): number | undefined {
  const value = headerValue(answer.headers, "retry-after");
  if (value === undefined) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, 30_000) : undefined;
}

/** One agent's JSON-RPC endpoint. The version may change once (fallback); everything else is fixed. */
export class A2AConnection {
  version: A2AVersion;
  /** Set after the first exchange that got a JSON-RPC answer (the endpoint is alive). */
  answered = false;
  private nextId = 1;

  constructor(
    private readonly http: A2AHttp,
    private readonly settings: ConnectionSettings,
  ) {
    this.version = settings.version;
  }

  get rpcUrl(): string {
    return this.settings.rpcUrl;
  }

  private debug(text: string): void {
    this.settings.debug?.(redactText(text, this.settings.secrets));
  }

  private exchangeOf(context: CallContext, method: string, attempt: number): ProtocolExchange {
    return {
      turn: context.turn,
      attempt,
      method,
      url: this.settings.rpcUrl,
      protocolVersion: this.version,
      httpStatus: null,
      rpcErrorCode: null,
      ttfbMs: null,
      latencyMs: 0,
      requestBytes: 0,
      responseBytes: 0,
      messageId: context.messageId,
      contextId: null,
      taskId: null,
      taskState: null,
      tokens: null,
      error: null,
    };
  }

  private remaining(context: CallContext): number {
    return context.deadline - performance.now();
  }

  private timedOut(method: string, phase: "headers" | "body" | "poll" | "stream"): A2ATimeoutError {
    return new A2ATimeoutError(`the A2A agent at ${this.settings.rpcUrl} did not answer ${method} in time (${phase})`, { url: this.settings.rpcUrl, method, phase });
  }

  /** Records an exchange that failed, and returns the error to throw. */
  private fail<E extends Error>(context: CallContext, exchange: ProtocolExchange, error: E): E {
    exchange.error = { type: error.name, message: redactText(error.message, this.settings.secrets) };
    context.record(exchange);
    this.debug(`[a2a] turn ${exchange.turn} ${exchange.method} attempt ${exchange.attempt}: ${error.name}: ${error.message}`);
    return error;
  }

  /** Refuses a URL the allow-list does not allow (nothing is sent). */
  private async admit(url: string): Promise<void> {
    await this.settings.policy?.check(url, "the A2A agent's RPC URL");
  }

  /**
   * Calls `kind` with the params the version needs and returns its `result`, recording every
   * exchange (`facts` reads what the result says about the task).
   */
  async call(kind: "send" | "get" | "cancel", params: (version: A2AVersion) => PlainObject, context: CallContext, facts: (result: Plain) => ExchangeFacts = () => ({})): Promise<Plain> {
    await this.admit(this.settings.rpcUrl);
    for (let attempt = 1; ; attempt++) {
      const method = METHODS[this.version][kind];
      const exchange = this.exchangeOf(context, method, attempt);
      const remaining = this.remaining(context);
      if (remaining <= 0) throw this.fail(context, exchange, this.timedOut(method, kind === "get" ? "poll" : "headers"));
      const body = rpcBody(this.nextId++, method, params(this.version));
      const deadline = deadlineSignal(context.signal, Math.ceil(remaining));
      let answer: HttpAnswer;
      try {
        answer = await this.http.exchange(this.settings.rpcUrl, { method: "POST", body, headers: { "a2a-version": this.version }, signal: deadline.signal });
      } catch (error) {
        if (!(error instanceof NoAnswerError)) throw error;
        Object.assign(exchange, { requestBytes: error.requestBytes, ttfbMs: error.ttfbMs, latencyMs: error.latencyMs });
        if (context.signal.aborted) throw this.fail(context, exchange, context.signal.reason instanceof Error ? context.signal.reason : new Error("the episode ended"));
        if (deadline.timedOut()) throw this.fail(context, exchange, this.timedOut(method, error.phase));
        const code = networkCode(error.cause);
        if (code === "EHOSTREFUSED") throw this.fail(context, exchange, new A2AHostRefusedError(`${error.message}; nothing was sent`, this.settings.rpcUrl));
        const failure = new A2ATransportError(
          `the A2A agent at ${this.settings.rpcUrl} gave no answer to ${method}: ${error.message}${code ? ` (${code})` : ""}`,
          { url: this.settings.rpcUrl, method },
          { cause: error.cause },
        );
        if (attempt > this.settings.retries) throw this.fail(context, exchange, failure);
        this.fail(context, exchange, failure);
        await sleep(this.backoff(attempt), context.signal);
        continue;
      } finally {
        deadline.done();
      }
      Object.assign(exchange, { httpStatus: answer.status, ttfbMs: answer.ttfbMs, latencyMs: answer.latencyMs, requestBytes: answer.requestBytes, responseBytes: answer.responseBytes });
      this.debug(`[a2a] turn ${context.turn} ${method} → HTTP ${answer.status} in ${answer.latencyMs.toFixed(1)} ms\n  request: ${body.slice(0, 4000)}\n  response: ${answer.text.slice(0, 4000)}`);
      if (answer.status === 401 || answer.status === 403) {
        const www = headerValue(answer.headers, "www-authenticate") ?? null;
        throw this.fail(
          context,
          exchange,
          new A2AAuthError(`the A2A agent at ${this.settings.rpcUrl} refused the credential (HTTP ${answer.status}${www ? `, ${www}` : ""}); set --agent-a2a-token-env`, {
            url: this.settings.rpcUrl,
            method,
            httpStatus: answer.status,
            wwwAuthenticate: www,
          }),
        );
      }
      if (RETRY_STATUSES(answer.status)) {
        const failure = new A2ATransportError(`the A2A agent at ${this.settings.rpcUrl} answered ${method} with HTTP ${answer.status}`, {
          url: this.settings.rpcUrl,
          method,
          httpStatus: answer.status,
        });
        if (attempt > this.settings.retries) throw this.fail(context, exchange, failure);
        this.fail(context, exchange, failure);
        await sleep(Math.min(retryAfterMs(answer) ?? this.backoff(attempt), Math.max(0, this.remaining(context))), context.signal);
        continue;
      }
      const outcome = this.readEnvelope(answer, method);
      if ("error" in outcome) {
        exchange.rpcErrorCode = outcome.code ?? null;
        if (outcome.code === -32601 && this.version === "1.0" && this.settings.fallback) {
          this.fail(context, exchange, new A2AProtocolError(`${method} is unknown to the agent; speaking A2A 0.3 from now on`, { url: this.settings.rpcUrl, method, rpcCode: -32601 }));
          this.version = "0.3";
          this.settings.fallback = false;
          attempt = 0;
          continue;
        }
        throw this.fail(context, exchange, outcome.error);
      }
      this.answered = true;
      Object.assign(exchange, facts(outcome.result));
      context.record(exchange);
      return outcome.result;
    }
  }

  private backoff(attempt: number): number {
    const base = this.settings.retryDelayMs * 2 ** (attempt - 1);
    return base + Math.random() * base * 0.5;
  }

  /** The `result` of a JSON-RPC answer, or the protocol error it amounts to. */
  private readEnvelope(answer: HttpAnswer, method: string): { result: Plain } | { error: A2AProtocolError; code?: number } {
    const details = { url: this.settings.rpcUrl, method, httpStatus: answer.status };
    if (answer.status < 200 || answer.status >= 300) {
      const parsed = safeParse(answer.text);
      const rpcError = isObject(parsed) && isObject(parsed.error) ? parsed.error : undefined;
      const code = numberField(rpcError, "code");
      return {
        error: new A2AProtocolError(`the A2A agent at ${this.settings.rpcUrl} answered ${method} with HTTP ${answer.status}${rpcError ? `: ${jsonText(rpcError).slice(0, 300)}` : ""}`, {
          ...details,
          rpcCode: code ?? null,
        }),
        code,
      };
    }
    const parsed = safeParse(answer.text);
    if (parsed === undefined) return { error: new A2AProtocolError(`the A2A agent's answer to ${method} is not JSON: ${JSON.stringify(answer.text.slice(0, 200))}`, details) };
    if (!isObject(parsed)) return { error: new A2AProtocolError(`the A2A agent's answer to ${method} is not a JSON-RPC response object`, details) };
    if (isObject(parsed.error)) {
      const code = numberField(parsed.error, "code");
      const message = typeof parsed.error.message === "string" ? parsed.error.message : jsonText(parsed.error).slice(0, 300);
      return {
        error: new A2AProtocolError(`the A2A agent answered ${method} with JSON-RPC error ${code ?? "(no code)"}: ${message}`, { ...details, rpcCode: code ?? null }),
        ...(code !== undefined ? { code } : {}),
      };
    }
    if (!("result" in parsed)) return { error: new A2AProtocolError(`the A2A agent's answer to ${method} has neither result nor error`, details) };
    return { result: parsed.result };
  }

  /**
   * A streaming send: yields each event's `result` as it comes, and records the whole stream as one
   * exchange when it ends (facts from the last result). An answer that is not an event stream is
   * read as a plain JSON-RPC answer (one result).
   */
  async *stream(params: (version: A2AVersion) => PlainObject, context: CallContext, facts: (result: Plain) => ExchangeFacts): AsyncGenerator<Plain> {
    await this.admit(this.settings.rpcUrl);
    const method = METHODS[this.version].stream;
    const exchange = this.exchangeOf(context, method, 1);
    const remaining = this.remaining(context);
    if (remaining <= 0) throw this.fail(context, exchange, this.timedOut(method, "headers"));
    const body = rpcBody(this.nextId++, method, params(this.version));
    const deadline = deadlineSignal(context.signal, Math.ceil(remaining));
    const signal = deadline.signal;
    const timeout = {
      get aborted() {
        return deadline.timedOut();
      },
    };
    let opened;
    try {
      opened = await this.http.stream(this.settings.rpcUrl, { body, headers: { "a2a-version": this.version }, signal });
    } catch (error) {
      deadline.done();
      if (!(error instanceof NoAnswerError)) throw error;
      Object.assign(exchange, { requestBytes: error.requestBytes, latencyMs: error.latencyMs });
      if (context.signal.aborted) throw this.fail(context, exchange, context.signal.reason instanceof Error ? context.signal.reason : new Error("the episode ended"));
      if (timeout.aborted) throw this.fail(context, exchange, this.timedOut(method, "headers"));
      throw this.fail(
        context,
        exchange,
        new A2ATransportError(`the A2A agent at ${this.settings.rpcUrl} gave no answer to ${method}: ${error.message}`, { url: this.settings.rpcUrl, method }, { cause: error.cause }),
      );
    }
    Object.assign(exchange, { httpStatus: opened.status, ttfbMs: opened.ttfbMs, requestBytes: opened.requestBytes });
    const contentType = headerValue(opened.headers, "content-type") ?? "";
    const counter = { bytes: 0 };
    let last: Plain | undefined;
    try {
      if (opened.status === 401 || opened.status === 403) {
        opened.body.resume();
        throw new A2AAuthError(`the A2A agent at ${this.settings.rpcUrl} refused the credential (HTTP ${opened.status})`, { url: this.settings.rpcUrl, method, httpStatus: opened.status });
      }
      if (!contentType.includes("text/event-stream")) {
        const text = await readAll(opened.body, counter);
        const outcome = this.readEnvelope(
          { status: opened.status, headers: opened.headers, text, requestBytes: opened.requestBytes, responseBytes: counter.bytes, ttfbMs: opened.ttfbMs, latencyMs: 0 },
          method,
        );
        if ("error" in outcome) {
          exchange.rpcErrorCode = outcome.code ?? null;
          throw outcome.error;
        }
        last = outcome.result;
        this.answered = true;
        yield outcome.result;
        return;
      }
      for await (const data of sseData(opened.body, counter)) {
        const event = safeParse(data);
        if (!isObject(event)) throw new A2AProtocolError(`an event of the A2A agent's ${method} stream is not JSON: ${JSON.stringify(data.slice(0, 200))}`, { url: this.settings.rpcUrl, method });
        if (isObject(event.error)) {
          exchange.rpcErrorCode = numberField(event.error, "code") ?? null;
          throw new A2AProtocolError(`the A2A agent's ${method} stream reported JSON-RPC error ${exchange.rpcErrorCode ?? "(no code)"}: ${jsonText(event.error).slice(0, 300)}`, {
            url: this.settings.rpcUrl,
            method,
            rpcCode: exchange.rpcErrorCode,
          });
        }
        if (!("result" in event)) continue;
        this.answered = true;
        last = event.result;
        this.debug(`[a2a] turn ${context.turn} ${method} event: ${data.slice(0, 2000)}`);
        yield event.result;
      }
    } catch (error) {
      Object.assign(exchange, { responseBytes: counter.bytes, latencyMs: performance.now() - opened.startedAt });
      if (context.signal.aborted) throw this.fail(context, exchange, context.signal.reason instanceof Error ? context.signal.reason : new Error("the episode ended"));
      if (timeout.aborted) throw this.fail(context, exchange, this.timedOut(method, "stream"));
      if (error instanceof Error && (A2AProtocolError.isInstance(error) || A2AAuthError.isInstance(error))) throw this.fail(context, exchange, error);
      throw this.fail(
        context,
        exchange,
        new A2ATransportError(`the A2A agent's ${method} stream broke off: ${error instanceof Error ? error.message : String(error)}`, { url: this.settings.rpcUrl, method }, { cause: error }),
      );
    } finally {
      deadline.done();
      if (exchange.error === null) {
        Object.assign(exchange, { responseBytes: counter.bytes, latencyMs: performance.now() - opened.startedAt }, last === undefined ? {} : facts(last));
        context.record(exchange);
      }
      opened.body.destroy();
    }
  }
}

function safeParse(text: string): Plain | undefined {
  try {
    return parseJson(text);
  } catch {
    return undefined;
  }
}

async function readAll(body: NodeJS.ReadableStream, counter: { bytes: number }): Promise<string> {
  let text = "";
  body.setEncoding("utf8");
  for await (const chunk of body as AsyncIterable<string>) {
    counter.bytes += Buffer.byteLength(chunk);
    text += chunk;
  }
  return text;
}
