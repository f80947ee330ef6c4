import type { DomainDefinition } from "../src/engine/domain.ts";
import { airlineTools } from "./airline/tools.ts";
import { retailTools } from "./retail/tools.ts";

/**
 * τ-bench (v1) retail: 16 tools over orders, products and users. Data comes from a τ-bench data
 * directory (`taubridge data pull tau-bench`, or `--data-dir`).
 */
export const retailDomain: DomainDefinition = {
  name: "retail",
  suite: "tau-bench",
  description: "τ-bench retail (orders, exchanges, returns)",
  dataSubdirectory: "retail",
  collections: ["orders", "products", "users"],
  tools: retailTools,
  terminateTools: ["transfer_to_human_agents"],
  splits: { test: "tasks_test.json", train: "tasks_train.json", dev: "tasks_dev.json" },
  defaultSplit: "test",
  policyFile: "wiki.md",
  toolsInfoFile: "tools_info.json",
};

/** τ-bench (v1) airline: 14 tools over flights, reservations and users; test split only. */
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
