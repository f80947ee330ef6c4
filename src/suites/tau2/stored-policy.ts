/**
 * `run --policy`'s check in a τ² results file: τ²'s `Results` object is the original's, so the
 * check goes in the file's `taubridge` block (the run's score, its hits by rule, each simulation's
 * adherence and hits by task and trial). Written after the run, the rest of the file byte for byte
 * as it was.
 */
import type { StoredPolicy } from "../../core/run-manifest.ts";
import { readPythonJsonFile } from "../../data/data-files.ts";
import { DataError } from "../../errors/error-tree.ts";
import { writeFileAtomic } from "../../run/atomic-file.ts";
import { storedEpisodePolicy, storedRunPolicy } from "../../run/stored-policy.ts";
import { pyJsonDumpsIndented, toJs, type PyDict, type PyValue } from "../../value/index.ts";
import { isTau2ResultsDocument } from "./codec.ts";

/** Adds the check to the `taubridge` block of the τ² results file at `path` (atomically). */
export function storeTau2Policy(path: string, policy: StoredPolicy): void {
  const document = readPythonJsonFile(path);
  if (!isTau2ResultsDocument(document)) throw new DataError(`${path}: not a τ²-bench results file (expected the keys info, tasks, simulations)`);
  const block = document.get("taubridge");
  if (!(block instanceof Map)) throw new DataError(`${path}: no taubridge block (not written by taubridge)`);
  const stored = new Map(block);
  stored.delete("policy");
  stored.set("policy", policy as unknown as PyValue);
  writeFileAtomic(path, `${pyJsonDumpsIndented(new Map(document).set("taubridge", stored))}\n`);
}

/** The check a τ² results file's block holds, or null when it holds none. */
export function tau2StoredPolicy(block: PyDict | null): StoredPolicy | null {
  const recorded = block?.get("policy");
  if (!(recorded instanceof Map)) return null;
  const plain = toJs(recorded) as Record<string, unknown>;
  const run = storedRunPolicy(plain);
  if (!run || !Array.isArray(plain.episodes)) return null;
  const episodes = (plain.episodes as Array<Record<string, unknown>>).flatMap((episode) => {
    const read = episode && typeof episode === "object" ? storedEpisodePolicy(episode, String(episode.taskId), Number(episode.trial)) : null;
    return read ? [read] : [];
  });
  return { ...run, episodes };
}
