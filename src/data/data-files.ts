import { readFileSync } from "node:fs";
import { parsePythonJson, JsonSyntaxError, scanPythonJsonArray, type JsonArrayElement, type PyValue } from "../value/index.ts";
import { DataError } from "../errors/error-tree.ts";

/** Reads and parses one JSON data file with the lossless reader; errors name the file. */
export function readPythonJsonFile(path: string, what = ""): PyValue {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new DataError(`cannot read ${what ? `${what} ` : ""}${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
  return parsePythonJsonText(text, path);
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
