/**
 * Errors across the worker protocol. An attempt's error travels as its class name, message, stack
 * and the error tree's markers by name, and comes back as an `Error` carrying the same markers:
 * `ConfigError.isInstance` and `InfraError.isInstance` answer as they would have in the worker, so
 * the coordinator's runner stops or retries exactly as a local run does. What a worker sends is
 * redacted with the secrets it knows (its own keys), which the coordinator may not know.
 */
import { z } from "zod";
import { errorMarker, InfraError } from "../errors/error-tree.ts";
import { redactText } from "../secrets/redact.ts";

const MARKER_PREFIX = "taubridge.error.";

/** An error as it crosses: its class's name, message, stack, and the error tree's markers by name (`taubridge.error.ConfigError`). */
export const serializedErrorSchema = z.object({
  name: z.string(),
  message: z.string(),
  stack: z.string().optional(),
  markers: z.array(z.string()),
});
export type SerializedError = z.infer<typeof serializedErrorSchema>;

/** The worker running an attempt was lost (its process died, its connection closed): the attempt says nothing about the agent. */
export class WorkerLostError extends InfraError {
  static readonly marker: symbol = errorMarker("WorkerLostError");
}

/** A message that is not the worker protocol's (another taubridge version, a corrupted channel). */
export class WorkerProtocolError extends InfraError {
  static readonly marker: symbol = errorMarker("WorkerProtocolError");
}

/** The attempt was cancelled (the run was interrupted or stopped): nothing is recorded for it. */
export class AttemptCancelledError extends InfraError {
  static readonly marker: symbol = errorMarker("AttemptCancelledError");
}

/** An error as it crosses, redacted with `secrets` (message and stack). */
export function serializeError(error: unknown, secrets: readonly string[] = []): SerializedError {
  if (!(error instanceof Error)) return { name: "Error", message: redactText(String(error), secrets), markers: [] };
  const markers = Object.getOwnPropertySymbols(error)
    .map((symbol) => Symbol.keyFor(symbol))
    .filter((key): key is string => typeof key === "string" && key.startsWith(MARKER_PREFIX) && (error as unknown as Record<symbol, unknown>)[Symbol.for(key)] === true);
  return {
    name: error.name,
    message: redactText(error.message, secrets),
    ...(error.stack ? { stack: redactText(error.stack, secrets) } : {}),
    markers,
  };
}

/** The error as the coordinator sees it: an `Error` with the worker's class name, message, stack and markers. */
export function restoreError(serialized: SerializedError): Error {
  const error = new Error(serialized.message);
  error.name = serialized.name;
  error.stack = serialized.stack ?? `${serialized.name}: ${serialized.message}`;
  for (const marker of serialized.markers) {
    if (marker.startsWith(MARKER_PREFIX)) Object.defineProperty(error, Symbol.for(marker), { value: true, enumerable: false });
  }
  return error;
}
