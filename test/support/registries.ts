/**
 * Registries for tests that build τ-bench runs directly: the bundled τ-bench suite, every shared
 * strategy and the model layer, created once per test file (vitest runs each file in its own
 * process). `buildRun` here is the real build step with these registries filled in, so a test can
 * keep writing `buildRun(input)` or `buildRun(input, { models })`.
 */
import { registerAdapterStrategies } from "../../adapters/index.ts";
import { registerFastWorkflowStrategy } from "../../adapters/fastworkflow/index.ts";
import { createTauBenchNow } from "../../app/tau-bench-suite.ts";
import { Registry } from "../../src/core/registry.ts";
import type { Suite } from "../../src/core/suite.ts";
import { registerModelStrategies } from "../../src/participants/register.ts";
import type { RunModels } from "../../src/core/strategies.ts";
import { createRunModels } from "../../src/run/model-clients.ts";
import type { Registries } from "../../src/run/registries.ts";
import { agentStrategyRegistry } from "../../src/core/strategies.ts";
import { buildRun as buildRunWith, type BuiltRun } from "../../src/suites/tau-bench/build.ts";
import { tauBenchParts, type TauBenchParts } from "../../src/suites/tau-bench/parts.ts";
import type { RunConfigInput } from "../../src/suites/tau-bench/run-config.ts";

/** A fresh set: τ-bench with its domains, oracle and users; the shared strategies; the model layer. */
export function createTestRegistries(): Registries {
  const suites = new Registry<Suite<Registries>>("suite");
  suites.register("tau-bench", createTauBenchNow());
  const agentStrategies = agentStrategyRegistry();
  registerModelStrategies(agentStrategies);
  registerAdapterStrategies(agentStrategies);
  registerFastWorkflowStrategy(agentStrategies);
  return { suites, agentStrategies, createModels: createRunModels };
}

/** This test file's registries (register test-only strategies on them). */
export const testRegistries: Registries = createTestRegistries();

/** τ-bench's parts in this file's registries: its domains, oracle and user simulators. */
export const tauBench: TauBenchParts = tauBenchParts(testRegistries);

/** The build step with this file's registries. */
export function buildRun(input: RunConfigInput, overrides: { registries?: Registries; models?: RunModels } = {}): BuiltRun {
  return buildRunWith(input, { registries: overrides.registries ?? testRegistries, ...(overrides.models ? { models: overrides.models } : {}) });
}
