import type { DomainDefinition } from "../../src/suites/tau-bench/engine/domain.ts";
import { airlineTools } from "./tools.ts";

/**
 * τ-bench (v1) airline: 14 tools over flights, reservations and users; test split only. Data comes
 * from a τ-bench data directory (`taubridge data pull tau-bench`, or `--data-dir`).
 */
export const airlineDomain: DomainDefinition = {
  name: "airline",
  suite: "tau-bench",
  description: "τ-bench airline (bookings, changes, cancellations)",
  dataSubdirectory: "airline",
  collections: ["flights", "reservations", "users"],
  tools: airlineTools,
  terminateTools: ["transfer_to_human_agents"],
  splits: { test: "tasks_test.json" },
  defaultSplit: "test",
  policyFile: "wiki.md",
  toolsInfoFile: "tools_info.json",
};

export { airlineTools } from "./tools.ts";
