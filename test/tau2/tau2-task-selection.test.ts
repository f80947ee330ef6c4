/**
 * Choosing a τ² run's tasks (`loadTau2TaskSet`): split, then ids, then count, in file order, with
 * only the selected tasks parsed and validated; and the same tasks as a whole-file read gives.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTau2TaskSet } from "../../src/suites/tau2/task-sets.ts";
import { rawTau2Task, readTau2Splits, readTau2Tasks } from "../../src/suites/tau2/tasks.ts";
import { tau2Quick } from "../../src/suites/tau2/task-schemas.ts";
import { readPythonJsonFile } from "../../src/data/data-files.ts";
import { UNSURE } from "../../src/data/quick-shapes.ts";
import { pyJsonDumps, toJs } from "../../src/value/index.ts";
import { tau2BenchDirectory } from "../support/shared-data.ts";

const task = (id: string) => ({ id, user_scenario: { instructions: `task ${id}` } });

/** A data root whose mock task file holds these entries and splits. */
function dataRoot(entries: unknown[], splits?: Record<string, string[]>): string {
  const root = mkdtempSync(join(tmpdir(), "taubridge-task-sets-"));
  mkdirSync(join(root, "mock"));
  writeFileSync(join(root, "mock", "tasks.json"), JSON.stringify(entries, null, 2));
  if (splits) writeFileSync(join(root, "mock", "split_tasks.json"), JSON.stringify(splits));
  return root;
}

const ids = (root: string, selection: Partial<Parameters<typeof loadTau2TaskSet>[1]>) =>
  loadTau2TaskSet(root, { taskSetName: "mock", split: "base", ...selection }).tasks.map((selected) => selected.id);

describe("loadTau2TaskSet", () => {
  it("keeps the file's order through split, ids and count", () => {
    const root = dataRoot([task("a"), task("b"), task("c"), task("d")], { base: ["d", "b", "a"], other: ["c"] });
    expect(ids(root, {})).toEqual(["a", "b", "d"]);
    expect(ids(root, { taskIds: ["d", "a"] })).toEqual(["a", "d"]);
    expect(ids(root, { numTasks: 2 })).toEqual(["a", "b"]);
    expect(ids(root, { split: "other" })).toEqual(["c"]);
    expect(() => ids(root, { taskIds: ["c"] })).toThrow("task ids not in mock (split base): c");
    expect(() => ids(root, { split: "nope" })).toThrow('Invalid task split name "nope" for mock; known: base, other');
  });

  it("validates only the selected tasks: a broken task elsewhere in the file is not read", () => {
    const root = dataRoot([task("a"), { id: "broken", user_scenario: 3 }, { no_id: true }, task("c")], { base: ["a", "c"], all: ["a", "broken", "c"] });
    expect(ids(root, {})).toEqual(["a", "c"]);
    expect(() => ids(root, { split: "all" })).toThrow(`${join(root, "mock", "tasks.json")}: task "broken": field user_scenario: `);
    const noSplit = dataRoot([task("a"), { id: 7, user_scenario: { instructions: "x" } }]);
    expect(ids(noSplit, { numTasks: 1 })).toEqual(["a"]);
    expect(() => ids(noSplit, {})).toThrow(`${join(noSplit, "mock", "tasks.json")}: task 1: field id: `);
  });

  it("still refuses a file with two tasks of one id, and a file that is not valid JSON", () => {
    expect(() => ids(dataRoot([task("a"), task("b"), task("a")], { base: ["b"] }), {})).toThrow('task "a": duplicate task id');
    const root = dataRoot([task("a")], { base: ["a"] });
    writeFileSync(join(root, "mock", "tasks.json"), '[{"id": "a", "user_scenario": {"instructions": "x"}}, {"id": "b",}]');
    expect(() => ids(root, {})).toThrow(/tasks\.json: invalid JSON: Expecting property name enclosed in double quotes at line 1 column 66/);
  });

  it("reads a split file as the lossless parser reads it: keys in the same order, repeated keys, and the same errors", () => {
    const folder = mkdtempSync(join(tmpdir(), "taubridge-splits-"));
    const lossless = (path: string) => {
      const value = tau2Quick.splits(toJs(readPythonJsonFile(path)));
      return value === UNSURE ? "unsure" : value;
    };
    const texts = [
      '{"base": ["b", "a"], "test": []}',
      '{"2": ["x"], "b": ["\\u00e9\\ud800"], "1": ["y"], "10": []}', // integer-like keys first, in numeric order, as a plain object has them
      '{"a": ["1"], "b": [], "a": ["2"]}', // a repeated key: its first place, its last value
      '\ufeff{"base": ["a"]}', // a byte-order mark, which json.loads refuses
      '{"__proto__": ["a"], "base": ["b"]}',
      '{"base": [NaN]}',
      '{"base": "a"}',
      '["a"]',
      '{"base": ["a"],}',
    ];
    texts.forEach((text, index) => {
      const path = join(folder, `split_${index}.json`);
      writeFileSync(path, text);
      let expected: unknown;
      try {
        expected = lossless(path);
      } catch (error) {
        expected = error;
      }
      if (expected instanceof Error) expect(() => readTau2Splits(path), text).toThrow(expected.message);
      else if (expected === "unsure") expect(() => readTau2Splits(path), text).toThrow(/field/);
      else {
        const read = readTau2Splits(path) as Record<string, string[]>;
        expect(read, text).toEqual(expected);
        expect(Object.keys(read), text).toEqual(Object.keys(expected as object));
      }
    });
    expect(Object.keys(readTau2Splits(join(folder, "split_1.json")) as object)).toEqual(["1", "2", "10", "b"]);
    expect(readTau2Splits(join(folder, "split_2.json"))).toEqual({ a: ["2"], b: [] });
  });

  it.skipIf(!tau2BenchDirectory)("selects the same tasks, with the same raw records, as reading the whole telecom file", () => {
    const data = tau2BenchDirectory as string;
    const selected = loadTau2TaskSet(data, { taskSetName: "telecom", split: "base" });
    expect(selected.tasks).toHaveLength(114);
    const all = new Map(readTau2Tasks(join(data, "telecom", "tasks.json")).map((one) => [one.id, one]));
    for (const one of selected.tasks) {
      const whole = all.get(one.id)!;
      expect(one).toEqual(whole);
      expect(pyJsonDumps(rawTau2Task(one)!)).toBe(pyJsonDumps(rawTau2Task(whole)!));
    }
  });
});
