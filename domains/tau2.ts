/**
 * τ²-bench's domains by the name `--domain` takes (τ²'s own names). They are separate from the
 * τ-bench domains of `domains/index.ts`: other tools, data model and scoring.
 */
import { Registry } from "../src/core/registry.ts";
import type { Tau2DomainDefinition } from "../src/suites/tau2/engine/domain.ts";
import { tau2AirlineDomain } from "./tau2-airline/index.ts";
import { tau2BankingKnowledgeDomain } from "./tau2-banking-knowledge/index.ts";
import { tau2MockDomain } from "./tau2-mock/index.ts";
import { tau2RetailDomain } from "./tau2-retail/index.ts";
import { tau2TelecomDomain, tau2TelecomWorkflowDomain } from "./tau2-telecom/index.ts";

/** The τ² domains in a fresh registry (one per run or server). */
export function tau2Domains(): Registry<Tau2DomainDefinition> {
  const domains = new Registry<Tau2DomainDefinition>("τ² domain");
  for (const domain of [tau2MockDomain, tau2AirlineDomain, tau2RetailDomain, tau2TelecomDomain, tau2TelecomWorkflowDomain, tau2BankingKnowledgeDomain]) domains.register(domain.name, domain);
  return domains;
}
