import type { DomainDefinition } from "../../src/suites/tau-bench/engine/domain.ts";
import { retailTools } from "./tools.ts";

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

export { retailTools } from "./tools.ts";
