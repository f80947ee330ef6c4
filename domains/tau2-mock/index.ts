/** τ²-bench's `mock` domain: a small task tracker with a user-side notification inbox (dual control). */
import type { Tau2DomainDefinition } from "../../src/suites/tau2/engine/domain.ts";
import { mockDbModel, mockUserDbModel } from "./data-model.ts";
import { mockMessages, mockUserMessages } from "./messages.ts";
import { mockTools } from "./tools.ts";
import { mockUserTools } from "./user-tools.ts";

export const tau2MockDomain: Tau2DomainDefinition = {
  name: "mock",
  folder: "mock",
  databases: { agent: { file: "db.json", schema: mockDbModel }, user: { file: "user_db.json", schema: mockUserDbModel } },
  agentToolkit: mockTools,
  userToolkit: mockUserTools,
  supportsSolo: true,
  policy: (read, solo) => read(solo ? "policy_solo.md" : "policy.md"),
  messages: [mockMessages, mockUserMessages],
};

export { mockTools, mockUserTools };
