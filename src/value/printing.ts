/**
 * Python's texts of a value: `repr`, `str`, and `json.dumps` (compact, one-line and indented).
 *
 * τ-bench's observations are `json.dumps` text (each tool's `invoke`) and its data hash digests
 * `str(...)` text (tau_bench/envs/base.py, consistent_hash), so these printers must agree with
 * CPython 3.11 byte for byte.
 */
import { pyFloatRepr } from "./float-repr.ts";
import { PyFloat, isPyInt, type PyDict, type PyValue } from "./values.ts";

export { pyFloatRepr };

// ---------------------------------------------------------------------------------------------
// repr / str (CPython: Objects/unicodeobject.c, unicode_repr; float repr in float-repr.ts)
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

/** Python `str(x)`, as f-strings format values in error texts (`Certificate ... with amount 50.0.`). */
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
// json.dumps with default settings (CPython: Lib/json/encoder.py, JSONEncoder, ensure_ascii)
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

function byCodePoint(left: string, right: string): number {
  if (left === right) return 0;
  const a = Array.from(left);
  const b = Array.from(right);
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    if (a[index] !== b[index]) return a[index].codePointAt(0)! - b[index].codePointAt(0)!;
  }
  return a.length - b.length;
}

/** Python dict keys sorted as `sorted()` orders strs (by code point). */
export function pySortedKeys(dict: PyDict): string[] {
  const keys = [...dict.keys()];
  return keys.every((key) => PLAIN_JSON.test(key)) ? keys.sort() : keys.sort(byCodePoint);
}

/**
 * Python `json.dumps(value, sort_keys=True)`: τ²'s database hash digests this text of
 * `model_dump()` (dates and datetimes are already held as their `str()` text, as `default=str` writes them).
 */
export function pyJsonDumpsSortedKeys(value: PyValue | undefined): string {
  if (!(value instanceof Map)) {
    if (!Array.isArray(value)) return pyJsonDumps(value);
    return value.length === 0 ? "[]" : `[${value.map(pyJsonDumpsSortedKeys).join(", ")}]`;
  }
  if (value.size === 0) return "{}";
  const parts = pySortedKeys(value).map((key) => `${pyJsonString(key)}: ${pyJsonDumpsSortedKeys(value.get(key))}`);
  return `{${parts.join(", ")}}`;
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
  const entries: Array<[string, unknown]> = value instanceof Map ? [...value.entries()] : Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([key, item]) => `${pad}${pyJsonString(key)}: ${pyJsonDumpsIndented(item, indent, level + 1)}`).join(",\n")}\n${closePad}}`;
}

/** Python `json.dumps(value)` (one line) for mixed values: the value model plus plain JS objects and numbers. */
export function pyJsonDumpsLine(value: unknown): string {
  const scalar = mixedJsonScalar(value);
  if (scalar !== undefined) return scalar;
  if (Array.isArray(value)) return `[${value.map(pyJsonDumpsLine).join(", ")}]`;
  const entries: Array<[string, unknown]> = value instanceof Map ? [...value.entries()] : Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
  return `{${entries.map(([key, item]) => `${pyJsonString(key)}: ${pyJsonDumpsLine(item)}`).join(", ")}}`;
}
