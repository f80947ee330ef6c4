import type { EpisodeDatabase } from "./database.ts";
import { PyException, pyTypeError, type PyDict, type PyValue } from "../value/index.ts";

/**
 * A tool returned something that is not a string (τ-bench: `send_certificate` returning None).
 * In the original, pydantic's validation of the step response raises, and the error escapes `step`,
 * so the run records the task as an error. We reproduce that outcome by throwing this from `step`.
 */
export class ToolReturnedNoneError extends Error {
  constructor(readonly toolName: string) {
    super(
      "1 validation error for EnvResponse\nobservation\n  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]",
    );
    this.name = "ValidationError";
  }
}

/**
 * One domain tool as the environment runs it. The schema the model sees is not here: it is loaded
 * from the data directory (`tools_info.json`) so the prompt text stays upstream data.
 */
export interface ToolImplementation {
  /** The tool name the model calls. */
  readonly name: string;
  /** The Python class name, as it appears in argument-binding TypeError texts. */
  readonly className: string;
  /** The Python module (file) name; defaults to {@link name}. Used in one fully qualified error text. */
  readonly module?: string;
  /** Parameter names in the Python signature's order (after `data`). */
  readonly parameters: readonly string[];
  /** Read-only tools never change the database (used for reporting, not for behaviour). */
  readonly kind?: "read" | "write" | "think" | "generic";
  /**
   * Runs the tool. Arguments are bound by name and not type-checked, as in the original. Throw a
   * {@link PyException} for the Python error paths. Return `null` only to reproduce a None return.
   */
  invoke(db: EpisodeDatabase, args: Readonly<Record<string, PyValue>>): string | null;
}

function joinMissing(names: string[]): string {
  const quoted = names.map((name) => `'${name}'`);
  if (quoted.length === 1) return quoted[0];
  if (quoted.length === 2) return `${quoted[0]} and ${quoted[1]}`;
  return `${quoted.slice(0, -1).join(", ")}, and ${quoted[quoted.length - 1]}`;
}

/**
 * Binds keyword arguments to a tool's parameters with CPython 3.11's rules and texts:
 * an unexpected keyword (first in the order given) or a duplicate `data` wins over missing ones.
 */
export function bindArguments(tool: ToolImplementation, domain: string, kwargs: PyDict): Record<string, PyValue> {
  const args: Record<string, PyValue> = Object.create(null);
  const known = new Set(tool.parameters);
  for (const [key, value] of kwargs) {
    if (key === "data") {
      throw pyTypeError(
        `tau_bench.envs.${domain}.tools.${tool.module ?? tool.name}.${tool.className}.invoke() got multiple values for keyword argument 'data'`,
      );
    }
    if (!known.has(key)) throw pyTypeError(`${tool.className}.invoke() got an unexpected keyword argument '${key}'`);
    args[key] = value;
  }
  const missing = tool.parameters.filter((name) => !(name in args));
  if (missing.length > 0) {
    const plural = missing.length === 1 ? "argument" : "arguments";
    throw pyTypeError(`${tool.className}.invoke() missing ${missing.length} required positional ${plural}: ${joinMissing(missing)}`);
  }
  return args;
}

/**
 * Runs a tool the way τ-bench's `Env.step` does: any exception becomes `"Error: " + str(exception)`.
 * A None return throws {@link ToolReturnedNoneError} (it escaped `step` in the original).
 */
export function invokeTool(tool: ToolImplementation, domain: string, db: EpisodeDatabase, kwargs: PyDict): string {
  let result: string | null;
  try {
    result = tool.invoke(db, bindArguments(tool, domain, kwargs));
  } catch (error) {
    // A malformed call never crashes the episode: every failure becomes an error observation.
    if (error instanceof PyException) return `Error: ${error.message}`;
    return `Error: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (typeof result !== "string") throw new ToolReturnedNoneError(tool.name);
  return result;
}
