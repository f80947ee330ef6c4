/**
 * τ²'s parts for tests that build τ² runs directly: its domains and participants, as the bundled
 * τ² suite has them, created once per test file.
 */
import { loadedTau2Domains } from "../../domains/tau2.ts";
import type { Tau2Registries } from "../../src/suites/tau2/build.ts";
import { tau2Participants } from "../../src/suites/tau2/participants/registry.ts";

/** τ²'s domains (every one loaded, so `domains.get` answers), agents and users. */
export const tau2Registries: Tau2Registries = { domains: await loadedTau2Domains(), ...tau2Participants() };
