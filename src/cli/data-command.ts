/**
 * `taubridge data ...`: getting the official benchmark data onto this machine.
 *
 * Why a separate command: taubridge never ships upstream data; users build the data directory
 * once from the pinned upstream commit (download or local checkout), and every other command
 * finds it at `taubridge data path` when `--data-dir` is not given.
 */
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { DATASETS, datasetDefinition } from "../data/datasets.ts";
import type { InstallResult } from "../data/pull.ts";

// The data modules (zod, the Python literal parser, p-retry) load when a data command runs, not at CLI start-up.
const dataModules = () => Promise.all([import("../data/manifest.ts"), import("../data/pull.ts")]);

/** Where the command writes: progress to stderr, results to stdout (injectable for tests). */
export interface DataCommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const defaultIo: DataCommandIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

const DATASET_NAMES = DATASETS.names().join(", ");
const SOURCE_VARIABLES = DATASETS.names()
  .map((name) => `$${datasetDefinition(name).sourceEnvVar}`)
  .join(" or ");

/** The `Datasets:` epilog of `data pull --help`: each name, and what its data directory holds. */
function datasetsHelp(): string {
  const width = Math.max(...DATASETS.names().map((name) => name.length)) + 2;
  const rows = DATASETS.names().map((name) => {
    const definition = datasetDefinition(name);
    return `  ${name.padEnd(width)}${definition.title}: ${definition.contents}`;
  });
  return `\nDatasets:\n${rows.join("\n")}\n`;
}
const MANIFEST_HELP = "pinned-source manifest to use instead of the shipped tasks/manifests/<dataset>.json (re-pinning, mirrors)";

function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

function summary(result: InstallResult): string {
  const { record } = result;
  return (
    `${record.dataset} data installed at ${result.dataDir}\n` +
    `  ${record.repository}@${record.commit} via ${record.method} from ${record.source}\n` +
    (result.from === "upstream"
      ? `  ${result.upstreamFiles} upstream files (${megabytes(result.upstreamBytes)}), `
      : result.verbatim
        ? `  an export of the upstream files (${megabytes(result.upstreamBytes)}), JSON files parsed, `
        : `  a converted export (${megabytes(result.upstreamBytes)}), every file parsed, `) +
    `${record.verified ? "all sha256 verified" : "NOT verified (--no-verify, or files the manifest does not pin)"}; ${record.files.length} data files written\n`
  );
}

/**
 * Adds `data pull <dataset>`, `data import <dir>` (a checkout or a converted export) and `data path` to the main program.
 * Errors propagate to the caller (the main CLI maps `ConfigError` to exit code 2).
 */
export function registerDataCommand(program: Command, io: DataCommandIo = defaultIo): Command {
  const progress = (line: string): void => io.stderr(`${line}\n`);
  const data = program.command("data").description("download or import the official benchmark data (taubridge does not ship it)");

  data
    .command("pull")
    .description("download the pinned upstream files, verify their sha256, convert, and install them in the cache (<cache-dir>/<dataset>)")
    .argument("<dataset>", `dataset to pull (${DATASET_NAMES})`)
    .option("--cache-dir <dir>", "cache directory (default: $TAUBRIDGE_CACHE_DIR, $XDG_CACHE_HOME/taubridge or ~/.cache/taubridge)")
    .option("--source-url <url>", `base URL serving <url>/<commit>/<path> (default: the dataset's ${SOURCE_VARIABLES}, else raw.githubusercontent.com)`)
    .option("--manifest <file>", MANIFEST_HELP)
    .addHelpText("after", datasetsHelp)
    .action(async (dataset: string, options: { cacheDir?: string; sourceUrl?: string; manifest?: string }) => {
      datasetDefinition(dataset);
      const [{ loadManifestFile }, { pullDataset }] = await dataModules();
      const result = await pullDataset(dataset, {
        cacheDir: options.cacheDir,
        baseUrl: options.sourceUrl,
        manifest: options.manifest ? loadManifestFile(options.manifest) : undefined,
        onProgress: progress,
      });
      io.stdout(summary(result));
    });

  data
    .command("import")
    .description(
      "install the data from a local directory: a checkout of sierra-research/tau-bench or sierra-research/tau2-bench at the pinned commit, or an already-converted export (τ-bench: retail/, airline/ with tasks_*.json and tools_info.json; τ²-bench: the layout of the data directory)",
    )
    .argument("<dir>", "the checkout or the export directory")
    .option("--dataset <name>", `which dataset the directory holds (${DATASET_NAMES}; default: the --manifest's, else detected)`)
    .option("--cache-dir <dir>", "cache directory (default: $TAUBRIDGE_CACHE_DIR, $XDG_CACHE_HOME/taubridge or ~/.cache/taubridge)")
    .option("--no-verify", "accept files whose sha256 differs from the pinned commit (modified checkouts or exports)")
    .option("--manifest <file>", MANIFEST_HELP)
    .action(async (checkoutDir: string, options: { dataset?: string; cacheDir?: string; verify: boolean; manifest?: string }) => {
      if (options.dataset) datasetDefinition(options.dataset);
      const [{ loadManifestFile }, { importDataset }] = await dataModules();
      const result = await importDataset({
        checkoutDir,
        dataset: options.dataset,
        cacheDir: options.cacheDir,
        verify: options.verify,
        manifest: options.manifest ? loadManifestFile(options.manifest) : undefined,
        onProgress: progress,
      });
      io.stdout(summary(result));
    });

  data
    .command("path")
    .description("print a dataset's data directory, used when --data-dir is not given")
    .argument("[dataset]", `dataset (${DATASET_NAMES})`, "tau-bench")
    .option("--cache-dir <dir>", "cache directory to resolve against")
    .action(async (dataset: string, options: { cacheDir?: string }) => {
      datasetDefinition(dataset);
      const [, { defaultDataDir }] = await dataModules();
      const directory = defaultDataDir(process.env, options.cacheDir, dataset);
      io.stdout(`${directory}\n`);
      if (!existsSync(directory)) progress(`(not installed yet: run 'taubridge data pull ${dataset}')`);
    });

  return data;
}
