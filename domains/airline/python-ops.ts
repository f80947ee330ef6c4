/**
 * Python (CPython 3.11) semantics for the expressions the airline tools evaluate on unvalidated
 * arguments.
 *
 * Why this exists: τ-bench passes the model's tool arguments to the tools with no type checks, so
 * a wrong type does whatever the Python expression does with it, and the resulting exception text
 * becomes the observation (`"Error: " + str(exception)`). A string where a list is expected is
 * iterated by character; an int id is simply "not found" (dict lookups are type-strict); a list used
 * as a key raises `unhashable type: 'list'`; `50 * "2"` is a 50-character string and only the next
 * `+=` fails. Each helper here is one Python operator or builtin over the {@link PyValue} model, with
 * the exact 3.11 error texts, so the tools can be written as literal readings of the specification
 * and no JavaScript coercion or exception can leak through.
 *
 * bool is an int subclass in Python: it takes part in arithmetic and comparisons as 0/1, but error
 * texts name it `'bool'`.
 */
import { PyException, pyTypeError } from "../../src/engine/tool.ts";
import type { EpisodeDatabase } from "../../src/engine/database.ts";
import {
  PyFloat,
  comparePyStrings,
  pyAdd,
  pyMul,
  pyNeg,
  pyRepr,
  pyStr,
  pySub,
  pyTypeName,
  type PyDict,
  type PyValue,
} from "../../src/value/python-value.ts";

/** A Python int or float as the value model holds it. */
export type PyNumber = number | bigint | PyFloat;

type Value = PyValue | undefined;

// ---------------------------------------------------------------------------------------------
// Exceptions
// ---------------------------------------------------------------------------------------------

/** `KeyError(key)`: its str is the repr of the key (`'first'`, `1`, `None`, `True`). */
export function keyError(key: Value): PyException {
  return new PyException(pyRepr(key), "KeyError");
}

/** `AttributeError`, e.g. `'str' object has no attribute 'append'`. */
export function attributeError(value: Value, attribute: string): PyException {
  return new PyException(`'${pyTypeName(value)}' object has no attribute '${attribute}'`, "AttributeError");
}

function valueError(message: string): PyException {
  return new PyException(message, "ValueError");
}

function indexError(message: string): PyException {
  return new PyException(message, "IndexError");
}

function overflowError(message: string): PyException {
  return new PyException(message, "OverflowError");
}

/** Python's `str(x)`, as f-strings format builtin values (`100`, `50.0`, `None`, `['a']`). */
export const str = (value: Value): string => pyStr(value);

// ---------------------------------------------------------------------------------------------
// Classification
// ---------------------------------------------------------------------------------------------

function isInt(value: Value): value is number | bigint {
  return (typeof value === "number" && Number.isInteger(value)) || typeof value === "bigint";
}

/** An int-like operand (int or bool) as an int, or undefined. */
function asIndex(value: Value): number | bigint | undefined {
  if (typeof value === "boolean") return value ? 1 : 0;
  return isInt(value) ? value : undefined;
}

/** A numeric operand (int, bool as 0/1, float), or undefined. */
function asNumber(value: Value): PyNumber | undefined {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (isInt(value) || value instanceof PyFloat) return value;
  return undefined;
}

function isSequence(value: Value): value is string | PyValue[] {
  return typeof value === "string" || Array.isArray(value);
}

function requireHashable(key: Value): void {
  if (Array.isArray(key) || key instanceof Map) throw pyTypeError(`unhashable type: '${pyTypeName(key)}'`);
}

/** The code points of a Python str (JS strings are UTF-16; Python indexes and counts code points). */
function codePoints(text: string): string[] {
  return Array.from(text);
}

// ---------------------------------------------------------------------------------------------
// Containers
// ---------------------------------------------------------------------------------------------

/** `len(x)`. */
export function len(value: Value): number {
  if (typeof value === "string") return codePoints(value).length;
  if (Array.isArray(value)) return value.length;
  if (value instanceof Map) return value.size;
  throw pyTypeError(`object of type '${pyTypeName(value)}' has no len()`);
}

/**
 * The items `for x in value` visits: list elements, dict keys, or the characters of a str.
 * A snapshot array, which is equivalent here because no tool changes a list while iterating it.
 */
export function iterate(value: Value): PyValue[] {
  if (Array.isArray(value)) return [...value];
  if (value instanceof Map) return [...value.keys()];
  if (typeof value === "string") return codePoints(value);
  throw pyTypeError(`'${pyTypeName(value)}' object is not iterable`);
}

/** Normalises a Python index against a length; undefined when out of range. */
function resolveIndex(index: number | bigint, length: number): number | undefined {
  if (typeof index === "bigint") {
    if (index > BigInt(Number.MAX_SAFE_INTEGER) || index < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw indexError(`cannot fit 'int' into an index-sized integer`);
    }
    index = Number(index);
  }
  const position = index < 0 ? index + length : index;
  return position >= 0 && position < length ? position : undefined;
}

/** `container[key]` with Python's rules for dicts, lists, strs and non-subscriptable values. */
export function getItem(container: Value, key: Value): PyValue {
  if (container instanceof Map) {
    requireHashable(key);
    if (typeof key === "string") {
      const value = container.get(key);
      if (value !== undefined) return value;
    }
    throw keyError(key);
  }
  if (Array.isArray(container)) {
    const index = asIndex(key);
    if (index === undefined) {
      throw pyTypeError(`list indices must be integers or slices, not ${pyTypeName(key)}`);
    }
    const position = resolveIndex(index, container.length);
    if (position === undefined) throw indexError("list index out of range");
    return container[position];
  }
  if (typeof container === "string") {
    const index = asIndex(key);
    if (index === undefined) throw pyTypeError(`string indices must be integers, not '${pyTypeName(key)}'`);
    const chars = codePoints(container);
    const position = resolveIndex(index, chars.length);
    if (position === undefined) throw indexError("string index out of range");
    return chars[position];
  }
  throw pyTypeError(`'${pyTypeName(container)}' object is not subscriptable`);
}

/** `container[key] = value`. In these tools the container is always a dict by the time it is assigned. */
export function setItem(container: Value, key: string, value: PyValue): void {
  if (container instanceof Map) {
    container.set(key, value);
    return;
  }
  if (Array.isArray(container)) throw pyTypeError(`list indices must be integers or slices, not str`);
  throw pyTypeError(`'${pyTypeName(container)}' object does not support item assignment`);
}

/** `del container[key]` on a dict. */
export function delItem(container: Value, key: Value): void {
  if (!(container instanceof Map)) {
    throw pyTypeError(`'${pyTypeName(container)}' object does not support item deletion`);
  }
  requireHashable(key);
  if (typeof key !== "string" || !container.has(key)) throw keyError(key);
  container.delete(key);
}

/** `item in container`. */
export function contains(container: Value, item: Value): boolean {
  if (container instanceof Map) {
    requireHashable(item);
    return typeof item === "string" && container.has(item);
  }
  if (Array.isArray(container)) return container.some((element) => element === item || eq(element, item));
  if (typeof container === "string") {
    if (typeof item !== "string") {
      throw pyTypeError(`'in <string>' requires string as left operand, not ${pyTypeName(item)}`);
    }
    return container.includes(item);
  }
  throw pyTypeError(`argument of type '${pyTypeName(container)}' is not iterable`);
}

/** `target.append(item)`. */
export function append(target: Value, item: PyValue): void {
  if (!Array.isArray(target)) throw attributeError(target, "append");
  target.push(item);
}

/** `target.extend(items)` with a list argument. */
export function extend(target: Value, items: PyValue[]): void {
  if (!Array.isArray(target)) throw attributeError(target, "extend");
  target.push(...items);
}

/** `value[-2:]`: the last two characters of a str or elements of a list. */
export function lastTwo(value: Value): PyValue {
  if (typeof value === "string") return codePoints(value).slice(-2).join("");
  if (Array.isArray(value)) return value.slice(-2);
  // A slice is not a valid dict key in 3.11 (slices became hashable in 3.12).
  if (value instanceof Map) throw pyTypeError("unhashable type: 'slice'");
  throw pyTypeError(`'${pyTypeName(value)}' object is not subscriptable`);
}

// ---------------------------------------------------------------------------------------------
// Data collections
// ---------------------------------------------------------------------------------------------

/** `key in data[collection]`: type-strict (the keys are strs), unhashable keys raise. */
export function inCollection(db: EpisodeDatabase, collection: string, key: Value): key is string {
  requireHashable(key);
  return typeof key === "string" && db.has(collection, key);
}

/** `data[collection][key]` (read-only: call `db.mutable` before changing the record). */
export function fromCollection(db: EpisodeDatabase, collection: string, key: Value): PyValue {
  requireHashable(key);
  if (typeof key === "string") {
    const value = db.get(collection, key);
    if (value !== undefined) return value;
  }
  throw keyError(key);
}

/** The record for a key already known to exist, ready to be changed (copy-on-write). */
export function mutableRecord(db: EpisodeDatabase, collection: string, key: Value): PyDict {
  fromCollection(db, collection, key);
  return db.mutable(collection, key as string);
}

// ---------------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------------

/** Three-way numeric comparison across int/bigint/float; NaN when unordered. */
function compareNumbers(left: PyNumber, right: PyNumber): number {
  if (!(left instanceof PyFloat) && !(right instanceof PyFloat)) {
    if (typeof left === "number" && typeof right === "number") return Math.sign(left - right);
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

/** `left == right` (never raises; different types are unequal except int/float/bool). */
export function eq(left: Value, right: Value): boolean {
  const a = asNumber(left);
  const b = asNumber(right);
  if (a !== undefined || b !== undefined) {
    return a !== undefined && b !== undefined && compareNumbers(a, b) === 0;
  }
  if (left === null || left === undefined) return right === null || right === undefined;
  if (typeof left === "string") return left === right;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => item === right[index] || eq(item, right[index]));
  }
  if (left instanceof Map) {
    if (!(right instanceof Map) || left.size !== right.size) return false;
    for (const [key, item] of left) {
      if (!right.has(key)) return false;
      const other = right.get(key);
      if (!(item === other || eq(item, other))) return false;
    }
    return true;
  }
  return false;
}

/** `left != right`. */
export function ne(left: Value, right: Value): boolean {
  return !eq(left, right);
}

type Order = "<" | ">";

function order(left: Value, right: Value, operator: Order): boolean {
  const a = asNumber(left);
  const b = asNumber(right);
  if (a !== undefined && b !== undefined) {
    const result = compareNumbers(a, b);
    return operator === "<" ? result < 0 : result > 0;
  }
  if (typeof left === "string" && typeof right === "string") {
    const result = comparePyStrings(left, right);
    return operator === "<" ? result < 0 : result > 0;
  }
  if (Array.isArray(left) && Array.isArray(right)) {
    const length = Math.min(left.length, right.length);
    for (let index = 0; index < length; index++) {
      const x = left[index];
      const y = right[index];
      if (x === y || eq(x, y)) continue;
      return order(x, y, operator);
    }
    return operator === "<" ? left.length < right.length : left.length > right.length;
  }
  throw pyTypeError(
    `'${operator}' not supported between instances of '${pyTypeName(left)}' and '${pyTypeName(right)}'`,
  );
}

/** `left < right`. */
export function lt(left: Value, right: Value): boolean {
  return order(left, right, "<");
}

/** `left > right`. */
export function gt(left: Value, right: Value): boolean {
  return order(left, right, ">");
}

/** `max(0, value)`: the builtin keeps 0 unless `value > 0`. */
export function maxZero(value: Value): PyValue {
  return gt(value, 0) ? (value as PyValue) : 0;
}

// ---------------------------------------------------------------------------------------------
// Arithmetic
// ---------------------------------------------------------------------------------------------

type Operator = "+" | "-" | "*";

/** Python raises instead of turning an int beyond the float range into inf. */
function checkFloatConversion(a: PyNumber, b: PyNumber): void {
  const floatOperand = a instanceof PyFloat || b instanceof PyFloat;
  for (const operand of [a, b]) {
    if (floatOperand && typeof operand === "bigint" && !Number.isFinite(Number(operand))) {
      throw overflowError("int too large to convert to float");
    }
  }
}

const MAX_SEQUENCE = 2 ** 28;

function repeat(sequence: string | PyValue[], count: number | bigint): string | PyValue[] {
  if (typeof count === "bigint") {
    if (count <= 0n) return typeof sequence === "string" ? "" : [];
    if (len(sequence) === 0) return typeof sequence === "string" ? "" : [];
    throw overflowError("cannot fit 'int' into an index-sized integer");
  }
  if (count <= 0 || len(sequence) === 0) return typeof sequence === "string" ? "" : [];
  if (len(sequence) * count > MAX_SEQUENCE) throw new PyException("", "MemoryError");
  if (typeof sequence === "string") return sequence.repeat(count);
  const out: PyValue[] = [];
  for (let index = 0; index < count; index++) out.push(...sequence);
  return out;
}

function binary(operator: Operator, left: Value, right: Value, inplace: boolean): PyValue {
  const a = asNumber(left);
  const b = asNumber(right);
  if (a !== undefined && b !== undefined) {
    checkFloatConversion(a, b);
    if (operator === "+") return pyAdd(a, b);
    if (operator === "-") return pySub(a, b);
    return pyMul(a, b);
  }
  const symbol = inplace ? `${operator}=` : operator;
  if (operator === "+") {
    if (typeof left === "string") {
      if (typeof right === "string") return left + right;
      throw pyTypeError(`can only concatenate str (not "${pyTypeName(right)}") to str`);
    }
    if (Array.isArray(left)) {
      if (inplace) {
        // list += iterable extends the list in place.
        left.push(...iterate(right));
        return left;
      }
      if (Array.isArray(right)) return [...left, ...right];
      throw pyTypeError(`can only concatenate list (not "${pyTypeName(right)}") to list`);
    }
  }
  if (operator === "*") {
    if (isSequence(left)) {
      const count = asIndex(right);
      if (count === undefined) throw pyTypeError(`can't multiply sequence by non-int of type '${pyTypeName(right)}'`);
      return repeat(left, count);
    }
    if (isSequence(right)) {
      const count = asIndex(left);
      if (count === undefined) throw pyTypeError(`can't multiply sequence by non-int of type '${pyTypeName(left)}'`);
      return repeat(right, count);
    }
  }
  throw pyTypeError(
    `unsupported operand type(s) for ${symbol}: '${pyTypeName(left)}' and '${pyTypeName(right)}'`,
  );
}

/** `left + right`. */
export function add(left: Value, right: Value): PyValue {
  return binary("+", left, right, false);
}

/** `left += right` (same result as `+` except for lists, and `+=` in the error text). */
export function iadd(left: Value, right: Value): PyValue {
  return binary("+", left, right, true);
}

/** `left - right`. */
export function sub(left: Value, right: Value): PyValue {
  return binary("-", left, right, false);
}

/** `left -= right`. */
export function isub(left: Value, right: Value): PyValue {
  return binary("-", left, right, true);
}

/** `left * right`, including sequence repetition (`50 * "2"`). */
export function mul(left: Value, right: Value): PyValue {
  return binary("*", left, right, false);
}

/** `-value`. */
export function neg(value: Value): PyValue {
  const number = asNumber(value);
  if (number === undefined) throw pyTypeError(`bad operand type for unary -: '${pyTypeName(value)}'`);
  return pyNeg(number);
}

/** `sum(items)` with the default int start 0 (sequential `+`, as CPython 3.11 computes it). */
export function sum(items: Iterable<Value>): PyValue {
  let total: PyValue = 0;
  for (const item of items) total = add(total, item);
  return total;
}

// ---------------------------------------------------------------------------------------------
// int()
// ---------------------------------------------------------------------------------------------

const DECIMAL_DIGIT = /^\p{Nd}$/u;
// str.isspace(): what int() strips around the digits.
const SPACE = "[\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const PY_WHITESPACE = new RegExp(`^${SPACE}+|${SPACE}+$`, "gu");

/** The value of a Unicode decimal digit: Nd characters come in runs of ten starting at zero. */
function digitValue(char: string): number {
  let code = char.codePointAt(0)!;
  let offset = 0;
  while (DECIMAL_DIGIT.test(String.fromCodePoint(code - 1))) {
    code--;
    offset++;
  }
  return offset % 10;
}

/** `int(value)` for the values a slice can produce (str or list). */
export function toInt(value: Value): PyValue {
  if (typeof value !== "string") {
    const number = asNumber(value);
    if (number !== undefined) {
      if (number instanceof PyFloat) {
        if (!Number.isFinite(number.value)) {
          throw Number.isNaN(number.value)
            ? valueError("cannot convert float NaN to integer")
            : overflowError("cannot convert float infinity to integer");
        }
        const truncated = Math.trunc(number.value);
        return Number.isSafeInteger(truncated) ? truncated : BigInt(truncated);
      }
      return number;
    }
    throw pyTypeError(
      `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(value)}'`,
    );
  }
  const invalid = () => valueError(`invalid literal for int() with base 10: ${pyRepr(value)}`);
  let text = value.replace(PY_WHITESPACE, "");
  let negative = false;
  if (text.startsWith("+") || text.startsWith("-")) {
    negative = text.startsWith("-");
    text = text.slice(1);
  }
  const chars = codePoints(text);
  if (chars.length === 0) throw invalid();
  let digits = "";
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index];
    if (char === "_") {
      // Single underscores only between digits.
      if (index === 0 || index === chars.length - 1 || chars[index + 1] === "_") throw invalid();
      continue;
    }
    if (!DECIMAL_DIGIT.test(char)) throw invalid();
    digits += String(digitValue(char));
  }
  const result = BigInt(digits) * (negative ? -1n : 1n);
  return result >= BigInt(Number.MIN_SAFE_INTEGER) && result <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(result)
    : result;
}
