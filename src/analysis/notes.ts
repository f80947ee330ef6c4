/**
 * Notes on episodes: what a person reading a run decided about a failure (whose error it was, its
 * kind, free text), kept in a sidecar JSON beside the results file (`<results>.notes.json`) so the
 * results file itself is never rewritten. The results viewer (`taubridge view`) writes it;
 * `taubridge analyze` reads it back and prints each failed episode's note beside its facts.
 * Plain functions over text: the CLI and the viewer's server do the file I/O.
 */
import { z } from "zod";
import { DataError } from "../errors/error-tree.ts";
import { FAULT_AUTHORS, FAULT_TYPES } from "./judge.ts";

/** Who a note says caused the failure (the judge's authors, or not yet decided). */
export const NOTE_SOURCES = [...FAULT_AUTHORS, "unknown"] as const;
/** The kind of error a note names (the judge's fault types). */
export const NOTE_TYPES = FAULT_TYPES;

export const episodeNoteSchema = z.strictObject({
  taskId: z.string().min(1),
  trial: z.number().int().min(0),
  source: z.enum(NOTE_SOURCES),
  type: z.enum(NOTE_TYPES).nullable(),
  text: z.string(),
  updatedAt: z.string(),
});
export type EpisodeNote = z.infer<typeof episodeNoteSchema>;

export const notesFileSchema = z.strictObject({
  schemaVersion: z.literal(1),
  /** The results file's name (not its path: the pair moves together). */
  results: z.string(),
  notes: z.array(episodeNoteSchema),
});
export type NotesFile = z.infer<typeof notesFileSchema>;

/** Where a results file's notes live: `run.json` → `run.notes.json`. */
export function notesPathOf(resultsPath: string): string {
  return resultsPath.endsWith(".json") ? `${resultsPath.slice(0, -".json".length)}.notes.json` : `${resultsPath}.notes.json`;
}

/** The key of an episode in a notes file. */
export const noteKey = (taskId: string | number, trial: number) => `${taskId}#${trial}`;

/** Parses a notes file's text; `path` names it in the error a malformed file raises. */
export function parseNotes(text: string, path: string): NotesFile {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new DataError(`${path}: not JSON (${(error as Error).message})`);
  }
  const parsed = notesFileSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DataError(`${path}: field ${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`);
  }
  return parsed.data;
}

/** The notes by episode key. */
export function notesByEpisode(file: NotesFile | null): Map<string, EpisodeNote> {
  return new Map((file?.notes ?? []).map((note) => [noteKey(note.taskId, note.trial), note]));
}

/** A notes file with one note added or replaced (an empty note with source `unknown` and no type removes it); sorted by task and trial. */
export function withNote(file: NotesFile | null, results: string, note: EpisodeNote): NotesFile {
  const notes = notesByEpisode(file);
  const key = noteKey(note.taskId, note.trial);
  if (note.text.trim() === "" && note.source === "unknown" && note.type === null) notes.delete(key);
  else notes.set(key, note);
  const sorted = [...notes.values()].sort((a, b) => (a.taskId === b.taskId ? a.trial - b.trial : a.taskId < b.taskId ? -1 : 1));
  return { schemaVersion: 1, results, notes: sorted };
}
