/**
 * `taubridge`: the package's main entry. It re-exports the core API (`src/index.ts`) and binds it
 * to the bundled registries (our domains, the built-in strategies and the framework adapters),
 * which importing this module registers.
 *
 *   import { runBenchmark } from "taubridge";
 *   const { metrics } = await runBenchmark({ env: "library", numTrials: 2 });
 */
import { loadDomain as loadDomainFrom, type DomainDefinition, type LoadedDomain } from "../src/engine/domain.ts";
import { runBenchmarkWith, type BenchmarkHooks, type BenchmarkResult } from "../src/api/run-benchmark.ts";
import { defaultDataRoot } from "../src/runner/data-root.ts";
import type { RunOptions } from "../src/runner/run-flags.ts";
import { bundledRegistries } from "./registries.ts";

export * from "../src/index.ts";
export { bundledRegistries };
export { DEFAULT_DOMAIN, domainRegistry } from "../domains/index.ts";

/**
 * Runs a benchmark like `taubridge run`: the options are its flags in camel case, validated by the
 * same table with the same errors. Resolves with every episode and the run's metrics.
 */
export function runBenchmark(options: RunOptions = {}, hooks: BenchmarkHooks = {}): Promise<BenchmarkResult> {
  return runBenchmarkWith(bundledRegistries, options, hooks);
}

/**
 * Loads a domain by name (or definition) with its data: the bundled domain's own files, or the
 * official data from `dataDir` (default: the cache `taubridge data pull` fills).
 */
export function loadDomain(domain: string | DomainDefinition, dataDir?: string): LoadedDomain {
  const definition = typeof domain === "string" ? bundledRegistries.domains.get(domain) : domain;
  return loadDomainFrom(definition, dataDir ?? defaultDataRoot(definition));
}
