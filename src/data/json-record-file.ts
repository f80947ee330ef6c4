/**
 * A JSON file holding one object of records (τ-bench's `orders.json`, `users.json`, …), read so
 * that a record is built the first time it is looked up. The file is read, hashed and checked as
 * `json.loads` would check it (or its index comes from the derived cache, keyed by its SHA-256),
 * but a record stays text until asked for. Why: a run of τ-bench's retail test split looks at a
 * few hundred of the 1,000 orders (1.8 MB); building all of them, and keeping them alive, was a
 * large part of its start-up and garbage collection.
 */
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { DataError } from "../errors/error-tree.ts";
import { JsonSyntaxError, type JsonObjectMember, decodeUtf8, type PyDict, type PyValue, parsePythonJson, scanPythonJsonObject } from "../value/index.ts";
import { cachedDerivation, derivedCacheKey } from "./derived-cache.ts";
import { rememberFileSha256 } from "./pinned-files.ts";

/** A member not built yet. */
const PENDING = Symbol("pending");

/**
 * A dict whose values are built from their text on first access. It behaves as the dict the whole
 * file parses to: the same keys in the same order, the same value object on every lookup, and
 * every way of reading values (`get`, iteration, `values`, `entries`, `forEach`) builds what it
 * reaches. Keys, `has` and `size` build nothing.
 */
export class LazyRecordDict extends Map<string, PyValue> {
  private readonly spans = new Map<string, readonly [number, number]>();
  /**
   * How many members may still be unbuilt. At 0 every value is built and reading them is the
   * native map's own iteration: a tool that scans a collection (retail's user lookups) walks it
   * many times in a run, and went through a generator and a lookup per member each time.
   */
  private pending = 0;

  /**
   * `build`: what a member's text becomes (default: its `json.loads` value); `prepared`: every value
   * it builds is a finished container (a dict or list) that a caller may share as it is (τ²'s
   * validated, sealed records), so it need not look at the values to know.
   */
  constructor(
    private readonly text: string,
    members: ReadonlyArray<readonly [string, number, number]>,
    private readonly build: (text: string) => PyValue = parsePythonJson,
    readonly prepared = false,
  ) {
    super();
    for (const [key, start, end] of members) {
      super.set(key, PENDING as unknown as PyValue);
      this.spans.set(key, [start, end]);
    }
    this.pending = super.size;
  }

  override get(key: string): PyValue | undefined {
    const value = super.get(key);
    if (value !== (PENDING as unknown)) return value;
    const [start, end] = this.spans.get(key) as readonly [number, number];
    const built = this.build(this.text.slice(start, end));
    super.set(key, built);
    this.pending--;
    return built;
  }

  override set(key: string, value: PyValue): this {
    // A member replaced before it was built no longer waits to be built.
    if (super.get(key) === (PENDING as unknown)) this.pending--;
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    if (super.get(key) === (PENDING as unknown)) this.pending--;
    return super.delete(key);
  }

  override clear(): void {
    this.pending = 0;
    super.clear();
  }

  override entries(): MapIterator<[string, PyValue]> {
    return this.pending > 0 ? this.buildingEntries() : super.entries();
  }

  private *buildingEntries(): MapIterator<[string, PyValue]> {
    for (const key of super.keys()) yield [key, this.get(key) as PyValue];
  }

  override values(): MapIterator<PyValue> {
    return this.pending > 0 ? this.buildingValues() : super.values();
  }

  private *buildingValues(): MapIterator<PyValue> {
    for (const key of super.keys()) yield this.get(key) as PyValue;
  }

  override [Symbol.iterator](): MapIterator<[string, PyValue]> {
    return this.entries();
  }

  override forEach(callback: (value: PyValue, key: string, map: Map<string, PyValue>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }
}

/** Where each member is in the text (UTF-16 offsets). */
interface ObjectIndex {
  length: number;
  members: Array<[key: string, start: number, end: number]>;
}

const INDEX_KIND = "json-object-index-v1";

function isObjectIndex(value: unknown, length: number): value is ObjectIndex {
  const index = value as ObjectIndex;
  if (index?.length !== length || !Array.isArray(index.members)) return false;
  return index.members.every(
    (member) => Array.isArray(member) && typeof member[0] === "string" && Number.isInteger(member[1]) && Number.isInteger(member[2]) && member[1] < member[2] && member[2] <= length,
  );
}

/**
 * Reads a JSON file of records: its dict (values built on demand) and its SHA-256. Errors name the
 * file, as a whole-file parse names it: unreadable, invalid JSON, or not an object.
 */
export function readJsonRecordFile(path: string): { records: PyDict; sha256: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new DataError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  rememberFileSha256(path, sha256);
  const text = isAscii(bytes) ? bytes.toString("latin1") : decodeUtf8(bytes, path);
  const fits = (value: unknown): value is ObjectIndex => isObjectIndex(value, text.length);
  const index = cachedDerivation(INDEX_KIND, derivedCacheKey(sha256), fits, () => {
    const members = scanMembers(text, path);
    if (members === null) throw new DataError(`${path}: expected a JSON object at the top level`);
    return { length: text.length, members: members.map(({ key, start, end }): [string, number, number] => [key, start, end]) };
  });
  return { records: new LazyRecordDict(text, index.members), sha256 };
}

/** {@link scanPythonJsonObject} with a whole-file parse's error (naming the file, line and column). */
function scanMembers(text: string, path: string): JsonObjectMember[] | null {
  try {
    return scanPythonJsonObject(text);
  } catch (error) {
    if (JsonSyntaxError.isInstance(error)) throw new DataError(`${path}: invalid JSON: ${error.message}`, { cause: error });
    throw error;
  }
}
