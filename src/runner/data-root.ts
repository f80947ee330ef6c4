import { homedir } from "node:os";
import { join } from "node:path";
import type { DomainDefinition } from "../engine/domain.ts";

/** The user cache taubridge keeps downloaded data in (`taubridge data pull` fills it). */
export function cacheRoot(): string {
  if (process.env.TAUBRIDGE_CACHE_DIR) return process.env.TAUBRIDGE_CACHE_DIR;
  if (process.env.XDG_CACHE_HOME) return join(process.env.XDG_CACHE_HOME, "taubridge");
  return join(homedir(), ".cache", "taubridge");
}

/**
 * Where a domain's data comes from when `--data-dir` is absent: `TAUBRIDGE_DATA_DIR`, then the
 * pulled cache for its suite; undefined for domains that ship their data (ours).
 */
export function defaultDataRoot(definition: DomainDefinition): string | undefined {
  if (definition.bundledDataDirectory) return undefined;
  if (process.env.TAUBRIDGE_DATA_DIR) return process.env.TAUBRIDGE_DATA_DIR;
  return join(cacheRoot(), definition.suite);
}
