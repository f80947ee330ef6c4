/**
 * Acquiring the official data (τ-bench, τ²-bench; see `datasets.ts`): download (or import from a
 * local checkout or export) the files the pinned manifest lists, verify each sha256, convert where
 * the manifest says so, and install `<cacheDir>/<dataset>/`.
 *
 * Why this shape: the project never redistributes upstream data, so every user builds the data
 * directory on their own machine from one exact upstream commit. Verification makes the result
 * identical everywhere (or fail loudly), and the install is atomic: the data directory is built in
 * a temporary folder next to it and renamed into place only when everything succeeded, so an
 * interrupted or failed pull never leaves a half-written data directory behind.
 */
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import pRetry, { AbortError } from "p-retry";
import { ConfigError, DataError, InfraError, TaubridgeError, errorMarker } from "../errors/error-tree.ts";
import { defaultCacheDir } from "./cache-dir.ts";
import { convertUpstream, type ConvertedFile } from "./convert.ts";
import { datasetDefinition, datasetNames } from "./datasets.ts";
import { loadDatasetManifest, sha256Hex, type DataManifest, type ManifestFile } from "./manifest.ts";
import { parsePythonJsonText } from "./data-files.ts";
import { parseTaskFile } from "./tau-bench-task-file.ts";
import { toJs } from "../value/index.ts";

export { DEFAULT_TAU2_BENCH_SOURCE, DEFAULT_TAU_BENCH_SOURCE } from "./datasets.ts";
export { defaultCacheDir } from "./cache-dir.ts";

/** Name of the τ-bench folder inside the cache directory. */
export const TAU_BENCH_DIR_NAME = "tau-bench";

/** Name of the τ²-bench folder inside the cache directory. */
export const TAU2_BENCH_DIR_NAME = "tau2-bench";

/** Name of the provenance file written into the data directory. */
export const SOURCE_FILE_NAME = "SOURCE.json";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * A dataset's data directory when `--data-dir` is absent: `<cacheDir>/<dataset>` (`tau-bench` by
 * default, `tau2-bench` for τ²). The folder is named after the dataset so both can live side by side.
 */
export function defaultDataDir(env: Env = process.env, cacheDir?: string, dataset = TAU_BENCH_DIR_NAME): string {
  datasetDefinition(dataset);
  return join(cacheDir ? resolve(cacheDir) : defaultCacheDir(env), dataset);
}

/**
 * The download base URL of a dataset: its environment variable (`$TAUBRIDGE_TAU_BENCH_SOURCE`,
 * `$TAUBRIDGE_TAU2_BENCH_SOURCE`), else its raw.githubusercontent.com default.
 */
export function defaultSourceUrl(env: Env = process.env, dataset = TAU_BENCH_DIR_NAME): string {
  const definition = datasetDefinition(dataset);
  return env[definition.sourceEnvVar] || definition.defaultSource;
}

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

interface CommonOptions {
  /** Default: {@link defaultCacheDir}. */
  cacheDir?: string;
  /** Default: the dataset's pinned manifest in `tasks/manifests/<dataset>.json`. Tests pass their own; its `dataset` must match. */
  manifest?: DataManifest;
  /** Progress lines (the CLI prints them to stderr). */
  onProgress?: (line: string) => void;
  /** Clock for `retrieved_at` (tests). */
  now?: () => Date;
}

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

/** Options of {@link importDataset} and {@link importTauBench}. */
export interface ImportOptions extends CommonOptions {
  /** A checkout of the repository or a converted export (`detectImportLayout` tells which). */
  checkoutDir: string;
  /**
   * Which dataset the directory holds. Default: the `manifest`'s dataset if one is given, else
   * whichever known dataset the directory is a checkout or an export of.
   */
  dataset?: string;
  /** Check each file's sha256 against the manifest (default true). `false` = `--no-verify` for modified checkouts. */
  verify?: boolean;
}

function fileUrl(baseUrl: string, commit: string, path: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return `${base}/${commit}/${path.split("/").map(encodeURIComponent).join("/")}`;
}

function checkDigest(file: ManifestFile, content: Uint8Array, where: string): void {
  const actual = sha256Hex(content);
  if (actual !== file.sha256) {
    throw new DataError(
      `sha256 mismatch for ${file.path} (${where}): expected ${file.sha256}, got ${actual} (${content.byteLength} bytes, expected ${file.bytes}). ` +
        `The file is not the one pinned at the manifest's commit; nothing was installed.`,
    );
  }
}

/** An error worth retrying (network failure, timeout, HTTP 408/425/429/5xx). */
class TransientError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("TransientError");

  constructor(
    message: string,
    readonly network: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** getaddrinfo codes that mean "this machine cannot turn the host name into an address". */
const NAME_RESOLUTION_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NONAME", "EAI_NODATA"]);

/** The getaddrinfo error somewhere in `error`'s cause chain, if the failure was a name lookup. */
function nameResolutionFailure(error: unknown): { code: string; hostname?: string } | undefined {
  const seen = new Set<unknown>();
  for (
    let current = error as { code?: unknown; hostname?: unknown; cause?: unknown } | undefined;
    current && typeof current === "object" && !seen.has(current);
    current = current.cause as typeof current
  ) {
    seen.add(current);
    if (typeof current.code === "string" && NAME_RESOLUTION_CODES.has(current.code)) {
      return { code: current.code, ...(typeof current.hostname === "string" ? { hostname: current.hostname } : {}) };
    }
  }
  return undefined;
}

/**
 * The one-line error for a host name that does not resolve. Not retried: ENOTFOUND is a definite
 * "no such name" (a typo in --source-url, or a resolver that only knows local names), and EAI_AGAIN
 * is what an offline machine reports after the system resolver has already spent its own retries
 * and timeouts (resolv.conf `attempts`/`timeout`), so another round from us would only add waiting.
 */
function unresolvableHostError(url: string, failure: { code: string; hostname?: string }, cause: unknown): ConfigError {
  const host = failure.hostname ?? new URL(url).hostname;
  const why = failure.code === "ENOTFOUND" ? "the name does not resolve" : "no DNS server answered";
  return new ConfigError(
    `cannot resolve the host ${host} (${failure.code}: ${why}): this machine cannot look it up (offline, or a wrong --source-url?); ` +
      `without network, run 'taubridge data import <dir>' on a checkout of the repository or an existing export, or pass --data-dir <dir> to the commands`,
    { cause },
  );
}

function describeNetworkError(error: unknown): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === "TimeoutError") return "request timed out";
  const code = err?.cause?.code;
  return code ? `${code}${err.cause?.message ? ` (${err.cause.message})` : ""}` : (err?.message ?? String(error));
}

async function downloadOne(
  file: ManifestFile,
  url: string,
  options: Required<Pick<PullOptions, "retries" | "retryMinTimeoutMs" | "timeoutMs">> & { fetchImpl: typeof fetch; sourceEnvVar: string },
  onRetry: (line: string) => void,
  cancel: AbortSignal,
): Promise<Buffer> {
  const attempt = async (): Promise<Buffer> => {
    if (cancel.aborted) throw new AbortError("cancelled: another download failed");
    let response: Response;
    try {
      const signal = AbortSignal.any([AbortSignal.timeout(options.timeoutMs), cancel]);
      response = await options.fetchImpl(url, { signal, redirect: "follow" });
    } catch (error) {
      if (cancel.aborted) throw new AbortError("cancelled: another download failed");
      const unresolved = nameResolutionFailure(error);
      if (unresolved) throw new AbortError(unresolvableHostError(url, unresolved, error));
      throw new TransientError(describeNetworkError(error), true, { cause: error });
    }
    if (response.status === 408 || response.status === 425 || response.status === 429 || response.status >= 500) {
      await response.body?.cancel().catch(() => undefined);
      throw new TransientError(`HTTP ${response.status} ${response.statusText}`, false);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      const hint = response.status === 404 ? " (is the source URL right, and does it serve this commit?)" : "";
      throw new AbortError(new DataError(`cannot download ${file.path}: HTTP ${response.status} ${response.statusText} from ${url}${hint}`));
    }
    try {
      return Buffer.from(await response.arrayBuffer());
    } catch (error) {
      throw new TransientError(`download interrupted: ${describeNetworkError(error)}`, true, { cause: error });
    }
  };
  try {
    return await pRetry(attempt, {
      retries: options.retries,
      minTimeout: options.retryMinTimeoutMs,
      factor: 2,
      maxTimeout: 30_000,
      randomize: true,
      signal: cancel,
      shouldRetry: ({ error }) => TransientError.isInstance(error),
      onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
        if (TransientError.isInstance(error) && retriesLeft > 0 && !cancel.aborted) {
          onRetry(`retrying ${file.path} after attempt ${attemptNumber} failed: ${error.message} (${retriesLeft} retries left)`);
        }
      },
    });
  } catch (error) {
    if (TransientError.isInstance(error)) {
      const attempts = options.retries + 1;
      const offline = error.network
        ? ` Are you offline or behind a proxy? Alternatives: clone the repository and run ` + `'taubridge data import <checkout-dir>', or point --source-url / ${options.sourceEnvVar} at a mirror.`
        : "";
      throw new InfraError(`cannot download ${file.path} from ${url} after ${attempts} attempt(s): ${error.message}.${offline}`, {
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * Runs `worker` over `items` with at most `limit` in flight. On the first failure the shared
 * signal is aborted (so the other workers stop retrying), all workers are awaited, and the
 * first error is thrown.
 */
async function mapConcurrent<T, R>(items: readonly T[], limit: number, worker: (item: T, cancel: AbortSignal) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  const controller = new AbortController();
  let firstError: { error: unknown } | undefined;
  let next = 0;
  const run = async (): Promise<void> => {
    while (!controller.signal.aborted && next < items.length) {
      const index = next++;
      try {
        results[index] = await worker(items[index], controller.signal);
      } catch (error) {
        if (!firstError) firstError = { error };
        controller.abort();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, run));
  if (firstError) throw firstError.error;
  return results;
}

function checkOutputs(manifest: DataManifest, converted: ConvertedFile[]): void {
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
async function installDataDir(cacheDir: string, converted: ConvertedFile[], record: SourceRecord): Promise<string> {
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

function sourceRecord(
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
    source,
    from,
    verified,
    retrieved_at: now().toISOString(),
    files: converted.map((file) => ({ target: file.target, sha256: sha256Hex(file.content), bytes: file.content.byteLength })),
  };
}

/** The manifest to install `dataset` from: the given one (which must be for that dataset) or the shipped one. */
function manifestFor(dataset: string, given: DataManifest | undefined): DataManifest {
  const definition = datasetDefinition(dataset);
  if (!given) return loadDatasetManifest(dataset);
  if (given.dataset !== definition.name) {
    throw new ConfigError(`the manifest is for the dataset "${given.dataset}" (${given.repository}), not "${definition.name}"; pass a ${definition.title} manifest`);
  }
  return given;
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

/** What kind of directory `data import` was given. */
export type ImportLayout = "checkout" | "export";

function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** True when every manifest file is a verbatim copy. */
function isVerbatim(manifest: DataManifest): boolean {
  return manifest.files.every((file) => file.kind === "copy");
}

/** The files that are converted from Python source. */
function convertedEntries(manifest: DataManifest): ManifestFile[] {
  return manifest.files.filter((file) => file.kind === "task-module" || file.kind === "tool-index");
}

/**
 * The files whose presence tells a checkout from an export: the converted ones (τ-bench), or, for
 * a manifest of verbatim copies (τ²-bench), every file that lives elsewhere in the repository than
 * in the data directory.
 */
function layoutMarkers(manifest: DataManifest): ManifestFile[] {
  const converted = convertedEntries(manifest);
  if (converted.length > 0) return converted;
  const moved = manifest.files.filter((file) => file.path !== file.target);
  return moved.length > 0 ? moved : manifest.files;
}

/** The layout of `directory` for this manifest, or undefined when it is neither. */
async function findImportLayout(directory: string, manifest: DataManifest): Promise<ImportLayout | undefined> {
  const markers = layoutMarkers(manifest);
  for (const file of markers) if (await exists(join(directory, file.path))) return "checkout";
  for (const file of markers) if (await exists(join(directory, file.target))) return "export";
  return undefined;
}

/** "is neither a checkout of … (it has no …) nor a converted export (it has no …)": what was looked for. */
function neitherPhrase(manifest: DataManifest): string {
  const probe = layoutMarkers(manifest)[0];
  return `neither a checkout of ${manifest.repository} (it has no ${probe.path}) nor a converted export (it has no ${probe.target})`;
}

/**
 * Tells a checkout of the upstream repository (it has the Python task modules, or for τ²-bench
 * the data files, at their upstream paths) from an already-converted export (it has their
 * data-directory targets, like the shared `tau-bench/` and `tau2-bench/` exports). A directory
 * with neither is an error naming both files it looked for.
 */
export async function detectImportLayout(directory: string, manifest: DataManifest): Promise<ImportLayout> {
  const layout = await findImportLayout(directory, manifest);
  if (layout) return layout;
  throw new DataError(`${directory} is ${neitherPhrase(manifest)}`);
}

/**
 * The dataset (and its manifest) a directory holds, when the user did not say: the one known
 * dataset whose checkout or export it is. None or several is an error naming what was looked for.
 */
async function detectImportDataset(directory: string): Promise<DataManifest> {
  const manifests = datasetNames().map((name) => loadDatasetManifest(name));
  const matching: DataManifest[] = [];
  for (const manifest of manifests) if (await findImportLayout(directory, manifest)) matching.push(manifest);
  if (matching.length === 1) return matching[0];
  if (matching.length > 1) {
    throw new ConfigError(`${directory} holds files of several datasets (${matching.map((manifest) => manifest.dataset).join(", ")}); say which with --dataset`);
  }
  throw new DataError(`${directory} is ${manifests.map(neitherPhrase).join(", and ")}`);
}

/**
 * Installs a dataset from a local directory, for offline machines or a mirror. Two kinds are
 * recognised ({@link detectImportLayout}): a checkout of the repository (its files are verified
 * against the manifest's sha256 and converted, exactly as a pull does), or an already-converted
 * export (each expected data file must exist and parse, and is checked against the manifest's
 * `outputs` sha256, or for verbatim copies their upstream sha256). Either way the result is
 * installed atomically like a pull. `verify: false` (`--no-verify`, for a deliberately modified
 * copy) turns hash mismatches into warnings and records `"verified": false` in SOURCE.json.
 * Without `dataset` or `manifest` the dataset is the one whose checkout or export the directory is.
 */
export async function importDataset(options: ImportOptions): Promise<InstallResult> {
  const checkoutDir = resolve(options.checkoutDir);
  const isDirectory = await stat(checkoutDir).then(
    (info) => info.isDirectory(),
    () => false,
  );
  const dataset = options.dataset ?? options.manifest?.dataset;
  const expected = dataset
    ? datasetDefinition(dataset).title
    : datasetNames()
        .map((name) => datasetDefinition(name).title)
        .join(" or ");
  if (!isDirectory) throw new DataError(`${checkoutDir} is not a directory (expected a checkout or a converted export of ${expected})`);
  const manifest = dataset ? manifestFor(dataset, options.manifest) : await detectImportDataset(checkoutDir);
  const layout = await detectImportLayout(checkoutDir, manifest);
  return layout === "checkout" ? importCheckout(options, manifest, checkoutDir) : importExport(options, manifest, checkoutDir);
}

/** {@link importDataset} for τ-bench (the given manifest, else the shipped τ-bench one). */
export function importTauBench(options: ImportOptions): Promise<InstallResult> {
  return importDataset({ ...options, dataset: options.dataset ?? TAU_BENCH_DIR_NAME });
}

/** {@link importDataset} for τ²-bench: a checkout of sierra-research/tau2-bench or an export laid out like the data directory. */
export function importTau2Bench(options: ImportOptions): Promise<InstallResult> {
  return importDataset({ ...options, dataset: options.dataset ?? TAU2_BENCH_DIR_NAME });
}

async function importCheckout(options: ImportOptions, manifest: DataManifest, checkoutDir: string): Promise<InstallResult> {
  const cacheDir = resolve(options.cacheDir ?? defaultCacheDir());
  const verify = options.verify ?? true;
  const progress = options.onProgress ?? (() => undefined);
  progress(`importing ${manifest.repository}@${manifest.commit.slice(0, 12)} from the checkout ${checkoutDir}${verify ? "" : " (not verifying sha256)"}`);
  const contents = new Map<string, Buffer>();
  for (const file of manifest.files) {
    let content: Buffer;
    try {
      content = await readFile(join(checkoutDir, file.path));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new DataError(`${checkoutDir} has no readable ${file.path} (${code}); is it a checkout of ${manifest.repository}?`, {
        cause: error,
      });
    }
    if (verify) checkDigest(file, content, `in ${checkoutDir}`);
    else if (sha256Hex(content) !== file.sha256) progress(`warning: ${file.path} differs from the pinned commit ${manifest.commit.slice(0, 12)}`);
    contents.set(file.path, content);
  }
  progress(`read ${contents.size} files${verify ? ", sha256 ok" : ""}`);
  const read = async (path: string): Promise<Buffer> => {
    const content = contents.get(path);
    if (!content) throw new DataError(`${path} is needed but not listed in the manifest`);
    return content;
  };
  const converted = await convertUpstream(manifest, read, progress);
  if (verify) checkOutputs(manifest, converted);
  const record = sourceRecord(manifest, "import", "upstream", checkoutDir, verify, converted, options.now ?? (() => new Date()));
  const dataDir = await installDataDir(cacheDir, converted, record);
  progress(`installed ${converted.length} files into ${dataDir}`);
  const upstreamBytes = [...contents.values()].reduce((sum, content) => sum + content.byteLength, 0);
  return { dataDir, record, from: "upstream", upstreamFiles: contents.size, upstreamBytes, verbatim: isVerbatim(manifest) };
}

/** One data file an export must hold, how it is checked, and the sha256 it should have (if pinned). */
interface ExportTarget {
  target: string;
  kind: ManifestFile["kind"];
  sha256?: string;
}

/** The data files a pull would produce: every target, with the manifest's pinned hash where there is one. */
function exportTargets(manifest: DataManifest): ExportTarget[] {
  const pinned = new Map((manifest.outputs ?? []).map((output) => [output.target, output.sha256]));
  const targets = new Map<string, ExportTarget>();
  for (const file of manifest.files) {
    if (file.kind === "tool-module" || targets.has(file.target)) continue;
    // A copied file is byte-identical to its upstream file, so its upstream sha256 pins it too.
    const sha256 = pinned.get(file.target) ?? (file.kind === "copy" ? file.sha256 : undefined);
    targets.set(file.target, { target: file.target, kind: file.kind, ...(sha256 ? { sha256 } : {}) });
  }
  return [...targets.values()];
}

/** Checks that a converted file parses as what the harness will load from it; errors name the file. */
function checkExportFile(entry: ExportTarget, content: Buffer, where: string): void {
  const name = `${where}/${entry.target}`;
  if (entry.kind === "task-module") {
    parseTaskFile(content.toString("utf8"), name);
    return;
  }
  if (entry.kind === "tool-index") {
    const tools = toJs(parsePythonJsonText(content.toString("utf8"), name));
    if (!Array.isArray(tools)) throw new DataError(`${name}: expected a JSON array of tool schemas`);
    tools.forEach((tool, index) => {
      const functionName = (tool as { function?: { name?: unknown } } | null)?.function?.name;
      if (typeof functionName !== "string" || functionName === "") throw new DataError(`${name}: tool ${index}: field function.name: expected a tool name`);
    });
    return;
  }
  if (entry.target.endsWith(".jsonl")) {
    content
      .toString("utf8")
      .split("\n")
      .forEach((line, index) => {
        if (line.trim() !== "") parsePythonJsonText(line, `${name} line ${index + 1}`);
      });
  } else if (entry.target.endsWith(".json")) {
    parsePythonJsonText(content.toString("utf8"), name);
  }
}

async function importExport(options: ImportOptions, manifest: DataManifest, exportDir: string): Promise<InstallResult> {
  const cacheDir = resolve(options.cacheDir ?? defaultCacheDir());
  const verify = options.verify ?? true;
  const progress = options.onProgress ?? (() => undefined);
  progress(`importing the converted export ${exportDir} (${manifest.repository}@${manifest.commit.slice(0, 12)})${verify ? "" : " (not verifying sha256)"}`);
  const targets = exportTargets(manifest);
  const converted: ConvertedFile[] = [];
  let allPinned = true;
  for (const entry of targets) {
    let content: Buffer;
    try {
      content = await readFile(join(exportDir, entry.target));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new DataError(`${exportDir} looks like a converted export but has no readable ${entry.target} (${code}); nothing was installed`, { cause: error });
    }
    checkExportFile(entry, content, exportDir);
    if (entry.sha256 === undefined) allPinned = false;
    else if (sha256Hex(content) !== entry.sha256) {
      const message = `${entry.target} in ${exportDir} differs from the data of the pinned commit ${manifest.commit.slice(0, 12)}: expected sha256 ${entry.sha256}, got ${sha256Hex(content)}`;
      if (verify) throw new DataError(`${message}; nothing was installed (--no-verify accepts a modified export)`);
      progress(`warning: ${message}`);
    }
    converted.push({ target: entry.target, content, sources: [entry.target] });
  }
  const verified = verify && allPinned;
  progress(`read ${converted.length} data files, all parse${verified ? ", sha256 ok" : verify ? " (some are not pinned by the manifest: not verified)" : ""}`);
  const record = sourceRecord(manifest, "import", "export", exportDir, verified, converted, options.now ?? (() => new Date()));
  const dataDir = await installDataDir(cacheDir, converted, record);
  progress(`installed ${converted.length} files into ${dataDir}`);
  const bytes = converted.reduce((sum, file) => sum + file.content.byteLength, 0);
  return { dataDir, record, from: "export", upstreamFiles: 0, upstreamBytes: bytes, verbatim: isVerbatim(manifest) };
}
