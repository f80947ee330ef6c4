/**
 * τ-bench's hash index of a collection (every record's `to_hashable` text, in sorted key order),
 * kept in the derived cache (`data/derived-cache.ts`) under the SHA-256 of the collection's file.
 * Rendering it is most of the first hash of a run (retail: 1,000 orders, 500 users, 50 products),
 * and it depends on nothing but the file's content.
 */
import { cachedDerivation, derivedCacheKey } from "../../../data/derived-cache.ts";
import type { PyDict } from "../../../value/index.ts";

/** Sorted keys of a base collection and their hash texts, concatenated with `", "` into one buffer. */
export interface CollectionHashIndex {
  sortedKeys: string[];
  positionOf: Map<string, number>;
  buffer: Buffer;
  starts: Uint32Array;
  ends: Uint32Array;
}

const KIND = "tau-bench-hash-index-v1";

/** The index as stored: the text as a string, the offsets as plain arrays. */
interface StoredIndex {
  sortedKeys: string[];
  text: string;
  starts: number[];
  ends: number[];
}

/** True for a stored index of this collection whose offsets fit its text (the text is checked by the cache's checksum). */
function fits(value: unknown, collection: PyDict): value is StoredIndex {
  const stored = value as StoredIndex;
  if (!Array.isArray(stored?.sortedKeys) || typeof stored.text !== "string" || !Array.isArray(stored.starts) || !Array.isArray(stored.ends)) return false;
  const count = stored.sortedKeys.length;
  if (count !== collection.size || stored.starts.length !== count || stored.ends.length !== count) return false;
  if (!stored.sortedKeys.every((key) => typeof key === "string" && collection.has(key))) return false;
  const length = Buffer.byteLength(stored.text, "utf8");
  let previous = 0;
  for (let index = 0; index < count; index++) {
    const start = stored.starts[index];
    const end = stored.ends[index];
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < previous || end < start || end > length) return false;
    previous = end;
  }
  return true;
}

/** The collection's hash index: from the derived cache when it holds one for this file, else `build()`'s (then stored). */
export function cachedHashIndex(fileSha256: string, collection: PyDict, build: () => CollectionHashIndex): CollectionHashIndex {
  let built: CollectionHashIndex | undefined;
  const stored = cachedDerivation(
    KIND,
    derivedCacheKey(fileSha256),
    (value): value is StoredIndex => fits(value, collection),
    () => {
      built = build();
      return { sortedKeys: built.sortedKeys, text: built.buffer.toString("utf8"), starts: [...built.starts], ends: [...built.ends] };
    },
  );
  if (built) return built;
  return {
    sortedKeys: stored.sortedKeys,
    positionOf: new Map(stored.sortedKeys.map((key, index) => [key, index])),
    buffer: Buffer.from(stored.text, "utf8"),
    starts: Uint32Array.from(stored.starts),
    ends: Uint32Array.from(stored.ends),
  };
}
