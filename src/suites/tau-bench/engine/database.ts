import { createHash, type Hash } from "node:crypto";
import { join } from "node:path";
import { readJsonRecordFile } from "../../../data/json-record-file.ts";
import { hashableEntry, hashableRepr, pyCompareStrings, pyDeepCopy, pySameSortedText, pyStrRepr, type PyDict, type PyValue } from "../../../value/index.ts";
import { type CollectionHashIndex, cachedHashIndex } from "./hash-index-cache.ts";

/**
 * One parse of a domain's data files, shared read-only by every episode.
 *
 * The data is a dict of collections (retail: orders, products, users), each a dict of records.
 * Episodes never mutate it: they write through an {@link EpisodeDatabase}, which copies a record
 * the first time it is changed. That keeps 256 open episodes close to the cost of one.
 *
 * For the τ-bench hash it precomputes, per collection, the `to_hashable` text of every record in
 * sorted key order, so an episode's hash only renders the records it changed.
 */
export class BaseDatabase {
  readonly collectionNames: readonly string[];
  private readonly hashIndex = new Map<string, CollectionHashIndex>();

  /**
   * `fileHashes`: the SHA-256 of each collection's file, when it was read from one; its hash index
   * is then kept in the derived cache under that hash (see `hash-index-cache.ts`).
   */
  constructor(
    readonly collections: ReadonlyMap<string, PyDict>,
    private readonly fileHashes: ReadonlyMap<string, string> = new Map(),
  ) {
    this.collectionNames = [...collections.keys()];
  }

  private checkpoints: Array<{ offset: number; state: Hash }> | undefined;

  /**
   * The SHA-256 state of the unchanged database's hash text at the last checkpoint at or before
   * `offset` (checkpoints every {@link CHECKPOINT_BYTES}), computed once from `pieces`.
   */
  hashCheckpointBefore(offset: number, pieces: () => Buffer[]): { offset: number; state: Hash } {
    this.checkpoints ??= hashCheckpoints(pieces());
    let chosen = this.checkpoints[0];
    for (const checkpoint of this.checkpoints) {
      if (checkpoint.offset > offset) break;
      chosen = checkpoint;
    }
    return chosen;
  }

  /** The hash text of the unchanged database, as pieces. */
  baseHashPieces(): Buffer[] {
    return new EpisodeDatabase(this).hashText().pieces;
  }

  /** Builds the record texts lazily, on the first hash. */
  collectionHashIndex(name: string): CollectionHashIndex {
    let index = this.hashIndex.get(name);
    if (!index) {
      const collection = this.collections.get(name)!;
      const fileHash = this.fileHashes.get(name);
      index = fileHash === undefined ? buildHashIndex(collection) : cachedHashIndex(fileHash, collection, () => buildHashIndex(collection));
      this.hashIndex.set(name, index);
    }
    return index;
  }
}

function buildHashIndex(collection: PyDict): CollectionHashIndex {
  const sortedKeys = [...collection.keys()].sort(pyCompareStrings);
  const texts = sortedKeys.map((key) => Buffer.from(hashableEntry(key, collection.get(key)!), "utf8"));
  const starts = new Uint32Array(texts.length);
  const ends = new Uint32Array(texts.length);
  let offset = 0;
  texts.forEach((text, index) => {
    if (index > 0) offset += 2;
    starts[index] = offset;
    offset += text.length;
    ends[index] = offset;
  });
  const buffer = Buffer.alloc(offset);
  texts.forEach((text, index) => {
    if (index > 0) buffer.write(", ", starts[index] - 2, "latin1");
    text.copy(buffer, starts[index]);
  });
  const positionOf = new Map(sortedKeys.map((key, index) => [key, index]));
  return { sortedKeys, positionOf, buffer, starts, ends };
}

const DELETED = Symbol("deleted");

/**
 * An episode's view of the database: reads fall through to the shared {@link BaseDatabase};
 * {@link mutable} copies a record into the episode's overlay before the first change.
 *
 * Tools must call {@link mutable} (never mutate what {@link get} returns): a record from `get`
 * may be the shared base record.
 */
export class EpisodeDatabase {
  private readonly overlays = new Map<string, Map<string, PyValue | typeof DELETED>>();
  private readonly appended = new Map<string, string[]>();

  constructor(readonly base: BaseDatabase) {}

  /** A fresh view over the same base: what `reset` gives an episode. */
  fork(): EpisodeDatabase {
    return new EpisodeDatabase(this.base);
  }

  private overlay(collection: string): Map<string, PyValue | typeof DELETED> {
    let overlay = this.overlays.get(collection);
    if (!overlay) {
      if (!this.base.collections.has(collection)) throw new Error(`unknown collection ${collection}`);
      overlay = new Map();
      this.overlays.set(collection, overlay);
    }
    return overlay;
  }

  /** The current record, read-only. */
  get(collection: string, key: string): PyValue | undefined {
    const overlay = this.overlays.get(collection);
    if (overlay?.has(key)) {
      const value = overlay.get(key)!;
      return value === DELETED ? undefined : value;
    }
    return this.base.collections.get(collection)!.get(key);
  }

  /** Python `key in collection` (type-strict: callers pass only strings). */
  has(collection: string, key: unknown): boolean {
    return typeof key === "string" && this.get(collection, key) !== undefined;
  }

  /** The record, copied into this episode first if it is still the shared one. */
  mutable(collection: string, key: string): PyDict {
    const overlay = this.overlay(collection);
    const current = overlay.get(key);
    if (current !== undefined && current !== DELETED) return current as PyDict;
    const base = this.base.collections.get(collection)!.get(key);
    if (base === undefined || current === DELETED) throw new Error(`no record ${key} in ${collection}`);
    const copy = pyDeepCopy(base) as PyDict;
    overlay.set(key, copy);
    return copy;
  }

  /** Sets a record (appending the key when it is new, as a Python dict assignment does). */
  set(collection: string, key: string, value: PyValue): void {
    const exists = this.get(collection, key) !== undefined;
    const overlay = this.overlay(collection);
    overlay.set(key, value);
    const inBase = this.base.collections.get(collection)!.has(key);
    if (!exists && !inBase) {
      const keys = this.appended.get(collection) ?? [];
      if (!keys.includes(key)) keys.push(key);
      this.appended.set(collection, keys);
    }
  }

  /** Keys in Python dict order: base order, then keys added by this episode. */
  *keys(collection: string): IterableIterator<string> {
    const overlay = this.overlays.get(collection);
    for (const key of this.base.collections.get(collection)!.keys()) {
      if (overlay?.get(key) !== DELETED) yield key;
    }
    for (const key of this.appended.get(collection) ?? []) {
      if (overlay?.get(key) !== DELETED) yield key;
    }
  }

  /**
   * `(key, record)` pairs in dict order, read-only. One walk of the base dict's own pairs, each
   * checked against the overlay when it is reached (a record changed during the walk is seen
   * changed, as Python's live dict shows it): tools that scan a collection (retail's user lookups
   * by name or email) went through a generator of keys and a lookup per key.
   */
  *entries(collection: string): IterableIterator<[string, PyValue]> {
    for (const entry of this.base.collections.get(collection)!.entries()) {
      const overlay = this.overlays.get(collection);
      if (overlay === undefined || !overlay.has(entry[0])) {
        yield entry;
        continue;
      }
      const value = overlay.get(entry[0])!;
      if (value !== DELETED) yield [entry[0], value];
    }
    for (const key of this.appended.get(collection) ?? []) {
      const value = this.overlays.get(collection)?.get(key);
      if (value !== undefined && value !== DELETED) yield [key, value];
    }
  }

  /**
   * True when this database and `other` (over the same base) have the same τ-bench hash, decided
   * without hashing: the hash text is the sorted `(key, to_hashable(record))` pairs of every
   * collection, so two views are equal exactly when every record either one touched renders to the
   * same text in both (records neither touched are the shared base). Used by the evaluator, which
   * needs only equality; hashing the whole database costs far more than the few touched records.
   */
  sameStateAs(other: EpisodeDatabase): boolean {
    if (other.base !== this.base) return this.tauBenchHash() === other.tauBenchHash();
    for (const name of this.base.collectionNames) {
      const touched = new Set<string>([...(this.overlays.get(name)?.keys() ?? []), ...(other.overlays.get(name)?.keys() ?? [])]);
      for (const key of touched) {
        const mine = this.get(name, key);
        const theirs = other.get(name, key);
        if (mine === undefined || theirs === undefined) {
          if (mine !== theirs) return false;
          continue;
        }
        if (mine !== theirs && !pySameSortedText(mine, theirs) && hashableRepr(mine) !== hashableRepr(theirs)) return false;
      }
    }
    return true;
  }

  /** Number of records touched by this episode (for diagnostics and memory accounting). */
  get touchedRecords(): number {
    let count = 0;
    for (const overlay of this.overlays.values()) count += overlay.size;
    return count;
  }

  /** The whole database as one Python dict (copies nothing that is unchanged). */
  snapshot(): PyDict {
    const data: PyDict = new Map();
    for (const name of this.base.collectionNames) {
      const collection: PyDict = new Map();
      for (const [key, value] of this.entries(name)) collection.set(key, value);
      data.set(name, collection);
    }
    return data;
  }

  /**
   * τ-bench's `consistent_hash(to_hashable(data))`: SHA-256 of `str()` of the sorted tuple form.
   * Unchanged records come from the base's precomputed text, and the hash resumes from the base's
   * SHA-256 state at the last checkpoint before this view's first change, so only the text from
   * there on is hashed again (the text before it is the base's, byte for byte).
   */
  tauBenchHash(): string {
    const { pieces, divergeAt } = this.hashText();
    const checkpoint = this.base.hashCheckpointBefore(divergeAt, () => this.base.baseHashPieces());
    const hash = checkpoint.state.copy();
    let offset = 0;
    for (const piece of pieces) {
      const end = offset + piece.length;
      if (end > checkpoint.offset) hash.update(offset >= checkpoint.offset ? piece : piece.subarray(checkpoint.offset - offset));
      offset = end;
    }
    return hash.digest("hex");
  }

  /**
   * The hash text as pieces (mostly slices of the base's precomputed text) and the byte offset from
   * which it may differ from the base's text (a conservative bound: the first changed record's place).
   */
  hashText(): { pieces: Buffer[]; divergeAt: number } {
    const pieces: Buffer[] = [];
    let length = 0;
    let divergeAt = Number.POSITIVE_INFINITY;
    const emit = (piece: Buffer | string) => {
      const buffer = typeof piece === "string" ? Buffer.from(piece, "utf8") : piece;
      pieces.push(buffer);
      length += buffer.length;
    };
    const diverge = () => {
      divergeAt = Math.min(divergeAt, length);
    };
    const names = [...this.base.collectionNames].sort(pyCompareStrings);
    emit("(");
    names.forEach((name, index) => {
      if (index > 0) emit(", ");
      emit(`(${pyStrRepr(name)}, `);
      this.collectionText(name, emit, diverge);
      emit(")");
    });
    emit(names.length === 1 ? ",)" : ")");
    return { pieces, divergeAt: Math.min(divergeAt, length) };
  }

  private collectionText(name: string, emit: (piece: Buffer | string) => void, diverge: () => void): void {
    const index = this.base.collectionHashIndex(name);
    const overlay = this.overlays.get(name);
    const added = this.appended.get(name) ?? [];
    if ((!overlay || overlay.size === 0) && added.length === 0) {
      const count = index.sortedKeys.length;
      emit("(");
      emit(index.buffer);
      emit(count === 1 ? ",)" : ")");
      return;
    }
    // Overrides: changed, deleted or new keys, in sorted order.
    const overrideKeys = [...new Set([...(overlay?.keys() ?? []), ...added])].sort(pyCompareStrings);
    const parts: Array<Buffer | string> = [];
    let baseCursor = 0; // next base position not yet emitted
    const baseRun = (until: number) => {
      if (until > baseCursor) parts.push(index.buffer.subarray(index.starts[baseCursor], index.ends[until - 1]));
      baseCursor = Math.max(baseCursor, until);
    };
    let count = 0;
    for (const key of overrideKeys) {
      const position = index.positionOf.get(key);
      const insertAt = position ?? lowerBound(index.sortedKeys, key);
      count += insertAt - baseCursor > 0 ? insertAt - baseCursor : 0;
      baseRun(insertAt);
      if (position !== undefined) baseCursor = position + 1; // skip the base record
      const value = overlay?.get(key);
      parts.push(value === undefined || value === DELETED ? "" : hashableEntry(key, value));
      if (value !== undefined && value !== DELETED) count++;
    }
    count += index.sortedKeys.length - baseCursor;
    baseRun(index.sortedKeys.length);
    emit("(");
    let first = true;
    for (const part of parts) {
      if (part === "") {
        diverge(); // a deleted record: the text changes here
        continue;
      }
      if (!first) emit(", ");
      if (typeof part === "string") diverge();
      emit(part);
      first = false;
    }
    emit(count === 1 ? ",)" : ")");
  }
}

/** Distance between SHA-256 checkpoints in the base hash text. */
const CHECKPOINT_BYTES = 64 * 1024;

function hashCheckpoints(pieces: Buffer[]): Array<{ offset: number; state: Hash }> {
  const hash = createHash("sha256");
  const checkpoints = [{ offset: 0, state: hash.copy() }];
  let offset = 0;
  let next = CHECKPOINT_BYTES;
  for (const piece of pieces) {
    let start = 0;
    while (offset + (piece.length - start) >= next) {
      const take = next - offset;
      hash.update(piece.subarray(start, start + take));
      start += take;
      offset += take;
      checkpoints.push({ offset, state: hash.copy() });
      next += CHECKPOINT_BYTES;
    }
    hash.update(piece.subarray(start));
    offset += piece.length - start;
  }
  return checkpoints;
}

function lowerBound(sorted: string[], key: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (pyCompareStrings(sorted[middle], key) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Loads the named collection files (`<name>.json`) of a domain directory into one shared base
 * database. Records are built when first looked up (`data/json-record-file.ts`). Each file's
 * SHA-256 goes with it: the base keeps what it derives from a collection (its hash index) in the
 * derived cache under that hash.
 */
export function loadBaseDatabase(directory: string, collections: readonly string[]): BaseDatabase {
  const data = new Map<string, PyDict>();
  const hashes = new Map<string, string>();
  for (const name of collections) {
    const { records, sha256 } = readJsonRecordFile(join(directory, `${name}.json`));
    data.set(name, records);
    hashes.set(name, sha256);
  }
  return new BaseDatabase(data, hashes);
}
