/**
 * vitest global setup: the test run gets a derived cache of its own (`src/data/derived-cache.ts`),
 * empty at the start and removed at the end, so tests never read or fill the user's cache. CLI runs
 * the tests spawn inherit it. A folder set from outside (`TAUBRIDGE_DERIVED_CACHE_DIR`, or `off`)
 * is kept as it is.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  if (process.env.TAUBRIDGE_DERIVED_CACHE_DIR) return () => undefined;
  const folder = mkdtempSync(join(tmpdir(), "taubridge-test-derived-"));
  process.env.TAUBRIDGE_DERIVED_CACHE_DIR = folder;
  return () => rmSync(folder, { recursive: true, force: true });
}
