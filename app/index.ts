/**
 * `taubridge`: the package's main entry. It re-exports the public API's building blocks (`public-api.ts`) and binds them
 * to the bundled registries (both suites with their domains, the built-in strategies and the
 * framework adapters), a fresh set per call: nothing here is process-wide.
 *
 *   import { runBenchmark } from "taubridge";
 *   const { metrics } = await runBenchmark({ env: "library", numTrials: 2 });
 *   const tau2 = await runBenchmark({ suite: "tau2", domain: "mock", agent: "oracle", user: "scripted", dataDir: "../shared/tau2-bench" });
 */
import { runBenchmarkWith, type BenchmarkHooks, type BenchmarkResult } from "../src/api/run-benchmark.ts";
import type { RunOptions } from "../src/run/run-flags.ts";
import { defaultDataRoot } from "../src/suites/tau-bench/data-root.ts";
import { loadDomain as loadDomainFrom, type DomainDefinition, type LoadedDomain } from "../src/suites/tau-bench/engine/domain.ts";
import type { BatchOutcome } from "../src/suites/tau-bench/batch.ts";
import type { RunConfig } from "../src/suites/tau-bench/run-config.ts";
import type { Tau2RunModels, Tau2RunOptions } from "../src/suites/tau2/build.ts";
import type { Tau2BatchResult } from "../src/suites/tau2/batch.ts";
import { tauBenchDomains } from "../domains/index.ts";
import { createBundledRegistries } from "./registries.ts";

export * from "./public-api.ts";
export { createBundledRegistries };
export { createOfflineRegistries } from "./offline-registries.ts";
export { DEFAULT_DOMAIN, tauBenchDomains } from "../domains/index.ts";
export { loadedTau2Domains, tau2Domains } from "../domains/tau2.ts";

/** Options of a τ² run: the `run` flags with `suite: "tau2"` (τ²'s own spellings accepted). */
export type Tau2BenchmarkOptions = RunOptions & { suite: "tau2" | "tau2-bench" };

/**
 * Runs a benchmark like `taubridge run`: the options are its flags in camel case, validated by the
 * same table with the same errors; `suite: "tau2"` runs τ²-bench. Resolves with every episode and
 * the run's metrics, in one shape for both suites (`config` and `details` in the suite's own).
 */
export function runBenchmark(options: Tau2BenchmarkOptions, hooks?: BenchmarkHooks): Promise<BenchmarkResult<Tau2RunOptions, Tau2BatchResult>>;
export function runBenchmark(options?: RunOptions, hooks?: BenchmarkHooks): Promise<BenchmarkResult<RunConfig, BatchOutcome>>;
export async function runBenchmark(options: RunOptions = {}, hooks: BenchmarkHooks = {}): Promise<BenchmarkResult> {
  return runBenchmarkWith(await createBundledRegistries(), options, hooks);
}

/**
 * Loads a τ-bench domain by name (or definition) with its data: the bundled domain's own files, or
 * the official data from `dataDir` (default: the cache `taubridge data pull` fills).
 */
export function loadDomain(domain: string | DomainDefinition, dataDir?: string): LoadedDomain {
  const definition = typeof domain === "string" ? tauBenchDomains().get(domain) : domain;
  return loadDomainFrom(definition, dataDir ?? defaultDataRoot(definition));
}

/**
 * Runs τ²-bench like `taubridge tau2 run` with `tau2 run`'s option names, resolving with τ²'s own
 * batch result (simulations, τ² metrics). The same as `runBenchmark({ suite: "tau2", … }).details`.
 *
 *   const { metrics } = await runTau2Benchmark({ domain: "telecom", agent: "oracle", user: "scripted", dataDir: "../shared/tau2-bench" });
 */
export async function runTau2Benchmark(options: Partial<Tau2RunOptions> & Pick<Tau2RunOptions, "domain">, hooks: { signal?: AbortSignal; models?: Tau2RunModels } = {}): Promise<Tau2BatchResult> {
  const { timeout, agentOptions, agentBaseUrl, ...rest } = options;
  const flags: Record<string, unknown> = { ...rest, suite: "tau2" };
  if (timeout !== undefined && timeout !== null) flags.timeout = timeout;
  if (agentOptions) flags.agentOption = agentOptions;
  if (agentBaseUrl) flags.agentBaseUrl = agentBaseUrl;
  const result = await runBenchmark(flags as Tau2BenchmarkOptions, hooks);
  return result.details;
}
