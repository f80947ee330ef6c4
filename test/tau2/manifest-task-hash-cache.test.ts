/**
 * The task definition hashes of a τ² run manifest (`tau2TaskDefinitionHashes` in
 * `src/suites/tau2/manifest.ts`) are kept in the derived cache under the task file's SHA-256: the
 * same hashes as computing them, an entry answered while the file is unchanged, each run adding
 * the tasks it had to hash. Each test has a cache folder of its own.
 */
import { describe, expect, it } from "vitest";
import { derivedCacheKey, readDerived, writeDerived } from "../../src/data/derived-cache.ts";
import { tau2TaskHash } from "../../src/suites/tau2/leaderboard.ts";
import { TAU2_TASK_HASHES_KIND, tau2TaskDefinitionHashes } from "../../src/suites/tau2/manifest.ts";
import { rawTau2Task } from "../../src/suites/tau2/tasks.ts";
import { useFreshDerivedCache } from "../support/fresh-derived-cache.ts";
import { mockTaskRoot, selectMockTasks } from "../support/mock-task-file.ts";

const task = (id: string, instructions = `task ${id}`) => ({ id, user_scenario: { instructions }, evaluation_criteria: { reward_basis: ["DB"], actions: [] } });

const dataRoot = (entries: unknown[]) => mockTaskRoot(entries, "taubridge-task-hashes-");
const select = selectMockTasks;
const computed = (root: string, taskIds?: string[]) => Object.fromEntries(select(root, taskIds).tasks.map((one) => [one.id, tau2TaskHash(rawTau2Task(one)!)]));

describe("τ² manifest task definition hashes in the derived cache", () => {
  useFreshDerivedCache("tau2-task-hash-cache-");

  it("gives the computed hashes with and without the cache, and stores each task it hashed", () => {
    const root = dataRoot([task("a"), task("b"), task("10"), task("2")]);
    const expected = computed(root);
    expect(Object.keys(expected)).toEqual(["2", "10", "a", "b"]);
    expect(new Set(Object.values(expected)).size).toBe(4);
    const cacheDir = process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = "off";
    expect(tau2TaskDefinitionHashes(select(root))).toEqual(expected);
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = cacheDir;
    const some = tau2TaskDefinitionHashes(select(root, ["b", "a"]));
    expect(some).toEqual({ a: expected.a, b: expected.b });
    const key = derivedCacheKey(select(root).fileSha256!);
    expect(readDerived(TAU2_TASK_HASHES_KIND, key)).toEqual({ a: expected.a, b: expected.b });
    const all = tau2TaskDefinitionHashes(select(root));
    expect(all).toEqual(expected);
    expect(Object.keys(all)).toEqual(Object.keys(expected));
    expect(readDerived(TAU2_TASK_HASHES_KIND, key)).toEqual(expected);
  });

  it("answers from the entry of the file's bytes, and ignores an entry of another shape", () => {
    const root = dataRoot([task("a"), task("b")]);
    const expected = computed(root);
    const key = derivedCacheKey(select(root).fileSha256!);
    const stored = "f".repeat(64);
    writeDerived(TAU2_TASK_HASHES_KIND, key, { a: stored });
    expect(tau2TaskDefinitionHashes(select(root))).toEqual({ a: stored, b: expected.b });
    // The file changed: another key, so the hashes are computed from the new bytes.
    const changed = dataRoot([task("a", "other instructions"), task("b")]);
    expect(tau2TaskDefinitionHashes(select(changed)).a).toBe(computed(changed).a);
    expect(computed(changed).a).not.toBe(expected.a);
    writeDerived(TAU2_TASK_HASHES_KIND, key, { a: "not a hash" });
    expect(tau2TaskDefinitionHashes(select(root))).toEqual(expected);
    writeDerived(TAU2_TASK_HASHES_KIND, key, ["a"]);
    expect(tau2TaskDefinitionHashes(select(root))).toEqual(expected);
  });
});
