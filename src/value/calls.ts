/**
 * Calling a Python function with keyword arguments: how CPython 3.11 binds them and what it
 * raises when they do not fit. Both suites show these texts to the model (`MockTools.create_task()
 * missing 2 required positional arguments: 'user_id' and 'title'`), so they are reproduced exactly.
 */
import { pyTypeError } from "./errors.ts";
import type { PyDict, PyValue } from "./values.ts";

/** A parameter of a Python function: its name, and its default when it has one. */
export interface PyParameter {
  name: string;
  /** Present when the parameter is optional; a function so a mutable default is fresh per call. */
  defaultValue?: () => PyValue;
}

function joinMissing(names: string[]): string {
  const quoted = names.map((name) => `'${name}'`);
  if (quoted.length === 1) return quoted[0];
  if (quoted.length === 2) return `${quoted[0]} and ${quoted[1]}`;
  return `${quoted.slice(0, -1).join(", ")}, and ${quoted[quoted.length - 1]}`;
}

/** CPython's `TypeError` for required parameters not given (`missing 1 required positional argument: 'x'`). */
export function pyMissingArgumentsError(qualifiedName: string, missing: string[]): never {
  const plural = missing.length === 1 ? "argument" : "arguments";
  throw pyTypeError(`${qualifiedName}() missing ${missing.length} required positional ${plural}: ${joinMissing(missing)}`);
}

/**
 * Binds keyword arguments to `qualifiedName(parameters)` as CPython does: the first unexpected
 * keyword (in the order given) wins over missing ones; defaults fill the rest.
 */
export function pyBindArguments(qualifiedName: string, parameters: readonly PyParameter[], kwargs: PyDict): Record<string, PyValue> {
  const args: Record<string, PyValue> = Object.create(null);
  const known = new Set(parameters.map((parameter) => parameter.name));
  for (const [key, value] of kwargs) {
    if (!known.has(key)) throw pyTypeError(`${qualifiedName}() got an unexpected keyword argument '${key}'`);
    args[key] = value;
  }
  const missing = parameters.filter((parameter) => !(parameter.name in args) && parameter.defaultValue === undefined).map((parameter) => parameter.name);
  if (missing.length > 0) pyMissingArgumentsError(qualifiedName, missing);
  for (const parameter of parameters) {
    if (!(parameter.name in args) && parameter.defaultValue) args[parameter.name] = parameter.defaultValue();
  }
  return args;
}
