/** The τ² domains the fixture suites check: [fixture name, definition, task file]. Adding a domain is one line here. */
import { tau2AirlineDomain } from "../../domains/tau2-airline/index.ts";
import { tau2MockDomain } from "../../domains/tau2-mock/index.ts";
import { tau2RetailDomain } from "../../domains/tau2-retail/index.ts";
import { tau2TelecomDomain } from "../../domains/tau2-telecom/index.ts";
import type { Tau2DomainDefinition } from "../../src/suites/tau2/engine/domain.ts";

export const FIXTURE_DOMAINS: Array<[string, Tau2DomainDefinition, string]> = [
  ["mock", tau2MockDomain, "tasks.json"],
  ["telecom", tau2TelecomDomain, "tasks.json"],
  ["airline", tau2AirlineDomain, "tasks.json"],
  ["retail", tau2RetailDomain, "tasks.json"],
];
