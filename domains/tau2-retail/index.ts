/** τ²-bench's `retail` domain: products with variants, users and orders of an online shop; no user tools, no solo mode. */
import type { Tau2DomainDefinition } from "../../src/suites/tau2/engine/domain.ts";
import { retailDbModel } from "./data-model.ts";
import { retailMessages } from "./messages.ts";
import { retailTools } from "./tools.ts";

export const tau2RetailDomain: Tau2DomainDefinition = {
  name: "retail",
  folder: "retail",
  databases: { agent: { file: "db.json", schema: retailDbModel } },
  agentToolkit: retailTools,
  supportsSolo: false,
  policy: (read) => read("policy.md"),
  messages: [retailMessages],
};

export { retailTools };
