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
import { type PyDict, type PyModel, type PyValue, pyDeepCopy, pyJsonDumpsSortedKeys, pyJsonString, pySortedKeys } from "../../value/index.ts";

function isContainer(value: PyValue | undefined): value is PyDict | PyValue[] {
  return value instanceof Map || Array.isArray(value);
}

function refuseMutation(): never {
  throw new TypeError("a record shared by every environment was mutated in place; look records up by key (pyGetItem) before changing them");
}

/** Seals a loaded value in place: its dicts refuse set/delete/clear and its lists are frozen. */
export function sealShared(value: PyValue): void {
  if (Array.isArray(value)) {
    for (const item of value) sealShared(item);
    Object.freeze(value);
  } else if (value instanceof Map) {
    for (const item of value.values()) sealShared(item);
    for (const method of ["set", "delete", "clear"]) Object.defineProperty(value, method, { value: refuseMutation });
  }
}

/** A dict of records whose values are the shared ones until a key is looked up (then copied in). */
export class SharedRecordMap extends Map<string, PyValue> {
  /** Keys whose value belongs to this map (copied in, assigned or added). */
  readonly owned = new Set<string>();
  readonly base: PyDict;

  constructor(base: PyDict) {
    super();
    this.base = base;
    for (const [key, value] of base) Map.prototype.set.call(this, key, value);
  }

  override get(key: string): PyValue | undefined {
    const value = super.get(key);
    if (value === undefined || this.owned.has(key) || !isContainer(value)) return value;
    const copy = pyDeepCopy(value);
    super.set(key, copy);
    this.owned.add(key);
    return copy;
  }

  override set(key: string, value: PyValue): this {
    this.owned?.add(key);
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    this.owned.add(key);
    return super.delete(key);
  }

  override clear(): void {
    for (const key of this.keys()) this.owned.add(key);
    super.clear();
  }
}

/** True for a dict whose every value is a dict or list (a collection of records). */
function isRecordDict(value: PyValue): value is PyDict {
  if (!(value instanceof Map) || value.size === 0) return false;
  for (const item of value.values()) if (!isContainer(item)) return false;
  return true;
}

/** Seals the record dicts' records of a loaded database (shared by every environment). */
export function prepareShared(db: PyModel): void {
  for (const value of db.values()) if (isRecordDict(value)) for (const record of value.values()) sealShared(record);
}

/** An environment's database over the shared one: record dicts shared record by record, everything else copied. */
export function shareDatabase(db: PyModel): PyModel {
  const copy = db.emptyClone();
  for (const [field, value] of db) copy.set(field, isRecordDict(value) && !(value instanceof SharedRecordMap) ? new SharedRecordMap(value) : pyDeepCopy(value));
  return copy;
}

// ─── Hash text ──────────────────────────────────────────────────────────────────────────────────

interface BaseIndex {
  sortedKeys: string[];
  position: Map<string, number>;
  entries: string[];
  text: string;
}

const baseIndexes = new WeakMap<PyDict, BaseIndex>();

function entryText(key: string, value: PyValue | undefined): string {
  return `${pyJsonString(key)}: ${pyJsonDumpsSortedKeys(value)}`;
}

function baseIndex(base: PyDict): BaseIndex {
  let index = baseIndexes.get(base);
  if (!index) {
    const sortedKeys = pySortedKeys(base);
    const entries = sortedKeys.map((key) => entryText(key, base.get(key)));
    index = { sortedKeys, position: new Map(sortedKeys.map((key, at) => [key, at])), entries, text: `{${entries.join(", ")}}` };
    baseIndexes.set(base, index);
  }
  return index;
}

/** The sorted-keys JSON text of a shared record dict, re-rendering only the records it owns. */
function sharedMapText(map: SharedRecordMap): string {
  const index = baseIndex(map.base);
  let entries: string[] | null = null;
  let keysChanged = false;
  for (const key of map.owned) {
    const at = index.position.get(key);
    if (at === undefined || !map.has(key)) {
      keysChanged = true;
      break;
    }
    const text = entryText(key, map.get(key));
    if (text !== index.entries[at]) {
      entries ??= [...index.entries];
      entries[at] = text;
    }
  }
  if (keysChanged) {
    const keys = pySortedKeys(map);
    return `{${keys.map((key) => (map.owned.has(key) || !index.position.has(key) ? entryText(key, map.get(key)) : index.entries[index.position.get(key) as number])).join(", ")}}`;
  }
  return entries === null ? index.text : `{${entries.join(", ")}}`;
}

/** `json.dumps(db.model_dump(), sort_keys=True)`, reusing the rendered text of shared records. */
export function databaseHashText(db: PyModel): string {
  const parts = pySortedKeys(db).map((field) => {
    const value = db.get(field) as PyValue;
    return `${pyJsonString(field)}: ${value instanceof SharedRecordMap ? sharedMapText(value) : pyJsonDumpsSortedKeys(value)}`;
  });
  return `{${parts.join(", ")}}`;
}
