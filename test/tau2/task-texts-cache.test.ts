/**
 * A τ² results file's task list is printed from each task's text kept in the derived cache under
 * the task file's SHA-256 (`prepareTau2TaskTexts` in `src/suites/tau2/codec.ts`): the same text as a
 * fresh print, each run adding the tasks it printed, an entry of another shape ignored. Each test
 * has a cache folder of its own.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { derivedCacheKey, readDerived, writeDerived } from "../../src/data/derived-cache.ts";
import { TAU2_TASK_TEXTS_KIND, prepareTau2TaskTexts, resultsText } from "../../src/suites/tau2/codec.ts";
import { loadTau2TaskSet } from "../../src/suites/tau2/task-sets.ts";
import { rawTau2Task } from "../../src/suites/tau2/tasks.ts";
import { pyJsonDumpsIndented } from "../../src/value/index.ts";
import { useFreshDerivedCache } from "../support/fresh-derived-cache.ts";

const task = (id: string, instructions = `task ${id}: "é" 2.0`) => ({
  id,
  user_scenario: { instructions },
  evaluation_criteria: { reward_basis: ["DB"], actions: [{ action_id: "x", name: "f", arguments: { amount: 2.5, n: 1 } }] },
});

function dataRoot(entries: unknown[]): string {
  const root = mkdtempSync(join(tmpdir(), "taubridge-task-texts-"));
  mkdirSync(join(root, "mock"));
  writeFileSync(join(root, "mock", "tasks.json"), JSON.stringify(entries, null, 2));
  return root;
}

const select = (root: string, taskIds?: string[]) => loadTau2TaskSet(root, { taskSetName: "mock", split: null, ...(taskIds ? { taskIds } : {}) });
const rawTasks = (root: string, taskIds?: string[]) => select(root, taskIds).tasks.map((one) => rawTau2Task(one)!);
const documentOf = (tasks: ReturnType<typeof rawTasks>) => ({ timestamp: "t", info: {}, tasks, simulations: [], taubridge: {} });
const fresh = (tasks: ReturnType<typeof rawTasks>) =>
  pyJsonDumpsIndented({ timestamp: "t", info: {}, tasks, simulations: [], simulation_index: null, taubridge: { schemaVersion: 2, suite: "tau2-bench" } });

describe("τ² results task texts in the derived cache", () => {
  useFreshDerivedCache("tau2-task-texts-cache-");

  it("prints the task list as a fresh print does, with and without an entry, and stores each task it printed", () => {
    const root = dataRoot([task("a"), task("b"), task("c")]);
    const key = derivedCacheKey(select(root).fileSha256!);
    const some = rawTasks(root, ["c", "a"]);
    prepareTau2TaskTexts(some, select(root).fileSha256);
    expect(resultsText(documentOf(some))).toBe(fresh(some));
    expect(Object.keys(readDerived(TAU2_TASK_TEXTS_KIND, key) as object).sort()).toEqual(["a", "c"]);
    const all = rawTasks(root);
    prepareTau2TaskTexts(all, select(root).fileSha256);
    expect(resultsText(documentOf(all))).toBe(fresh(all));
    expect(readDerived(TAU2_TASK_TEXTS_KIND, key)).toEqual(Object.fromEntries(all.map((raw) => [raw.get("id"), pyJsonDumpsIndented(raw, 2, 2)])));
  });

  it("answers from the entry of the file's bytes, and ignores an entry of another shape", () => {
    const root = dataRoot([task("a"), task("b")]);
    const sha256 = select(root).fileSha256!;
    const key = derivedCacheKey(sha256);
    // A stored text is used as it is (the entry is the file's, by its key): here one that differs, to see it used.
    writeDerived(TAU2_TASK_TEXTS_KIND, key, { a: '{"stored": true}' });
    const tasks = rawTasks(root);
    prepareTau2TaskTexts(tasks, sha256);
    expect(resultsText(documentOf(tasks))).toContain('{"stored": true}');
    writeDerived(TAU2_TASK_TEXTS_KIND, key, { a: 3 });
    const again = rawTasks(root);
    prepareTau2TaskTexts(again, sha256);
    expect(resultsText(documentOf(again))).toBe(fresh(again));
    // No file to key by (τ³'s task folder): printed when first written, as before.
    const unkeyed = rawTasks(root);
    prepareTau2TaskTexts(unkeyed, undefined);
    expect(resultsText(documentOf(unkeyed))).toBe(fresh(unkeyed));
  });
});
