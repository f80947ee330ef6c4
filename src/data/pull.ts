import { resolve } from "node:path";
import { DataError } from "../errors/error-tree.ts";
import { convertUpstream } from "./convert.ts";
import { datasetDefinition } from "./datasets.ts";
import { type ManifestFile } from "./manifest.ts";
import { defaultCacheDir, defaultSourceUrl, TAU_BENCH_DIR_NAME, TAU2_BENCH_DIR_NAME } from "./locations.ts";
import { checkDigest, checkOutputs, installDataDir, isVerbatim, manifestFor, sourceRecord, type CommonOptions, type InstallResult } from "./install.ts";
import { downloadOne, fileUrl, mapConcurrent } from "./download.ts";

export { DEFAULT_TAU2_BENCH_SOURCE, DEFAULT_TAU_BENCH_SOURCE } from "./datasets.ts";
export { defaultCacheDir, defaultDataDir, defaultSourceUrl, SOURCE_FILE_NAME, TAU_BENCH_DIR_NAME, TAU2_BENCH_DIR_NAME } from "./locations.ts";
export type { InstallResult, SourceRecord } from "./install.ts";
export { detectImportLayout, importDataset, importTau2Bench, importTauBench, type ImportLayout, type ImportOptions } from "./import.ts";

/** Options of {@link pullTauBench}. */
export interface PullOptions extends CommonOptions {
  /** Default: {@link defaultSourceUrl}. */
  baseUrl?: string;
  /** Default: global `fetch`. */
  fetchImpl?: typeof fetch;
  /** Retries per file on transient errors (network, timeouts, HTTP 408/425/429/5xx). Default 4. */
  retries?: number;
  /** First retry delay in ms, doubling each time (default 1000). */
  retryMinTimeoutMs?: number;
  /** Per-request timeout in ms (default 120000). */
  timeoutMs?: number;
  /** Parallel downloads (default 4). */
  concurrency?: number;
}

/**
 * Downloads every manifest file of the pinned commit from `${baseUrl}/${commit}/${path}`,
 * verifies each sha256 (a mismatch names the file and both hashes), converts where the manifest
 * says so, and atomically installs `<cacheDir>/<dataset>/`. Transient failures are retried a
 * bounded number of times; when the network is unreachable the error says so and suggests `data import`.
 */
export async function pullDataset(dataset: string, options: PullOptions = {}): Promise<InstallResult> {
  const manifest = manifestFor(dataset, options.manifest);
  const cacheDir = resolve(options.cacheDir ?? defaultCacheDir());
  const baseUrl = options.baseUrl ?? defaultSourceUrl(process.env, dataset);
  const fetchImpl = options.fetchImpl ?? globalThis.fetch;
  const progress = options.onProgress ?? (() => undefined);
  const downloadOptions = {
    retries: options.retries ?? 4,
    retryMinTimeoutMs: options.retryMinTimeoutMs ?? 1000,
    timeoutMs: options.timeoutMs ?? 120_000,
    fetchImpl,
    sourceEnvVar: datasetDefinition(dataset).sourceEnvVar,
  };
  progress(`pulling ${manifest.repository}@${manifest.commit.slice(0, 12)} from ${baseUrl} (${manifest.files.length} files)`);
  const contents = new Map<string, Buffer>();
  let done = 0;
  const fetchAndVerify = async (file: ManifestFile, cancel: AbortSignal): Promise<void> => {
    const url = fileUrl(baseUrl, manifest.commit, file.path);
    const content = await downloadOne(file, url, downloadOptions, progress, cancel);
    checkDigest(file, content, `downloaded from ${url}`);
    contents.set(file.path, content);
    done++;
    progress(`[${done}/${manifest.files.length}] ${file.path} (${content.byteLength} bytes, sha256 ok)`);
  };
  // The first file alone probes the source, so an unreachable source fails with one retry sequence.
  const [first, ...rest] = manifest.files;
  await fetchAndVerify(first, new AbortController().signal);
  await mapConcurrent(rest, options.concurrency ?? 4, fetchAndVerify);
  const read = async (path: string): Promise<Buffer> => {
    const content = contents.get(path);
    if (!content) throw new DataError(`${path} is needed but not listed in the manifest`);
    return content;
  };
  const converted = await convertUpstream(manifest, read, progress);
  checkOutputs(manifest, converted);
  const record = sourceRecord(manifest, "pull", "upstream", baseUrl, true, converted, options.now ?? (() => new Date()));
  const dataDir = await installDataDir(cacheDir, converted, record);
  progress(`installed ${converted.length} files into ${dataDir}`);
  const upstreamBytes = [...contents.values()].reduce((sum, content) => sum + content.byteLength, 0);
  return { dataDir, record, from: "upstream", upstreamFiles: contents.size, upstreamBytes, verbatim: isVerbatim(manifest) };
}

/** {@link pullDataset} for τ-bench: downloads, converts and installs `<cacheDir>/tau-bench/`. */
export function pullTauBench(options: PullOptions = {}): Promise<InstallResult> {
  return pullDataset(TAU_BENCH_DIR_NAME, options);
}

/** {@link pullDataset} for τ²-bench: downloads the verbatim files and installs `<cacheDir>/tau2-bench/`. */
export function pullTau2Bench(options: PullOptions = {}): Promise<InstallResult> {
  return pullDataset(TAU2_BENCH_DIR_NAME, options);
}
