/**
 * Python exceptions raised by tools.
 *
 * τ-bench turns any exception inside a tool into the observation `"Error: " + str(exception)`, so a
 * tool that must fail the Python way throws a {@link PyException} whose `message` is exactly
 * `str(exception)`. The factories below build the CPython 3.11 texts the tools need, so every
 * domain words the same error the same way.
 */
import { TaubridgeError, errorMarker } from "../errors/error-tree.ts";
import { pyRepr } from "./printing.ts";
import { pyTypeName, type PyValue } from "./values.ts";

/**
 * A Python exception raised by a tool. `message` is exactly `str(exception)`; `pythonType` is the
 * exception class name (`KeyError`, `TypeError`, …), kept for tests and diagnostics.
 */
export class PyException extends TaubridgeError {
  static readonly marker: symbol = errorMarker("PyException");

  constructor(
    message: string,
    readonly pythonType: string = "Exception",
  ) {
    super(message);
  }
}

/** `KeyError(key)`: its str is the repr of the key (`'first'`, `1`, `None`, `True`). */
export function pyKeyError(key: PyValue | undefined): PyException {
  return new PyException(pyRepr(key), "KeyError");
}

/** `TypeError(message)`. */
export function pyTypeError(message: string): PyException {
  return new PyException(message, "TypeError");
}

/** `ValueError(message)`. */
export function pyValueError(message: string): PyException {
  return new PyException(message, "ValueError");
}

/** `IndexError(message)`, e.g. `list index out of range`. */
export function pyIndexError(message: string): PyException {
  return new PyException(message, "IndexError");
}

/** `OverflowError(message)`, e.g. `int too large to convert to float`. */
export function pyOverflowError(message: string): PyException {
  return new PyException(message, "OverflowError");
}

/** `AttributeError`: `'<type>' object has no attribute '<attribute>'`. */
export function pyAttributeError(value: PyValue | undefined, attribute: string): PyException {
  return new PyException(`'${pyTypeName(value)}' object has no attribute '${attribute}'`, "AttributeError");
}

/** `AssertionError` of a bare `assert` (its text is empty). */
export function pyAssertionError(message = ""): PyException {
  return new PyException(message, "AssertionError");
}
