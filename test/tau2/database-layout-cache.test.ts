/**
 * A τ² JSON database validated record by record on first use (`src/suites/tau2/engine/database-layout.ts`),
 * once the same bytes were validated whole under the same model: the same database as a whole
 * validation (values, classes, key order, hash text), its records sealed as loaded records are,
 * and a cache entry that does not fit the text is not used. Each test has a cache folder of its own.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { derivedCacheKey, writeDerived } from "../../src/data/derived-cache.ts";
import { lazyValidatedDatabase, rememberDatabaseLayout } from "../../src/suites/tau2/engine/database-layout.ts";
import { readDatabase } from "../../src/suites/tau2/engine/domain.ts";
import { databaseHashText, prepareShared, shareDatabase } from "../../src/suites/tau2/engine/shared-records.ts";
import { PyFloat, PyModel, type PyDict, type PyModelSchema, pyJsonDumps, pyModelSchema, pyModelSchemaFingerprint, pyT } from "../../src/value/index.ts";
import { tau2AirlineDomain } from "../../domains/tau2-airline/index.ts";
import { tau2RetailDomain } from "../../domains/tau2-retail/index.ts";
import { useFreshDerivedCache } from "../support/fresh-derived-cache.ts";
import { tau2BenchDirectory } from "../support/shared-data.ts";

const item = pyModelSchema(
  "Item",
  [
    ["name", pyT.str],
    ["price", pyT.float],
    ["tags", pyT.list(pyT.str), () => []],
  ],
  "forbid",
);
const schema = pyModelSchema(
  "Db",
  [
    ["items", pyT.dict(pyT.model(() => item))],
    ["meta", pyT.dict(pyT.any)],
    ["note", pyT.str, () => "none"],
  ],
  "forbid",
);

// Integer-like keys (a JS object would reorder them), a float written as an int, a repeated key (its first place, its last value), non-ASCII text.
const TEXT = `{
  "meta": {"b": 1, "a": [2.0, "x"]},
  "items": {
    "20": {"name": "twenty", "price": 3},
    "3": {"name": "thr\\u00e9e", "price": 2.50, "tags": ["é"]},
    "x": {"name": "first", "price": 1.0},
    "x": {"name": "last", "price": 1.5}
  }
}`;

function writeDatabase(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "taubridge-layout-")), "db.json");
  writeFileSync(path, text);
  return path;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The lazy database of a file, after a whole validation remembered its layout. */
function lazyAfterWhole(path: string, dbSchema: PyModelSchema): { eager: PyModel; lazy: PyModel | undefined; text: string } {
  const text = readFileSync(path, "utf8");
  const eager = readDatabase(path, dbSchema);
  rememberDatabaseLayout(text, dbSchema, sha256(text));
  return { eager, lazy: lazyValidatedDatabase(text, path, dbSchema, sha256(text)), text };
}

describe("τ² databases validated record by record after a whole validation", () => {
  useFreshDerivedCache("tau2-layout-cache-");

  it("is not used before the file was validated whole", () => {
    const path = writeDatabase(TEXT);
    expect(lazyValidatedDatabase(TEXT, path, schema, sha256(TEXT))).toBeUndefined();
  });

  it("gives the database a whole validation gives: values, classes, key order, hash text", () => {
    const { eager, lazy } = lazyAfterWhole(writeDatabase(TEXT), schema);
    expect(lazy).toBeInstanceOf(PyModel);
    const db = lazy as PyModel;
    expect([...db.keys()]).toEqual([...eager.keys()]);
    expect([...(db.get("items") as PyDict).keys()]).toEqual(["20", "3", "x"]);
    expect(pyJsonDumps(db)).toBe(pyJsonDumps(eager));
    const record = (db.get("items") as PyDict).get("20") as PyModel;
    expect(record).toBeInstanceOf(PyModel);
    expect(record.schema).toBe(item);
    expect(record.get("price")).toBeInstanceOf(PyFloat);
    expect(db.get("note")).toBe("none");
    prepareShared(eager);
    prepareShared(db);
    expect(databaseHashText(shareDatabase(db))).toBe(databaseHashText(shareDatabase(eager)));
  });

  it("seals each record it builds, as a loaded record is sealed", () => {
    const { lazy } = lazyAfterWhole(writeDatabase(TEXT), schema);
    const record = ((lazy as PyModel).get("items") as PyDict).get("3") as PyModel;
    expect(() => record.set("name", "changed")).toThrow(TypeError);
    // An environment's copy is its own to change.
    const environment = shareDatabase(lazy as PyModel);
    const copy = (environment.get("items") as PyDict).get("3") as PyModel;
    copy.set("name", "changed");
    expect(copy.get("name")).toBe("changed");
  });

  it("keeps nothing with the cache turned off", () => {
    const path = writeDatabase(TEXT);
    const cacheDir = process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = "off";
    rememberDatabaseLayout(TEXT, schema, sha256(TEXT));
    expect(lazyValidatedDatabase(TEXT, path, schema, sha256(TEXT))).toBeUndefined();
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = cacheDir;
    expect(lazyValidatedDatabase(TEXT, path, schema, sha256(TEXT))).toBeUndefined();
  });

  it("does not use an entry that does not fit the text", () => {
    const path = writeDatabase(TEXT);
    const key = derivedCacheKey(sha256(TEXT), pyModelSchemaFingerprint(schema));
    writeDerived("tau2-database-layout-v1", key, { length: TEXT.length + 1, fields: [], records: {} });
    expect(lazyValidatedDatabase(TEXT, path, schema, sha256(TEXT))).toBeUndefined();
    writeDerived("tau2-database-layout-v1", key, { length: TEXT.length, fields: [["items", 5, 2]], records: {} });
    expect(lazyValidatedDatabase(TEXT, path, schema, sha256(TEXT))).toBeUndefined();
    // Spans inside the text that are not the fields' values: a whole validation instead.
    writeDerived("tau2-database-layout-v1", key, { length: TEXT.length, fields: [["meta", 0, 3]], records: {} });
    expect(lazyValidatedDatabase(TEXT, path, schema, sha256(TEXT))).toBeUndefined();
  });

  it.skipIf(!tau2BenchDirectory)("gives τ²'s retail and airline databases exactly as a whole validation does", () => {
    for (const definition of [tau2RetailDomain, tau2AirlineDomain]) {
      const path = join(tau2BenchDirectory as string, definition.folder, definition.databases.agent.file);
      const { eager, lazy } = lazyAfterWhole(path, definition.databases.agent.schema);
      expect(lazy).toBeInstanceOf(PyModel);
      expect(pyJsonDumps(lazy as PyModel)).toBe(pyJsonDumps(eager));
      prepareShared(eager);
      prepareShared(lazy as PyModel);
      expect(databaseHashText(shareDatabase(lazy as PyModel))).toBe(databaseHashText(shareDatabase(eager)));
    }
  });
});
