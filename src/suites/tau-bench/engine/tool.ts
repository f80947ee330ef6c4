import { TaubridgeError, ToolCrashError, errorMarker } from "../../../errors/error-tree.ts";
import type { EpisodeDatabase } from "./database.ts";
import { PyException, pyMissingArgumentsError, pyTypeError, type PyDict, type PyValue } from "../../../value/index.ts";

/**
 * A tool returned something that is not a string (τ-bench: `send_certificate` returning None).
 * In the original, pydantic's validation of the step response raises, and the error escapes `step`,
 * so the run records the task as an error. We reproduce that outcome by throwing this from `step`.
 */
export class ToolReturnedNoneError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("ToolReturnedNoneError");
  /** The Python exception the original raised (pydantic's; printed by `replay`). */
  readonly pythonType = "ValidationError";

  constructor(readonly toolName: string) {
    super("1 validation error for EnvResponse\nobservation\n  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]");
  }
}

import type { ToolImplementation as ToolContract } from "../../../core/contracts.ts";

/** A domain tool over the engine's episode database (the contract's `ToolImplementation`). */
export type ToolImplementation = ToolContract<EpisodeDatabase>;

/**
 * Binds keyword arguments to a tool's parameters with CPython 3.11's rules and texts:
 * an unexpected keyword (first in the order given) or a duplicate `data` wins over missing ones.
 */
export function bindArguments(tool: ToolImplementation, domain: string, kwargs: PyDict): Record<string, PyValue> {
  const args: Record<string, PyValue> = Object.create(null);
  const known = new Set(tool.parameters);
  for (const [key, value] of kwargs) {
    if (key === "data") {
      throw pyTypeError(`tau_bench.envs.${domain}.tools.${tool.module ?? tool.name}.${tool.className}.invoke() got multiple values for keyword argument 'data'`);
    }
    if (!known.has(key)) throw pyTypeError(`${tool.className}.invoke() got an unexpected keyword argument '${key}'`);
    args[key] = value;
  }
  const missing = tool.parameters.filter((name) => !(name in args));
  if (missing.length > 0) pyMissingArgumentsError(`${tool.className}.invoke`, missing);
  return args;
}

/**
 * Runs a tool the way τ-bench's `Env.step` does: a Python exception becomes `"Error: " + str(exception)`.
 * A None return throws {@link ToolReturnedNoneError} (it escaped `step` in the original).
 *
 * Any other exception (a JavaScript `TypeError`, a failed assertion) means our port of the tool is
 * wrong: showing its JavaScript message to the model would score the agent against text τ-bench
 * never produces, so it throws a {@link ToolCrashError} naming the tool, and the episode ends as
 * `infra_error` (re-run on resume, left out of pass^k).
 */
export function invokeTool(tool: ToolImplementation, domain: string, db: EpisodeDatabase, kwargs: PyDict): string {
  let result: string | null;
  try {
    result = tool.invoke(db, bindArguments(tool, domain, kwargs));
  } catch (error) {
    if (PyException.isInstance(error)) return `Error: ${error.message}`;
    throw new ToolCrashError(tool.name, error);
  }
  if (typeof result !== "string") throw new ToolReturnedNoneError(tool.name);
  return result;
}
