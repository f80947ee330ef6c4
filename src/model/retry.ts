/**
 * The single retry layer for model calls. The `openai` client runs with `maxRetries: 0` and this
 * layer (p-retry) owns retries, so attempts are bounded once and counted once. Retryable: HTTP
 * 408/409/429/5xx, network errors and timeouts; not a refused connection or an unknown host. A server's `retry-after-ms` / `retry-after` is
 * honoured when it asks for 0–60 s (like the AI SDK); anything else falls back to exponential
 * backoff with jitter.
 */
import pRetry from "p-retry";
import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { TaubridgeError, errorMarker } from "../errors/error-tree.ts";
import { onAbort } from "./abort-relay.ts";

/** Largest server-requested wait we honour; longer requests fall back to our own backoff. */
export const MAX_RETRY_AFTER_MS = 60_000;

export interface BackoffOptions {
  /** First backoff delay (doubled on each retry). */
  initialDelayMs: number;
  /** Upper bound of one backoff delay. */
  maxDelayMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialDelayMs: 1_000, maxDelayMs: 30_000 };

/** Marks an attempt that exceeded the per-call timeout (our own timer, not the SDK's). */
export class AttemptTimeoutError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("AttemptTimeoutError");

  constructor(readonly timeoutMs: number) {
    super(`Request timed out after ${timeoutMs} ms`);
  }
}

/**
 * The signal of one attempt: aborted by the caller's signal or by the attempt's own timeout
 * (rejecting with {@link AttemptTimeoutError}). The caller's signal is listened to through
 * {@link onAbort} (one listener per signal, however many calls wait on it: a dozen calls in flight
 * on one episode's signal made Node print `MaxListenersExceededWarning`), and `dispose()` stops
 * listening when the attempt ends.
 */
export function attemptSignal(outer: AbortSignal | undefined, timeoutMs: number): { signal: AbortSignal; timedOut(): boolean; dispose(): void } {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new AttemptTimeoutError(timeoutMs));
  }, timeoutMs);
  const detach = outer ? onAbort(outer, () => controller.abort(outer.reason)) : undefined;
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose: () => {
      clearTimeout(timer);
      detach?.();
    },
  };
}

/** HTTP status of an SDK error, if the server answered. */
export function errorStatus(error: unknown): number | undefined {
  return error instanceof APIError && typeof error.status === "number" ? error.status : undefined;
}

/**
 * Connection failures that mean nobody is there: the port refuses (`ECONNREFUSED`: no server
 * listening) or the host name does not exist (`ENOTFOUND`). Unlike a reset or a timeout they do not
 * heal within a backoff window: a server that is not running will not be in 1 + 2 + 4 + 8 + 16 s,
 * and waiting that long on every call of every episode is what made a wrong `--base-url` cost a
 * minute per episode. They are answered at once, so they are never retried.
 */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ENOTFOUND"]);

/** `ECONNREFUSED` / `ENOTFOUND` when `error` (or an error it wraps) says nothing answers at the endpoint. */
export function unreachableCode(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const current = pending.shift() as { code?: unknown; cause?: unknown; errors?: unknown } | null | undefined;
    if (!current || typeof current !== "object" || seen.has(current)) continue;
    seen.add(current);
    if (typeof current.code === "string" && UNREACHABLE_CODES.has(current.code)) return current.code;
    pending.push(current.cause);
    // Node's happy-eyeballs connect (localhost → ::1 and 127.0.0.1) rejects with an AggregateError.
    if (Array.isArray(current.errors)) pending.push(...current.errors);
  }
  return undefined;
}

/**
 * True for transient failures worth another attempt. User aborts are never retried, nor is an
 * endpoint that refuses the connection or whose host does not resolve ({@link unreachableCode}).
 */
export function isRetryableError(error: unknown): boolean {
  if (error instanceof APIUserAbortError) return false;
  if (AttemptTimeoutError.isInstance(error)) return true;
  if (error instanceof APIConnectionError) return unreachableCode(error) === undefined; // includes APIConnectionTimeoutError
  const status = errorStatus(error);
  if (status === undefined) return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

type HeaderSource = Headers | Record<string, string | undefined> | undefined | null;

function readHeader(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | undefined>;
  for (const [key, value] of Object.entries(record)) if (key.toLowerCase() === name) return value;
  return undefined;
}

/**
 * The wait the server asked for, in ms, or `undefined` when it asked for none or for something
 * outside 0–60 s. `retry-after-ms` (float ms) wins over `retry-after` (seconds or an HTTP date).
 */
export function parseRetryAfter(headers: HeaderSource, now: number = Date.now()): number | undefined {
  const inRange = (ms: number) => (Number.isFinite(ms) && ms >= 0 && ms <= MAX_RETRY_AFTER_MS ? ms : undefined);
  const milliseconds = readHeader(headers, "retry-after-ms");
  if (milliseconds !== undefined && milliseconds.trim() !== "") {
    const value = inRange(Number(milliseconds));
    if (value !== undefined) return value;
  }
  const retryAfter = readHeader(headers, "retry-after")?.trim();
  if (!retryAfter) return undefined;
  if (/^\d+(\.\d+)?$/.test(retryAfter)) return inRange(Number(retryAfter) * 1000);
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : inRange(Math.max(0, date - now));
}

/** Exponential backoff with up to +25 % jitter, for retries the server gave no delay for. */
export function backoffDelay(retryIndex: number, options: BackoffOptions): number {
  const base = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** retryIndex);
  return Math.round(base * (1 + Math.random() * 0.25));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      detach?.();
      resolve();
    }, ms);
    const detach = signal
      ? onAbort(signal, () => {
          clearTimeout(timer);
          reject(signal.reason);
        })
      : undefined;
  });
}

export interface RetryOptions {
  /** Total attempts, first one included (≥ 1). */
  maxAttempts: number;
  backoff: BackoffOptions;
  signal?: AbortSignal;
  /** Called before each retry wait (for logging/metrics; receives no secrets). */
  onRetry?: (info: { attempt: number; error: unknown; delayMs: number }) => void;
}

/**
 * Runs `attempt` until it succeeds, fails with a non-retryable error, or `maxAttempts` are used.
 * Rejects with the last error annotated with the number of attempts made. The first attempt is
 * made directly (most calls succeed at once, and p-retry's bookkeeping is per call); p-retry takes
 * over from the second ({@link retryAfterFirst}), with the same waits and decisions.
 */
export async function withRetries<T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions): Promise<{ value: T; attempts: number }> {
  let first: T;
  try {
    first = await attempt(1);
  } catch (error) {
    return retryAfterFirst(error, attempt, options);
  }
  return { value: first, attempts: 1 };
}

/**
 * What {@link withRetries} does once its first attempt failed with `error`: waits and tries again
 * from the second attempt on, or rejects with {@link RetriesFailed}. A caller that makes the first
 * attempt itself (the model client: no closure, options object or `async` frame of the retry layer
 * is made, or kept while the call waits for the model, when the first attempt succeeds, as nearly
 * every one does) hands its failure here.
 */
export async function retryAfterFirst<T>(error: unknown, attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions): Promise<{ value: T; attempts: number }> {
  let attempts = 1;
  // Whether to retry after a failure, waiting first (the server's retry-after, else backoff): p-retry's own wait is disabled.
  const retryAfter = async (failure: unknown, retryIndex: number): Promise<boolean> => {
    if (options.signal?.aborted || !isRetryableError(failure)) return false;
    const requested = failure instanceof APIError ? parseRetryAfter(failure.headers) : undefined;
    const delayMs = requested ?? backoffDelay(retryIndex, options.backoff);
    options.onRetry?.({ attempt: attempts, error: failure, delayMs });
    await sleep(delayMs, options.signal);
    return true;
  };
  let retry: boolean;
  try {
    retry = options.maxAttempts > 1 && (await retryAfter(error, 0));
  } catch (waitError) {
    throw new RetriesFailed(waitError, attempts);
  }
  if (!retry) throw new RetriesFailed(error, attempts);
  try {
    const value = await pRetry(
      async (attemptNumber) => {
        attempts = attemptNumber + 1;
        return attempt(attempts);
      },
      {
        retries: options.maxAttempts - 2,
        minTimeout: 0,
        factor: 1,
        // The signal is not p-retry's: its waits would add a listener per call to a signal many calls
        // share; the attempt (through `attemptSignal`) and the wait (`sleep`) listen through one relay.
        shouldRetry: ({ error: failure, retriesConsumed }) => retryAfter(failure, retriesConsumed + 1),
      },
    );
    return { value, attempts };
  } catch (failure) {
    throw new RetriesFailed(failure, attempts);
  }
}

/** Internal carrier: the last error and how many attempts were made. */
export class RetriesFailed extends TaubridgeError {
  static readonly marker: symbol = errorMarker("RetriesFailed");

  constructor(
    readonly lastError: unknown,
    readonly attempts: number,
  ) {
    super("retries failed", { cause: lastError });
  }
}
