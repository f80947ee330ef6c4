/**
 * The notes sidecar of results files (`<results>.notes.json`, written by `taubridge view`), read for
 * `analyze`: each failed episode's note is printed beside its facts.
 */
import { existsSync, readFileSync } from "node:fs";
import type { EpisodeRecord } from "../core/episode-record.ts";
import { type EpisodeNote, noteKey, notesByEpisode, notesPathOf, parseNotes } from "../analysis/notes.ts";

/** The notes of each file's records (a file without a sidecar has none). */
export function notesOfRecords(files: ReadonlyArray<{ path: string; records: readonly EpisodeRecord[] }>): Map<EpisodeRecord, EpisodeNote> {
  const out = new Map<EpisodeRecord, EpisodeNote>();
  for (const file of files) {
    const path = notesPathOf(file.path);
    if (!existsSync(path)) continue;
    const notes = notesByEpisode(parseNotes(readFileSync(path, "utf8"), path));
    if (notes.size === 0) continue;
    for (const record of file.records) {
      const note = notes.get(noteKey(record.taskId, record.trial));
      if (note) out.set(record, note);
    }
  }
  return out;
}
