import { Registry } from "../src/core/registry.ts";
import type { DomainDefinition } from "../src/suites/tau-bench/engine/domain.ts";
import { airlineDomain } from "./airline/index.ts";
import { libraryDomain } from "./library/index.ts";
import { retailDomain } from "./retail/index.ts";

/** Every domain taubridge knows, by the name `--env` takes. */
export const domainRegistry = new Registry<DomainDefinition>("domain");
domainRegistry.register("library", libraryDomain);
domainRegistry.register("retail", retailDomain);
domainRegistry.register("airline", airlineDomain);

/** The domain the main job runs when no `--env` is given: our own, bundled, offline. */
export const DEFAULT_DOMAIN = "library";
