/**
 * `run --policy`'s check as results files keep it (`StoredPolicy`, `src/core/run-manifest.ts`):
 * the check read back from what a file holds, whichever suite wrote it. Each suite decides where in
 * its file the record goes; what it holds is the same.
 */
import type { StoredEpisodePolicy, StoredPolicy } from "../core/run-manifest.ts";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** One episode's stored check, when `value` has its shape. */
export function storedEpisodePolicy(value: unknown, taskId: string, trial: number): StoredEpisodePolicy | null {
  if (!isObject(value) || !Array.isArray(value.hits)) return null;
  return { taskId, trial, adherence: typeof value.adherence === "number" ? value.adherence : null, hits: value.hits as StoredEpisodePolicy["hits"] };
}

/** The run-level part of a stored check (everything but the episodes), when `value` has its shape. */
export function storedRunPolicy(value: unknown): Omit<StoredPolicy, "episodes"> | null {
  if (!isObject(value) || typeof value.file !== "string" || typeof value.strictness !== "string") return null;
  return {
    file: value.file,
    sha256: typeof value.sha256 === "string" ? value.sha256 : "",
    strictness: value.strictness,
    adherence: typeof value.adherence === "number" ? value.adherence : null,
    hitsByRule: Array.isArray(value.hitsByRule) ? (value.hitsByRule as StoredPolicy["hitsByRule"]) : [],
    skipped: Array.isArray(value.skipped) ? (value.skipped as StoredPolicy["skipped"]) : [],
  };
}

/** The key an episode's stored check is found by. */
export const policyEpisodeKey = (taskId: string | number, trial: number) => `${taskId}\u0000${trial}`;
