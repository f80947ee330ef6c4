/**
 * τ²-bench's part of the bundled registries: the τ² domains and participants (oracle, scripted,
 * τ²'s model-driven agents and user simulator). Loaded only by what runs τ² — `taubridge tau2 run`,
 * `replay --suite tau2`, `report`/`rescore` of τ² files, and the package's main entry — so a
 * τ-bench run does not load the τ² domains or the Python-source reader.
 */
import { tau2DomainRegistry } from "../domains/tau2.ts";
import type { Tau2Registries } from "../src/suites/tau2/build.ts";
import { registerOfflineTau2Participants, tau2Agents, tau2Users } from "../src/suites/tau2/participants/registry.ts";

registerOfflineTau2Participants();

export const tau2Registries: Tau2Registries = { domains: tau2DomainRegistry, agents: tau2Agents, users: tau2Users };
