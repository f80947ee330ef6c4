/**
 * `taubridge`: the package's main entry. It re-exports the core API (`src/index.ts`) and binds it
 * to the bundled registries (our domains, the built-in strategies and the framework adapters),
 * which importing this module registers.
 *
 *   import { runBenchmark } from "taubridge";
 *   const { metrics } = await runBenchmark({ env: "library", numTrials: 2 });
 */
import { loadDomain as loadDomainFrom, type DomainDefinition, type LoadedDomain } from "../src/suites/tau-bench/engine/domain.ts";
import { runBenchmarkWith, type BenchmarkHooks, type BenchmarkResult } from "../src/api/run-benchmark.ts";
import { defaultDataRoot } from "../src/run/data-root.ts";
import type { RunOptions } from "../src/run/run-flags.ts";
import { bundledRegistries } from "./registries.ts";
import { TAU2_RUN_DEFAULTS, buildTau2Run, type Tau2RunModels, type Tau2RunOptions } from "../src/suites/tau2/build.ts";
import { runTau2Batch, type Tau2BatchResult } from "../src/suites/tau2/batch.ts";
import { tau2DataRoot } from "../src/suites/tau2/data-root.ts";

export * from "../src/index.ts";
export { bundledRegistries };
export { DEFAULT_DOMAIN, domainRegistry } from "../domains/index.ts";
export { tau2DomainRegistry } from "../domains/tau2.ts";

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

/**
 * Runs τ²-bench like `taubridge tau2 run` (`tau2 run`'s options in camel case, its defaults
 * applied) on the bundled τ² domains and participants. Resolves with the simulations and metrics.
 *
 *   const { metrics } = await runTau2Benchmark({ domain: "telecom", agent: "oracle", user: "scripted", dataDir: "../shared/tau2-bench" });
 */
export async function runTau2Benchmark(options: Partial<Tau2RunOptions> & Pick<Tau2RunOptions, "domain">, hooks: { signal?: AbortSignal; models?: Tau2RunModels } = {}): Promise<Tau2BatchResult> {
  const { tau2 } = bundledRegistries;
  if (!tau2) throw new Error("the bundled registries have no τ² set");
  const full: Tau2RunOptions = {
    agent: TAU2_RUN_DEFAULTS.agent,
    user: TAU2_RUN_DEFAULTS.user,
    agentLlm: TAU2_RUN_DEFAULTS.agentLlm,
    userLlm: TAU2_RUN_DEFAULTS.userLlm,
    agentLlmArgs: { ...TAU2_RUN_DEFAULTS.llmArgs },
    userLlmArgs: { ...TAU2_RUN_DEFAULTS.llmArgs },
    numTrials: TAU2_RUN_DEFAULTS.numTrials,
    taskSplitName: TAU2_RUN_DEFAULTS.taskSplitName,
    maxSteps: TAU2_RUN_DEFAULTS.maxSteps,
    maxErrors: TAU2_RUN_DEFAULTS.maxErrors,
    maxConcurrency: TAU2_RUN_DEFAULTS.maxConcurrency,
    seed: TAU2_RUN_DEFAULTS.seed,
    maxRetries: TAU2_RUN_DEFAULTS.maxRetries,
    retryDelay: TAU2_RUN_DEFAULTS.retryDelay,
    timeout: null,
    ...options,
    dataDir: tau2DataRoot(options.dataDir),
  };
  return runTau2Batch(await buildTau2Run(full, tau2, hooks.models), { signal: hooks.signal });
}
