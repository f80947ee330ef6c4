/**
 * A τ² TOML database's values come from the derived cache (their Python JSON text, under the file's
 * SHA-256) after the first read (`cachedTomlToPython` in `src/suites/tau2/engine/domain.ts`): the
 * same values, ints and floats, key order and dates, as parsing the TOML. Each test has a cache
 * folder of its own.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { derivedCacheKey, writeDerived } from "../../src/data/derived-cache.ts";
import { readDatabase } from "../../src/suites/tau2/engine/domain.ts";
import { databaseHashText } from "../../src/suites/tau2/engine/shared-records.ts";
import { PyFloat, pyJsonDumps, pyModelSchema, pyT } from "../../src/value/index.ts";
import { tau2TelecomDomain } from "../../domains/tau2-telecom/index.ts";
import { useFreshDerivedCache } from "../support/fresh-derived-cache.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

const TOML = `name = "x"
amount = 2.0
count = 2
big = 123456789012345678901234567890
ratio = 1e300
nan = nan
when = 2024-05-01T10:00:00Z

[nested]
b = 1
a = [1, 2.5, "three"]

[[items]]
id = "i1"
price = 9.99
`;

const schema = pyModelSchema("Loose", [
  ["name", pyT.str],
  ["amount", pyT.any],
  ["count", pyT.any],
  ["big", pyT.any],
  ["ratio", pyT.any],
  ["nan", pyT.any],
  ["when", pyT.any],
  ["nested", pyT.any],
  ["items", pyT.any],
]);

describe("τ² TOML databases through the derived cache", () => {
  useFreshDerivedCache("tau2-toml-cache-");

  it("reads the same values on a miss, on a hit and with the cache off", () => {
    const path = join(mkdtempSync(join(tmpdir(), "taubridge-toml-")), "db.toml");
    writeFileSync(path, TOML);
    const miss = readDatabase(path, schema);
    expect(readdirSync(join(process.env.TAUBRIDGE_DERIVED_CACHE_DIR as string, "tau2-toml-values-v1"))).toHaveLength(1);
    const hit = readDatabase(path, schema);
    const cacheDir = process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = "off";
    const off = readDatabase(path, schema);
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = cacheDir;
    for (const db of [miss, hit]) {
      expect(pyJsonDumps(db)).toBe(pyJsonDumps(off));
      expect(db.get("amount")).toBeInstanceOf(PyFloat);
      expect(db.get("count")).toBe(2);
      expect(db.get("big")).toBe(123456789012345678901234567890n);
      expect([...(db.get("nested") as Map<string, unknown>).keys()]).toEqual(["b", "a"]);
    }
  });

  it("reads the TOML itself when the cache's entry is not the values' JSON", () => {
    const path = join(mkdtempSync(join(tmpdir(), "taubridge-toml-")), "db.toml");
    writeFileSync(path, TOML);
    const expected = pyJsonDumps(readDatabase(path, schema));
    writeDerived("tau2-toml-values-v1", derivedCacheKey(createHash("sha256").update(TOML).digest("hex")), "{ not the values");
    expect(pyJsonDumps(readDatabase(path, schema))).toBe(expected);
  });

  it.skipIf(!data)("gives telecom's databases the same hash texts from the cache", () => {
    const { agent, user } = tau2TelecomDomain.databases;
    for (const { file, schema: model } of [agent, user!]) {
      const path = join(data as string, "telecom", file);
      const cacheDir = process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
      process.env.TAUBRIDGE_DERIVED_CACHE_DIR = "off";
      const expected = databaseHashText(readDatabase(path, model));
      process.env.TAUBRIDGE_DERIVED_CACHE_DIR = cacheDir;
      expect(databaseHashText(readDatabase(path, model))).toBe(expected);
      expect(databaseHashText(readDatabase(path, model))).toBe(expected);
    }
  });
});
