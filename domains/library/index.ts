import { fileURLToPath } from "node:url";
import type { DomainDefinition } from "../../src/suites/tau-bench/engine/domain.ts";
import { libraryTools } from "./tools.ts";

/**
 * taubridge's own benchmark domain: a public-library help desk (members, catalog, loans).
 *
 * Why it exists: the τ-bench data is not shipped with the package, so `npx taubridge run` without a
 * data directory needs a domain whose data, policy, tool schemas and tasks are bundled and
 * license-clean. It runs through the same engine, hash and reward as the τ-bench domains, so it
 * doubles as an offline end-to-end check of the harness.
 */
export const libraryDomain: DomainDefinition = {
  name: "library",
  suite: "taubridge",
  description: "taubridge library help desk (loans, renewals, holds, fines; bundled, offline)",
  dataSubdirectory: "library",
  bundledDataDirectory: fileURLToPath(new URL("./data", import.meta.url)),
  collections: ["members", "catalog", "loans"],
  tools: libraryTools,
  terminateTools: ["transfer_to_human_agents"],
  splits: { test: "tasks_test.json", dev: "tasks_dev.json" },
  defaultSplit: "test",
  policyFile: "policy.md",
  toolsInfoFile: "tools_info.json",
};

export { libraryTools } from "./tools.ts";
