/**
 * Where τ²'s Python sources live in a data directory, and the per-data-root source tree both
 * extractors read through.
 */
import { join } from "node:path";
import { PythonSourceError, PythonSourceTree } from "../../../../data/python-source/modules.ts";
import type { SchemaOptions } from "../../../../data/python-source/pydantic-schema.ts";

/** What to do when a τ² source is missing or not as expected. */
export const TAU2_SOURCE_HINT = "run `taubridge data pull tau2-bench` (it fetches the τ² sources the tool schemas, prompts and tool messages are read from, at the pinned commit)";

/** The directory holding the `tau2` package of the sources: `<dataRoot>/upstream-src/src`. */
export function tau2SourceRoot(dataRoot: string): string {
  return join(dataRoot, "upstream-src", "src");
}

/**
 * τ² model bases that live in modules the data pull does not fetch (`tau2/utils`, `tau2/environment/db.py`):
 * what pydantic needs to know of them. `BaseModelNoExtra` sets `extra="forbid"` (an
 * `additionalProperties: false` in the schema); `DB` derives from it.
 */
export const TAU2_SCHEMA_OPTIONS: SchemaOptions = {
  externalModelBases: {
    "tau2.utils.pydantic_utils.BaseModelNoExtra": { extra: "forbid" },
    "tau2.environment.db.DB": { extra: "forbid" },
  },
};

/** A fresh source tree over a data root's τ² sources. */
export function tau2SourceTree(dataRoot: string): PythonSourceTree {
  return new PythonSourceTree(tau2SourceRoot(dataRoot), TAU2_SOURCE_HINT);
}

/** Throws a {@link PythonSourceError} naming the file and the symbol that is not as expected. */
export function unexpectedSource(file: string, symbol: string, reason: string): never {
  throw new PythonSourceError(`${file}: ${symbol}: ${reason} (is this τ²-bench at the pinned commit?); ${TAU2_SOURCE_HINT}`);
}
