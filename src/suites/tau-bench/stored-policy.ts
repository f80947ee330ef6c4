/**
 * `run --policy`'s check in a τ-bench results file: τ-bench's file is the original's bare list, so
 * each entry's `taubridge` block holds its episode's adherence and hits and, under `run`, the run's
 * score (the same in every entry, as the manifest is). Written after the run, the rest of the file
 * byte for byte as it was.
 */
import type { StoredPolicy } from "../../core/run-manifest.ts";
import { readPythonJsonFile } from "../../data/data-files.ts";
import { DataError } from "../../errors/error-tree.ts";
import { writeFileAtomic } from "../../run/atomic-file.ts";
import { policyEpisodeKey, storedEpisodePolicy, storedRunPolicy } from "../../run/stored-policy.ts";
import { pyJsonDumpsIndented, type PyDict } from "../../value/index.ts";
import { entryWithPolicy } from "./codec.ts";

/** Adds the check to every entry of the results file at `path` it covers (atomically). */
export function storeTauBenchPolicy(path: string, policy: StoredPolicy): void {
  const parsed = readPythonJsonFile(path, "results file");
  if (!Array.isArray(parsed)) throw new DataError(`${path}: expected a JSON list of results`);
  const episodes = new Map(policy.episodes.map((episode) => [policyEpisodeKey(episode.taskId, episode.trial), episode]));
  const run = { adherence: policy.adherence, hitsByRule: policy.hitsByRule, skipped: policy.skipped };
  const entries = parsed.map((entry) => {
    if (!(entry instanceof Map)) return entry;
    const episode = episodes.get(policyEpisodeKey(String(entry.get("task_id")), Number(entry.get("trial"))));
    if (!episode) return entry;
    return entryWithPolicy(entry as PyDict, { file: policy.file, sha256: policy.sha256, strictness: policy.strictness, adherence: episode.adherence, hits: episode.hits, run });
  });
  writeFileAtomic(path, pyJsonDumpsIndented(entries, 2));
}

/** The check the entries of a results file hold (plain JSON blocks), or null when none does. */
export function tauBenchStoredPolicy(entries: ReadonlyArray<{ taskId: number; trial: number; block: Record<string, unknown> | undefined }>): StoredPolicy | null {
  let run: Omit<StoredPolicy, "episodes"> | null = null;
  const episodes: StoredPolicy["episodes"] = [];
  for (const entry of entries) {
    const recorded = entry.block?.policy as Record<string, unknown> | undefined;
    const episode = storedEpisodePolicy(recorded, String(entry.taskId), entry.trial);
    if (!recorded || !episode) continue;
    run ??= storedRunPolicy({ ...(recorded.run as Record<string, unknown> | undefined), file: recorded.file, sha256: recorded.sha256, strictness: recorded.strictness });
    episodes.push(episode);
  }
  return run ? { ...run, episodes } : null;
}
