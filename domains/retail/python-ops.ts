/**
 * Python operations on unvalidated tool arguments, for the retail tools.
 *
 * The model's arguments reach the original tools without any type check, so a wrong type does
 * whatever the Python expression does with it: a string is iterated by character, a non-string id
 * is simply "not found" (dict lookups are type-strict), a list used as a dict key raises
 * `unhashable type: 'list'`, and so on. These helpers reproduce those outcomes and the exact
 * CPython 3.11 exception texts, so the tool code can be written as a literal reading of the
 * specification without JavaScript coercions leaking through.
 */
import { PyException, pyKeyError, pyTypeError } from "../../src/engine/tool.ts";
import type { EpisodeDatabase } from "../../src/engine/database.ts";
import {
  PyFloat,
  comparePyStrings,
  isPyNumber,
  pyAdd,
  pyCompare,
  pySub,
  pyTypeName,
  type PyDict,
  type PyValue,
} from "../../src/value/python-value.ts";

type PyNumber = number | bigint | PyFloat;

/** Python `AttributeError` (e.g. `'int' object has no attribute 'lower'`). */
export function pyAttributeError(value: PyValue | undefined, attribute: string): PyException {
  return new PyException(`'${pyTypeName(value)}' object has no attribute '${attribute}'`, "AttributeError");
}

/** Python `IndexError: list index out of range`. */
export function pyIndexError(): PyException {
  return new PyException("list index out of range", "IndexError");
}

/** Raises Python's `unhashable type` TypeError for values that cannot be dict keys. */
function assertHashable(key: PyValue | undefined): void {
  if (Array.isArray(key) || key instanceof Map) throw pyTypeError(`unhashable type: '${pyTypeName(key)}'`);
}

/**
 * Python `key in dict` for a data dict (all keys are strings): type-strict, so `123` never matches
 * `"123"`, and a list or dict key raises `unhashable type`.
 */
export function pyDictContains(dict: PyDict, key: PyValue | undefined): key is string {
  assertHashable(key);
  return typeof key === "string" && dict.has(key);
}

/** Python `key in data[collection]` over an episode database. */
export function pyCollectionContains(db: EpisodeDatabase, collection: string, key: PyValue | undefined): key is string {
  assertHashable(key);
  return typeof key === "string" && db.has(collection, key);
}

/** Python `dict[key]`: the value, or `KeyError(key)`. */
export function pyGetItem(dict: PyValue | undefined, key: string): PyValue {
  if (!(dict instanceof Map)) throw pyTypeError(`'${pyTypeName(dict)}' object is not subscriptable`);
  const value = dict.get(key);
  if (value === undefined) throw pyKeyError(key);
  return value;
}

/** `dict[key]` where the data guarantees a dict (a record, an address, a payment method). */
export function pyGetDict(dict: PyValue | undefined, key: string): PyDict {
  const value = pyGetItem(dict, key);
  if (!(value instanceof Map)) throw pyTypeError(`'${pyTypeName(value)}' object is not subscriptable`);
  return value;
}

/** `dict[key]` where the data guarantees a list (items, payment_history). */
export function pyGetList(dict: PyValue | undefined, key: string): PyValue[] {
  const value = pyGetItem(dict, key);
  if (!Array.isArray(value)) throw pyTypeError(`'${pyTypeName(value)}' object is not iterable`);
  return value;
}

/** A number from the data (price, amount, balance); anything else raises the operand TypeError. */
function asNumber(value: PyValue, operator: string, other: PyValue): PyNumber {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (isPyNumber(value)) return value;
  throw pyTypeError(`unsupported operand type(s) for ${operator}: '${pyTypeName(value)}' and '${pyTypeName(other)}'`);
}

/** Python `a + b` on data numbers, with Python's TypeError text for anything else. */
export function pyPlus(left: PyValue, right: PyValue): PyNumber {
  const operandError = () => pyTypeError(`unsupported operand type(s) for +: '${pyTypeName(left)}' and '${pyTypeName(right)}'`);
  if (!isNumberLike(left) || !isNumberLike(right)) throw operandError();
  return pyAdd(asNumber(left, "+", right), asNumber(right, "+", left));
}

/** Python `a - b` on data numbers, with Python's TypeError text for anything else. */
export function pyMinus(left: PyValue, right: PyValue): PyNumber {
  if (!isNumberLike(left) || !isNumberLike(right)) {
    throw pyTypeError(`unsupported operand type(s) for -: '${pyTypeName(left)}' and '${pyTypeName(right)}'`);
  }
  return pySub(asNumber(left, "-", right), asNumber(right, "-", left));
}

function isNumberLike(value: PyValue): boolean {
  return typeof value === "boolean" || isPyNumber(value);
}

/** Python `a < b` for numbers, with `'<' not supported between instances of …` otherwise. */
export function pyLessThan(left: PyValue, right: PyValue): boolean {
  if (typeof left === "string" && typeof right === "string") return comparePyStrings(left, right) < 0;
  if (!isNumberLike(left) || !isNumberLike(right)) {
    throw pyTypeError(`'<' not supported between instances of '${pyTypeName(left)}' and '${pyTypeName(right)}'`);
  }
  const a = asNumber(left, "<", right);
  const b = asNumber(right, "<", left);
  if (Number.isNaN(numeric(a)) || Number.isNaN(numeric(b))) return false;
  return pyCompare(a, b) < 0;
}

/** Python `a > b` (same rules as {@link pyLessThan}, mirrored). */
export function pyGreaterThan(left: PyValue, right: PyValue): boolean {
  if (typeof left === "string" && typeof right === "string") return comparePyStrings(left, right) > 0;
  if (!isNumberLike(left) || !isNumberLike(right)) {
    throw pyTypeError(`'>' not supported between instances of '${pyTypeName(left)}' and '${pyTypeName(right)}'`);
  }
  const a = asNumber(left, ">", right);
  const b = asNumber(right, ">", left);
  if (Number.isNaN(numeric(a)) || Number.isNaN(numeric(b))) return false;
  return pyCompare(a, b) > 0;
}

function numeric(value: PyNumber): number {
  return value instanceof PyFloat ? value.value : Number(value);
}

/**
 * Python `==` as `list.count` and `list ==` use it (`PyObject_RichCompareBool`): numbers compare
 * across int/float/bool (`1 == 1.0 == True`), containers element-wise, dicts ignoring key order.
 * The identity shortcut of that C function makes a NaN equal to itself; since `json.loads` returns
 * one shared NaN object for every `NaN` literal, any two NaNs from the same arguments are equal here.
 */
export function pyEquals(left: PyValue | undefined, right: PyValue | undefined): boolean {
  if (left === right) return true;
  if (left === undefined || right === undefined) return false;
  if (isNumberLike(left) && isNumberLike(right)) {
    const a = asNumber(left, "==", right);
    const b = asNumber(right, "==", left);
    if (Number.isNaN(numeric(a)) && Number.isNaN(numeric(b))) return a instanceof PyFloat && b instanceof PyFloat;
    return pyCompare(a, b) === 0 && !Number.isNaN(numeric(a)) && !Number.isNaN(numeric(b));
  }
  if (typeof left === "string" || typeof right === "string") return left === right;
  if (left === null || right === null) return false;
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((item, index) => pyEquals(item, right[index]));
  }
  if (left instanceof Map && right instanceof Map) {
    if (left.size !== right.size) return false;
    for (const [key, item] of left) {
      if (!right.has(key) || !pyEquals(item, right.get(key))) return false;
    }
    return true;
  }
  return false;
}

/**
 * Python `for x in value`: a list yields its items, a str its characters (code points), a dict its
 * keys; anything else raises `'<type>' object is not iterable`.
 */
export function pyIterate(value: PyValue | undefined): PyValue[] {
  if (Array.isArray(value)) return [...value];
  if (typeof value === "string") return [...value];
  if (value instanceof Map) return [...value.keys()];
  throw pyTypeError(`'${pyTypeName(value)}' object is not iterable`);
}

/** Python `len(value)`, or `object of type '<type>' has no len()`. */
export function pyLen(value: PyValue | undefined): number {
  if (Array.isArray(value)) return value.length;
  if (typeof value === "string") return [...value].length;
  if (value instanceof Map) return value.size;
  throw pyTypeError(`object of type '${pyTypeName(value)}' has no len()`);
}

/**
 * Python `container.count(x)`: `list.count` uses `==` ({@link pyEquals}); `str.count` counts
 * non-overlapping substrings; any other type has no `count` attribute.
 */
export function pyCount(container: PyValue | undefined, item: PyValue | undefined): number {
  if (Array.isArray(container)) return container.filter((element) => pyEquals(element, item)).length;
  if (typeof container === "string") {
    if (typeof item !== "string") throw pyTypeError(`must be str, not ${pyTypeName(item)}`);
    if (item === "") return [...container].length + 1;
    return container.split(item).length - 1;
  }
  throw pyAttributeError(container, "count");
}

/**
 * Upper-case letters added after Unicode 14.0 (CPython 3.11's tables) that Node's newer ICU
 * lowercases: Python leaves them unchanged because, to it, they are unassigned. Measured by
 * comparing `chr(c).lower()` of CPython 3.11.7 with Node 20 (ICU 78, Unicode 17) for every code point;
 * these are the only differences.
 */
const NEWER_THAN_PYTHON = /([\u1C89\uA7CB\uA7CC\uA7CE\uA7D2\uA7D4\uA7DA\uA7DC\u{10D50}-\u{10D65}\u{16EA0}-\u{16EB8}])/u;

/**
 * Python `str.lower()` on an argument (AttributeError for a non-string). JavaScript's
 * `toLowerCase` applies the same full mapping (special casing, final sigma); only letters newer
 * than Python's Unicode tables differ, and those are kept as they are. Splitting at them keeps the
 * final-sigma context right, because to Python they are neither cased nor case-ignorable.
 */
export function pyLower(value: PyValue | undefined): string {
  if (typeof value !== "string") throw pyAttributeError(value, "lower");
  if (!NEWER_THAN_PYTHON.test(value)) return value.toLowerCase();
  return value
    .split(NEWER_THAN_PYTHON)
    .map((part, index) => (index % 2 === 1 ? part : part.toLowerCase()))
    .join("");
}

/**
 * Python `sorted(iterable)`: a new list in ascending order, strings by code point. Elements that
 * Python cannot order raise its `'<' not supported` TypeError (the reported type pair can differ
 * from CPython's for mixed lists, because the comparison order of the sorts differs; the retail
 * tools only sort lists that their checks have already proven to hold strings).
 */
export function pySorted(iterable: PyValue | undefined): PyValue[] {
  const items = pyIterate(iterable);
  return items.sort((a, b) => (pyLessThan(a, b) ? -1 : pyLessThan(b, a) ? 1 : 0));
}

/** Python truthiness of a data value (used for a variant's `available`). */
export function pyTruthy(value: PyValue | undefined): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (value === true) return true;
  if (typeof value === "string") return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof Map) return value.size > 0;
  if (value instanceof PyFloat) return value.value !== 0;
  if (typeof value === "bigint") return value !== 0n;
  return value !== 0;
}

/** Python `needle in haystack` for two strings (the `"gift_card" in payment_id` tests). */
export function pyStrContains(haystack: PyValue | undefined, needle: string): boolean {
  if (typeof haystack !== "string") {
    if (Array.isArray(haystack)) return haystack.some((item) => pyEquals(item, needle));
    if (haystack instanceof Map) return haystack.has(needle);
    throw pyTypeError(`argument of type '${pyTypeName(haystack)}' is not iterable`);
  }
  return haystack.includes(needle);
}
