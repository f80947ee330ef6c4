/**
 * The Python-faithful value model.
 *
 * τ-bench hashes the Python `repr` of its database and returns Python `json.dumps` text from
 * every tool, so the numbers, key order and string escaping must behave as in CPython, not as in
 * JavaScript. Everything Python-specific lives in this folder, so the domain tools can read like
 * the originals while producing byte-identical output.
 *
 * Representation:
 * - `int`   → a JS `number` that is a safe integer, or a `bigint` beyond 2^53 (exact, unbounded);
 * - `float` → a {@link PyFloat} wrapper (so `247.0` stays a float and prints as `247.0`);
 * - `str`   → `string`; `bool` → `boolean`; `None` → `null`;
 * - `list`  → `PyValue[]`; `dict` → `Map<string, PyValue>` (insertion-ordered, no numeric-key reordering).
 */
export type PyValue = null | boolean | number | bigint | PyFloat | string | PyValue[] | PyDict;

/** A Python dict with string keys, kept in insertion order. */
export type PyDict = Map<string, PyValue>;

/** A Python float. Kept apart from ints because `247.0` and `247` print and hash differently. */
export class PyFloat {
  constructor(readonly value: number) {}
  /** Lets `+x`, template literals and comparisons see the number. */
  valueOf(): number {
    return this.value;
  }
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
export function isPyNumber(value: unknown): value is number | bigint | PyFloat {
  return isPyInt(value) || value instanceof PyFloat;
}

export function isPyDict(value: unknown): value is PyDict {
  return value instanceof Map;
}

/** The numeric value of an int or float, as a JS double. */
export function toNumber(value: number | bigint | PyFloat): number {
  if (value instanceof PyFloat) return value.value;
  return typeof value === "bigint" ? Number(value) : value;
}

/** Normalises an int: a bigint that fits a safe integer becomes a number. */
export function normalizeInt(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

/** Python's name for the value's type, for error texts such as `'<' not supported between instances of 'int' and 'str'`. */
export function pyTypeName(value: PyValue | undefined): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "string") return "str";
  if (value instanceof PyFloat) return "float";
  if (isPyInt(value)) return "int";
  if (Array.isArray(value)) return "list";
  if (value instanceof Map) return "dict";
  return "object";
}

/** A deep copy (Python `copy.deepcopy` for this value model). Floats are immutable and shared. */
export function deepCopy<T extends PyValue>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => deepCopy(item)) as T;
  if (value instanceof Map) {
    const copy: PyDict = new Map();
    for (const [key, item] of value as PyDict) copy.set(key, deepCopy(item));
    return copy as T;
  }
  return value;
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
 * so `1.0` prints as `1`; use {@link pyJsonDumps} where the Python text matters.
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

// ---------------------------------------------------------------------------------------------
// Python float repr (spec §2.3)
// ---------------------------------------------------------------------------------------------

/** Python `repr(float)`: shortest round-trip digits, positional for 1e-4 ≤ |x| < 1e16, always a fractional part. */
export function pyFloatRepr(value: number): string {
  if (Number.isNaN(value)) return "nan";
  if (value === Infinity) return "inf";
  if (value === -Infinity) return "-inf";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const exponential = value.toExponential();
  const eIndex = exponential.indexOf("e");
  const exponent = Number(exponential.slice(eIndex + 1));
  if (exponent >= -4 && exponent < 16) {
    // In this range JavaScript's String() is positional with the same shortest digits.
    const text = String(value);
    return text.includes(".") ? text : `${text}.0`;
  }
  const mantissa = exponential.slice(0, eIndex);
  const sign = exponent < 0 ? "-" : "+";
  const magnitude = Math.abs(exponent);
  return `${mantissa}e${sign}${magnitude < 10 ? "0" : ""}${magnitude}`;
}

// ---------------------------------------------------------------------------------------------
// Python str repr (spec §2.4)
// ---------------------------------------------------------------------------------------------

const PLAIN_ASCII = /^[\x20-\x26\x28-\x5b\x5d-\x7e]*$/; // printable ASCII without ' and \
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, "0");
}

/** Python `repr(str)`. */
export function pyStrRepr(text: string): string {
  if (PLAIN_ASCII.test(text)) return `'${text}'`;
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === "\\") out += "\\\\";
    else if (char === quote) out += `\\${quote}`;
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${hex(code, 2)}`;
    else if (code < 0x7f) out += char;
    else if (code === 0x20 || !NOT_PRINTABLE.test(char)) out += char;
    else if (code <= 0xff) out += `\\x${hex(code, 2)}`;
    else if (code <= 0xffff) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return out + quote;
}

/** Python `str(x)` for a scalar, as used in f-strings of error texts (`Certificate ... with amount 50.0.`). */
export function pyStr(value: PyValue | undefined): string {
  // str() and repr() differ only for strings (no quotes) among the values we model.
  return typeof value === "string" ? value : pyRepr(value);
}

/** Python `repr(x)` of a value (dicts as `{'k': v}`, lists as `[...]`). */
export function pyRepr(value: PyValue | undefined): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "string") return pyStrRepr(value);
  if (typeof value === "boolean") return value ? "True" : "False";
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  if (isPyInt(value)) return String(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  const parts: string[] = [];
  for (const [key, item] of value) parts.push(`${pyStrRepr(key)}: ${pyRepr(item)}`);
  return `{${parts.join(", ")}}`;
}

// ---------------------------------------------------------------------------------------------
// Python json.dumps with default settings (spec §2.5)
// ---------------------------------------------------------------------------------------------

const PLAIN_JSON = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/; // printable ASCII without " and \

const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/g;

/**
 * A JSON string literal as Python's `json.dumps` (ensure_ascii=True) writes it. `JSON.stringify`
 * already escapes the quote, the backslash, the five short forms (b f n r t), other control
 * characters and lone surrogates exactly as Python does (lowercase hex); Python also escapes DEL
 * and every non-ASCII UTF-16 unit (a pair as two escapes), which is the second pass. Both passes
 * run in native code, which matters for result files full of long policies and trajectories.
 */
export function pyJsonString(text: string): string {
  if (PLAIN_JSON.test(text)) return `"${text}"`;
  return JSON.stringify(text).replace(NOT_PRINTABLE_ASCII, (unit) => `\\u${hex(unit.charCodeAt(0), 4)}`);
}

function jsonFloat(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "Infinity";
  if (value === -Infinity) return "-Infinity";
  return pyFloatRepr(value);
}

/** Python `json.dumps(value)` with default separators (`", "`, `": "`) and insertion-ordered keys. */
export function pyJsonDumps(value: PyValue | undefined): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return pyJsonString(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value instanceof PyFloat) return jsonFloat(value.value);
  if (isPyInt(value)) return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    let out = "[";
    for (let index = 0; index < value.length; index++) {
      if (index > 0) out += ", ";
      out += pyJsonDumps(value[index]);
    }
    return out + "]";
  }
  if (value.size === 0) return "{}";
  let out = "{";
  let first = true;
  for (const [key, item] of value) {
    if (!first) out += ", ";
    first = false;
    out += `${pyJsonString(key)}: ${pyJsonDumps(item)}`;
  }
  return out + "}";
}

// ---------------------------------------------------------------------------------------------
// to_hashable + str (spec §2.8)
// ---------------------------------------------------------------------------------------------

/** Python string ordering (by code point); differs from JS `<` only for astral characters. */
export function comparePyStrings(left: string, right: string): number {
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

/** Keys of a dict sorted the Python way. */
export function sortedKeys(dict: PyDict): string[] {
  return [...dict.keys()].sort(comparePyStrings);
}

function tupleText(items: string[]): string {
  if (items.length === 1) return `(${items[0]},)`;
  return `(${items.join(", ")})`;
}

/**
 * `str(to_hashable(value))`: dicts become tuples of `(key, value)` pairs sorted by key, lists become
 * tuples. This is the text τ-bench's `consistent_hash` digests.
 */
export function hashableRepr(value: PyValue): string {
  if (Array.isArray(value)) return tupleText(value.map(hashableRepr));
  if (value instanceof Map) {
    const keys = sortedKeys(value);
    return tupleText(keys.map((key) => `(${pyStrRepr(key)}, ${hashableRepr(value.get(key)!)})`));
  }
  return pyRepr(value);
}

/** The text of one `(key, value)` pair of a hashed dict. */
export function hashableEntry(key: string, value: PyValue): string {
  return `(${pyStrRepr(key)}, ${hashableRepr(value)})`;
}

// ---------------------------------------------------------------------------------------------
// Arithmetic with Python typing (spec §2.2, §2.7)
// ---------------------------------------------------------------------------------------------

type PyNumber = number | bigint | PyFloat;

function intResult(value: bigint): number | bigint {
  return normalizeInt(value);
}

function bothInts(left: PyNumber, right: PyNumber): boolean {
  return !(left instanceof PyFloat) && !(right instanceof PyFloat);
}

function checkedInt(value: number, fallback: () => bigint): number | bigint {
  return Number.isSafeInteger(value) ? value : intResult(fallback());
}

/** Python `a + b` for ints and floats. */
export function pyAdd(left: PyNumber, right: PyNumber): PyNumber {
  if (bothInts(left, right)) {
    if (typeof left === "number" && typeof right === "number") return checkedInt(left + right, () => BigInt(left) + BigInt(right));
    return intResult(BigInt(left as number | bigint) + BigInt(right as number | bigint));
  }
  return new PyFloat(toNumber(left) + toNumber(right));
}

/** Python `a - b`. */
export function pySub(left: PyNumber, right: PyNumber): PyNumber {
  if (bothInts(left, right)) {
    if (typeof left === "number" && typeof right === "number") return checkedInt(left - right, () => BigInt(left) - BigInt(right));
    return intResult(BigInt(left as number | bigint) - BigInt(right as number | bigint));
  }
  return new PyFloat(toNumber(left) - toNumber(right));
}

/** Python `a * b`. */
export function pyMul(left: PyNumber, right: PyNumber): PyNumber {
  if (bothInts(left, right)) {
    if (typeof left === "number" && typeof right === "number") return checkedInt(left * right, () => BigInt(left) * BigInt(right));
    return intResult(BigInt(left as number | bigint) * BigInt(right as number | bigint));
  }
  return new PyFloat(toNumber(left) * toNumber(right));
}

/** Python `-a`: an int stays an int (`-0` is `0`), a float keeps its sign bit. */
export function pyNeg(value: PyNumber): PyNumber {
  if (value instanceof PyFloat) return new PyFloat(-value.value);
  if (typeof value === "bigint") return intResult(-value);
  return value === 0 ? 0 : -value;
}

/** Python `abs(a)`, keeping the type. */
export function pyAbs(value: PyNumber): PyNumber {
  if (value instanceof PyFloat) return new PyFloat(Math.abs(value.value));
  if (typeof value === "bigint") return value < 0n ? intResult(-value) : value;
  return Math.abs(value);
}

/** Three-way numeric comparison across ints and floats (`100 == 100.0`). */
export function pyCompare(left: PyNumber, right: PyNumber): number {
  if (typeof left === "bigint" || typeof right === "bigint") {
    if (!(left instanceof PyFloat) && !(right instanceof PyFloat)) {
      const a = BigInt(left);
      const b = BigInt(right);
      return a === b ? 0 : a < b ? -1 : 1;
    }
  }
  const a = toNumber(left);
  const b = toNumber(right);
  return a === b ? 0 : a < b ? -1 : 1;
}

/**
 * Python `round(x, 2)`: round-half-even on the exact binary value. An int comes back unchanged
 * (as an int); a float comes back as a float.
 */
export function pyRound2(value: PyNumber): PyNumber {
  if (!(value instanceof PyFloat)) return value;
  return new PyFloat(roundHalfEven2(value.value));
}

/** `round(x, 2)` on a JS double. Exact ties happen only when `x * 8` is an odd integer. */
export function roundHalfEven2(x: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= 2 ** 52) return x;
  const eighths = x * 8; // exact: multiplying by a power of two
  if (Number.isInteger(eighths) && eighths % 2 !== 0) {
    // x = k/8 with k odd, so x*100 = 25k/2 sits exactly between two integers. Work in BigInt: for
    // |x| above ~9e13 a double can no longer hold x*100 exactly.
    const twice = BigInt(eighths) * 25n; // odd
    const low = (twice - 1n) / 2n; // floor(25k/2), exact since twice-1 is even
    const even = low % 2n === 0n ? low : low + 1n;
    const negative = even < 0n;
    const digits = (negative ? -even : even).toString().padStart(3, "0");
    const result = Number(`${negative ? "-" : ""}${digits.slice(0, -2)}.${digits.slice(-2)}`);
    return result === 0 && x < 0 ? -0 : result;
  }
  const result = Number(x.toFixed(2));
  return result === 0 && (x < 0 || Object.is(x, -0)) ? -0 : result;
}

// ---------------------------------------------------------------------------------------------
// Indented json.dump (results files)
// ---------------------------------------------------------------------------------------------

/** JSON text of a scalar in a mixed value (an integral JS number prints as an int); undefined for containers. */
function mixedJsonScalar(value: unknown): string | undefined {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return pyJsonString(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value instanceof PyFloat) return jsonFloat(value.value);
  if (typeof value === "bigint") return String(value);
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : jsonFloat(value);
  return undefined;
}

/**
 * Python `json.dumps(value, indent=N)` (separators `","` / `": "`), used for τ-bench-shaped results
 * files so the original's tooling reads the same text. Accepts the value model and, for
 * convenience, plain JS objects/numbers from our own code (an integral JS number prints as an int).
 */
export function pyJsonDumpsIndented(value: unknown, indent: number | null = 2, level = 0): string {
  if (indent === null) return pyJsonDumpsLine(value);
  const scalar = mixedJsonScalar(value);
  if (scalar !== undefined) return scalar;
  const pad = " ".repeat(indent * (level + 1));
  const closePad = " ".repeat(indent * level);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((item) => pad + pyJsonDumpsIndented(item, indent, level + 1)).join(",\n")}\n${closePad}]`;
  }
  const entries: Array<[string, unknown]> =
    value instanceof Map ? [...value.entries()] : Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([key, item]) => `${pad}${pyJsonString(key)}: ${pyJsonDumpsIndented(item, indent, level + 1)}`).join(",\n")}\n${closePad}}`;
}

/** Python `json.dumps(value)` (one line) for mixed values: the value model plus plain JS objects and numbers. */
export function pyJsonDumpsLine(value: unknown): string {
  const scalar = mixedJsonScalar(value);
  if (scalar !== undefined) return scalar;
  if (Array.isArray(value)) return `[${value.map(pyJsonDumpsLine).join(", ")}]`;
  const entries: Array<[string, unknown]> =
    value instanceof Map ? [...value.entries()] : Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
  return `{${entries.map(([key, item]) => `${pyJsonString(key)}: ${pyJsonDumpsLine(item)}`).join(", ")}}`;
}
