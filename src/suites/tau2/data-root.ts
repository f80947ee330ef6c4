import { join } from "node:path";
import { defaultCacheDir } from "../../data/pull.ts";

/**
 * Where τ²-bench data comes from when `--data-dir` is absent: `TAUBRIDGE_DATA_DIR`, then the cache
 * `taubridge data pull tau2-bench` fills (`<cache>/tau2-bench`).
 */
export function tau2DataRoot(dataDir: string | undefined): string {
  if (dataDir) return dataDir;
  if (process.env.TAUBRIDGE_DATA_DIR) return process.env.TAUBRIDGE_DATA_DIR;
  return join(defaultCacheDir(), "tau2-bench");
}
