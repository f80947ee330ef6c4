/**
 * τ²-bench's `telecom` domain: a mobile carrier's back office (agent) and the customer's phone
 * (user), dual control. Two registry names share the toolkits and data and differ in the
 * tech-support half of the policy: `telecom` (the manual) and `telecom-workflow` (the workflow).
 */
import type { Tau2DomainDefinition, Tau2PolicyReader } from "../../src/suites/tau2/engine/domain.ts";
import { telecomDbModel } from "./data-model.ts";
import { telecomMessages } from "./messages.ts";
import { phoneMessages } from "./user-messages.ts";
import { syncTelecom } from "./sync.ts";
import { telecomTools } from "./tools.ts";
import { telecomUserDbModel } from "./user-data-model.ts";
import { telecomUserTools } from "./user-tools.ts";

/**
 * The main policy and a tech-support policy, each in its tag (τ²:
 * src/tau2/domains/telecom/environment.py, get_environment). Solo mode has no separate manual.
 */
function telecomPolicy(read: Tau2PolicyReader, solo: boolean, techSupport: "manual" | "workflow"): string {
  const main = read(solo ? "main_policy_solo.md" : "main_policy.md");
  const techSupportFile = techSupport === "manual" ? "tech_support_manual.md" : solo ? "tech_support_workflow_solo.md" : "tech_support_workflow.md";
  return `<main_policy>\n${main}\n</main_policy>\n<tech_support_policy>\n${read(techSupportFile)}\n</tech_support_policy>`;
}

const telecomBase = {
  folder: "telecom",
  databases: { agent: { file: "db.toml", schema: telecomDbModel }, user: { file: "user_db.toml", schema: telecomUserDbModel } },
  agentToolkit: telecomTools,
  userToolkit: telecomUserTools,
  sync: syncTelecom,
  supportsSolo: true,
  messages: [telecomMessages, phoneMessages],
} satisfies Omit<Tau2DomainDefinition, "name" | "policy">;

/** `--domain telecom`: the tech-support manual. */
export const tau2TelecomDomain: Tau2DomainDefinition = {
  ...telecomBase,
  name: "telecom",
  policy: (read, solo) => telecomPolicy(read, solo, "manual"),
};

/** `--domain telecom-workflow`: the tech-support workflow. */
export const tau2TelecomWorkflowDomain: Tau2DomainDefinition = {
  ...telecomBase,
  name: "telecom-workflow",
  policy: (read, solo) => telecomPolicy(read, solo, "workflow"),
};

export { telecomTools, telecomUserTools };
