/**
 * τ²-bench's domains by the name `--domain` takes (τ²'s own names). They are separate from the
 * τ-bench domains of `domains/index.ts`: other tools, data model and scoring.
 *
 * Each domain's modules load when a run names it (a dynamic `import()` per domain): a telecom run
 * does not compile and evaluate banking_knowledge's, airline's, retail's and mock's tools and data
 * models. Resolve a name with `await domains.load(name)`; `loadedTau2Domains()` gives a registry
 * with every domain loaded, for callers that read several synchronously.
 */
import { DeferredRegistry } from "../src/core/registry.ts";
import type { Tau2DomainDefinition } from "../src/suites/tau2/engine/domain.ts";

/** The τ² domains (each loaded on first use) in a fresh registry (one per run or server). */
export function tau2Domains(): DeferredRegistry<Tau2DomainDefinition> {
  const domains = new DeferredRegistry<Tau2DomainDefinition>("τ² domain");
  domains.register("mock", async () => (await import("./tau2-mock/index.ts")).tau2MockDomain);
  domains.register("airline", async () => (await import("./tau2-airline/index.ts")).tau2AirlineDomain);
  domains.register("retail", async () => (await import("./tau2-retail/index.ts")).tau2RetailDomain);
  domains.register("telecom", async () => (await import("./tau2-telecom/index.ts")).tau2TelecomDomain);
  domains.register("telecom-workflow", async () => (await import("./tau2-telecom/index.ts")).tau2TelecomWorkflowDomain);
  domains.register("banking_knowledge", async () => (await import("./tau2-banking-knowledge/index.ts")).tau2BankingKnowledgeDomain);
  return domains;
}

/** The τ² domains with every one loaded, so `get` answers for each name (tests, benchmarks, listings). */
export function loadedTau2Domains(): Promise<DeferredRegistry<Tau2DomainDefinition>> {
  return tau2Domains().loadAll();
}
