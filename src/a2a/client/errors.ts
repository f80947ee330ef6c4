/**
 * The A2A client's typed errors, one class per way a remote agent can fail, each ending its episode
 * with a termination reason of its own (README, "Errors and terminations"):
 *
 * | class | when | ends the episode as |
 * |---|---|---|
 * | `A2ADiscoveryError` | no usable agent card (before the first episode) | the run stops, exit 2 |
 * | `A2AEndpointRefusedError` | the endpoint refused the run's first call | the run stops, exit 2 |
 * | `A2AAuthError` | HTTP 401/403, or a task in `auth-required` | `infra_error` (re-run on resume) |
 * | `A2ATransportError` | no answer (refused, reset, DNS) or 429/5xx after the retries | `infra_error` |
 * | `A2ATimeoutError` | the agent took longer than `--agent-a2a-timeout` | `timeout` |
 * | `A2AProtocolError` | an answer outside the protocol (bad JSON, a JSON-RPC error, an empty reply) | `agent_error` |
 * | `A2ATaskError` | the agent itself reported its task `failed`, `rejected` or `canceled` | `agent_error` |
 * | `A2AHostRefusedError` | the URL's host is not allowed (`allowHosts`); nothing was sent | the run stops, exit 2 |
 */
import { ConfigError, EpisodeEndingError, InfraError, errorMarker } from "../../errors/error-tree.ts";

/** What every A2A error carries about the exchange that failed. */
export interface A2AErrorDetails {
  url: string;
  httpStatus?: number | null;
  rpcCode?: number | null;
  /** The JSON-RPC method or `GET agent-card`. */
  method?: string;
}

/** The agent card could not be had or used (unreachable, 404, not JSON, no JSON-RPC interface). */
export class A2ADiscoveryError extends ConfigError {
  static readonly marker: symbol = errorMarker("A2ADiscoveryError");

  constructor(
    message: string,
    readonly details: A2AErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The endpoint refused the run's very first call: every episode would fail the same way (exit 2, naming the URL). */
export class A2AEndpointRefusedError extends ConfigError {
  static readonly marker: symbol = errorMarker("A2AEndpointRefusedError");

  constructor(
    message: string,
    readonly details: A2AErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** An outbound URL whose host the allow-list does not name: refused before any connection. */
export class A2AHostRefusedError extends ConfigError {
  static readonly marker: symbol = errorMarker("A2AHostRefusedError");

  constructor(
    message: string,
    readonly url: string,
  ) {
    super(message);
  }
}

/** HTTP 401/403 (or a task waiting in `auth-required`): the credential is missing or wrong; never retried. */
export class A2AAuthError extends InfraError {
  static readonly marker: symbol = errorMarker("A2AAuthError");

  constructor(
    message: string,
    readonly details: A2AErrorDetails & { wwwAuthenticate?: string | null },
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** No answer (connection refused or reset, DNS) or 429/5xx, after the retries: infrastructure, not the agent's reasoning. */
export class A2ATransportError extends InfraError {
  static readonly marker: symbol = errorMarker("A2ATransportError");

  constructor(
    message: string,
    readonly details: A2AErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The agent did not answer within the per-request limit (or a polled task did not finish within the turn's). */
export class A2ATimeoutError extends EpisodeEndingError {
  static readonly marker: symbol = errorMarker("A2ATimeoutError");

  constructor(
    message: string,
    readonly details: A2AErrorDetails & { phase: "headers" | "body" | "poll" | "stream" },
    options?: { cause?: unknown },
  ) {
    super(message, "timeout", options);
  }
}

/** An answer outside the protocol: not JSON, a bad envelope, a JSON-RPC error, a result of no known shape, an empty reply. */
export class A2AProtocolError extends EpisodeEndingError {
  static readonly marker: symbol = errorMarker("A2AProtocolError");

  constructor(
    message: string,
    readonly details: A2AErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(message, "agent_error", options);
  }
}

/** The agent reported its task `failed`, `rejected` or `canceled` (its status text is kept in the message). */
export class A2ATaskError extends EpisodeEndingError {
  static readonly marker: symbol = errorMarker("A2ATaskError");

  constructor(
    message: string,
    readonly details: A2AErrorDetails & { state: string },
  ) {
    super(message, "agent_error");
  }
}
