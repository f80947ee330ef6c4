import { Registry } from "../src/core/registry.ts";
import type { DomainDefinition } from "../src/suites/tau-bench/engine/domain.ts";
import { airlineDomain } from "./airline/index.ts";
import { libraryDomain } from "./library/index.ts";
import { retailDomain } from "./retail/index.ts";

/** The τ-bench domains taubridge knows, by the name `--env` takes, in a fresh registry (one per run or server). */
export function tauBenchDomains(): Registry<DomainDefinition> {
  const domains = new Registry<DomainDefinition>("domain");
  domains.register("library", libraryDomain);
  domains.register("retail", retailDomain);
  domains.register("airline", airlineDomain);
  return domains;
}

/** The domain the main job runs when no `--env` is given: our own, bundled, offline. */
export const DEFAULT_DOMAIN = "library";
