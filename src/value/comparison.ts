/**
 * Python comparison operators (`==`, `!=`, `<`, `<=`, `>`, `>=`), `max`, and the "identity, then
 * `==`" test that containers use.
 *
 * Two equalities, as in CPython:
 * - {@link pyEquals} is the `==` operator. A NaN float is unequal to everything, itself included:
 *   `x == x` is False for `x = float('nan')`.
 * - {@link pyIsOrEquals} is `PyObject_RichCompareBool`, which `in`, `list.count`, `list.index` and
 *   the element comparisons of `list == list` / `dict == dict` use: it answers True for the *same
 *   object* before calling `==`. So `[x] == [x]` and `x in [x]` are True for that same NaN.
 *
 * Our value model can represent that difference: a float is a {@link PyFloat} object, so JS `===`
 * is Python's `is` for it (see `values.ts`). `json.loads` returns one shared NaN object for every
 * `NaN` literal, and `parsePythonJson` does the same; a NaN computed by arithmetic (`inf - inf`) is
 * a new object in both. Ints, strs, bools and None are primitives: for them `is` implies `==`, so
 * the shortcut changes nothing.
 *
 * bool is an int subclass: it compares as 0/1 (`True == 1 == 1.0`), but error texts name it `bool`.
 * int/float comparisons are exact, as in Python (no rounding of ints beyond 2^53).
 */
import { pyTypeError } from "./errors.ts";
import { PyFloat, asPyNumber, pyTypeName, type PyNumber, type PyValue } from "./values.ts";

type Value = PyValue | undefined;

// ---------------------------------------------------------------------------------------------
// Three-way comparisons
// ---------------------------------------------------------------------------------------------

/** Python string ordering (by code point); differs from JS `<` only for astral characters. */
export function pyCompareStrings(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) {
    const a = left.charCodeAt(index);
    const b = right.charCodeAt(index);
    if (a === b) continue;
    if (a >= 0xd800 || b >= 0xd800) {
      const codeA = left.codePointAt(index)!;
      const codeB = right.codePointAt(index)!;
      if (codeA !== codeB) return codeA < codeB ? -1 : 1;
      continue;
    }
    return a < b ? -1 : 1;
  }
  return left.length === right.length ? 0 : left.length < right.length ? -1 : 1;
}

/**
 * Three-way comparison of two numbers as Python orders them: -1, 0 or 1, or NaN when they are
 * unordered (a NaN operand). Exact across int, bigint and float (`2**53 + 1 > 2.0**53`).
 */
export function pyCompareNumbers(left: PyNumber, right: PyNumber): number {
  if (!(left instanceof PyFloat) && !(right instanceof PyFloat)) {
    if (typeof left === "number" && typeof right === "number") return left === right ? 0 : left < right ? -1 : 1;
    const a = BigInt(left);
    const b = BigInt(right);
    return a === b ? 0 : a < b ? -1 : 1;
  }
  if (left instanceof PyFloat && right instanceof PyFloat) return compareDoubles(left.value, right.value);
  if (left instanceof PyFloat) return -compareIntFloat(right as number | bigint, left.value);
  return compareIntFloat(left, (right as PyFloat).value);
}

function compareDoubles(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  return a === b ? 0 : a < b ? -1 : 1;
}

/** Exact int-vs-float comparison, as Python does it (no rounding of big ints). */
function compareIntFloat(int: number | bigint, float: number): number {
  if (Number.isNaN(float)) return NaN;
  if (typeof int === "number") return compareDoubles(int, float);
  if (!Number.isFinite(float)) return float > 0 ? -1 : 1;
  const floor = Math.floor(float);
  const floorInt = BigInt(floor);
  if (int < floorInt) return -1;
  if (int > floorInt) return 1;
  return float === floor ? 0 : -1;
}

// ---------------------------------------------------------------------------------------------
// Equality
// ---------------------------------------------------------------------------------------------

/**
 * Python `left == right`. Never raises; values of different types are unequal, except that int,
 * float and bool compare by value. Lists compare element-wise and dicts by key set and values,
 * both with {@link pyIsOrEquals} for the elements, as CPython does.
 */
export function pyEquals(left: Value, right: Value): boolean {
  // A str equals only the same str (a number is never one): the common case, decided first.
  if (typeof left === "string") return left === right;
  const a = asPyNumber(left);
  const b = asPyNumber(right);
  if (a !== undefined || b !== undefined) {
    return a !== undefined && b !== undefined && pyCompareNumbers(a, b) === 0;
  }
  if (left === null || left === undefined) return right === null || right === undefined;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index++) {
      if (!pyIsOrEquals(left[index], right[index])) return false;
    }
    return true;
  }
  if (left instanceof Map) {
    if (!(right instanceof Map) || left.size !== right.size) return false;
    for (const [key, item] of left) {
      if (!right.has(key) || !pyIsOrEquals(item, right.get(key))) return false;
    }
    return true;
  }
  return false;
}

/** Python `left != right`. */
export function pyNotEquals(left: Value, right: Value): boolean {
  return !pyEquals(left, right);
}

/**
 * `left is right or left == right` (CPython's `PyObject_RichCompareBool(left, right, Py_EQ)`): the
 * equality of `in`, `list.count`, `list.index` and of container elements. It differs from
 * {@link pyEquals} only for a NaN float compared with the very same object.
 */
export function pyIsOrEquals(left: Value, right: Value): boolean {
  return left === right || pyEquals(left, right);
}

// ---------------------------------------------------------------------------------------------
// Ordering
// ---------------------------------------------------------------------------------------------

type Order = "<" | "<=" | ">" | ">=";

function holds(operator: Order, comparison: number): boolean {
  // A NaN comparison (unordered) makes every operator false.
  switch (operator) {
    case "<":
      return comparison < 0;
    case "<=":
      return comparison <= 0;
    case ">":
      return comparison > 0;
    case ">=":
      return comparison >= 0;
  }
}

/**
 * Python's ordering operators: numbers by value, strs by code point, lists lexicographically
 * (the first element pair that is not {@link pyIsOrEquals} decides, with the same operator), and
 * `'<' not supported between instances of …` for anything else (None, dicts, mixed types).
 */
function order(operator: Order, left: Value, right: Value): boolean {
  const a = asPyNumber(left);
  const b = asPyNumber(right);
  if (a !== undefined && b !== undefined) return holds(operator, pyCompareNumbers(a, b));
  if (typeof left === "string" && typeof right === "string") return holds(operator, pyCompareStrings(left, right));
  if (Array.isArray(left) && Array.isArray(right)) {
    const length = Math.min(left.length, right.length);
    for (let index = 0; index < length; index++) {
      if (pyIsOrEquals(left[index], right[index])) continue;
      return order(operator, left[index], right[index]);
    }
    return holds(operator, left.length - right.length);
  }
  throw pyTypeError(`'${operator}' not supported between instances of '${pyTypeName(left)}' and '${pyTypeName(right)}'`);
}

/** Python `left < right`. */
export function pyLessThan(left: Value, right: Value): boolean {
  return order("<", left, right);
}

/** Python `left <= right`. */
export function pyLessOrEqual(left: Value, right: Value): boolean {
  return order("<=", left, right);
}

/** Python `left > right`. */
export function pyGreaterThan(left: Value, right: Value): boolean {
  return order(">", left, right);
}

/** Python `left >= right`. */
export function pyGreaterOrEqual(left: Value, right: Value): boolean {
  return order(">=", left, right);
}

/**
 * Python `max(a, b, …)` with two or more arguments: the first of the largest. An argument replaces
 * the current maximum only when `argument > maximum`, so `max(0, x)` keeps the int 0 for
 * `x == 0.0` and for a NaN `x`.
 */
export function pyMax(first: Value, second: Value, ...rest: Value[]): PyValue {
  let maximum: PyValue = first ?? null;
  for (const item of [second, ...rest]) {
    if (pyGreaterThan(item, maximum)) maximum = item ?? null;
  }
  return maximum;
}
