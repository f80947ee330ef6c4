/**
 * The cache directory, in a module of its own: the run paths need it to find the default data
 * directory, and importing it from `pull.ts` loaded the whole downloader (p-retry, the converters,
 * the manifests) into every offline run.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The cache directory: `$TAUBRIDGE_CACHE_DIR`, else `$XDG_CACHE_HOME/taubridge`, else
 * `~/.cache/taubridge` (absolute). One place so the CLI, the loaders and the docs agree.
 */
export function defaultCacheDir(env: Env = process.env): string {
  if (env.TAUBRIDGE_CACHE_DIR) return resolve(env.TAUBRIDGE_CACHE_DIR);
  if (env.XDG_CACHE_HOME) return resolve(env.XDG_CACHE_HOME, "taubridge");
  return join(homedir(), ".cache", "taubridge");
}
