/**
 * Installing a dataset's data directory: every file's sha256 checked against the pinned manifest,
 * the converted outputs checked, the provenance record (`SOURCE.json`) written, and the directory
 * built beside its final place and renamed into it only when everything succeeded, so a failed or
 * interrupted install never leaves half a data directory behind.
 */
import { mkdir, mkdtemp, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ConfigError, DataError } from "../errors/error-tree.ts";
import { type ConvertedFile } from "./convert.ts";
import { datasetDefinition } from "./datasets.ts";
import { loadDatasetManifest, sha256Hex, type DataManifest, type ManifestFile } from "./manifest.ts";
import { SOURCE_FILE_NAME } from "./locations.ts";
import { redactUrl } from "../secrets/redact.ts";

/** Provenance record written as `<dataDir>/SOURCE.json`. */
export interface SourceRecord {
  dataset: string;
  repository: string;
  commit: string;
  method: "pull" | "import";
  /** Base URL (pull), or the checkout or export directory (import). */
  source: string;
  /** Upstream files converted here (pull, checkout), or the data files of a converted export copied as they were. */
  from: "upstream" | "export";
  /** False only for `import --no-verify`. */
  verified: boolean;
  /** ISO time of the installation. */
  retrieved_at: string;
  files: { target: string; sha256: string; bytes: number }[];
}

/** What a pull or import installed. */
export interface InstallResult {
  dataDir: string;
  record: SourceRecord;
  /** What was read: upstream files (a pull, or an import of a checkout) or a converted export. */
  from: "upstream" | "export";
  /** Upstream files read (0 for an export). */
  upstreamFiles: number;
  /** Sum of bytes read (upstream files, or the export's data files). */
  upstreamBytes: number;
  /** True when the manifest only copies files (τ²-bench): nothing was converted, an export holds the upstream files themselves. */
  verbatim: boolean;
}

export interface CommonOptions {
  /** Default: {@link defaultCacheDir}. */
  cacheDir?: string;
  /** Default: the dataset's pinned manifest in `tasks/manifests/<dataset>.json`. Tests pass their own; its `dataset` must match. */
  manifest?: DataManifest;
  /** Progress lines (the CLI prints them to stderr). */
  onProgress?: (line: string) => void;
  /** Clock for `retrieved_at` (tests). */
  now?: () => Date;
}

export function checkDigest(file: ManifestFile, content: Uint8Array, where: string): void {
  const actual = sha256Hex(content);
  if (actual !== file.sha256) {
    throw new DataError(
      `sha256 mismatch for ${file.path} (${where}): expected ${file.sha256}, got ${actual} (${content.byteLength} bytes, expected ${file.bytes}). ` +
        `The file is not the one pinned at the manifest's commit; nothing was installed.`,
    );
  }
}

export function checkOutputs(manifest: DataManifest, converted: ConvertedFile[]): void {
  if (!manifest.outputs) return;
  const byTarget = new Map(converted.map((file) => [file.target, file]));
  for (const expected of manifest.outputs) {
    const file = byTarget.get(expected.target);
    const actual = file ? sha256Hex(file.content) : "(not produced)";
    if (actual !== expected.sha256) {
      throw new DataError(
        `converted ${expected.target} does not match the manifest: expected sha256 ${expected.sha256}, got ${actual}. ` +
          `The upstream files verified, so the converter changed; nothing was installed.`,
      );
    }
  }
}

/**
 * Writes the converted files plus SOURCE.json into a temporary directory inside `cacheDir`, then
 * swaps it into `<cacheDir>/<dataset>` with renames (same file system, so each rename is atomic).
 * On any failure the temporary directory is removed and an existing data directory is kept.
 */
export async function installDataDir(cacheDir: string, converted: ConvertedFile[], record: SourceRecord): Promise<string> {
  await mkdir(cacheDir, { recursive: true });
  const finalDir = join(cacheDir, record.dataset);
  const temporary = await mkdtemp(join(cacheDir, `.${record.dataset}.tmp-`));
  let previous: string | undefined;
  try {
    for (const file of converted) {
      const path = join(temporary, file.target);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, file.content);
    }
    await writeFile(join(temporary, SOURCE_FILE_NAME), `${JSON.stringify(record, null, 2)}\n`);
    const exists = await stat(finalDir).then(
      () => true,
      () => false,
    );
    if (exists) {
      previous = `${temporary}.previous`;
      await rename(finalDir, previous);
    }
    try {
      await rename(temporary, finalDir);
    } catch (error) {
      if (previous) await rename(previous, finalDir).catch(() => undefined);
      previous = undefined;
      throw error;
    }
  } catch (error) {
    await rm(temporary, { recursive: true, force: true });
    throw error;
  }
  if (previous) await rm(previous, { recursive: true, force: true });
  return finalDir;
}

export function sourceRecord(
  manifest: DataManifest,
  method: SourceRecord["method"],
  from: SourceRecord["from"],
  source: string,
  verified: boolean,
  converted: ConvertedFile[],
  now: () => Date,
): SourceRecord {
  return {
    dataset: manifest.dataset,
    repository: manifest.repository,
    commit: manifest.commit,
    method,
    // A `--source-url` with credentials (`https://user:token@mirror/…`, `?token=…`) is recorded without them (`src/secrets`).
    source: redactUrl(source),
    from,
    verified,
    retrieved_at: now().toISOString(),
    files: converted.map((file) => ({ target: file.target, sha256: sha256Hex(file.content), bytes: file.content.byteLength })),
  };
}

/** The manifest to install `dataset` from: the given one (which must be for that dataset) or the shipped one. */
export function manifestFor(dataset: string, given: DataManifest | undefined): DataManifest {
  const definition = datasetDefinition(dataset);
  if (!given) return loadDatasetManifest(dataset);
  if (given.dataset !== definition.name) {
    throw new ConfigError(`the manifest is for the dataset "${given.dataset}" (${given.repository}), not "${definition.name}"; pass a ${definition.title} manifest`);
  }
  return given;
}

/** True when every manifest file is a verbatim copy. */
export function isVerbatim(manifest: DataManifest): boolean {
  return manifest.files.every((file) => file.kind === "copy");
}
