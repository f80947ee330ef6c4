import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { DataError } from "../core/errors.ts";
import type { RoleUsage, TerminationReason } from "../core/types.ts";
import { parsePythonJson, pyJsonDumpsLine, toJs, type PyDict, type PyValue } from "../value/index.ts";
import { entryFailure, RESULT_SCHEMA_VERSION } from "../suites/tau-bench/codec.ts";
import type { EpisodeResult } from "../suites/tau-bench/loop.ts";

/** What the batch layer needs to know about a finished episode without re-reading its trajectory. */
export interface EpisodeSummary {
  taskId: number;
  trial: number;
  reward: number;
  termination: TerminationReason | null;
  usage: { agent: RoleUsage | null; user: RoleUsage | null } | null;
  /** The episode's error message, for the run summary's first-error lines (absent or null: none). */
  error?: string | null;
  /** Framework tools the bridge refused (no benchmark mapping), for the run summary's warning. */
  unmappedTools?: string[];
}

/** A finished episode: its results-file entry (serialisable as is) and its summary. */
export interface CheckpointEntry {
  entry: unknown;
  summary: EpisodeSummary;
}

export interface CheckpointContents {
  header: Record<string, unknown> | null;
  entries: CheckpointEntry[];
  /** Lines that could not be parsed (a torn final line after a kill); they are re-run. */
  discardedLines: number;
}

export function summaryFromEntry(raw: PyDict): EpisodeSummary {
  const plain = toJs(raw) as Record<string, unknown>;
  const block = (plain.taubridge ?? {}) as Record<string, unknown>;
  return {
    taskId: plain.task_id as number,
    trial: plain.trial as number,
    reward: plain.reward as number,
    termination: (block.termination as TerminationReason | undefined) ?? null,
    usage: (block.usage as EpisodeSummary["usage"]) ?? null,
    ...entryFailure(plain),
  };
}

/** The summary of an episode run now; the same fields {@link summaryFromEntry} reads back on resume. */
export function summaryFromResult(result: EpisodeResult): EpisodeSummary {
  const failure = entryFailure({ taubridge: { error: result.error, extra: result.extra } });
  return { taskId: result.taskId, trial: result.trial, reward: result.reward, termination: result.termination, usage: result.usage, ...failure };
}

/**
 * An append-only JSON-lines checkpoint: a header line with the run configuration, then one line per
 * finished episode, each written with a single `write` so a SIGKILL can tear at most the last line.
 * Reading discards a torn line; that episode simply runs again, so every `(task, trial)` ends up
 * exactly once. (The original rewrote the whole JSON file after every task: quadratic I/O.)
 */
export class CheckpointWriter {
  private fd: number | undefined;

  constructor(readonly path: string) {}

  open(header: Record<string, unknown>, fresh: boolean): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const exists = existsSync(this.path);
    this.fd = openSync(this.path, fresh || !exists ? "w" : "a");
    if (fresh || !exists) this.writeLine({ type: "run", schemaVersion: RESULT_SCHEMA_VERSION, ...header });
  }

  append(entry: unknown): void {
    this.writeLine({ type: "episode", entry });
  }

  private writeLine(value: unknown): void {
    if (this.fd === undefined) throw new Error("checkpoint is not open");
    const buffer = Buffer.from(`${pyJsonDumpsLine(value)}\n`, "utf8");
    let offset = 0;
    while (offset < buffer.length) offset += writeSync(this.fd, buffer, offset);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Reads a checkpoint; keeps only the last entry per `(task, trial)`. */
export function readCheckpoint(path: string): CheckpointContents {
  if (!existsSync(path)) return { header: null, entries: [], discardedLines: 0 };
  const lines = readFileSync(path, "utf8").split("\n");
  let header: Record<string, unknown> | null = null;
  const byKey = new Map<string, CheckpointEntry>();
  let discardedLines = 0;
  for (const line of lines) {
    if (!line.trim()) continue;
    let value: PyValue;
    try {
      value = parsePythonJson(line);
    } catch {
      discardedLines++;
      continue;
    }
    if (!(value instanceof Map)) {
      discardedLines++;
      continue;
    }
    if (value.get("type") === "run") {
      header = toJs(value) as Record<string, unknown>;
      continue;
    }
    const entry = value.get("entry");
    if (value.get("type") !== "episode" || !(entry instanceof Map)) {
      discardedLines++;
      continue;
    }
    const summary = summaryFromEntry(entry);
    if (typeof summary.taskId !== "number" || typeof summary.trial !== "number") {
      throw new DataError(`${path}: an episode line has no task_id/trial`);
    }
    byKey.set(`${summary.taskId}:${summary.trial}`, { entry, summary });
  }
  return { header, entries: [...byKey.values()], discardedLines };
}
