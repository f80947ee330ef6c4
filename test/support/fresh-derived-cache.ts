/**
 * Gives each test of the calling `describe` an empty derived cache of its own
 * (`TAUBRIDGE_DERIVED_CACHE_DIR`, restored afterwards): the cache tests check what a run stores and
 * reads back, which the suite-wide cache (`derived-cache-setup.ts`) would mix across tests.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";

export function useFreshDerivedCache(prefix: string): void {
  let previous: string | undefined;
  beforeEach(() => {
    previous = process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(() => {
    if (previous === undefined) delete process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
    else process.env.TAUBRIDGE_DERIVED_CACHE_DIR = previous;
  });
}
