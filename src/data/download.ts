import pRetry, { AbortError } from "p-retry";
import { ConfigError, DataError, InfraError, TaubridgeError, errorMarker } from "../errors/error-tree.ts";
import { type ManifestFile } from "./manifest.ts";

export function fileUrl(baseUrl: string, commit: string, path: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return `${base}/${commit}/${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** An error worth retrying (network failure, timeout, HTTP 408/425/429/5xx). */
class TransientError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("TransientError");

  constructor(
    message: string,
    readonly network: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** getaddrinfo codes that mean "this machine cannot turn the host name into an address". */
const NAME_RESOLUTION_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NONAME", "EAI_NODATA"]);

/** The getaddrinfo error somewhere in `error`'s cause chain, if the failure was a name lookup. */
function nameResolutionFailure(error: unknown): { code: string; hostname?: string } | undefined {
  const seen = new Set<unknown>();
  for (
    let current = error as { code?: unknown; hostname?: unknown; cause?: unknown } | undefined;
    current && typeof current === "object" && !seen.has(current);
    current = current.cause as typeof current
  ) {
    seen.add(current);
    if (typeof current.code === "string" && NAME_RESOLUTION_CODES.has(current.code)) {
      return { code: current.code, ...(typeof current.hostname === "string" ? { hostname: current.hostname } : {}) };
    }
  }
  return undefined;
}

/**
 * The one-line error for a host name that does not resolve. Not retried: ENOTFOUND is a definite
 * "no such name" (a typo in --source-url, or a resolver that only knows local names), and EAI_AGAIN
 * is what an offline machine reports after the system resolver has already spent its own retries
 * and timeouts (resolv.conf `attempts`/`timeout`), so another round from us would only add waiting.
 */
function unresolvableHostError(url: string, failure: { code: string; hostname?: string }, cause: unknown): ConfigError {
  const host = failure.hostname ?? new URL(url).hostname;
  const why = failure.code === "ENOTFOUND" ? "the name does not resolve" : "no DNS server answered";
  return new ConfigError(
    `cannot resolve the host ${host} (${failure.code}: ${why}): this machine cannot look it up (offline, or a wrong --source-url?); ` +
      `without network, run 'taubridge data import <dir>' on a checkout of the repository or an existing export, or pass --data-dir <dir> to the commands`,
    { cause },
  );
}

function describeNetworkError(error: unknown): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === "TimeoutError") return "request timed out";
  const code = err?.cause?.code;
  return code ? `${code}${err.cause?.message ? ` (${err.cause.message})` : ""}` : (err?.message ?? String(error));
}

export async function downloadOne(
  file: ManifestFile,
  url: string,
  options: { retries: number; retryMinTimeoutMs: number; timeoutMs: number; fetchImpl: typeof fetch; sourceEnvVar: string },
  onRetry: (line: string) => void,
  cancel: AbortSignal,
): Promise<Buffer> {
  const attempt = async (): Promise<Buffer> => {
    if (cancel.aborted) throw new AbortError("cancelled: another download failed");
    let response: Response;
    try {
      const signal = AbortSignal.any([AbortSignal.timeout(options.timeoutMs), cancel]);
      response = await options.fetchImpl(url, { signal, redirect: "follow" });
    } catch (error) {
      if (cancel.aborted) throw new AbortError("cancelled: another download failed");
      const unresolved = nameResolutionFailure(error);
      if (unresolved) throw new AbortError(unresolvableHostError(url, unresolved, error));
      throw new TransientError(describeNetworkError(error), true, { cause: error });
    }
    if (response.status === 408 || response.status === 425 || response.status === 429 || response.status >= 500) {
      await response.body?.cancel().catch(() => undefined);
      throw new TransientError(`HTTP ${response.status} ${response.statusText}`, false);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      const hint = response.status === 404 ? " (is the source URL right, and does it serve this commit?)" : "";
      throw new AbortError(new DataError(`cannot download ${file.path}: HTTP ${response.status} ${response.statusText} from ${url}${hint}`));
    }
    try {
      return Buffer.from(await response.arrayBuffer());
    } catch (error) {
      throw new TransientError(`download interrupted: ${describeNetworkError(error)}`, true, { cause: error });
    }
  };
  try {
    return await pRetry(attempt, {
      retries: options.retries,
      minTimeout: options.retryMinTimeoutMs,
      factor: 2,
      maxTimeout: 30_000,
      randomize: true,
      signal: cancel,
      shouldRetry: ({ error }) => TransientError.isInstance(error),
      onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
        if (TransientError.isInstance(error) && retriesLeft > 0 && !cancel.aborted) {
          onRetry(`retrying ${file.path} after attempt ${attemptNumber} failed: ${error.message} (${retriesLeft} retries left)`);
        }
      },
    });
  } catch (error) {
    if (TransientError.isInstance(error)) {
      const attempts = options.retries + 1;
      const offline = error.network
        ? ` Are you offline or behind a proxy? Alternatives: clone the repository and run ` + `'taubridge data import <checkout-dir>', or point --source-url / ${options.sourceEnvVar} at a mirror.`
        : "";
      throw new InfraError(`cannot download ${file.path} from ${url} after ${attempts} attempt(s): ${error.message}.${offline}`, {
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * Runs `worker` over `items` with at most `limit` in flight. On the first failure the shared
 * signal is aborted (so the other workers stop retrying), all workers are awaited, and the
 * first error is thrown.
 */
export async function mapConcurrent<T, R>(items: readonly T[], limit: number, worker: (item: T, cancel: AbortSignal) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  const controller = new AbortController();
  let firstError: { error: unknown } | undefined;
  let next = 0;
  const run = async (): Promise<void> => {
    while (!controller.signal.aborted && next < items.length) {
      const index = next++;
      try {
        results[index] = await worker(items[index], controller.signal);
      } catch (error) {
        if (!firstError) firstError = { error };
        controller.abort();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, run));
  if (firstError) throw firstError.error;
  return results;
}
