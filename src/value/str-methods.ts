/**
 * More of Python's str methods, the `float()` constructor, `json.loads` with its exception texts
 * and `hashlib.sha256(...).hexdigest()`, as τ³'s banking tools use them (their results and error
 * texts reach the agent, their ids enter the database hash).
 */
import { createHash } from "node:crypto";
import { JsonSyntaxError, parsePythonJson } from "./lossless-json.ts";
import { pyIterate } from "./containers.ts";
import { PyException, pyAttributeError, pyTypeError, pyValueError } from "./errors.ts";
import { pyRepr } from "./printing.ts";
import { PyFloat, asPyNumber, pyTypeName, type PyValue } from "./values.ts";

type Value = PyValue | undefined;

function requireStr(value: Value, method: string): string {
  if (typeof value !== "string") throw pyAttributeError(value, method);
  return value;
}

/** Python `value.upper()` (AttributeError for a non-str). */
export function pyUpper(value: Value): string {
  return requireStr(value, "upper").toUpperCase();
}

/** Python `value.replace(old, new)`: every occurrence (an empty `old` inserts between characters, as Python does). */
export function pyReplace(value: Value, old: string, replacement: string): string {
  const text = requireStr(value, "replace");
  if (old === "") return [...text].map((char) => replacement + char).join("") + replacement;
  return text.split(old).join(replacement);
}

/**
 * Python `separator.join(iterable)`: the items of a list, the keys of a dict or the characters of a
 * str, each of which must be a str (`sequence item 1: expected str instance, list found`, counted
 * from 0); anything else is not iterable here (`can only join an iterable`). τ³ builds record ids
 * this way, so a wrong-typed argument fails before anything is written.
 */
export function pyJoin(separator: string, iterable: Value): string {
  if (!(typeof iterable === "string" || Array.isArray(iterable) || iterable instanceof Map)) throw pyTypeError("can only join an iterable");
  const items = pyIterate(iterable);
  items.forEach((item, index) => {
    if (typeof item !== "string") throw pyTypeError(`sequence item ${index}: expected str instance, ${pyTypeName(item)} found`);
  });
  return (items as string[]).join(separator);
}

const CASED = /[\p{Lu}\p{Ll}\p{Lt}]/u;

/**
 * Python `value.title()`: a cased character after a cased one is lowered, any other is title-cased
 * (upper-cased here: the data's letters have no distinct title case), so `don't` → `Don'T`.
 */
export function pyTitle(value: Value): string {
  let previousCased = false;
  let out = "";
  for (const char of requireStr(value, "title")) {
    out += previousCased ? char.toLowerCase() : char.toUpperCase();
    previousCased = CASED.test(char);
  }
  return out;
}

/** Python's `str.isdigit()` digits: decimal digits plus the superscript, subscript and circled digits. */
const DIGIT =
  /^[\p{Nd}\u00B2\u00B3\u00B9\u2070\u2074-\u2079\u2080-\u2089\u2460-\u2468\u2474-\u247C\u2488-\u2490\u24EA\u24F5-\u24FD\u24FF\u2776-\u277E\u2780-\u2788\u278A-\u2792\u{1F100}-\u{1F10A}]+$/u;

/** Python `value.isdigit()` (False for the empty string). */
export function pyIsDigit(value: Value): boolean {
  return DIGIT.test(requireStr(value, "isdigit"));
}

/** Python `value.ljust(width, fill)` for a one-character fill. */
export function pyLjust(value: Value, width: number, fill = " "): string {
  const text = requireStr(value, "ljust");
  const length = [...text].length;
  return length >= width ? text : text + fill.repeat(width - length);
}

const FLOAT_TEXT = /^[+-]?(?:(?:\d(?:_?\d)*)?\.?\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*\.|inf|infinity|nan)$/i;

/**
 * Python `float(value)`: a float as is, an int or bool converted, a str parsed with Python's
 * literal rules (surrounding whitespace, underscores between digits, `inf`/`nan`); ValueError and
 * TypeError with CPython's texts otherwise.
 */
export function pyFloatOf(value: Value): PyFloat {
  if (typeof value === "string") {
    const text = value.trim();
    if (!FLOAT_TEXT.test(text)) throw pyValueError(`could not convert string to float: ${pyRepr(value)}`);
    const lower = text.toLowerCase().replace(/_/g, "");
    const sign = lower.startsWith("-") ? -1 : 1;
    const body = lower.replace(/^[+-]/, "");
    if (body.startsWith("inf")) return new PyFloat(sign * Infinity);
    if (body === "nan") return new PyFloat(NaN);
    return new PyFloat(Number(lower));
  }
  const number = asPyNumber(value);
  if (number === undefined) throw pyTypeError(`float() argument must be a string or a real number, not '${pyTypeName(value)}'`);
  if (number instanceof PyFloat) return number;
  return new PyFloat(Number(number));
}

/**
 * Python `json.loads(text)` (with `parse_int=float` when asked): a non-str raises the TypeError of
 * CPython 3.11, malformed text a `JSONDecodeError` whose str is `<msg>: line L column C (char P)`.
 */
export function pyJsonLoads(text: Value, options: { parseIntAsFloat?: boolean } = {}): PyValue {
  if (typeof text !== "string") throw pyTypeError(`the JSON object must be str, bytes or bytearray, not ${pyTypeName(text)}`);
  try {
    return parsePythonJson(text, options);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new PyException(`${error.reason}: line ${error.line} column ${error.column} (char ${error.offset})`, "JSONDecodeError");
    throw error;
  }
}

/** Python `hashlib.sha256(text.encode()).hexdigest()` (UTF-8). */
export function pySha256Hexdigest(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Python `f"{value:,}"` for an int: digits grouped by three with commas. */
export function pyFormatThousands(value: number | bigint): string {
  const text = String(value);
  const sign = text.startsWith("-") ? "-" : "";
  return sign + text.slice(sign.length).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** Python `float.is_integer()`. */
export function pyIsInteger(value: PyFloat): boolean {
  return Number.isInteger(value.value);
}
