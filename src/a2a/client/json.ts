/**
 * JSON as the A2A client reads it: every body is parsed the way Python's `json.loads` parses it
 * (`parsePythonJson`), so a tool argument the agent wrote as `100.0` reaches the environment as a
 * float — the value is stored in the database that gets hashed, and a Python agent's `json.dumps`
 * writes floats that way. Objects become plain objects (not the value model's `Map`s) so the
 * protocol code can read fields directly; float leaves stay {@link PyFloat}s, which `fromJs` keeps.
 */
import { JsonSyntaxError, PyFloat, parsePythonJson, type PyValue } from "../../value/index.ts";

/** A parsed JSON value: plain objects and arrays, numbers (ints), `PyFloat`s (floats), bigints (ints beyond 2^53). */
export type Plain = null | boolean | number | bigint | string | PyFloat | Plain[] | { [key: string]: Plain };

/** A plain JSON object. */
export type PlainObject = { [key: string]: Plain };

function plainOf(value: PyValue): Plain {
  if (value instanceof Map) {
    const object: PlainObject = {};
    for (const [key, item] of value) object[String(key)] = plainOf(item as PyValue);
    return object;
  }
  if (Array.isArray(value)) return value.map((item) => plainOf(item as PyValue));
  return value as Plain;
}

/** Parses JSON text losslessly (see the module comment); throws `JsonSyntaxError` for malformed text. */
export function parseJson(text: string): Plain {
  return plainOf(parsePythonJson(text));
}

/** The parsed value, or undefined when the text is not JSON. */
export function tryParseJson(text: string): Plain | undefined {
  try {
    return parseJson(text);
  } catch (error) {
    if (JsonSyntaxError.isInstance(error)) return undefined;
    throw error;
  }
}

export function isObject(value: Plain | undefined): value is PlainObject {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof PyFloat);
}

/** A field that must be a string (undefined otherwise). */
export function stringField(object: PlainObject | undefined, key: string): string | undefined {
  const value = object?.[key];
  return typeof value === "string" ? value : undefined;
}

/** A number field (ints and floats alike). */
export function numberField(object: PlainObject | undefined, key: string): number | undefined {
  const value = object?.[key];
  if (typeof value === "number") return value;
  if (value instanceof PyFloat) return value.value;
  if (typeof value === "bigint") return Number(value);
  return undefined;
}

/** Plain JSON text of a parsed value (floats printed as numbers), for diagnostics and estimates. */
export function jsonText(value: Plain | undefined): string {
  return JSON.stringify(value, (_key, item: unknown) => (item instanceof PyFloat ? item.value : typeof item === "bigint" ? Number(item) : item)) ?? "";
}
