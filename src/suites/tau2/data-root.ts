import { join } from "node:path";
import { defaultCacheDir } from "../../data/locations.ts";

/**
 * Where τ²-bench data comes from when `--data-dir` is absent: `TAUBRIDGE_TAU2_DATA_DIR`, then the
 * cache `taubridge data pull tau2-bench` fills (`<cache>/tau2-bench`). τ² has its own variable:
 * τ-bench's `TAUBRIDGE_DATA_DIR` names a τ-bench data folder, which τ² cannot read.
 */
export function tau2DataRoot(dataDir: string | undefined): string {
  if (dataDir) return dataDir;
  if (process.env.TAUBRIDGE_TAU2_DATA_DIR) return process.env.TAUBRIDGE_TAU2_DATA_DIR;
  return join(defaultCacheDir(), "tau2-bench");
}
