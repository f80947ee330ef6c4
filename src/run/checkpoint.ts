/**
 * The run layer's checkpoint, the same for both suites: an append-only JSON-lines file beside the
 * results file, a header line with the run's identity, then one line per finished episode holding
 * the suite's results-file entry. Each line is written with a single `write`, so a SIGKILL can tear
 * at most the last one; reading discards a torn line and that episode simply runs again, so every
 * `(task, trial)` ends up exactly once. (τ-bench rewrote its whole JSON file after every task, and
 * τ² its whole results file after every simulation: quadratic I/O.)
 */
import { closeSync, existsSync, mkdirSync, openSync, readSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { DataError } from "../errors/error-tree.ts";
import { readUtf8Lines } from "../data/data-files.ts";
import type { EpisodeSummary } from "../core/run.ts";
import { PrintedJson, parsePythonJson, pyJsonDumpsLine, toJs, type PyDict, type PyValue } from "../value/index.ts";
import { compactLineBytes } from "../value/printing.ts";

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

/** An episode's line around its entry, as `pyJsonDumpsLine({ type: "episode", entry })` prints it. */
const EPISODE_LINE_START = Buffer.from('{"type": "episode", "entry": ');
const EPISODE_LINE_END = Buffer.from("}\n");

/** Writes a checkpoint: `open` writes the header (fresh) or appends to an existing file; `append` adds one episode. */
export class CheckpointWriter {
  private fd: number | undefined;

  constructor(
    readonly path: string,
    /** The schema version written into the header (the suite's results schema). */
    private readonly schemaVersion = 1,
  ) {}

  open(header: Record<string, unknown>, fresh: boolean): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const exists = existsSync(this.path);
    this.fd = openSync(this.path, fresh || !exists ? "w" : "a");
    if (fresh || !exists) this.writeLine({ type: "run", schemaVersion: this.schemaVersion, ...header });
  }

  append(entry: unknown): void {
    // An entry printed already (a τ² simulation) goes from its text to the line's bytes directly: the same bytes as printing the line.
    if (entry instanceof PrintedJson) this.writeBytes(compactLineBytes([entry.indented], EPISODE_LINE_START, EPISODE_LINE_END));
    else this.writeLine({ type: "episode", entry });
  }

  /** A line printed already (its bytes end with the line break), written with one `write` like every line (a suite's own line kinds). */
  appendLine(bytes: Uint8Array): void {
    this.writeBytes(bytes);
  }

  private writeLine(value: unknown): void {
    this.writeBytes(Buffer.from(`${pyJsonDumpsLine(value)}\n`, "utf8"));
  }

  private writeBytes(buffer: Uint8Array): void {
    if (this.fd === undefined) throw new Error("checkpoint is not open");
    let offset = 0;
    while (offset < buffer.length) offset += writeSync(this.fd, buffer, offset);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** What an episode's numbers must be, in every results file and checkpoint: a reward outside [0, 1] or a negative trial would print wrong metrics. */
export const REWARD = "expected a reward between 0 and 1";
export const TRIAL = "expected a trial number (an integer ≥ 0)";

/** The field of a summary read back whose number is out of bounds, and why; undefined when all are fine. */
export function episodeNumbersProblem(summary: Pick<EpisodeSummary, "reward" | "trial">): string | undefined {
  if (typeof summary.trial !== "number" || !Number.isInteger(summary.trial) || summary.trial < 0) return `field trial: ${TRIAL}, got ${String(summary.trial)}`;
  if (typeof summary.reward !== "number" || !(summary.reward >= 0 && summary.reward <= 1)) return `field reward: ${REWARD}, got ${String(summary.reward)}`;
  return undefined;
}

/**
 * The header line of a checkpoint (the run's identity), read without the episodes after it; null
 * when there is no checkpoint or its first line is not a header (torn, or not ours).
 */
export function readCheckpointHeader(path: string): Record<string, unknown> | null {
  if (!existsSync(path)) return null;
  const fd = openSync(path, "r");
  try {
    const chunks: Buffer[] = [];
    const buffer = Buffer.alloc(64 * 1024);
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) {
      const end = buffer.subarray(0, read).indexOf(0x0a);
      chunks.push(Buffer.from(buffer.subarray(0, end === -1 ? read : end)));
      if (end !== -1) break;
    }
    const value = parsePythonJson(Buffer.concat(chunks).toString("utf8"));
    return value instanceof Map && value.get("type") === "run" ? (toJs(value) as Record<string, unknown>) : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a checkpoint; keeps only the last entry per `(task, trial)`. `summarize` reads the suite's
 * entry (τ-bench's by default); an entry without a task id and trial, or with a reward outside
 * [0, 1] or a negative trial ({@link episodeNumbersProblem}), is a data error naming the line.
 */
export function readCheckpoint(path: string, summarize: (entry: PyDict) => EpisodeSummary): CheckpointContents {
  if (!existsSync(path)) return { header: null, entries: [], discardedLines: 0 };
  const lines = readUtf8Lines(path);
  let header: Record<string, unknown> | null = null;
  const byKey = new Map<string, CheckpointEntry>();
  let discardedLines = 0;
  for (const [index, line] of lines.entries()) {
    if (line === null) {
      discardedLines++; // not UTF-8: torn inside a character
      continue;
    }
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
    const summary = summarize(entry);
    if ((typeof summary.taskId !== "number" && typeof summary.taskId !== "string") || typeof summary.trial !== "number") {
      throw new DataError(`${path}: an episode line has no task_id/trial`);
    }
    const problem = episodeNumbersProblem(summary);
    if (problem) throw new DataError(`${path}: line ${index + 1} (task ${summary.taskId}): ${problem}`);
    byKey.set(`${summary.taskId}:${summary.trial}`, { entry, summary });
  }
  return { header, entries: [...byKey.values()], discardedLines };
}

/**
 * The run identity a checkpoint's header records, read from its first line only (the episodes are
 * not read); undefined when there is no checkpoint, or its first line is not a run header.
 */
export function readCheckpointIdentity(path: string): unknown {
  if (!existsSync(path)) return undefined;
  const fd = openSync(path, "r");
  try {
    const chunks: Buffer[] = [];
    const buffer = Buffer.alloc(64 * 1024);
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) {
      const chunk = buffer.subarray(0, read);
      const newline = chunk.indexOf(10);
      chunks.push(Buffer.from(newline >= 0 ? chunk.subarray(0, newline) : chunk));
      if (newline >= 0) break;
    }
    const value = parsePythonJson(Buffer.concat(chunks).toString("utf8"));
    return value instanceof Map && value.get("type") === "run" ? (toJs(value) as Record<string, unknown>).identity : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
