/**
 * Environments share the loaded database record by record (copied on lookup) and hash it
 * incrementally; both must be invisible: the hash equals τ²'s full `json.dumps(sort_keys=True)`
 * after any change, environments never see each other's writes, and a tool that mutated a shared
 * record reached by iteration fails loudly instead of corrupting every environment.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { derivedCacheKey } from "../../src/data/derived-cache.ts";
import { describe, expect, it } from "vitest";
import { databaseHash, databaseHashText, prepareShared, sameJson, sealShared, shareDatabase, SharedRecordMap, updateSharedDatabase } from "../../src/suites/tau2/engine/shared-records.ts";
import { loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import { PyFloat, PyModel, type PyDict, type PyValue, pyDeepCopy, pyJsonDumps, pyJsonDumpsSortedKeys, pyModelSchema, pyModelUpdate, pyModelValidate, pyRepr, pyT } from "../../src/value/index.ts";
import { tau2BankingKnowledgeDomain } from "../../domains/tau2-banking-knowledge/index.ts";
import { FIXTURE_DOMAINS, fixtureTasks } from "./domains.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";

const recordModel = pyModelSchema("Record", [
  ["name", pyT.str],
  ["amount", pyT.float],
  ["tags", pyT.list(pyT.str)],
]);
const dbModel = pyModelSchema("Db", [
  ["records", pyT.dict(pyT.model(() => recordModel))],
  ["counter", pyT.int],
]);

function loaded(cacheKey?: string) {
  const records: PyDict = new Map();
  for (let index = 0; index < 5000; index++)
    records.set(
      `r${String(index).padStart(3, "0")}`,
      new Map<string, PyValue>([
        ["name", `n${index}`],
        ["amount", new PyFloat(index)],
        ["tags", ["a"]],
      ]),
    );
  const db = pyModelValidate(
    dbModel,
    new Map<string, PyValue>([
      ["records", records],
      ["counter", 1],
    ]),
  );
  prepareShared(db, cacheKey);
  return db;
}

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

describe("shared τ² databases", () => {
  it("hash text equals the full sorted-keys dump after lookups, edits, additions and deletions", () => {
    const base = loaded();
    const environment = shareDatabase(base);
    const records = environment.get("records") as SharedRecordMap;
    expect(records).toBeInstanceOf(SharedRecordMap);
    expect(databaseHashText(environment)).toBe(pyJsonDumpsSortedKeys(pyDeepCopy(environment)));
    (records.get("r010") as PyDict).set("amount", 7); // an int where a float was: the text must change
    records.get("r020"); // looked up, unchanged
    expect(sha(databaseHashText(environment))).toBe(sha(pyJsonDumpsSortedKeys(pyDeepCopy(environment))));
    records.set(
      "r999",
      new Map<string, PyValue>([
        ["name", "new"],
        ["amount", new PyFloat(1.5)],
        ["tags", []],
      ]),
    );
    records.delete("r001");
    environment.set("counter", 2);
    expect(databaseHashText(environment)).toBe(pyJsonDumpsSortedKeys(pyDeepCopy(environment)));
    expect(databaseHash(environment)).toBe(sha(pyJsonDumpsSortedKeys(pyDeepCopy(environment))));
  });

  it("the checkpointed, memoized hash equals SHA-256 of the full text for every kind of change", () => {
    const base = loaded();
    expect(databaseHash(shareDatabase(base))).toBe(sha(pyJsonDumpsSortedKeys(base)));
    for (const key of ["r000", "r025", "r2500", "r4999"]) {
      for (let round = 0; round < 2; round++) {
        // twice: the second time the digest comes from the memo of identical changes
        const environment = shareDatabase(base);
        ((environment.get("records") as SharedRecordMap).get(key) as PyDict).set("name", `changed ${key}`);
        expect(databaseHash(environment)).toBe(sha(pyJsonDumpsSortedKeys(pyDeepCopy(environment))));
      }
    }
    const grown = shareDatabase(base);
    (grown.get("records") as SharedRecordMap).set(
      "r0005",
      new Map<string, PyValue>([
        ["name", "inserted"],
        ["amount", new PyFloat(2)],
        ["tags", []],
      ]),
    );
    expect(databaseHash(grown)).toBe(sha(pyJsonDumpsSortedKeys(pyDeepCopy(grown))));
  });

  it("places each changed record at its own place among the loaded pieces, whatever else the environment owns", () => {
    const base = loaded();
    const environment = shareDatabase(base);
    const records = environment.get("records") as SharedRecordMap;
    (records.get("r4999") as PyDict).set("tags", ["b"]); // the last piece
    records.get("r1000"); // owned, unchanged: the loaded piece
    records.set("r000", pyDeepCopy(base.get("records") as PyDict).get("r001") as PyValue); // the first piece, assigned another record's value
    (records.get("r2500") as PyDict).set("amount", new PyFloat(-0)); // -0.0 prints apart from 0.0
    records.set("r3000", pyDeepCopy((base.get("records") as PyDict).get("r3000") as PyValue)); // assigned an equal copy
    const full = pyJsonDumpsSortedKeys(pyDeepCopy(environment));
    expect(full).toContain('"r000": {"amount": 1.0, "name": "n1", "tags": ["a"]}');
    expect(databaseHashText(environment)).toBe(full);
    expect(databaseHash(environment)).toBe(sha(full));
    expect(databaseHash(shareDatabase(base))).toBe(sha(pyJsonDumpsSortedKeys(base)));
  });

  it("reuses the loaded text only for equal values: list fields item by item, records a tool only read", () => {
    const listModel = pyModelSchema("ListDb", [
      ["items", pyT.list(pyT.model(() => recordModel))],
      ["records", pyT.dict(pyT.model(() => recordModel))],
    ]);
    const item = (name: string, amount: PyValue) =>
      new Map<string, PyValue>([
        ["name", name],
        ["amount", amount],
        ["tags", ["t"]],
      ]);
    const base = pyModelValidate(
      listModel,
      new Map<string, PyValue>([
        ["items", [item("a", new PyFloat(1)), item("b", new PyFloat(2)), item("c", new PyFloat(-0))]],
        ["records", new Map([["k", item("k", new PyFloat(3))]])],
      ]),
    );
    prepareShared(base);
    const full = (db: PyDict) => sha(pyJsonDumpsSortedKeys(pyDeepCopy(db)));
    const changes: Array<(db: PyDict) => void> = [
      () => undefined,
      (db) => (db.get("records") as SharedRecordMap).get("k"), // read only: copied in, unchanged
      (db) => ((db.get("items") as PyValue[])[1] as PyDict).set("amount", 2), // an int where a float was
      (db) => ((db.get("items") as PyValue[])[2] as PyDict).set("amount", new PyFloat(0)), // 0.0 where -0.0 was
      (db) => (db.get("items") as PyValue[]).pop(),
      (db) => (db.get("items") as PyValue[]).push(item("d", new PyFloat(4))),
      (db) => (((db.get("records") as SharedRecordMap).get("k") as PyDict).get("tags") as PyValue[]).push("u"),
    ];
    for (const change of changes) {
      const environment = shareDatabase(base);
      change(environment);
      expect(databaseHash(environment)).toBe(full(environment));
      expect(databaseHashText(environment)).toBe(pyJsonDumpsSortedKeys(pyDeepCopy(environment)));
    }
  });

  it("sameJson: true only for values with one sorted-keys text", () => {
    const dict = (entries: Array<[string, PyValue]>) => new Map<string, PyValue>(entries);
    expect(
      sameJson(
        dict([
          ["a", 1],
          ["b", [new PyFloat(1.5), null]],
        ]),
        dict([
          ["b", [new PyFloat(1.5), null]],
          ["a", 1],
        ]),
      ),
    ).toBe(true);
    expect(sameJson(new PyFloat(Number.NaN), new PyFloat(Number.NaN))).toBe(true);
    expect(sameJson(1, new PyFloat(1))).toBe(false);
    expect(sameJson(new PyFloat(0), new PyFloat(-0))).toBe(false);
    expect(sameJson([1, 2], [1, 2, 3])).toBe(false);
    expect(sameJson(dict([["a", 1]]), dict([["b", 1]]))).toBe(false);
    expect(sameJson(dict([["a", "x"]]), dict([["a", "y"]]))).toBe(false);
    expect(sameJson(true, 1)).toBe(false);
  });

  it("takes a record dict's hash texts from the derived cache when the database has a key, and ignores a damaged entry", () => {
    const previous = process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
    const folder = mkdtempSync(join(tmpdir(), "tau2-record-index-"));
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = folder;
    try {
      const change = (environment: PyDict) => ((environment.get("records") as SharedRecordMap).get("r042") as PyDict).set("name", "changed");
      const expected = (() => {
        const environment = shareDatabase(loaded());
        change(environment);
        return sha(pyJsonDumpsSortedKeys(pyDeepCopy(environment)));
      })();
      const keyed = () => {
        const environment = shareDatabase(loaded(derivedCacheKey("the database file's sha256", "schema")));
        change(environment);
        return databaseHash(environment);
      };
      expect(keyed()).toBe(expected); // a miss: rendered, then stored
      const kind = join(folder, "tau2-record-index-v1");
      expect(readdirSync(kind)).toHaveLength(1);
      expect(keyed()).toBe(expected); // a hit
      const [entry] = readdirSync(kind);
      const stored = readFileSync(join(kind, entry), "utf8");
      const damaged = stored.replace('n1\\"', 'n7\\"');
      expect(damaged).not.toBe(stored);
      writeFileSync(join(kind, entry), damaged);
      expect(keyed()).toBe(expected); // damaged: ignored and rendered again
    } finally {
      if (previous === undefined) delete process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
      else process.env.TAUBRIDGE_DERIVED_CACHE_DIR = previous;
    }
  });

  it("keeps environments apart and the loaded database untouched", () => {
    const base = loaded();
    const before = pyJsonDumpsSortedKeys(base);
    const first = shareDatabase(base);
    const second = shareDatabase(base);
    ((first.get("records") as SharedRecordMap).get("r005") as PyDict).set("name", "changed");
    (((first.get("records") as SharedRecordMap).get("r006") as PyDict).get("tags") as PyValue[]).push("b");
    expect(((second.get("records") as SharedRecordMap).get("r005") as PyDict).get("name")).toBe("n5");
    expect(pyJsonDumpsSortedKeys(base)).toBe(before);
  });

  it("refuses in-place changes to a shared record reached by iteration", () => {
    const environment = shareDatabase(loaded());
    const [first] = (environment.get("records") as SharedRecordMap).values();
    expect(() => (first as PyDict).set("name", "x")).toThrow(/shared by every environment/);
    expect(() => ((first as PyDict).get("tags") as PyValue[]).push("x")).toThrow(TypeError);
  });

  it("a record dict filled lazily behaves as a Python dict copy in every order of lookups, writes and iteration", () => {
    const base: PyDict = new Map<string, PyValue>(["a", "b", "c", "d"].map((key) => [key, new Map<string, PyValue>([["v", key]])]));
    for (const value of base.values()) sealShared(value);
    /** What a plain dict copy gives for the same operations, in the same order. */
    const plain = () => new Map<string, PyValue>([...base].map(([key, value]) => [key, pyDeepCopy(value)]));
    const scripts: Array<(map: Map<string, PyValue>) => void> = [
      (map) => (map.get("c") as PyDict).set("v", "changed"),
      (map) => map.set("b", "assigned"),
      (map) => {
        (map.get("d") as PyDict).set("v", "x");
        map.set("e", "added");
        map.set("a", "again");
      },
      (map) => {
        map.get("b");
        map.delete("b");
        map.set("b", "back at the end");
      },
      (map) => {
        map.set("c", "first");
        map.clear();
        map.set("z", "only");
      },
    ];
    for (const script of scripts) {
      const shared = new SharedRecordMap(base);
      const expected = plain();
      script(shared);
      script(expected);
      expect(shared.size).toBe(expected.size);
      expect(["a", "b", "c", "d", "e", "z"].map((key) => shared.has(key))).toEqual(["a", "b", "c", "d", "e", "z"].map((key) => expected.has(key)));
      // Sizes and lookups answered before filling, then the order once iterated.
      expect(pyJsonDumps(shared)).toBe(pyJsonDumps(expected));
      expect([...shared.keys()]).toEqual([...expected.keys()]);
    }
    expect(pyJsonDumps(base)).toBe('{"a": {"v": "a"}, "b": {"v": "b"}, "c": {"v": "c"}, "d": {"v": "d"}}');
    const untouched = new SharedRecordMap(base);
    expect(untouched.size).toBe(4);
    expect(untouched.owned.size).toBe(0);
    expect(untouched.get("a")).not.toBe(base.get("a"));
    expect([...untouched.values()][1]).toBe(base.get("b"));
  });

  it("update_db keeps untouched fields shared and gives what the full dump-merge-validate gives", () => {
    const base = loaded();
    const patch = new Map<string, PyValue>([["counter", new PyFloat(3)]]); // lax: 3.0 into an int field becomes 3
    const updated = updateSharedDatabase(shareDatabase(base), patch);
    const full = pyModelUpdate(shareDatabase(base), patch);
    expect(updated.get("records")).toBeInstanceOf(SharedRecordMap);
    expect(updated.get("counter")).toBe(3);
    expect(pyJsonDumps(updated)).toBe(pyJsonDumps(full));
    expect(databaseHash(updated)).toBe(sha(pyJsonDumpsSortedKeys(full)));
    expect(((updated.get("records") as SharedRecordMap).get("r001") as PyModel).schema).toBe(recordModel);
    // A patch into the record dict: that field is merged and validated, the hash still resumes from the shared texts.
    const recordPatch = new Map<string, PyValue>([["records", new Map<string, PyValue>([["r002", new Map<string, PyValue>([["amount", 5]])]])]]);
    const merged = updateSharedDatabase(shareDatabase(base), recordPatch);
    const mergedFull = pyModelUpdate(shareDatabase(base), recordPatch);
    expect(pyJsonDumps(merged)).toBe(pyJsonDumps(mergedFull));
    expect(databaseHash(merged)).toBe(sha(pyJsonDumpsSortedKeys(mergedFull)));
  });

  it("update_db on a touched database, an invalid patch or an unknown key behaves as the full update", () => {
    const base = loaded();
    const touched = shareDatabase(base);
    ((touched.get("records") as SharedRecordMap).get("r003") as PyDict).set("amount", "not a number"); // assignments are not validated
    const patch = new Map<string, PyValue>([["counter", 4]]);
    const error = (run: () => unknown) => {
      try {
        run();
      } catch (caught) {
        return (caught as Error).message;
      }
      return "no error";
    };
    expect(error(() => updateSharedDatabase(touched, patch))).toMatch(/1 validation error for Db\nrecords.r003.amount/);
    expect(error(() => updateSharedDatabase(shareDatabase(base), patch))).toBe("no error");
    const invalid = new Map<string, PyValue>([["counter", "x"]]);
    expect(error(() => updateSharedDatabase(shareDatabase(base), invalid))).toBe(error(() => pyModelUpdate(shareDatabase(base), invalid)));
    const unknown = new Map<string, PyValue>([["other", 1]]);
    expect(pyRepr(updateSharedDatabase(shareDatabase(base), unknown))).toBe(pyRepr(pyModelUpdate(shareDatabase(base), unknown)));
  });
});

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

describe.skipIf(!data)("update_db on τ³ banking's tasks", () => {
  it("gives every task's initialization data the full update's database, text and hash", () => {
    const [, , tasksFile, config] = FIXTURE_DOMAINS.find(([name]) => name === "banking_knowledge")!;
    const domain = loadTau2Domain(tau2BankingKnowledgeDomain, data as string, config);
    const tasks = [...fixtureTasks(data as string, tau2BankingKnowledgeDomain, tasksFile).values()].filter((task) => task.initial_state?.initialization_data?.agent_data);
    expect(tasks.length).toBeGreaterThan(10);
    for (const task of tasks) {
      const patch = task.initial_state!.initialization_data!.agent_data as PyDict;
      const fast = updateSharedDatabase(domain.createEnvironment({ task }).agent.db, patch);
      const full = pyModelUpdate(domain.createEnvironment({ task }).agent.db, patch);
      expect(pyJsonDumps(fast), task.id).toBe(pyJsonDumps(full));
      expect(databaseHash(fast), task.id).toBe(sha(pyJsonDumpsSortedKeys(full)));
      expect(
        [...fast.values()].some((table) => table instanceof PyModel && table.get("data") instanceof SharedRecordMap),
        task.id,
      ).toBe(true);
    }
  });
});
