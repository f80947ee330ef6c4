/**
 * Errors raised by model clients. They are {@link InfraError}s: a model endpoint that fails is an
 * infrastructure problem, recorded as such, never a zero-score agent failure. Messages are
 * redacted (no API key, no URL credentials) and carry what is needed to act on them: role,
 * provider, model, HTTP status and how many attempts were made.
 */
import { ConfigError, InfraError, errorMarker } from "../errors/error-tree.ts";

export interface ModelCallErrorDetails {
  role: string;
  provider: string;
  model: string;
  /** Base URL for display (credentials removed). */
  baseURL: string;
  /** HTTP status of the last failed attempt, when the server answered. */
  status?: number;
  /** Number of attempts made (1 = no retry). */
  attempts: number;
  /** Whether the last failure was of a retryable kind (408/409/429/5xx/network/timeout). */
  retryable: boolean;
  /** The error body the server returned (redacted), when there was one. */
  responseBody?: unknown;
}

/** A model call failed after the retry layer gave up (or on a non-retryable error). */
export class ModelCallError extends InfraError {
  static readonly marker: symbol = errorMarker("ModelCallError");
  readonly role: string;
  readonly provider: string;
  readonly model: string;
  readonly baseURL: string;
  readonly status: number | undefined;
  readonly attempts: number;
  readonly retryable: boolean;
  readonly responseBody: unknown;

  constructor(message: string, details: ModelCallErrorDetails, options?: { cause?: unknown }) {
    super(message, options);
    this.role = details.role;
    this.provider = details.provider;
    this.model = details.model;
    this.baseURL = details.baseURL;
    this.status = details.status;
    this.attempts = details.attempts;
    this.retryable = details.retryable;
    this.responseBody = details.responseBody;
  }

  /** Plain-JSON form for result files (already redacted). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      role: this.role,
      provider: this.provider,
      model: this.model,
      baseURL: this.baseURL,
      status: this.status ?? null,
      attempts: this.attempts,
      retryable: this.retryable,
    };
  }
}

/** The call (every attempt of it) exceeded the per-call timeout. */
export class ModelTimeoutError extends ModelCallError {
  static readonly marker: symbol = errorMarker("ModelTimeoutError");
  readonly code = "ETIMEDOUT";
  constructor(
    message: string,
    details: ModelCallErrorDetails,
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(message, details, options);
  }
}

/** The server answered 2xx with something that is not a usable chat completion (no choices, bad JSON). */
export class ModelResponseError extends ModelCallError {
  static readonly marker: symbol = errorMarker("ModelResponseError");
}

/**
 * Nothing answers at the endpoint: the connection was refused (`ECONNREFUSED`) or the host name
 * does not resolve (`ENOTFOUND`). Not retried (see `unreachableCode` in `retry.ts`). Still an
 * {@link InfraError} for the episode it happens in; `neverAnswered` tells the run that this client
 * has not had a single HTTP answer yet, i.e. the endpoint was wrong or down from the start.
 */
export class ModelEndpointRefusedError extends ModelCallError {
  static readonly marker: symbol = errorMarker("ModelEndpointRefusedError");

  constructor(
    message: string,
    details: ModelCallErrorDetails,
    readonly code: string,
    readonly neverAnswered: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, details, options);
  }
}

/**
 * The run stops: a model endpoint refused its very first call, so every episode would fail the same
 * way. A {@link ConfigError} (exit code 2, one line), because what fixes it is outside the run:
 * start the server or correct the base URL. Nothing about the episodes was learnt; none is recorded.
 */
export class ModelEndpointUnreachableError extends ConfigError {
  static readonly marker: symbol = errorMarker("ModelEndpointUnreachableError");
  readonly role: string;
  readonly baseURL: string;

  /** `setting`: what the user changes to point the role elsewhere (a flag such as `--base-url`). */
  /** `when`: at what point it was found (default: on the run's first call; a probe says before the first episode). */
  constructor(refused: ModelEndpointRefusedError, setting: string, when = "on the run's first call") {
    const [what, hint] =
      refused.code === "ECONNREFUSED"
        ? ["refused the connection (nothing is listening there)", `start the server there or fix ${setting}`]
        : ["has a host name that does not resolve", `fix ${setting} (or this machine's network)`];
    super(`the ${refused.role} model endpoint ${refused.baseURL} ${what} ${when} (${refused.code}); ${hint}; no episode was recorded`, {
      cause: refused,
    });
    this.role = refused.role;
    this.baseURL = refused.baseURL;
  }
}
