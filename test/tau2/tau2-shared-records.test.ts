/**
 * Environments share the loaded database record by record (copied on lookup) and hash it
 * incrementally; both must be invisible: the hash equals τ²'s full `json.dumps(sort_keys=True)`
 * after any change, environments never see each other's writes, and a tool that mutated a shared
 * record reached by iteration fails loudly instead of corrupting every environment.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { databaseHash, databaseHashText, prepareShared, shareDatabase, SharedRecordMap } from "../../src/suites/tau2/engine/shared-records.ts";
import { PyFloat, type PyDict, type PyValue, pyDeepCopy, pyJsonDumpsSortedKeys, pyModelSchema, pyModelValidate, pyT } from "../../src/value/index.ts";

const recordModel = pyModelSchema("Record", [
  ["name", pyT.str],
  ["amount", pyT.float],
  ["tags", pyT.list(pyT.str)],
]);
const dbModel = pyModelSchema("Db", [
  ["records", pyT.dict(pyT.model(() => recordModel))],
  ["counter", pyT.int],
]);

function loaded() {
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
  prepareShared(db);
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
});
