/** τ²-bench's `airline` domain: flights, users and reservations of a fictional airline; no user tools, no solo mode. */
import type { Tau2DomainDefinition } from "../../src/suites/tau2/engine/domain.ts";
import { flightDbModel } from "./data-model.ts";
import { airlineMessages, airportLiterals } from "./messages.ts";
import { airlineTools } from "./tools.ts";

export const tau2AirlineDomain: Tau2DomainDefinition = {
  name: "airline",
  folder: "airline",
  databases: { agent: { file: "db.json", schema: flightDbModel } },
  agentToolkit: airlineTools,
  supportsSolo: false,
  policy: (read) => read("policy.md"),
  messages: [airlineMessages, airportLiterals],
};

export { airlineTools };
