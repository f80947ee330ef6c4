/**
 * One error tree for the whole project. `name` follows the concrete class, `cause` keeps the
 * underlying error, and the CLI maps {@link ConfigError} to exit code 2 with a one-line message.
 */
export class TaubridgeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The user's configuration or command line is wrong (exit code 2). */
export class ConfigError extends TaubridgeError {}

/** A data file or task file is missing or malformed; the message names the file (and index and field). */
export class DataError extends TaubridgeError {}

/** A name did not match any registered entry; the message lists the known names. */
export class UnknownNameError extends ConfigError {
  constructor(
    readonly kind: string,
    readonly requested: string,
    readonly known: readonly string[],
  ) {
    super(`Unknown ${kind} "${requested}"; known: ${known.join(", ") || "(none)"}`);
  }
}

/** Infrastructure failed (model endpoint, child process); recorded as an infra error, never a zero-score agent failure. */
export class InfraError extends TaubridgeError {}

/** The agent under test broke its protocol (e.g. unparseable action). */
export class AgentProtocolError extends TaubridgeError {}

/** True when `error` is an instance of `type`, also across duplicate copies of this package (checks the name chain). */
export function isErrorOfType(error: unknown, type: abstract new (...args: never[]) => Error): boolean {
  if (error instanceof type) return true;
  let prototype = error && typeof error === "object" ? Object.getPrototypeOf(error) : null;
  while (prototype) {
    if (prototype.constructor?.name === type.name) return true;
    prototype = Object.getPrototypeOf(prototype);
  }
  return false;
}
