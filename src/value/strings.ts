/**
 * Python's str methods and the `int()` constructor as the tools use them, with CPython 3.11's
 * results on Unicode input and its error texts on wrong types.
 */
import { pyAttributeError, pyOverflowError, pyTypeError, pyValueError } from "./errors.ts";
import { pyRepr } from "./printing.ts";
import { PyFloat, asPyNumber, normalizeInt, pyTypeName, type PyValue } from "./values.ts";

type Value = PyValue | undefined;

/**
 * Upper-case letters added after Unicode 14.0 (CPython 3.11's tables) that Node's newer ICU
 * lowercases: Python leaves them unchanged because, to it, they are unassigned. Measured by
 * comparing `chr(c).lower()` of CPython 3.11.7 with Node 20 (ICU 78, Unicode 17) for every code point;
 * these are the only differences.
 */
const NEWER_THAN_PYTHON = /([\u1C89\uA7CB\uA7CC\uA7CE\uA7D2\uA7D4\uA7DA\uA7DC\u{10D50}-\u{10D65}\u{16EA0}-\u{16EB8}])/u;

/** Any non-ASCII UTF-16 unit: an ASCII text has none of the letters above (a cheaper test than theirs, which needs the `u` flag). */
const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * Python `value.lower()` (AttributeError for a non-str). JavaScript's `toLowerCase` applies the
 * same full mapping (special casing, final sigma); only letters newer than Python's Unicode tables
 * differ, and those are kept as they are. Splitting at them keeps the final-sigma context right,
 * because to Python they are neither cased nor case-ignorable.
 */
export function pyLower(value: Value): string {
  if (typeof value !== "string") throw pyAttributeError(value, "lower");
  if (!NOT_ASCII.test(value) || !NEWER_THAN_PYTHON.test(value)) return value.toLowerCase();
  return value
    .split(NEWER_THAN_PYTHON)
    .map((part, index) => (index % 2 === 1 ? part : part.toLowerCase()))
    .join("");
}

/** Python `value.startswith(prefix)` (AttributeError for a non-str). */
export function pyStartsWith(value: Value, prefix: string): boolean {
  if (typeof value !== "string") throw pyAttributeError(value, "startswith");
  return value.startsWith(prefix);
}

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

/**
 * Python `int(value)` with base 10: a str is parsed with Python's literal rules (surrounding
 * whitespace, one sign, single underscores between digits, any Unicode decimal digits), a float is
 * truncated, an int or bool is returned as an int; anything else is a TypeError.
 */
export function pyInt(value: Value): number | bigint {
  if (typeof value !== "string") {
    const number = asPyNumber(value);
    if (number === undefined) {
      throw pyTypeError(`int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(value)}'`);
    }
    if (!(number instanceof PyFloat)) return number;
    if (!Number.isFinite(number.value)) {
      throw Number.isNaN(number.value) ? pyValueError("cannot convert float NaN to integer") : pyOverflowError("cannot convert float infinity to integer");
    }
    const truncated = Math.trunc(number.value);
    return Number.isSafeInteger(truncated) ? truncated : BigInt(truncated);
  }
  const invalid = () => pyValueError(`invalid literal for int() with base 10: ${pyRepr(value)}`);
  let text = value.replace(PY_WHITESPACE, "");
  let negative = false;
  if (text.startsWith("+") || text.startsWith("-")) {
    negative = text.startsWith("-");
    text = text.slice(1);
  }
  const chars = Array.from(text);
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
  return normalizeInt(BigInt(digits) * (negative ? -1n : 1n));
}
