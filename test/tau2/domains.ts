/** The τ² domains the fixture suites check: [fixture name, definition, task file or folder, domain config]. Adding a domain is one line here. */
import { join } from "node:path";
import { tau2AirlineDomain } from "../../domains/tau2-airline/index.ts";
import { tau2BankingKnowledgeDomain } from "../../domains/tau2-banking-knowledge/index.ts";
import { tau2MockDomain } from "../../domains/tau2-mock/index.ts";
import { tau2RetailDomain } from "../../domains/tau2-retail/index.ts";
import { tau2TelecomDomain } from "../../domains/tau2-telecom/index.ts";
import type { Tau2DomainConfig, Tau2DomainDefinition } from "../../src/suites/tau2/engine/domain.ts";
import { FROZEN_CLOCK } from "../../src/suites/tau2/knowledge/index.ts";
import { type Tau2Task, readTau2TaskDirectory, readTau2Tasks } from "../../src/suites/tau2/tasks.ts";

export const FIXTURE_DOMAINS: Array<[string, Tau2DomainDefinition, string, Tau2DomainConfig?]> = [
  ["mock", tau2MockDomain, "tasks.json"],
  ["telecom", tau2TelecomDomain, "tasks.json"],
  ["airline", tau2AirlineDomain, "tasks.json"],
  ["retail", tau2RetailDomain, "tasks.json"],
  // τ³: the fixtures were made with the bm25_grep variant and KB_search timings frozen at 0ms.
  ["banking_knowledge", tau2BankingKnowledgeDomain, "tasks", { retrievalConfig: "bm25_grep", services: { clock: FROZEN_CLOCK } }],
];

/** A fixture domain's tasks by id (a `tasks.json`, or τ³'s folder of `task_*.json`). */
export function fixtureTasks(data: string, definition: Tau2DomainDefinition, tasksFile: string): Map<string, Tau2Task> {
  const path = join(data, definition.folder, tasksFile);
  return new Map((tasksFile.endsWith(".json") ? readTau2Tasks(path) : readTau2TaskDirectory(path)).map((task) => [task.id, task]));
}
