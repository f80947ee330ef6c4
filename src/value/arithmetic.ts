/**
 * Python arithmetic over the value model: `+`, `-`, `*`, unary `-`, `+=`, `-=`, `abs`, `sum` and
 * `round`, with Python's result types and CPython 3.11's error texts (as the τ-bench tools use them,
 * e.g. tau_bench/envs/retail/tools/modify_pending_order_items.py, ModifyPendingOrderItems.invoke;
 * `round`: CPython Objects/floatobject.c, float___round___impl).
 *
 * - int op int stays an int, exact beyond 2^53 (bigint); anything with a float is a float;
 *   bool takes part as 0/1 (it is an int subclass) but error texts name it `bool`.
 * - `+` concatenates strs and lists, `*` repeats them (`50 * "2"` is a 50-character str), and every
 *   other combination raises `unsupported operand type(s) for +: 'int' and 'str'` and its kin.
 * - An int beyond the float range mixed with a float raises `int too large to convert to float`.
 * - `round(x, n)` rounds the exact binary value half to even, then to the nearest double, as
 *   CPython's dtoa-based rounding does (`round(2.675, 2)` is `2.67`).
 */
import { pyIterate, pyLen } from "./containers.ts";
import { PyException, pyOverflowError, pyTypeError } from "./errors.ts";
import { decomposeDouble, divideHalfEven, ratioToDouble } from "./float-bits.ts";
import { PyFloat, asPyIndex, asPyNumber, normalizeInt, pyTypeName, type PyNumber, type PyValue } from "./values.ts";

type Value = PyValue | undefined;
type Operator = "+" | "-" | "*";

// ---------------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------------

/** Python converts an int operand to float for mixed arithmetic, and raises where that overflows. */
function floatOperand(value: PyNumber): number {
  if (value instanceof PyFloat) return value.value;
  const number = Number(value);
  if (!Number.isFinite(number)) throw pyOverflowError("int too large to convert to float");
  return number;
}

function numeric(operator: Operator, a: PyNumber, b: PyNumber): PyNumber {
  if (typeof a === "number" && typeof b === "number") {
    const result = operator === "+" ? a + b : operator === "-" ? a - b : a * b;
    if (Number.isSafeInteger(result)) return result;
    return intResult(operator, BigInt(a), BigInt(b));
  }
  if (a instanceof PyFloat || b instanceof PyFloat) {
    const x = floatOperand(a);
    const y = floatOperand(b);
    return new PyFloat(operator === "+" ? x + y : operator === "-" ? x - y : x * y);
  }
  return intResult(operator, BigInt(a), BigInt(b));
}

function intResult(operator: Operator, a: bigint, b: bigint): number | bigint {
  return normalizeInt(operator === "+" ? a + b : operator === "-" ? a - b : a * b);
}

// ---------------------------------------------------------------------------------------------
// Sequences
// ---------------------------------------------------------------------------------------------

/** Largest repetition result we build; beyond it CPython would need gigabytes (MemoryError). */
const MAX_SEQUENCE = 2 ** 28;

function repeat(sequence: string | PyValue[], count: number | bigint): string | PyValue[] {
  const empty = (): string | PyValue[] => (typeof sequence === "string" ? "" : []);
  if (typeof count === "bigint") {
    if (count <= 0n || pyLen(sequence) === 0) return empty();
    throw pyOverflowError("cannot fit 'int' into an index-sized integer");
  }
  if (count <= 0 || pyLen(sequence) === 0) return empty();
  if (pyLen(sequence) * count > MAX_SEQUENCE) throw new PyException("", "MemoryError");
  if (typeof sequence === "string") return sequence.repeat(count);
  const out: PyValue[] = [];
  for (let index = 0; index < count; index++) out.push(...sequence);
  return out;
}

function isSequence(value: Value): value is string | PyValue[] {
  return typeof value === "string" || Array.isArray(value);
}

function binary(operator: Operator, left: Value, right: Value, inplace: boolean): PyValue {
  const a = asPyNumber(left);
  const b = asPyNumber(right);
  if (a !== undefined && b !== undefined) return numeric(operator, a, b);
  if (operator === "+") {
    if (typeof left === "string") {
      if (typeof right === "string") return left + right;
      throw pyTypeError(`can only concatenate str (not "${pyTypeName(right)}") to str`);
    }
    if (Array.isArray(left)) {
      if (inplace) {
        // list += iterable extends the list in place.
        left.push(...pyIterate(right));
        return left;
      }
      if (Array.isArray(right)) return [...left, ...right];
      throw pyTypeError(`can only concatenate list (not "${pyTypeName(right)}") to list`);
    }
  }
  if (operator === "*") {
    if (isSequence(left)) {
      const count = asPyIndex(right);
      if (count === undefined) throw pyTypeError(`can't multiply sequence by non-int of type '${pyTypeName(right)}'`);
      return repeat(left, count);
    }
    if (isSequence(right)) {
      const count = asPyIndex(left);
      if (count === undefined) throw pyTypeError(`can't multiply sequence by non-int of type '${pyTypeName(left)}'`);
      return repeat(right, count);
    }
  }
  const symbol = inplace ? `${operator}=` : operator;
  throw pyTypeError(`unsupported operand type(s) for ${symbol}: '${pyTypeName(left)}' and '${pyTypeName(right)}'`);
}

// ---------------------------------------------------------------------------------------------
// Operators and builtins
// ---------------------------------------------------------------------------------------------

/** Python `left + right`. */
export function pyAdd(left: PyNumber, right: PyNumber): PyNumber;
export function pyAdd(left: Value, right: Value): PyValue;
export function pyAdd(left: Value, right: Value): PyValue {
  return binary("+", left, right, false);
}

/** Python `left += right`: as `+`, except that a list is extended in place and error texts say `+=`. */
export function pyIAdd(left: PyNumber, right: PyNumber): PyNumber;
export function pyIAdd(left: Value, right: Value): PyValue;
export function pyIAdd(left: Value, right: Value): PyValue {
  return binary("+", left, right, true);
}

/** Python `left - right`. */
export function pySub(left: PyNumber, right: PyNumber): PyNumber;
export function pySub(left: Value, right: Value): PyValue;
export function pySub(left: Value, right: Value): PyValue {
  return binary("-", left, right, false);
}

/** Python `left -= right`. */
export function pyISub(left: PyNumber, right: PyNumber): PyNumber;
export function pyISub(left: Value, right: Value): PyValue;
export function pyISub(left: Value, right: Value): PyValue {
  return binary("-", left, right, true);
}

/** Python `left * right`, including sequence repetition (`50 * "2"`). */
export function pyMul(left: PyNumber, right: PyNumber): PyNumber;
export function pyMul(left: Value, right: Value): PyValue;
export function pyMul(left: Value, right: Value): PyValue {
  return binary("*", left, right, false);
}

/** Python `-value`: an int stays an int (`-0` is `0`), a float keeps its sign bit. */
export function pyNeg(value: Value): PyNumber {
  const number = asPyNumber(value);
  if (number === undefined) throw pyTypeError(`bad operand type for unary -: '${pyTypeName(value)}'`);
  if (number instanceof PyFloat) return new PyFloat(-number.value);
  if (typeof number === "bigint") return normalizeInt(-number);
  return number === 0 ? 0 : -number;
}

/** Python `abs(value)`, keeping the type (bool becomes int). */
export function pyAbs(value: Value): PyNumber {
  const number = asPyNumber(value);
  if (number === undefined) throw pyTypeError(`bad operand type for abs(): '${pyTypeName(value)}'`);
  if (number instanceof PyFloat) return new PyFloat(Math.abs(number.value));
  if (typeof number === "bigint") return number < 0n ? normalizeInt(-number) : number;
  return Math.abs(number);
}

/** Python `sum(iterable)` with the default start 0: sequential `+`, as CPython 3.11 computes it. */
export function pySum(iterable: Value): PyValue {
  let total: PyValue = 0;
  for (const item of pyIterate(iterable)) total = binary("+", total, item, false);
  return total;
}

/** CPython's bounds on `ndigits` beyond which `round(float, ndigits)` needs no work. */
const NDIGITS_MAX = 323;
const NDIGITS_MIN = -308;

/**
 * Python `round(value, ndigits)`: an int (or bool) stays an int, rounded half to even to a multiple
 * of `10 ** -ndigits` when `ndigits` is negative; a float is rounded half to even on its exact
 * binary value and comes back as the nearest float (`round(2.675, 2)` → `2.67`,
 * `round(0.125, 2)` → `0.12`, `round(-0.001, 2)` → `-0.0`).
 */
export function pyRound(value: Value, ndigits: number): PyNumber {
  if (!Number.isInteger(ndigits)) throw new RangeError(`ndigits must be an integer, got ${ndigits}`);
  const number = asPyNumber(value);
  if (number === undefined) throw pyTypeError(`type ${pyTypeName(value)} doesn't define __round__ method`);
  if (number instanceof PyFloat) return new PyFloat(roundFloat(number.value, ndigits));
  if (ndigits >= 0) return number;
  const unit = 10n ** BigInt(-ndigits);
  const int = BigInt(number);
  const magnitude = divideHalfEven(int < 0n ? -int : int, unit) * unit;
  return normalizeInt(int < 0n ? -magnitude : magnitude);
}

/** `round(x, ndigits)` on a double: the exact value rounded half to even, then to the nearest double. */
function roundFloat(x: number, ndigits: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  if (ndigits > NDIGITS_MAX) return x;
  if (ndigits < NDIGITS_MIN) return 0 * x;
  const negative = x < 0;
  const { mantissa, exponent } = decomposeDouble(Math.abs(x));
  let magnitude: number;
  if (ndigits >= 0) {
    if (exponent >= 0) return x; // already an integer
    const unit = 10n ** BigInt(ndigits);
    const rounded = divideHalfEven(mantissa * unit, 1n << BigInt(-exponent));
    magnitude = rounded === 0n ? 0 : ratioToDouble(rounded, unit);
  } else {
    const unit = 10n ** BigInt(-ndigits);
    const numerator = exponent >= 0 ? mantissa << BigInt(exponent) : mantissa;
    const denominator = exponent >= 0 ? unit : unit << BigInt(-exponent);
    magnitude = Number(divideHalfEven(numerator, denominator) * unit);
    if (!Number.isFinite(magnitude)) throw pyOverflowError("rounded value too large to represent");
  }
  return negative ? -magnitude : magnitude;
}
