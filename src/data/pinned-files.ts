/**
 * Whether the data files a run reads are the pinned export's: a file edited by hand, or left from
 * another commit, changes rewards without any other sign, so a run names such files in one warning
 * line (it still runs: a changed file may be deliberate). τ²'s sources, which positions are read
 * from, are refused instead (`upstream-messages.ts`).
 *
 * Cheap: each file is hashed at most once per process (kept by path, size and modification time),
 * and the readers that hash a file anyway (task and record files) hand their hash over.
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { datasetOfDirectory } from "./locations.ts";
import { pinnedCommit, pinnedDataHashes, sha256Hex } from "./manifest.ts";

interface KnownHash {
  size: number;
  mtimeMs: number;
  sha256: string;
}

const known = new Map<string, KnownHash>();

function statOf(path: string): { size: number; mtimeMs: number } | undefined {
  try {
    const stats = statSync(path);
    return stats.isFile() ? { size: stats.size, mtimeMs: stats.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

/** Records the SHA-256 of a file a reader has just hashed (its bytes as read now). */
export function rememberFileSha256(path: string, sha256: string): void {
  const stats = statOf(path);
  if (stats) known.set(resolve(path), { ...stats, sha256 });
}

/**
 * True when every file still has the recorded SHA-256 (a recorded null: it is still missing). What
 * a derived-cache entry read from source files checks before it is believed.
 */
export function filesUnchanged(files: Record<string, unknown>): boolean {
  return Object.entries(files).every(([path, sha256]) => (sha256 === null || typeof sha256 === "string") && (fileSha256(path) ?? null) === sha256);
}

/**
 * A derived-cache entry of prompt-template hashes (both suites keep one): the hashes, and the
 * SHA-256 of each source file they were read from (null: it was missing).
 */
export interface StoredTemplateHashes {
  files: Record<string, string | null>;
  hashes: Record<string, string>;
}

/** Whether a derived-cache entry is {@link StoredTemplateHashes} whose source files are all unchanged (else it is derived again). */
export function isStoredTemplateHashes(value: unknown): value is StoredTemplateHashes {
  const stored = value as StoredTemplateHashes;
  if (typeof stored?.files !== "object" || stored.files === null || typeof stored.hashes !== "object" || stored.hashes === null) return false;
  if (!Object.values(stored.hashes).every((hash) => typeof hash === "string")) return false;
  return filesUnchanged(stored.files);
}

/** A file's SHA-256, hashed once per process while its size and modification time stay; undefined when it is not a readable file. */
export function fileSha256(path: string): string | undefined {
  const absolute = resolve(path);
  const stats = statOf(absolute);
  if (!stats) return undefined;
  const cached = known.get(absolute);
  if (cached && cached.size === stats.size && cached.mtimeMs === stats.mtimeMs) return cached.sha256;
  let bytes: Buffer;
  try {
    bytes = readFileSync(absolute);
  } catch {
    return undefined;
  }
  const sha256 = sha256Hex(bytes);
  known.set(absolute, { ...stats, sha256 });
  return sha256;
}

/** How far above a data file its dataset's root may be (`<root>/<domain>/<file>`, one more for nested folders). */
const ROOT_SEARCH_DEPTH = 3;

const datasetRoots = new Map<string, { root: string; dataset: string } | null>();

/** The data directory a file belongs to and its dataset, or null (the bundled library domain, a task file elsewhere). */
function datasetRootOf(file: string): { root: string; dataset: string } | null {
  let directory = dirname(file);
  for (let depth = 0; depth < ROOT_SEARCH_DEPTH; depth++) {
    let found = datasetRoots.get(directory);
    if (found === undefined) {
      const dataset = datasetOfDirectory(directory);
      found = dataset ? { root: directory, dataset } : null;
      if (found) datasetRoots.set(directory, found);
    }
    if (found) return found;
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  return null;
}

const pinnedTables = new Map<string, Map<string, string> | null>();

function pinnedTable(dataset: string): Map<string, string> | null {
  if (!pinnedTables.has(dataset)) {
    try {
      pinnedTables.set(dataset, pinnedDataHashes(dataset));
    } catch {
      pinnedTables.set(dataset, null); // an unknown dataset in a SOURCE.json: nothing to compare with
    }
  }
  return pinnedTables.get(dataset) ?? null;
}

/**
 * The files among `paths` that differ from their dataset's pinned export, by dataset, as paths
 * relative to its data directory (`retail/orders.json`). Files outside a recognised data
 * directory, or that the manifest does not list, or that are missing, are not compared.
 */
export function unpinnedDataFiles(paths: readonly string[]): Map<string, string[]> {
  const changed = new Map<string, string[]>();
  for (const path of new Set(paths.map((candidate) => resolve(candidate)))) {
    const location = datasetRootOf(path);
    if (!location) continue;
    const target = relative(location.root, path).split("\\").join("/");
    const pinned = pinnedTable(location.dataset)?.get(target);
    if (!pinned) continue;
    const actual = fileSha256(path);
    if (actual !== undefined && actual !== pinned) changed.set(location.dataset, [...(changed.get(location.dataset) ?? []), target].sort());
  }
  return changed;
}

/** The one warning line for {@link unpinnedDataFiles}'s answer, or undefined when every file is pinned. */
export function unpinnedDataWarning(paths: readonly string[]): string | undefined {
  const changed = unpinnedDataFiles(paths);
  if (changed.size === 0) return undefined;
  const parts = [...changed].map(([dataset, files]) => `${files.join(", ")} (${dataset}; \`taubridge data pull ${dataset}\` restores the pinned files)`);
  return `data files differ from the pinned export, so scores may not compare with published ones: ${parts.join("; ")}`;
}

/**
 * The upstream commit a run's data is pinned to: the shipped manifest's commit of `dataset` when
 * every one of `files` (paths under the dataset's data directory `root`) is listed by the manifest
 * with the same SHA-256; null when one differs, is missing or is not the dataset's (a file edited by
 * hand, a `--task-file` elsewhere, the bundled library domain). What a run manifest records.
 */
export function pinnedDataCommit(dataset: string, root: string, files: readonly string[]): string | null {
  let table: Map<string, string> | null;
  try {
    table = pinnedDataHashes(dataset);
  } catch {
    return null;
  }
  if (files.length === 0) return null;
  for (const file of files) {
    const target = relative(resolve(root), resolve(file)).split("\\").join("/");
    const pinned = table.get(target);
    if (!pinned || fileSha256(file) !== pinned) return null;
  }
  try {
    return pinnedCommit(dataset);
  } catch {
    return null;
  }
}
