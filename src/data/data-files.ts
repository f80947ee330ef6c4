import { readFileSync } from "node:fs";
import { decodeUtf8, parsePythonJson, JsonSyntaxError, scanPythonJsonArray, type JsonArrayElement, STRICT_UTF8, type PyValue } from "../value/index.ts";
import { DataError, fileErrorText } from "../errors/error-tree.ts";

export { decodeUtf8 } from "../value/index.ts";

/** Reads a text file strictly as UTF-8 ({@link decodeUtf8}); a missing or unreadable file is a {@link DataError} naming it. */
export function readUtf8File(path: string, what = ""): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new DataError(`cannot read ${what ? `${what} ` : ""}${path}: ${fileErrorText(error)}`, { cause: error });
  }
  return decodeUtf8(bytes, path);
}

/**
 * The lines of a JSON-lines file, each decoded strictly on its own: a line that is not UTF-8 is
 * `null` (a line torn by a kill can end inside a multi-byte character), the others are kept, so
 * one torn line never makes the whole file unreadable. Splitting at byte 0x0A is safe: it never
 * occurs inside a UTF-8 sequence.
 */
export function readUtf8Lines(path: string): Array<string | null> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new DataError(`cannot read ${path}: ${fileErrorText(error)}`, { cause: error });
  }
  const lines: Array<string | null> = [];
  for (let start = 0; start <= bytes.length; ) {
    const end = bytes.indexOf(0x0a, start);
    const stop = end === -1 ? bytes.length : end;
    try {
      lines.push(STRICT_UTF8.decode(bytes.subarray(start, stop)));
    } catch {
      lines.push(null);
    }
    start = stop + 1;
  }
  return lines;
}

/** Reads and parses one JSON data file with the lossless reader; errors name the file. */
export function readPythonJsonFile(path: string, what = ""): PyValue {
  return parsePythonJsonText(readUtf8File(path, what), path);
}

/** Parses JSON text losslessly; a syntax error becomes a {@link DataError} naming the file, line and column. */
export function parsePythonJsonText(text: string, fileName: string): PyValue {
  try {
    return parsePythonJson(text);
  } catch (error) {
    if (JsonSyntaxError.isInstance(error)) throw new DataError(`${fileName}: invalid JSON: ${error.message}`, { cause: error });
    throw error;
  }
}

/**
 * {@link scanPythonJsonArray} with {@link parsePythonJsonText}'s errors: the elements of a JSON
 * array file, unbuilt; null when the top level is not an array.
 */
export function scanPythonJsonArrayText(text: string, fileName: string): JsonArrayElement[] | null {
  try {
    return scanPythonJsonArray(text);
  } catch (error) {
    if (JsonSyntaxError.isInstance(error)) throw new DataError(`${fileName}: invalid JSON: ${error.message}`, { cause: error });
    throw error;
  }
}
