import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parsePythonJson, JsonSyntaxError, type PyDict, type PyValue } from "../value/index.ts";
import { BaseDatabase } from "../suites/tau-bench/engine/database.ts";
import { DataError } from "../core/errors.ts";

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

/** Loads the named collection files (`<name>.json`) of a domain directory into one shared base database. */
export function loadBaseDatabase(directory: string, collections: readonly string[]): BaseDatabase {
  const data = new Map<string, PyDict>();
  for (const name of collections) {
    const path = join(directory, `${name}.json`);
    const value = readPythonJsonFile(path);
    if (!(value instanceof Map)) throw new DataError(`${path}: expected a JSON object at the top level`);
    data.set(name, value);
  }
  return new BaseDatabase(data);
}
