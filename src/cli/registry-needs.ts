import type { Registries } from "../run/registries.ts";

/**
 * What a command will resolve, so the caller may load only what it needs (undefined: everything,
 * e.g. for `taubridge strategies`): the agent and user names given, whether a model flag was given,
 * and whether τ² is involved.
 */
export interface RegistryNeeds {
  names: string[];
  models: boolean;
  tau2: boolean;
}

/** Supplies the registries a command resolves names in (created per command: nothing is process-wide). */
export type LoadRegistries = (needs?: RegistryNeeds) => Promise<Registries>;
