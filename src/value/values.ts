/**
 * The Python value model: how a Python value is held in JavaScript.
 *
 * τ-bench hashes the Python `repr` of its database and returns Python `json.dumps` text from
 * every tool, so numbers must keep their Python type (`247.0` is not `247`) and dicts their
 * insertion order. Representation:
 * - `int`   → a JS `number` that is a safe integer, or a `bigint` beyond 2^53 (exact, unbounded);
 * - `float` → a {@link PyFloat} wrapper (so `247.0` stays a float and prints as `247.0`);
 * - `str`   → `string`; `bool` → `boolean`; `None` → `null`;
 * - `list`  → `PyValue[]`; `dict` → `Map<string, PyValue>` (insertion-ordered, no numeric-key reordering).
 *
 * Identity: a list, a dict and a {@link PyFloat} are JS objects, so JS `===` on them is Python's
 * `is`. Ints, strs, bools and None are JS primitives; Python's `is` on them is unobservable in
 * what the tools do, because for those types `x is y` implies `x == y`. The one place identity
 * changes a result is a NaN float: `[x] == [x]` is True for one NaN object and False for two
 * (see `comparison.ts`).
 */
import { pyFloatRepr } from "./float-repr.ts";

export type PyValue = null | boolean | number | bigint | PyFloat | string | PyValue[] | PyDict;

/** A Python dict with string keys, kept in insertion order. */
export type PyDict = Map<string, PyValue>;

/** A Python int or float as the model holds it (bool excluded: operators convert it first). */
export type PyNumber = number | bigint | PyFloat;

/** A Python float. Kept apart from ints because `247.0` and `247` print and hash differently. */
export class PyFloat {
  constructor(readonly value: number) {}
  /** Lets `+x`, template literals and comparisons see the number. */
  valueOf(): number {
    return this.value;
  }
  /** `str(x)`, so a float in a template literal prints as Python prints it (`50.0`). */
  toString(): string {
    return pyFloatRepr(this.value);
  }
}

/** Wraps a JS number as a Python float. */
export function pyFloat(value: number): PyFloat {
  return new PyFloat(value);
}

export function isPyFloat(value: unknown): value is PyFloat {
  return value instanceof PyFloat;
}

/** A Python int: a safe-integer number or a bigint. */
export function isPyInt(value: unknown): value is number | bigint {
  return (typeof value === "number" && Number.isInteger(value)) || typeof value === "bigint";
}

/** A Python int or float (bool excluded, although Python treats it as an int subclass). */
export function isPyNumber(value: unknown): value is PyNumber {
  return isPyInt(value) || value instanceof PyFloat;
}

export function isPyDict(value: unknown): value is PyDict {
  return value instanceof Map;
}

/** The numeric value of an int or float, as a JS double. */
export function toNumber(value: PyNumber): number {
  if (value instanceof PyFloat) return value.value;
  return typeof value === "bigint" ? Number(value) : value;
}

/** Normalises an int: a bigint that fits a safe integer becomes a number. */
export function normalizeInt(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/**
 * An operand for Python's numeric operators: an int or float as is, a bool as the int 0 or 1
 * (bool is an int subclass), anything else undefined.
 */
export function asPyNumber(value: PyValue | undefined): PyNumber | undefined {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof PyFloat || isPyInt(value)) return value;
  return undefined;
}

/** An operand usable as a Python index (int, or bool as 0/1), or undefined. */
export function asPyIndex(value: PyValue | undefined): number | bigint | undefined {
  if (typeof value === "boolean") return value ? 1 : 0;
  return isPyInt(value) ? value : undefined;
}

/** Python's name for the value's type, for error texts such as `'<' not supported between instances of 'int' and 'str'`. */
export function pyTypeName(value: PyValue | undefined): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "string") return "str";
  if (value instanceof PyFloat) return "float";
  if (isPyInt(value)) return "int";
  if (Array.isArray(value)) return "list";
  if (value instanceof Map) return (value as { schema?: { name: string } }).schema?.name ?? "dict";
  return "object";
}

/**
 * Python `copy.deepcopy` for this value model. Floats are immutable and shared (as `deepcopy` shares
 * them); a pydantic model instance (a `Map` subclass with `emptyClone`) stays an instance of its model.
 */
export function pyDeepCopy<T extends PyValue>(value: T): T {
  if (typeof value !== "object" || value === null || value instanceof PyFloat) return value;
  if (Array.isArray(value)) {
    const copy: PyValue[] = [];
    for (let index = 0; index < value.length; index++) copy.push(pyDeepCopy(value[index]));
    return copy as T;
  }
  if (!(value instanceof Map)) return value;
  const dict = value as PyDict & { emptyClone?: () => PyDict };
  const copy: PyDict = dict.emptyClone === undefined ? new Map() : dict.emptyClone();
  // A loop, not `forEach` with a closure per dict: copying databases is a few % of a τ² run.
  for (const [key, item] of dict) copy.set(key, pyDeepCopy(item));
  return copy as T;
}

/** Converts a plain JS value (from our own code, not from data) into the value model: non-integral numbers become floats. */
export function fromJs(value: unknown): PyValue {
  if (value === null || value === undefined) return null;
  if (typeof value === "number") return Number.isInteger(value) ? value : new PyFloat(value);
  if (typeof value === "string" || typeof value === "boolean" || typeof value === "bigint") return value;
  if (value instanceof PyFloat) return value;
  if (Array.isArray(value)) return value.map(fromJs);
  if (value instanceof Map) {
    const map: PyDict = new Map();
    for (const [key, item] of value) map.set(String(key), fromJs(item));
    return map;
  }
  if (typeof value === "object") {
    const map: PyDict = new Map();
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) map.set(key, fromJs(item));
    return map;
  }
  throw new TypeError(`cannot convert ${typeof value} to a Python value`);
}

/**
 * Converts to plain JSON-compatible JS for our own files (results, reports). Floats become numbers,
 * so `1.0` prints as `1`; use `pyJsonDumps` where the Python text matters.
 */
export function toJs(value: PyValue): unknown {
  if (value instanceof PyFloat) return value.value;
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(toJs);
  if (value instanceof Map) {
    const object: Record<string, unknown> = {};
    for (const [key, item] of value) object[key] = toJs(item);
    return object;
  }
  return value;
}
