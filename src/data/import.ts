/**
 * `taubridge data import`: installing a dataset from a local directory instead of the network — a
 * checkout of the upstream repository (its files verified and converted, as a pull would) or a
 * converted export (its data files checked and copied as they are).
 */
import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ConfigError, DataError } from "../errors/error-tree.ts";
import { convertUpstream, type ConvertedFile } from "./convert.ts";
import { datasetDefinition, datasetNames } from "./datasets.ts";
import { loadDatasetManifest, sha256Hex, type DataManifest, type ManifestFile } from "./manifest.ts";
import { decodeUtf8, parsePythonJsonText } from "./data-files.ts";
import { parseTaskFile } from "./tau-bench-task-file.ts";
import { toJs } from "../value/index.ts";
import { defaultCacheDir, TAU_BENCH_DIR_NAME, TAU2_BENCH_DIR_NAME } from "./locations.ts";
import { checkDigest, checkOutputs, installDataDir, isVerbatim, manifestFor, sourceRecord, type CommonOptions, type InstallResult } from "./install.ts";

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

/** What kind of directory `data import` was given. */
export type ImportLayout = "checkout" | "export";

function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
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
  const text = decodeUtf8(content, name);
  if (entry.kind === "task-module") {
    parseTaskFile(text, name);
    return;
  }
  if (entry.kind === "tool-index") {
    const tools = toJs(parsePythonJsonText(text, name));
    if (!Array.isArray(tools)) throw new DataError(`${name}: expected a JSON array of tool schemas`);
    tools.forEach((tool, index) => {
      const functionName = (tool as { function?: { name?: unknown } } | null)?.function?.name;
      if (typeof functionName !== "string" || functionName === "") throw new DataError(`${name}: tool ${index}: field function.name: expected a tool name`);
    });
    return;
  }
  if (entry.target.endsWith(".jsonl")) {
    text.split("\n").forEach((line, index) => {
      if (line.trim() !== "") parsePythonJsonText(line, `${name} line ${index + 1}`);
    });
  } else if (entry.target.endsWith(".json")) {
    parsePythonJsonText(text, name);
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
