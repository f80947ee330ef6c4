/**
 * Sharing a τ² domain's pristine database between environments, and hashing it incrementally.
 *
 * τ²'s databases are dicts of records (retail's 1,000 orders, airline's 2,000 reservations). An
 * episode touches a handful of them, yet the original builds a fresh database per environment and
 * serialises all of it for every hash (the evaluator builds two environments and hashes both). Here
 * every environment's record dicts are {@link SharedRecordMap}s over the one loaded dict: a record
 * is deep-copied into the environment the first time it is looked up by key, so untouched records
 * stay shared; the hash reuses each shared record's JSON text, rendered once.
 *
 * Shared records are sealed: a tool that mutated a record it reached by iterating a collection
 * (rather than looking it up by key) would otherwise change every environment, so it fails loudly
 * instead (a JavaScript error, which ends the episode as an infrastructure error naming the tool).
 */
import { createHash, type Hash } from "node:crypto";
import { cachedDerivation, derivedCacheKey } from "../../../data/derived-cache.ts";
import { LazyRecordDict } from "../../../data/json-record-file.ts";
import {
  PyException,
  type PyDict,
  PyModel,
  type PyValue,
  pyDeepCopy,
  pyJsonDumpsSortedKeys,
  pyJsonString,
  pyMergedFieldValue,
  pyModelUpdate,
  pyRevalidationKeeps,
  PY_SAME_MAPS,
  pySameLeaves,
  pySameSortedText,
  pySortedKeys,
  pyValidateValue,
} from "../../../value/index.ts";

function isContainer(value: PyValue | undefined): value is PyDict | PyValue[] {
  return value instanceof Map || Array.isArray(value);
}

function refuseMutation(): never {
  throw new TypeError("a record shared by every environment was mutated in place; look records up by key (pyGetItem) before changing them");
}

/** For each prototype of a loaded dict (`Map`, a model's class), the same prototype with set/delete/clear refused. */
const sealedPrototypes = new Map<object, object>();
const isSealedPrototype = new Set<object>();

function sealedPrototype(prototype: object): object {
  let sealed = sealedPrototypes.get(prototype);
  if (sealed === undefined) {
    sealed = Object.create(prototype, { set: { value: refuseMutation }, delete: { value: refuseMutation }, clear: { value: refuseMutation } }) as object;
    sealedPrototypes.set(prototype, sealed);
    isSealedPrototype.add(sealed);
  }
  return sealed;
}

/**
 * Seals a loaded value in place: its dicts refuse set/delete/clear and its lists are frozen. A dict
 * gets a prototype that refuses them, one per class (so `instanceof` and a model's own methods are
 * kept): three own properties defined on each of the tens of thousands of dicts of a database were
 * ~3% of a τ² retail run.
 */
export function sealShared(value: PyValue): void {
  if (Array.isArray(value)) {
    for (const item of value) sealShared(item);
    Object.freeze(value);
  } else if (value instanceof Map) {
    for (const item of value.values()) sealShared(item);
    const prototype = Object.getPrototypeOf(value) as object;
    if (!isSealedPrototype.has(prototype)) Object.setPrototypeOf(value, sealedPrototype(prototype));
  }
}

/**
 * A dict of records whose values are the shared ones until a key is looked up (then copied in).
 *
 * Its own entries are filled in lazily: until something iterates it, deletes from it or adds a key
 * the loaded dict does not have, it holds only the records copied in (or assigned) and answers every
 * other key from `base`. Most environments only look records up by key, so most never copy the
 * loaded dict's entries at all (filling them was ~4% of a τ² retail run). Once filled it is a plain
 * map in the loaded dict's order, the owned values in their places and added keys after them, as a
 * Python dict would be.
 */
export class SharedRecordMap extends Map<string, PyValue> {
  /** Keys whose value belongs to this map (copied in, assigned or added). */
  readonly owned = new Set<string>();
  readonly base: PyDict;
  /** False while the map's own storage holds only owned values of keys `base` has. */
  private filled = false;

  constructor(base: PyDict) {
    super();
    this.base = base;
  }

  /** Makes the map's own storage the whole dict: every key of `base` in its order, owned values in their places. */
  private fill(): void {
    if (this.filled) return;
    this.filled = true;
    if (super.size === 0) {
      for (const [key, value] of this.base) super.set(key, value);
      return;
    }
    const ownValues = [...super.entries()];
    super.clear();
    const own = new Map(ownValues);
    for (const [key, value] of this.base) super.set(key, own.has(key) ? (own.get(key) as PyValue) : value);
  }

  override get(key: string): PyValue | undefined {
    if (this.owned.has(key)) return super.get(key);
    const value = this.filled ? super.get(key) : this.base.get(key);
    if (value === undefined || !isContainer(value)) return value;
    const copy = pyDeepCopy(value);
    super.set(key, copy);
    this.owned.add(key);
    return copy;
  }

  override has(key: string): boolean {
    return this.filled ? super.has(key) : this.base.has(key);
  }

  override set(key: string, value: PyValue): this {
    // A key `base` lacks goes after all of base's: fill first, so it lands there.
    if (!this.filled && !this.base.has(key)) this.fill();
    this.owned.add(key);
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    this.fill();
    this.owned.add(key);
    return super.delete(key);
  }

  override clear(): void {
    this.fill();
    for (const key of super.keys()) this.owned.add(key);
    super.clear();
  }

  override forEach(callback: (value: PyValue, key: string, map: Map<string, PyValue>) => void, thisArg?: unknown): void {
    this.fill();
    super.forEach(callback, thisArg);
  }

  override keys(): MapIterator<string> {
    this.fill();
    return super.keys();
  }

  override values(): MapIterator<PyValue> {
    this.fill();
    return super.values();
  }

  override entries(): MapIterator<[string, PyValue]> {
    this.fill();
    return super.entries();
  }

  override [Symbol.iterator](): MapIterator<[string, PyValue]> {
    this.fill();
    return super[Symbol.iterator]();
  }

  /** Map's `size`, answered from `base` while not filled. */
  override get size(): number {
    return this.filled ? super.size : this.base.size;
  }
}

/** True for a dict whose every value is a dict or list (a collection of records). */
function isRecordDict(value: PyValue): value is PyDict {
  if (!(value instanceof Map) || value.size === 0) return false;
  // A loaded dict whose records are built (validated, sealed) on first use holds records only: asking its values would build them all.
  if (value instanceof LazyRecordDict && value.prepared) return true;
  for (const item of value.values()) if (!isContainer(item)) return false;
  return true;
}

/** Record dicts of loaded databases: their records are sealed, so their rendered texts can be cached. */
const loadedRecordDicts = new WeakSet<PyDict>();

/** Derived-cache keys of loaded record dicts (their hash index is kept there). */
const recordDictKeys = new WeakMap<PyDict, string>();

/**
 * Seals the record dicts' records of a loaded database (shared by every environment). `cacheKey`
 * (the database file's, see `domain.ts`) lets each record dict's hash index come from the derived cache.
 */
export function prepareShared(db: PyModel, cacheKey?: string): void {
  for (const [field, value] of db) {
    if (isRecordDict(value)) prepareRecordDict(value, cacheKey, field);
    else if (value instanceof Map) {
      // A table (τ³ banking: `{data: {id: record}, notes}`): its record dicts are shared the same way.
      for (const [inner, item] of value) if (isRecordDict(item)) prepareRecordDict(item, cacheKey, `${field}.${inner}`);
    }
  }
}

function prepareRecordDict(value: PyDict, cacheKey: string | undefined, path: string): void {
  if (!(value instanceof LazyRecordDict && value.prepared)) for (const record of value.values()) sealShared(record);
  loadedRecordDicts.add(value);
  if (cacheKey !== undefined) recordDictKeys.set(value, derivedCacheKey(cacheKey, path));
}

/** True for a table of a loaded database: a dict (or model) that is not itself a record dict but holds one. */
function isSharedTable(value: PyValue | undefined): value is PyDict {
  if (!(value instanceof Map) || loadedRecordDicts.has(value)) return false;
  for (const item of value.values()) if (item instanceof SharedRecordMap || (item instanceof Map && loadedRecordDicts.has(item))) return true;
  return false;
}

/**
 * A database made from a shared one (`set_state`'s `update_db` validates a merged copy): its hash
 * text still reuses the loaded database's texts wherever the two are equal.
 */
export function inheritSharing(updated: PyModel, previous: PyModel): PyModel {
  const base = sharedFrom.get(previous);
  if (base) sharedFrom.set(updated, base);
  return updated;
}

/**
 * `update_db(patch)` (τ²'s `update_pydantic_model_with_dict`: deep-merge the patch into the dumped
 * database, validate the result) on an environment's database, keeping what the patch leaves alone
 * shared. A field the patch does not name is moved over as it is when it is still exactly the loaded
 * database's value (its shared records never copied in, its copied parts equal, same model classes)
 * and its type gives the same value when a dump of it is validated again (no union): the full
 * dump-and-validate would rebuild that very value. The patched fields are merged and validated as
 * `pyModelUpdate` does. Anything else — a database not made by {@link shareDatabase}, a patch key
 * that is not a field, a touched field, a patched field that fails to validate (so the error is
 * pydantic's whole text) — takes `pyModelUpdate`.
 */
export function updateSharedDatabase(db: PyModel, patch: PyDict): PyModel {
  const base = sharedFrom.get(db);
  const fallback = () => inheritSharing(pyModelUpdate(db, patch), db);
  if (base === undefined || base.schema !== db.schema) return fallback();
  const { fields } = db.schema;
  for (const key of patch.keys()) if (!fields.some((field) => field.name === key)) return fallback();
  const updated = db.emptyClone();
  for (const field of fields) {
    if (!db.has(field.name)) return fallback();
    const value = db.get(field.name) as PyValue;
    if (!patch.has(field.name)) {
      if (!pyRevalidationKeeps(field.type) || !untouched(value, base.get(field.name))) return fallback();
      updated.set(field.name, value);
      continue;
    }
    let validated: PyValue;
    try {
      validated = pyValidateValue(field.type, pyMergedFieldValue(value, patch.get(field.name) as PyValue), db.schema.name);
    } catch (error) {
      if (PyException.isInstance(error)) return fallback();
      throw error;
    }
    updated.set(field.name, validated);
  }
  sharedFrom.set(updated, base);
  return updated;
}

/** True when an environment's value is still the loaded database's `loaded`: shared records not copied in, copies equal in every part and class. */
function untouched(value: PyValue | undefined, loaded: PyValue | undefined): boolean {
  if (value instanceof SharedRecordMap) return value.base === loaded && value.owned.size === 0;
  return sameValue(value, loaded);
}

/** {@link sameJson}, and the same classes: a model where the other has a model of the same schema, a plain dict where it has one. */
function sameValue(left: PyValue | undefined, right: PyValue | undefined): boolean {
  if (left === right) return true;
  if (left instanceof SharedRecordMap) return untouched(left, right);
  const leaves = pySameLeaves(left, right, sameValue);
  if (leaves !== PY_SAME_MAPS) return leaves;
  const leftMap = left as PyDict;
  const rightMap = right as PyDict;
  if (leftMap instanceof PyModel ? !(rightMap instanceof PyModel) || leftMap.schema !== rightMap.schema : rightMap instanceof PyModel) return false;
  const rightKeys = [...rightMap.keys()];
  let at = 0;
  for (const [key, item] of leftMap) {
    // Same keys in the same order (a dump keeps the order, and so does the hash's sort only for dicts).
    if (rightKeys[at++] !== key || !sameValue(item, rightMap.get(key))) return false;
  }
  return true;
}

/** An environment's database over the shared one: record dicts shared record by record, everything else copied. */
export function shareDatabase(db: PyModel): PyModel {
  const copy = db.emptyClone();
  for (const [field, value] of db) copy.set(field, shareValue(value));
  sharedFrom.set(copy, db);
  return copy;
}

function shareValue(value: PyValue): PyValue {
  if (isRecordDict(value) && !(value instanceof SharedRecordMap)) return new SharedRecordMap(value);
  if (!isSharedTable(value)) return pyDeepCopy(value);
  const table = value instanceof PyModel ? value.emptyClone() : new Map<string, PyValue>();
  for (const [field, item] of value) table.set(field, item instanceof Map && loadedRecordDicts.has(item) ? new SharedRecordMap(item) : pyDeepCopy(item));
  return table;
}

// ─── Hash ───────────────────────────────────────────────────────────────────────────────────────

/**
 * The hash text is a sequence of pieces: the braces, each field's key, and for a shared record
 * dict each record's `"key": <json>` (separators included), in sorted order. Unchanged records
 * reuse the loaded database's piece (the same string); the SHA-256 of the loaded database is
 * checkpointed every {@link CHECKPOINT_CHARS} characters, so an environment's hash resumes from the
 * last checkpoint before its first changed piece.
 */
const CHECKPOINT_CHARS = 64 * 1024;

interface BaseIndex {
  sortedKeys: string[];
  position: Map<string, number>;
  /** `"key": <json>` per record, in sorted key order. */
  entries: string[];
  /** `, "key": <json>` per record: made once, so an unchanged record's piece is the same string in every hash (compared by identity, not by content). */
  followingEntries: string[];
  /** Every record's piece in sorted key order (the first `entries`' text, the others `followingEntries`'): copied whole into a hash's pieces. */
  pieces: string[];
}

interface BaseHash {
  pieces: string[];
  checkpoints: Array<{ piece: number; state: Hash }>;
  /** The bytes of each checkpoint's segment (up to the next checkpoint), encoded on first use. */
  segments: Buffer[];
  /** Digest by the pieces that differ from the loaded database (gold and predicted states are often the same). */
  memo: Map<string, string>;
}

const baseIndexes = new WeakMap<PyDict, BaseIndex>();
const baseHashes = new WeakMap<PyModel, BaseHash>();
/** Which loaded database an environment's database shares. */
const sharedFrom = new WeakMap<PyModel, PyModel>();

function entryText(key: string, value: PyValue | undefined): string {
  return `${pyJsonString(key)}: ${pyJsonDumpsSortedKeys(value)}`;
}

const INDEX_KIND = "tau2-record-index-v1";

function baseIndex(base: PyDict): BaseIndex {
  let index = baseIndexes.get(base);
  if (!index) {
    const render = () => {
      const keys = pySortedKeys(base);
      return { sortedKeys: keys, entries: keys.map((key) => entryText(key, base.get(key))) };
    };
    const key = recordDictKeys.get(base);
    const { sortedKeys, entries } = key === undefined ? render() : cachedDerivation(INDEX_KIND, key, (value): value is StoredIndex => fitsIndex(value, base), render);
    const followingEntries = entries.map((entry) => `, ${entry}`);
    const pieces = followingEntries.map((entry, at) => (at === 0 ? entries[0] : entry));
    index = { sortedKeys, position: new Map(sortedKeys.map((name, at) => [name, at])), entries, followingEntries, pieces };
    baseIndexes.set(base, index);
  }
  return index;
}

/** A record dict's hash index as the derived cache keeps it. */
interface StoredIndex {
  sortedKeys: string[];
  entries: string[];
}

/** An entry of this record dict: its keys, one text each (the text itself is vouched for by the cache's checksum and key). */
function fitsIndex(value: unknown, base: PyDict): value is StoredIndex {
  const stored = value as StoredIndex;
  if (!Array.isArray(stored?.sortedKeys) || !Array.isArray(stored.entries)) return false;
  if (stored.sortedKeys.length !== base.size || stored.entries.length !== base.size) return false;
  return stored.sortedKeys.every((key) => typeof key === "string" && base.has(key)) && stored.entries.every((entry) => typeof entry === "string");
}

/**
 * The pieces of a record dict: the loaded database's piece for every record `map` does not own
 * (all of them when `map` is null), and for an owned record too when it still equals the loaded
 * one (a tool that only read it copied it in).
 */
function recordPieces(base: PyDict, map: SharedRecordMap | null, out: string[]): void {
  const index = baseIndex(base);
  let keys = index.sortedKeys;
  if (map) {
    for (const key of map.owned) {
      if (!index.position.has(key) || !map.has(key)) {
        keys = pySortedKeys(map);
        break;
      }
    }
  }
  out.push("{");
  if (keys === index.sortedKeys) {
    // The loaded dict's keys: its pieces as they are, then each owned record that changed in its place
    // (no lookup per record: a retail hash walks ~2,600 of them and owns a handful).
    const offset = out.length;
    for (const piece of index.pieces) out.push(piece);
    if (map) {
      for (const key of map.owned) {
        const position = index.position.get(key) as number;
        const value = map.get(key);
        if (sameJson(value, base.get(key))) continue;
        const text = entryText(key, value);
        out[offset + position] = position === 0 ? text : `, ${text}`;
      }
    }
    out.push("}");
    return;
  }
  keys.forEach((key, at) => {
    const position = index.position.get(key);
    const own = map !== null && (map.owned.has(key) || position === undefined);
    if (own) {
      const value = (map as SharedRecordMap).get(key);
      if (position !== undefined && sameJson(value, base.get(key))) out.push(at === 0 ? index.entries[position] : index.followingEntries[position]);
      else {
        const text = entryText(key, value);
        out.push(at === 0 ? text : `, ${text}`);
      }
    } else {
      out.push(at === 0 ? index.entries[position as number] : index.followingEntries[position as number]);
    }
  });
  out.push("}");
}

/**
 * The pieces of a record dict that was copied rather than shared (`set_state` validates a merged
 * copy), laid out as the loaded one's: a record equal to the loaded one reuses its entry text, so
 * the hash resumes from the loaded database's checkpoints as for a shared record dict.
 */
function copiedRecordPieces(base: PyDict, value: PyDict, out: string[]): void {
  const index = baseIndex(base);
  let sameKeys = value.size === index.sortedKeys.length;
  if (sameKeys) for (const key of value.keys()) if (!index.position.has(key)) sameKeys = false;
  const keys = sameKeys ? index.sortedKeys : pySortedKeys(value);
  out.push("{");
  keys.forEach((key, at) => {
    const position = index.position.get(key);
    const item = value.get(key);
    if (position !== undefined && sameJson(item, base.get(key))) out.push(at === 0 ? index.entries[position] : index.followingEntries[position]);
    else {
      const text = entryText(key, item as PyValue);
      out.push(at === 0 ? text : `, ${text}`);
    }
  });
  out.push("}");
}

/** A field's pieces; `baseValue` is the same field of the loaded database the environment's shares, if any. */
function valuePieces(value: PyValue | undefined, out: string[], baseValue: PyValue | undefined): void {
  if (value instanceof SharedRecordMap) recordPieces(value.base, value, out);
  else if (value instanceof Map && loadedRecordDicts.has(value)) recordPieces(value, null, out);
  else if (isSharedTable(value)) tablePieces(value, out, baseValue);
  else if (value instanceof Map && baseValue instanceof Map && loadedRecordDicts.has(baseValue)) copiedRecordPieces(baseValue, value, out);
  else if (value instanceof Map && isSharedTable(baseValue)) tablePieces(value, out, baseValue);
  else if (baseValue !== undefined) out.push(jsonReusing(value, baseValue));
  else out.push(pyJsonDumpsSortedKeys(value));
}

/** A table's pieces: its braces and keys, its record dicts record by record, its other fields whole. */
function tablePieces(table: PyDict, out: string[], baseTable: PyValue | undefined): void {
  out.push("{");
  pySortedKeys(table).forEach((field, at) => {
    out.push(`${at === 0 ? "" : ", "}${pyJsonString(field)}: `);
    valuePieces(table.get(field), out, baseTable instanceof Map ? baseTable.get(field) : undefined);
  });
  out.push("}");
}

/** The pieces of `json.dumps(db.model_dump(), sort_keys=True)`; `base`: the loaded database `db` shares (or is). */
function databasePieces(db: PyModel, base: PyModel | undefined): string[] {
  const out: string[] = ["{"];
  pySortedKeys(db).forEach((field, at) => {
    out.push(`${at === 0 ? "" : ", "}${pyJsonString(field)}: `);
    valuePieces(db.get(field), out, base?.get(field));
  });
  out.push("}");
  return out;
}

/** True when two values have the same sorted-keys JSON text, decided without printing it ({@link pySameSortedText}). */
export const sameJson = pySameSortedText;

/** Texts of the loaded databases' values (never mutated: environments get copies). */
const loadedTexts = new WeakMap<object, string>();

function loadedText(value: PyValue): string {
  if (typeof value !== "object" || value === null) return pyJsonDumpsSortedKeys(value);
  let text = loadedTexts.get(value);
  if (text === undefined) {
    text = pyJsonDumpsSortedKeys(value);
    loadedTexts.set(value, text);
  }
  return text;
}

/**
 * The sorted-keys JSON of `value`, reusing the loaded database's text wherever `value` equals its
 * counterpart `base` there (whole, or list item by list item), so an environment's hash prints
 * only what its tools changed.
 */
function jsonReusing(value: PyValue | undefined, base: PyValue): string {
  if (sameJson(value, base)) return loadedText(base);
  if (value instanceof Map && base instanceof Map && value.size > 0) {
    // A dict (a table, a record dict) that differs somewhere: its equal entries keep their texts.
    const entries = pySortedKeys(value).map((key) => {
      const item = value.get(key) as PyValue;
      return `${pyJsonString(key)}: ${base.has(key) ? jsonReusing(item, base.get(key) as PyValue) : pyJsonDumpsSortedKeys(item)}`;
    });
    return `{${entries.join(", ")}}`;
  }
  if (!Array.isArray(value) || !Array.isArray(base) || value.length === 0) return pyJsonDumpsSortedKeys(value);
  const items = value.map((item, index) => (index < base.length ? jsonReusing(item, base[index]) : pyJsonDumpsSortedKeys(item)));
  return `[${items.join(", ")}]`;
}

function baseHash(base: PyModel): BaseHash {
  let hash = baseHashes.get(base);
  if (!hash) {
    const pieces = databasePieces(base, base);
    const state = createHash("sha256");
    const checkpoints = [{ piece: 0, state: state.copy() }];
    let since = 0;
    pieces.forEach((piece, at) => {
      state.update(piece);
      since += piece.length;
      if (since >= CHECKPOINT_CHARS && at + 1 < pieces.length) {
        checkpoints.push({ piece: at + 1, state: state.copy() });
        since = 0;
      }
    });
    hash = { pieces, checkpoints, segments: [], memo: new Map() };
    baseHashes.set(base, hash);
  }
  return hash;
}

/** `json.dumps(db.model_dump(), sort_keys=True)` (the full text; tests compare it with τ²'s). */
export function databaseHashText(db: PyModel): string {
  return databasePieces(db, sharedFrom.get(db)).join("");
}

/** SHA-256 hex of {@link databaseHashText}, resumed from the loaded database's checkpoints when `db` shares one. */
export function databaseHash(db: PyModel): string {
  const base = sharedFrom.get(db);
  const pieces = databasePieces(db, base);
  if (!base) return createHash("sha256").update(pieces.join("")).digest("hex");
  const reference = baseHash(base);
  let first = 0;
  while (first < pieces.length && first < reference.pieces.length && pieces[first] === reference.pieces[first]) first++;
  if (pieces.length === reference.pieces.length && first === pieces.length) {
    const whole = reference.memo.get("");
    if (whole) return whole;
  }
  const key = pieces.length === reference.pieces.length ? differences(pieces, reference.pieces, first) : null;
  const known = key === null ? undefined : reference.memo.get(key);
  if (known) return known;
  let at = 0;
  while (at + 1 < reference.checkpoints.length && reference.checkpoints[at + 1].piece <= first) at++;
  const hash = reference.checkpoints[at].state.copy();
  if (pieces.length !== reference.pieces.length) hash.update(pieces.slice(reference.checkpoints[at].piece).join(""));
  else for (; at < reference.checkpoints.length; at++) hashSegment(hash, reference, pieces, at);
  const digest = hash.digest("hex");
  if (key !== null && reference.memo.size < 4096) reference.memo.set(key, digest);
  return digest;
}

/**
 * Hashes the pieces of the loaded database's `at`-th checkpoint segment: the segment's bytes,
 * encoded once, when every piece is the loaded database's own (compared by identity); else the
 * pieces' text.
 */
function hashSegment(hash: Hash, reference: BaseHash, pieces: string[], at: number): void {
  const start = reference.checkpoints[at].piece;
  const end = at + 1 < reference.checkpoints.length ? reference.checkpoints[at + 1].piece : pieces.length;
  let unchanged = true;
  for (let index = start; index < end && unchanged; index++) unchanged = pieces[index] === reference.pieces[index];
  if (!unchanged) {
    hash.update(pieces.slice(start, end).join(""));
    return;
  }
  let bytes = reference.segments[at];
  if (bytes === undefined) {
    bytes = Buffer.from(reference.pieces.slice(start, end).join(""), "utf8");
    reference.segments[at] = bytes;
  }
  hash.update(bytes);
}

/** A key naming the pieces that differ from the loaded database's (same length). */
function differences(pieces: string[], reference: string[], from: number): string {
  const parts: string[] = [];
  for (let at = from; at < pieces.length; at++) if (pieces[at] !== reference[at]) parts.push(`${at}\u0000${pieces[at]}`);
  return parts.join("\u0001");
}
