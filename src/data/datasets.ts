/**
 * The datasets `taubridge data` can install, keyed by the name the user types (`data pull <name>`).
 *
 * Why a registry: τ-bench and τ²-bench are acquired the same way (a pinned manifest, files fetched
 * from one upstream commit, every sha256 checked, an atomic install), and differ only in these
 * few facts. Keeping them in one table lets the pull, the import, `data path` and `--help` share
 * one code path and list the same names. This module is light (no zod, no parser) so the CLI can
 * list the datasets in `--help` without loading the data modules.
 */
import { Registry } from "../core/registry.ts";

/** Where raw τ-bench files of the pinned commit are fetched from: `${base}/${commit}/${path}`. */
export const DEFAULT_TAU_BENCH_SOURCE = "https://raw.githubusercontent.com/sierra-research/tau-bench";

/** Where raw τ²-bench files of the pinned commit are fetched from: `${base}/${commit}/${path}`. */
export const DEFAULT_TAU2_BENCH_SOURCE = "https://raw.githubusercontent.com/sierra-research/tau2-bench";

/** One installable dataset. Its name is also the folder in the cache directory and the manifest's `dataset`. */
export interface DatasetDefinition {
  name: string;
  /** How people write it (`τ-bench`), for messages. */
  title: string;
  /** The pinned manifest shipped with the package. */
  manifestUrl: URL;
  /** Base URL used when neither `--source-url` nor {@link sourceEnvVar} is set. */
  defaultSource: string;
  /** Environment variable that overrides {@link defaultSource} (a mirror). */
  sourceEnvVar: string;
  /** What the data directory holds, for `--help`. */
  contents: string;
}

/** Every dataset `taubridge data` knows, in the order `--help` lists them. */
export const DATASETS = new Registry<DatasetDefinition>("dataset");

DATASETS.register("tau-bench", {
  name: "tau-bench",
  title: "τ-bench",
  manifestUrl: new URL("../../tasks/manifests/tau-bench.json", import.meta.url),
  defaultSource: DEFAULT_TAU_BENCH_SOURCE,
  sourceEnvVar: "TAUBRIDGE_TAU_BENCH_SOURCE",
  contents: "retail and airline data, task lists and tool schemas converted from the Python sources",
});

DATASETS.register("tau2-bench", {
  name: "tau2-bench",
  title: "τ²-bench",
  manifestUrl: new URL("../../tasks/manifests/tau2-bench.json", import.meta.url),
  defaultSource: DEFAULT_TAU2_BENCH_SOURCE,
  sourceEnvVar: "TAUBRIDGE_TAU2_BENCH_SOURCE",
  contents: "mock, airline, retail, telecom and banking_knowledge domains, user_simulator/ guidelines and upstream-src/ (verbatim copies)",
});

/** The dataset called `name`; an unknown name is a `ConfigError` listing the known ones. */
export function datasetDefinition(name: string): DatasetDefinition {
  return DATASETS.get(name);
}

/** The names `data pull` accepts. */
export function datasetNames(): string[] {
  return DATASETS.names();
}
