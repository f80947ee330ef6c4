/**
 * A τ² data root whose `mock/tasks.json` holds the given entries, and a selection of its tasks: for
 * tests of what is derived from a task file (its caches keyed by the file's bytes and the selection).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadTau2TaskSet } from "../../src/suites/tau2/task-sets.ts";

/** A fresh data root (under the OS temporary folder, named with `prefix`) with `mock/tasks.json` holding `entries`. */
export function mockTaskRoot(entries: unknown[], prefix: string): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(root, "mock"));
  writeFileSync(join(root, "mock", "tasks.json"), JSON.stringify(entries, null, 2));
  return root;
}

/** The mock task set of `root`: every task, or those of `taskIds`. */
export const selectMockTasks = (root: string, taskIds?: string[]) => loadTau2TaskSet(root, { taskSetName: "mock", split: null, ...(taskIds ? { taskIds } : {}) });
