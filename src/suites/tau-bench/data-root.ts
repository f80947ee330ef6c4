import { join } from "node:path";
import { defaultCacheDir } from "../../data/locations.ts";
import type { DomainDefinition } from "./engine/domain.ts";

/**
 * Where a domain's data comes from when `--data-dir` is absent: `TAUBRIDGE_DATA_DIR`, then the
 * cache `taubridge data pull` fills for its suite; undefined for domains that ship their data (ours).
 */
export function defaultDataRoot(definition: DomainDefinition): string | undefined {
  if (definition.bundledDataDirectory) return undefined;
  if (process.env.TAUBRIDGE_DATA_DIR) return process.env.TAUBRIDGE_DATA_DIR;
  return join(defaultCacheDir(), definition.suite);
}
