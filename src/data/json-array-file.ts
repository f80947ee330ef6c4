/**
 * A JSON file holding one array (a task file), read so that only the elements a caller asks for
 * are built. The whole file is read, hashed and checked as `json.loads` would check it, but its
 * elements stay text until asked for. Why: τ²'s telecom task file holds 2,285 tasks (14 MB) and a
 * run of its base split uses 114. Building every task's maps and floats was most of such a run's
 * start-up and garbage.
 *
 * The index (each element's place in the text and its `"id"`) is kept in the derived cache
 * (`derived-cache.ts`), keyed by the file's SHA-256, so a later run skips the scan too. A run
 * hashes the file anyway for its identity. When the index is cached and the file is ASCII (its
 * bytes are its UTF-16 text), the file is hashed through one small buffer and only the elements
 * asked for are read: reading telecom's 14 MB into one new buffer cost a fresh process about twice
 * what hashing it in 256 KB pieces does (the kernel zeroes every page of a new allocation).
 */
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { DataError } from "../errors/error-tree.ts";
import type { PyValue } from "../value/index.ts";
import { decodeUtf8, parsePythonJsonText, scanPythonJsonArrayText } from "./data-files.ts";
import { cachedDerivation, derivedCacheKey, readDerived } from "./derived-cache.ts";
import { rememberFileSha256 } from "./pinned-files.ts";

/**
 * Where each element is in the text (UTF-16 offsets) and its `"id"` (null: none, or not a string),
 * as three flat arrays: `JSON.parse` builds three arrays of one kind each far faster than an array
 * of small mixed arrays (telecom's 2,285 elements: ~0.6 ms against 3–12 ms in a fresh process,
 * where the index is read once per run).
 */
interface ArrayIndex {
  /** The text's length, in UTF-16 units. */
  length: number;
  starts: number[];
  ends: number[];
  ids: Array<string | null>;
}

const INDEX_KIND = "json-array-index-v2";

function isArrayIndex(value: unknown): value is ArrayIndex {
  const index = value as ArrayIndex;
  if (typeof index?.length !== "number" || !Array.isArray(index.starts) || !Array.isArray(index.ends) || !Array.isArray(index.ids)) return false;
  const { starts, ends, ids } = index;
  if (ends.length !== starts.length || ids.length !== starts.length) return false;
  let previous = 0;
  for (let at = 0; at < starts.length; at++) {
    const start = starts[at];
    const end = ends[at];
    const id = ids[at];
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
  /** The elements at these positions, in this order, as {@link JsonArrayFile.element} gives each. */
  elements(positions: readonly number[]): PyValue[];
}

/**
 * Opens a JSON array file. Errors name the file: unreadable, invalid JSON (line and column, as a
 * whole-file parse reports them), or not an array (`notArray` says what was expected).
 */
export function openJsonArrayFile(path: string, notArray: string): JsonArrayFile {
  const streamed = streamFile(path);
  const key = derivedCacheKey(streamed.sha256);
  if (streamed.ascii) {
    const cached = readDerived(INDEX_KIND, key);
    if (isArrayIndex(cached) && cached.length === streamed.size) {
      rememberFileSha256(path, streamed.sha256);
      return rangedFile(path, streamed, cached);
    }
  }
  return wholeFile(path, notArray);
}

/** The file read whole (no cached index, or not ASCII): what its elements are sliced from. */
function wholeFile(path: string, notArray: string): JsonArrayFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw unreadable(path, error);
  }
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  rememberFileSha256(path, sha256);
  // ASCII text is its own UTF-16: an element's text is a slice of the bytes, and the rest is never decoded.
  let text = isAscii(bytes) ? undefined : decodeUtf8(bytes, path);
  const length = text === undefined ? bytes.length : text.length;
  const fits = (value: unknown): value is ArrayIndex => isArrayIndex(value) && value.length === length;
  const index = cachedDerivation(INDEX_KIND, derivedCacheKey(sha256), fits, () => scanIndex((text ??= bytes.toString("latin1")), path, notArray));
  const slice = (start: number, end: number) => (text === undefined ? bytes.toString("latin1", start, end) : text.slice(start, end));
  const element = (position: number) => parsePythonJsonText(slice(index.starts[position]!, index.ends[position]!), path);
  return { path, sha256, ids: index.ids.map((id) => id ?? undefined), element, elements: (positions) => positions.map(element) };
}

/**
 * An ASCII file whose index is known: each element is read from the file when asked for. The file
 * must still be the one hashed (same size and modification time), else the read is refused.
 */
function rangedFile(path: string, streamed: StreamedFile, index: ArrayIndex): JsonArrayFile {
  const elements = (positions: readonly number[]): PyValue[] => {
    let descriptor: number | undefined;
    try {
      descriptor = openSync(path, "r");
      const { size, mtimeMs } = fstatSync(descriptor);
      if (size !== streamed.size || mtimeMs !== streamed.mtimeMs) throw new DataError(`${path} changed while it was being read; run again`);
      const open = descriptor;
      return positions.map((position) => {
        const start = index.starts[position]!;
        const piece = Buffer.allocUnsafe(index.ends[position]! - start);
        readFully(open, piece, start);
        return parsePythonJsonText(piece.toString("latin1"), path);
      });
    } catch (error) {
      throw error instanceof DataError ? error : unreadable(path, error);
    } finally {
      if (descriptor !== undefined) closeSync(descriptor);
    }
  };
  return { path, sha256: streamed.sha256, ids: index.ids.map((id) => id ?? undefined), element: (position) => elements([position])[0]!, elements };
}

interface StreamedFile {
  sha256: string;
  ascii: boolean;
  size: number;
  mtimeMs: number;
}

/** Bytes hashed per read: small enough to stay in cache, large enough that the reads cost little. */
const STREAM_CHUNK = 256 * 1024;

/** The file's SHA-256, whether it is ASCII, its size and modification time, read through one small buffer. */
function streamFile(path: string): StreamedFile {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, "r");
    const { mtimeMs } = fstatSync(descriptor);
    const buffer = Buffer.allocUnsafe(STREAM_CHUNK);
    const hash = createHash("sha256");
    let ascii = true;
    let size = 0;
    for (;;) {
      const read = readSync(descriptor, buffer, 0, STREAM_CHUNK, size);
      if (read === 0) break;
      const piece = read === STREAM_CHUNK ? buffer : buffer.subarray(0, read);
      hash.update(piece);
      if (ascii) ascii = isAscii(piece);
      size += read;
    }
    return { sha256: hash.digest("hex"), ascii, size, mtimeMs };
  } catch (error) {
    throw unreadable(path, error);
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** Reads `target.length` bytes of the file from `position` (a short read is retried from where it stopped). */
function readFully(descriptor: number, target: Buffer, position: number): void {
  let done = 0;
  while (done < target.length) {
    const read = readSync(descriptor, target, done, target.length - done, position + done);
    if (read === 0) throw new Error(`unexpected end of file at byte ${position + done}`);
    done += read;
  }
}

function unreadable(path: string, error: unknown): DataError {
  return new DataError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
}

function scanIndex(text: string, path: string, notArray: string): ArrayIndex {
  const elements = scanPythonJsonArrayText(text, path);
  if (elements === null) throw new DataError(`${path}: ${notArray}`);
  return { length: text.length, starts: elements.map(({ start }) => start), ends: elements.map(({ end }) => end), ids: elements.map(({ id }) => id ?? null) };
}
