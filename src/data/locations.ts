import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { datasetDefinition } from "./datasets.ts";

/** Name of the τ-bench folder inside the cache directory. */
export const TAU_BENCH_DIR_NAME = "tau-bench";

/** Name of the τ²-bench folder inside the cache directory. */
export const TAU2_BENCH_DIR_NAME = "tau2-bench";

/** Name of the provenance file written into the data directory. */
export const SOURCE_FILE_NAME = "SOURCE.json";

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The cache directory: `$TAUBRIDGE_CACHE_DIR`, else `$XDG_CACHE_HOME/taubridge`, else
 * `~/.cache/taubridge` (absolute). One place so the CLI, the loaders and the docs agree.
 */
export function defaultCacheDir(env: Env = process.env): string {
  if (env.TAUBRIDGE_CACHE_DIR) return resolve(env.TAUBRIDGE_CACHE_DIR);
  if (env.XDG_CACHE_HOME) return resolve(env.XDG_CACHE_HOME, "taubridge");
  return join(homedir(), ".cache", "taubridge");
}

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

/**
 * Which dataset a data directory holds (`tau-bench` or `tau2-bench`): its provenance record's
 * `dataset`, else its layout (τ-bench's sources are under `upstream-src/tau_bench`, τ²'s under
 * `upstream-src/src/tau2`, and only τ² has `user_simulator/`); undefined when neither tells. Lets a
 * command given the other benchmark's data say so instead of naming a file it cannot read.
 */
export function datasetOfDirectory(directory: string): string | undefined {
  try {
    const record = JSON.parse(readFileSync(join(directory, SOURCE_FILE_NAME), "utf8")) as { dataset?: unknown };
    if (typeof record.dataset === "string") return record.dataset;
  } catch {
    // no provenance record (an export or a checkout): the layout tells
  }
  if (existsSync(join(directory, "upstream-src", "src", "tau2")) || existsSync(join(directory, "user_simulator"))) return TAU2_BENCH_DIR_NAME;
  if (existsSync(join(directory, "upstream-src", "tau_bench"))) return TAU_BENCH_DIR_NAME;
  return undefined;
}
