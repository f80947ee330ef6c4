/**
 * Where the viewer's runs come from: results files (a folder stands for the results files in it),
 * their notes sidecars, the tasks a τ² file records, and — while a run is still going and its
 * results file is not written yet — its checkpoint. Results files are read by the suite that wrote
 * them through the `read` callback the CLI passes (the view never imports a suite).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EpisodeRecord } from "../core/episode-record.ts";
import type { SuiteResults } from "../core/suite.ts";
import type { EndStateDiffs } from "../core/state-diff.ts";
import { ConfigError, TaubridgeError } from "../errors/error-tree.ts";
import { notesPathOf, parseNotes } from "../analysis/notes.ts";
import { resultsLabels } from "../report/labels.ts";
import { parsePythonJson, pyJsonDumpsLine } from "../value/index.ts";
import type { ViewInput } from "./view-data.ts";

/** Reads one results file (the CLI's: the suite that recognises it). */
export type ReadResults = (path: string) => Promise<SuiteResults>;

/** Each episode's end state against the gold one (the CLI's: the suite's `endStateDiffs`); rejects with why it cannot. */
export type ReadStateDiffs = (path: string) => Promise<EndStateDiffs>;

const isAuxiliary = (name: string) => name.endsWith(".meta.json") || name.endsWith(".notes.json") || name.endsWith(".checkpoint.jsonl") || name === "submission.json" || name === "manifest.json";

/** Paths given on the command line, folders expanded to the results files directly in them (sorted). */
export function expandPaths(paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const path of paths) {
    if (existsSync(path) && statSync(path).isDirectory()) {
      const files = readdirSync(path)
        .filter((name) => name.endsWith(".json") && !isAuxiliary(name))
        .sort()
        .map((name) => join(path, name));
      if (files.length === 0) throw new ConfigError(`${path}: no results file (*.json) in this folder`);
      out.push(...files);
    } else out.push(path);
  }
  return out;
}

/** The checkpoint a run writes beside its results file (`x.json` → `x.checkpoint.jsonl`). */
export function checkpointPathOf(resultsPath: string): string {
  return `${resultsPath.replace(/\.json$/, "")}.checkpoint.jsonl`;
}

/** A fingerprint of everything the view reads (sizes and modification times): it changes when a run writes or a note is saved. */
export function sourcesVersion(paths: readonly string[]): string {
  return paths
    .flatMap((path) => [path, checkpointPathOf(path), notesPathOf(path)])
    .map((path) => {
      if (!existsSync(path)) return "-";
      const stat = statSync(path);
      return `${stat.size}:${stat.mtimeMs}`;
    })
    .join("|");
}

/**
 * A τ-bench checkpoint read as its results file would be (τ-bench's results file is the plain list
 * of the entries its checkpoint lines hold): for a run whose results file is not written yet. A torn
 * last line is skipped. Null for a checkpoint that is not τ-bench's (τ² rewrites its results file
 * every few seconds while it runs, so its checkpoint is not needed).
 */
function checkpointAsResults(checkpoint: string): string | null {
  const entries: string[] = [];
  for (const line of readFileSync(checkpoint, "utf8").split("\n")) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = parsePythonJson(line);
    } catch {
      continue;
    }
    if (!(value instanceof Map)) continue;
    if (value.get("type") === "run" && value.has("resultsFile")) return null;
    if (value.get("type") === "episode" && value.get("entry") instanceof Map) entries.push(pyJsonDumpsLine(value.get("entry")));
  }
  return `[${entries.join(",\n")}]`;
}

/** The tasks a τ² results document records, by id (empty for τ-bench's list). */
export function tasksOfDocument(path: string): Map<string, unknown> {
  const text = readFileSync(path, "utf8");
  if (!text.trimStart().startsWith("{")) return new Map();
  const document = JSON.parse(text) as { tasks?: Array<{ id?: unknown }> };
  return new Map((Array.isArray(document.tasks) ? document.tasks : []).filter((task) => task && task.id !== undefined).map((task) => [String(task.id), task]));
}

/** One run read for the view; `partial` when read from its checkpoint. */
async function readOne(path: string, read: ReadResults, allowMissing: boolean): Promise<{ results: SuiteResults; records: EpisodeRecord[]; tasks: Map<string, unknown>; partial: boolean } | null> {
  if (existsSync(path)) {
    const results = await read(path);
    return { results, records: results.records(), tasks: tasksOfDocument(path), partial: results.completeness?.interrupted === true };
  }
  const checkpoint = checkpointPathOf(path);
  const text = existsSync(checkpoint) ? checkpointAsResults(checkpoint) : null;
  if (text === null) {
    if (allowMissing) return null;
    throw new ConfigError(`${path}: no such results file${existsSync(checkpoint) ? "" : " (nor a checkpoint of a run writing it)"}`);
  }
  const directory = mkdtempSync(join(tmpdir(), "taubridge-view-"));
  try {
    const copy = join(directory, path.split(/[\\/]/).pop() ?? "results.json");
    writeFileSync(copy, text);
    const results = await read(copy);
    return { results: { ...results, path }, records: results.records(), tasks: new Map(), partial: true };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** A run's end-state diffs, or the one reason they are not there (said on every episode's page). */
async function stateDiffsOf(path: string, fromCheckpoint: boolean, read: ReadStateDiffs | undefined): Promise<Pick<ViewInput, "stateDiffs" | "stateDiffReason">> {
  if (!read) return { stateDiffs: null, stateDiffReason: "not computed (no suite replay was given)" };
  if (fromCheckpoint) return { stateDiffs: null, stateDiffReason: "the run is still being written: the diff is computed once its results file exists" };
  try {
    return { stateDiffs: (await read(path)).episodes, stateDiffReason: null };
  } catch (error) {
    // No data, no domain, a file the suite cannot replay: said on the page. Anything else is a bug and stays loud.
    if (!TaubridgeError.isInstance(error)) throw error;
    return { stateDiffs: null, stateDiffReason: error.message.split("\n")[0] };
  }
}

/**
 * Reads every run with its notes. `allowMissing` (serving): a results file that does not exist yet
 * and has no checkpoint is left out until it appears, instead of being an error.
 */
export async function loadInputs(paths: readonly string[], read: ReadResults, options: { allowMissing?: boolean; stateDiffs?: ReadStateDiffs } = {}): Promise<ViewInput[]> {
  const labels = resultsLabels(paths);
  const inputs: ViewInput[] = [];
  for (const [index, path] of paths.entries()) {
    // The diffs first: the suite reads the file again, and its copy is released before the records are built.
    const diffs = await stateDiffsOf(path, !existsSync(path), options.stateDiffs);
    const one = await readOne(path, read, options.allowMissing === true);
    if (!one) continue;
    const notesPath = notesPathOf(path);
    const notes = existsSync(notesPath) ? parseNotes(readFileSync(notesPath, "utf8"), notesPath) : null;
    inputs.push({ results: one.results, label: labels[index], records: one.records, notes, tasks: one.tasks, partial: one.partial, ...diffs });
  }
  return inputs;
}
