/**
 * A τ² results file's task list is printed from its text kept in the derived cache under the task
 * file's SHA-256 and the selected ids (`prepareTau2TaskTexts` in `src/suites/tau2/codec.ts`): the
 * same text as a fresh print, one entry per selection, an entry of another shape ignored. Each test
 * has a cache folder of its own.
 */
import { describe, expect, it } from "vitest";
import { derivedCacheKey, readDerived, writeDerived } from "../../src/data/derived-cache.ts";
import { TAU2_TASK_TEXTS_KIND, prepareTau2TaskTexts, resultsText } from "../../src/suites/tau2/codec.ts";
import { rawTau2Task } from "../../src/suites/tau2/tasks.ts";
import { pyJsonDumpsIndented } from "../../src/value/index.ts";
import { useFreshDerivedCache } from "../support/fresh-derived-cache.ts";
import { mockTaskRoot, selectMockTasks } from "../support/mock-task-file.ts";

const task = (id: string, instructions = `task ${id}: "é" 2.0`) => ({
  id,
  user_scenario: { instructions },
  evaluation_criteria: { reward_basis: ["DB"], actions: [{ action_id: "x", name: "f", arguments: { amount: 2.5, n: 1 } }] },
});

const dataRoot = (entries: unknown[]) => mockTaskRoot(entries, "taubridge-task-texts-");
const select = selectMockTasks;
const rawTasks = (root: string, taskIds?: string[]) => select(root, taskIds).tasks.map((one) => rawTau2Task(one)!);
const documentOf = (tasks: ReturnType<typeof rawTasks>) => ({ timestamp: "t", info: {}, tasks, simulations: [], taubridge: {} });
const fresh = (tasks: ReturnType<typeof rawTasks>) =>
  pyJsonDumpsIndented({ timestamp: "t", info: {}, tasks, simulations: [], simulation_index: null, taubridge: { schemaVersion: 2, suite: "tau2-bench" } });

describe("τ² results task texts in the derived cache", () => {
  useFreshDerivedCache("tau2-task-texts-cache-");

  const keyOf = (sha256: string, tasks: ReturnType<typeof rawTasks>) => derivedCacheKey(sha256, ...tasks.map((raw) => raw.get("id") as string));

  it("prints the task list as a fresh print does, with and without an entry, one entry per selection", () => {
    const root = dataRoot([task("a"), task("b"), task("c")]);
    const sha256 = select(root).fileSha256!;
    const some = rawTasks(root, ["c", "a"]);
    prepareTau2TaskTexts(some, sha256);
    expect(resultsText(documentOf(some))).toBe(fresh(some));
    expect(readDerived(TAU2_TASK_TEXTS_KIND, keyOf(sha256, some))).toBe(pyJsonDumpsIndented(some, 2, 1));
    const all = rawTasks(root);
    prepareTau2TaskTexts(all, sha256);
    expect(resultsText(documentOf(all))).toBe(fresh(all));
    expect(readDerived(TAU2_TASK_TEXTS_KIND, keyOf(sha256, all))).toBe(pyJsonDumpsIndented(all, 2, 1));
    // Read again from the entry: the same text.
    const again = rawTasks(root, ["c", "a"]);
    prepareTau2TaskTexts(again, sha256);
    expect(resultsText(documentOf(again))).toBe(fresh(again));
  });

  it("answers from the entry of the file's bytes and selection, and ignores an entry of another shape", () => {
    const root = dataRoot([task("a"), task("b")]);
    const sha256 = select(root).fileSha256!;
    const tasks = rawTasks(root);
    // A stored text is used as it is (the entry is the selection's, by its key): here one that differs, to see it used.
    writeDerived(TAU2_TASK_TEXTS_KIND, keyOf(sha256, tasks), '[{"stored": true}]');
    prepareTau2TaskTexts(tasks, sha256);
    expect(resultsText(documentOf(tasks))).toContain('{"stored": true}');
    writeDerived(TAU2_TASK_TEXTS_KIND, keyOf(sha256, tasks), { a: 3 });
    const again = rawTasks(root);
    prepareTau2TaskTexts(again, sha256);
    expect(resultsText(documentOf(again))).toBe(fresh(again));
    // No file to key by (τ³'s task folder): printed when first written, as before.
    const unkeyed = rawTasks(root);
    prepareTau2TaskTexts(unkeyed, undefined);
    expect(resultsText(documentOf(unkeyed))).toBe(fresh(unkeyed));
  });
});
