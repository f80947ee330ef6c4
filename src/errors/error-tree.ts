/**
 * One error tree for the whole project. `name` follows the concrete class, `cause` keeps the
 * underlying error, and every class is identified by a registered-symbol marker rather than by
 * `instanceof` or by its constructor name:
 *
 * - `instanceof` fails when two copies of taubridge are loaded (a package installed twice, a
 *   framework loading our bridge through its own module graph): the class objects differ.
 * - a constructor-name test matches any library's `ConfigError`.
 *
 * A marker is `Symbol.for("taubridge.error.<Name>")`, the same symbol in every copy, so
 * `ConfigError.isInstance(error)` holds for a `ConfigError` (or a subclass) made by any copy and
 * for nothing else. Every class declares its own marker with `static readonly marker =
 * errorMarker("<Name>")`; `test/error-tree.test.ts` checks that no class forgets it.
 *
 * The CLI maps errors to exit codes with these markers (README, "Exit codes").
 */

const MARKER_PREFIX = "taubridge.error.";

/** The registered symbol that identifies one error class in every copy of this package. */
export function errorMarker(className: string): symbol {
  return Symbol.for(`${MARKER_PREFIX}${className}`);
}

/** Any class of the tree, whatever its constructor's parameters. */
type ErrorClass = abstract new (...args: never[]) => TaubridgeError;

/** A class of the tree as a value (its statics and its parent). */
type AnyClass = abstract new (...args: never[]) => unknown;

/** The marker a class declares itself (an inherited one would make a subclass match its parent). */
function ownMarker(type: AnyClass): symbol {
  const marker = Object.hasOwn(type, "marker") ? (type as { marker?: unknown }).marker : undefined;
  if (typeof marker !== "symbol") {
    throw new TypeError(`${type.name} declares no error marker: add \`static readonly marker = errorMarker("${type.name}")\``);
  }
  return marker;
}

/** Stamps the markers of every class from `type` up to the root on `error` (non-enumerable: not printed, not compared). */
function stampMarkers(error: TaubridgeError, type: AnyClass): void {
  for (let current: AnyClass | null = type; current && current !== Error; current = Object.getPrototypeOf(current)) {
    const marker = Object.hasOwn(current, "marker") ? (current as { marker?: unknown }).marker : undefined;
    if (typeof marker === "symbol") Object.defineProperty(error, marker, { value: true, enumerable: false });
  }
}

/** The root of the tree: `name = new.target.name`, an optional `cause`, and the marker-based {@link isInstance}. */
export class TaubridgeError extends Error {
  static readonly marker: symbol = errorMarker("TaubridgeError");

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    stampMarkers(this, new.target);
  }

  /**
   * True when `error` was made by this class or a subclass, by any copy of taubridge. Called on
   * the class you test for: `InfraError.isInstance(error)`.
   */
  static isInstance<T extends ErrorClass>(this: T, error: unknown): error is InstanceType<T> {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class being tested for (ConfigError.isInstance), not TaubridgeError
    const marker = ownMarker(this);
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}

/** The user's configuration or command line is wrong (exit code 2). */
export class ConfigError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("ConfigError");
}

/** A data file or task file is missing or malformed; the message names the file (and index and field). Exit code 2. */
export class DataError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("DataError");
}

/** A name did not match any registered entry; the message lists the known names. */
export class UnknownNameError extends ConfigError {
  static readonly marker: symbol = errorMarker("UnknownNameError");

  constructor(
    readonly kind: string,
    readonly requested: string,
    readonly known: readonly string[],
  ) {
    super(`Unknown ${kind} "${requested}"; known: ${known.join(", ") || "(none)"}`);
  }
}

/**
 * Infrastructure failed (model endpoint, child process, a harness bug): the episode ends as
 * `infra_error`, which is re-run on resume and left out of pass^k — never a zero-score agent failure.
 */
export class InfraError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("InfraError");
}

/**
 * A domain tool threw something that is not a Python-level exception: a bug in our port of the
 * tool (or in its data), not something the agent did. τ-bench would have shown the model some
 * Python error text; we cannot know which, so the episode ends as `infra_error` naming the tool
 * instead of feeding the model a JavaScript message.
 */
export class ToolCrashError extends InfraError {
  static readonly marker: symbol = errorMarker("ToolCrashError");

  constructor(
    readonly toolName: string,
    cause: unknown,
  ) {
    super(`tool ${toolName} crashed (a harness bug, not the agent's action): ${describeError(cause)}`, { cause });
  }
}

/** The agent under test broke its protocol (e.g. unparseable action). */
export class AgentProtocolError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("AgentProtocolError");
}

/** The termination reasons a participant's failure may declare (the kernel's vocabulary, spelled here because this layer imports nothing). */
export type DeclaredTermination = "agent_error" | "user_error" | "timeout";

/**
 * A participant failed in a way that says how its episode ends: a remote agent that answered
 * outside its protocol (`agent_error`), or took longer than its per-call limit (`timeout`). The
 * loops of both suites end the episode with {@link termination} instead of treating the failure as
 * a crash (which τ² would retry and finally record as an infrastructure error, flattering an agent
 * that is simply broken). Infrastructure failures stay {@link InfraError}s.
 */
export class EpisodeEndingError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("EpisodeEndingError");

  constructor(
    message: string,
    readonly termination: DeclaredTermination,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** `Name: message` of any thrown value, for messages that wrap another error. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

const FILE_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: "no such file",
  EISDIR: "is a directory, not a file",
  EACCES: "permission denied",
  EPERM: "permission denied",
  ENOTDIR: "a parent of it is a file, not a directory",
  ENOSPC: "no space left on the device",
  EROFS: "the file system is read-only",
  EDQUOT: "disk quota exceeded",
};

/**
 * A file-system error a run cannot get past (a folder it may not write, a full disk): the
 * user's environment, not a bug. Undefined for anything else.
 */
export function fileSystemProblem(error: unknown): string | undefined {
  const record = error as NodeJS.ErrnoException | null;
  if (!record || typeof record.code !== "string" || !(record.code in FILE_ERRORS) || typeof record.path !== "string") return undefined;
  const action = record.syscall === "open" || record.syscall === "write" || record.syscall === "mkdir" || record.syscall === "rename" ? "cannot write" : "cannot use";
  return `${action} ${record.path}: ${FILE_ERRORS[record.code]}`;
}

/** Why a file could not be read or written, in words ("no such file"), from a Node `fs` error. */
export function fileErrorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return (code && FILE_ERRORS[code]) ?? code ?? String(error);
}
