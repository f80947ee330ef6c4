/**
 * Python expressions on a domain's data dict, `data[collection][key]`, over the episode database.
 *
 * The tools of τ-bench index `data["users"][user_id]` with the model's unvalidated argument, so the
 * lookup must be type-strict (an int id is "not found", `123` never matches `"123"`) and a list or
 * dict id must raise `unhashable type`. The database is copy-on-write (the engine's
 * `EpisodeDatabase`); this module only needs the three methods below, so it stays free of engine
 * imports.
 */
import { pyRequireHashable } from "./containers.ts";
import { pyKeyError } from "./errors.ts";
import type { PyDict, PyValue } from "./values.ts";

/** What these helpers need of an episode database: read a record, and get a private copy to change. */
export interface PyCollectionStore {
  /** The current record, read-only (possibly shared with other episodes), or undefined. */
  get(collection: string, key: string): PyValue | undefined;
  /** The record, copied into this episode first if it is still shared. */
  mutable(collection: string, key: string): PyDict;
}

/** Python `key in data[collection]`: type-strict (the keys are strs); an unhashable key raises. */
export function pyCollectionContains(db: PyCollectionStore, collection: string, key: PyValue | undefined): key is string {
  pyRequireHashable(key);
  return typeof key === "string" && db.get(collection, key) !== undefined;
}

/** Python `data[collection][key]`, read-only: the record, or `KeyError(key)`. */
export function pyCollectionGet(db: PyCollectionStore, collection: string, key: PyValue | undefined): PyValue {
  pyRequireHashable(key);
  if (typeof key === "string") {
    const value = db.get(collection, key);
    if (value !== undefined) return value;
  }
  throw pyKeyError(key);
}

/**
 * Python `data[collection][key]` about to be changed: the episode's own copy of the record, or
 * `KeyError(key)`. Read-only checks should use {@link pyCollectionGet}, so nothing is copied on a
 * path that fails.
 */
export function pyCollectionGetMutable(db: PyCollectionStore, collection: string, key: PyValue | undefined): PyDict {
  pyCollectionGet(db, collection, key);
  return db.mutable(collection, key as string);
}
