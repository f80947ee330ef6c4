import { describe, expect, it } from "vitest";
import { DataError } from "../src/errors/error-tree.ts";
import { parseTaskFile, selectTaskIndices } from "../src/suites/tau-bench/tasks.ts";
import { PyFloat } from "../src/value/index.ts";

const valid = {
  user_id: "u1",
  actions: [{ name: "pay", kwargs: { amount: 100.0, count: 2 } }],
  instruction: "Pay the bill.",
  outputs: ["done"],
  annotator: "0",
};

describe("task files", () => {
  it("loads tasks and keeps Python number types in kwargs", () => {
    const text = JSON.stringify([valid]).replace('"amount":100', '"amount":100.0');
    const [task] = parseTaskFile(text, "tasks.json");
    expect(task.actions[0].kwargs.get("amount")).toEqual(new PyFloat(100));
    expect(task.actions[0].kwargs.get("count")).toBe(2);
    expect(task.annotator).toBe("0");
  });

  it("names the file, the task index and the field of a malformed task", () => {
    const broken = [valid, { ...valid, actions: [{ name: "pay", kwargs: "nope" }] }];
    expect(() => parseTaskFile(JSON.stringify(broken), "my-tasks.json")).toThrow(DataError);
    expect(() => parseTaskFile(JSON.stringify(broken), "my-tasks.json")).toThrow(/^my-tasks\.json: task 1: field actions\[0\]\.kwargs: /);
  });

  it("names a missing field", () => {
    const { instruction: _dropped, ...missing } = valid;
    expect(() => parseTaskFile(JSON.stringify([missing]), "t.json")).toThrow(/t\.json: task 0: field instruction:/);
  });

  it("reports JSON syntax errors with their position", () => {
    expect(() => parseTaskFile('[{"user_id": }]', "bad.json")).toThrow(/bad\.json: invalid JSON: Expecting value at line 1 column 14/);
  });

  it("rejects a non-array file", () => {
    expect(() => parseTaskFile("{}", "obj.json")).toThrow(/obj\.json: expected a JSON array/);
  });
});

describe("task selection (run.py semantics)", () => {
  it("uses the range with -1 meaning all and clamps the end", () => {
    expect(selectTaskIndices(5, {})).toEqual([0, 1, 2, 3, 4]);
    expect(selectTaskIndices(5, { startIndex: 2, endIndex: 99 })).toEqual([2, 3, 4]);
  });
  it("lets explicit ids win and rejects out-of-range ids", () => {
    expect(selectTaskIndices(5, { taskIds: [4, 1], startIndex: 3 })).toEqual([4, 1]);
    expect(() => selectTaskIndices(5, { taskIds: [5] })).toThrow(/task id 5 is out of range: the split has 5 tasks/);
  });
});

describe("ground-truth actions are checked against the domain's tools", () => {
  it("names the file, the task and the field of an action whose tool the domain does not have", async () => {
    const { loadDomain } = await import("../src/suites/tau-bench/engine/domain.ts");
    const { libraryDomain } = await import("../domains/library/index.ts");
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const domain = loadDomain(libraryDomain, undefined);
    const file = join(mkdtempSync(join(tmpdir(), "taubridge-tasks-")), "tasks.json");
    const good = {
      user_id: "u",
      actions: [
        { name: "get_member_details", kwargs: { member_id: "x" } },
        { name: "respond", kwargs: { content: "hi" } },
      ],
      instruction: "i",
      outputs: [],
    };
    const bad = { ...good, actions: [good.actions[0], { name: "refund_everything", kwargs: {} }] };
    writeFileSync(file, JSON.stringify([good, bad]));
    expect(() => domain.tasksFromFile(file)).toThrow(DataError);
    expect(() => domain.tasksFromFile(file)).toThrow(`${file}: task 1: field actions[1].name: "refund_everything" is not a tool of library (known: `);
    writeFileSync(file, JSON.stringify([good]));
    expect(domain.tasksFromFile(file)).toHaveLength(1);
  });
});
