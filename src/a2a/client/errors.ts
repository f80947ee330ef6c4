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
import { ConfigError, type DeclaredTermination, EpisodeEndingError, InfraError, errorMarker } from "../../errors/error-tree.ts";

/** What every A2A error carries about the exchange that failed. */
export interface A2AErrorDetails {
  url: string;
  httpStatus?: number | null;
  rpcCode?: number | null;
  /** The JSON-RPC method or `GET agent-card`. */
  method?: string;
}

type ErrorOptions = { cause?: unknown };

/**
 * A base class `Base` whose errors also carry the exchange's details: `new (message, details,
 * options?)`, with `Base`'s statics (`isInstance`). Each A2A error extends one and declares only its
 * own marker. The bases are anonymous and never exported: they have no identity in the error tree
 * and declare no marker, so an error's markers are its own class's and `Base`'s line.
 */
type CarryingDetails<Base extends abstract new (...args: never[]) => object, Details> = Omit<Base, "prototype"> &
  (new (
    message: string,
    details: Details,
    options?: ErrorOptions,
  ) => InstanceType<Base> & { readonly details: Details });

/** A {@link CarryingDetails} base over a `ConfigError` or `InfraError` class. */
function carryingDetails<Details>(): <Base extends typeof ConfigError | typeof InfraError>(base: Base) => CarryingDetails<Base, Details> {
  return (base) =>
    class extends (base as typeof ConfigError) {
      constructor(
        message: string,
        readonly details: Details,
        options?: ErrorOptions,
      ) {
        super(message, options);
      }
    } as unknown as CarryingDetails<typeof base, Details>;
}

/** A {@link CarryingDetails} base over `EpisodeEndingError` whose errors end their episode as `termination`. */
function endingWithDetails<Details>(termination: DeclaredTermination): CarryingDetails<typeof EpisodeEndingError, Details> {
  return class extends EpisodeEndingError {
    constructor(
      message: string,
      readonly details: Details,
      options?: ErrorOptions,
    ) {
      super(message, termination, options);
    }
  } as unknown as CarryingDetails<typeof EpisodeEndingError, Details>;
}

/** The agent card could not be had or used (unreachable, 404, not JSON, no JSON-RPC interface). */
export class A2ADiscoveryError extends carryingDetails<A2AErrorDetails>()(ConfigError) {
  static readonly marker: symbol = errorMarker("A2ADiscoveryError");
}

/** The endpoint refused the run's very first call: every episode would fail the same way (exit 2, naming the URL). */
export class A2AEndpointRefusedError extends carryingDetails<A2AErrorDetails>()(ConfigError) {
  static readonly marker: symbol = errorMarker("A2AEndpointRefusedError");
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
export class A2AAuthError extends carryingDetails<A2AErrorDetails & { wwwAuthenticate?: string | null }>()(InfraError) {
  static readonly marker: symbol = errorMarker("A2AAuthError");
}

/** No answer (connection refused or reset, DNS) or 429/5xx, after the retries: infrastructure, not the agent's reasoning. */
export class A2ATransportError extends carryingDetails<A2AErrorDetails>()(InfraError) {
  static readonly marker: symbol = errorMarker("A2ATransportError");
}

/** The agent did not answer within the per-request limit (or a polled task did not finish within the turn's). */
export class A2ATimeoutError extends endingWithDetails<A2AErrorDetails & { phase: "headers" | "body" | "poll" | "stream" }>("timeout") {
  static readonly marker: symbol = errorMarker("A2ATimeoutError");
}

/** An answer outside the protocol: not JSON, a bad envelope, a JSON-RPC error, a result of no known shape, an empty reply. */
export class A2AProtocolError extends endingWithDetails<A2AErrorDetails>("agent_error") {
  static readonly marker: symbol = errorMarker("A2AProtocolError");
}

/** The agent reported its task `failed`, `rejected` or `canceled` (its status text is kept in the message). */
export class A2ATaskError extends endingWithDetails<A2AErrorDetails & { state: string }>("agent_error") {
  static readonly marker: symbol = errorMarker("A2ATaskError");
}
