/**
 * A JSON file holding one array (a task file), read so that only the elements a caller asks for
 * are built. The whole file is read, hashed and checked as `json.loads` would check it, but its
 * elements stay text until asked for. Why: τ²'s telecom task file holds 2,285 tasks (14 MB) and a
 * run of its base split uses 114. Building every task's maps and floats was most of such a run's
 * start-up and garbage.
 *
 * The index (each element's place in the text and its `"id"`) is kept in the derived cache
 * (`derived-cache.ts`), keyed by the file's SHA-256, so a later run skips the scan too. A run
 * hashes the file anyway for its identity.
 */
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { DataError } from "../errors/error-tree.ts";
import type { PyValue } from "../value/index.ts";
import { parsePythonJsonText, scanPythonJsonArrayText } from "./data-files.ts";
import { cachedDerivation, derivedCacheKey } from "./derived-cache.ts";

/** Where each element is in the text (UTF-16 offsets) and its `"id"` (null: none, or not a string). */
interface ArrayIndex {
  /** The text's length, in UTF-16 units. */
  length: number;
  elements: Array<[start: number, end: number, id: string | null]>;
}

const INDEX_KIND = "json-array-index-v1";

function isArrayIndex(value: unknown): value is ArrayIndex {
  const index = value as ArrayIndex;
  if (typeof index?.length !== "number" || !Array.isArray(index.elements)) return false;
  let previous = 0;
  for (const element of index.elements) {
    if (!Array.isArray(element) || element.length !== 3) return false;
    const [start, end, id] = element;
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < previous || end <= start || end > index.length) return false;
    if (id !== null && typeof id !== "string") return false;
    previous = end;
  }
  return true;
}

/** A JSON array file whose elements are built on demand. */
export interface JsonArrayFile {
  readonly path: string;
  /** SHA-256 (hex) of the file's bytes. */
  readonly sha256: string;
  /** Each element's `"id"` when it is an object with a string id, in file order. */
  readonly ids: ReadonlyArray<string | undefined>;
  /** The element at a position of the array, parsed losslessly (a new value on every call). */
  element(position: number): PyValue;
}

/**
 * Opens a JSON array file. Errors name the file: unreadable, invalid JSON (line and column, as a
 * whole-file parse reports them), or not an array (`notArray` says what was expected).
 */
export function openJsonArrayFile(path: string, notArray: string): JsonArrayFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new DataError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  // ASCII text is its own UTF-16: an element's text is a slice of the bytes, and the rest is never decoded.
  let text = isAscii(bytes) ? undefined : bytes.toString("utf8");
  const length = text === undefined ? bytes.length : text.length;
  const fits = (value: unknown): value is ArrayIndex => isArrayIndex(value) && value.length === length;
  const index = cachedDerivation(INDEX_KIND, derivedCacheKey(sha256), fits, () => scanIndex((text ??= bytes.toString("latin1")), path, notArray));
  const slice = (start: number, end: number) => (text === undefined ? bytes.toString("latin1", start, end) : text.slice(start, end));
  return {
    path,
    sha256,
    ids: index.elements.map(([, , id]) => id ?? undefined),
    element(position) {
      const [start, end] = index.elements[position];
      return parsePythonJsonText(slice(start, end), path);
    },
  };
}

function scanIndex(text: string, path: string, notArray: string): ArrayIndex {
  const elements = scanPythonJsonArrayText(text, path);
  if (elements === null) throw new DataError(`${path}: ${notArray}`);
  return { length: text.length, elements: elements.map(({ start, end, id }) => [start, end, id ?? null]) };
}
