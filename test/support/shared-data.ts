import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "vitest";

/**
 * Where the official data lives for data-dependent tests: `TAUBRIDGE_SHARED` (set by `.ci/run`).
 * When it is absent, suites skip and say why once, so a missing data directory is never a silent pass.
 */
export const sharedDirectory: string | undefined = (() => {
  const directory = process.env.TAUBRIDGE_SHARED;
  return directory && existsSync(join(directory, "tau-bench")) ? directory : undefined;
})();

/** The τ-bench export directory (`<shared>/tau-bench`), or undefined. */
export const tauBenchDirectory = sharedDirectory ? join(sharedDirectory, "tau-bench") : undefined;

/** The reason printed when the shared data is absent. */
export const missingSharedReason = "skipped: TAUBRIDGE_SHARED does not point at a directory with tau-bench/ (set it to ../shared, as .ci/run does)";

let warned = false;
/** Prints the skip reason once per test file. */
export function warnIfMissingShared(): void {
  if (!sharedDirectory && !warned) {
    warned = true;
    console.warn(missingSharedReason);
  }
}

/** The τ²-bench export directory (`<shared>/tau2-bench`), or undefined. */
export const tau2BenchDirectory = sharedDirectory && existsSync(join(sharedDirectory, "tau2-bench")) ? join(sharedDirectory, "tau2-bench") : undefined;

/** The reason printed when the τ² data is absent. */
export const missingTau2Reason = "skipped: TAUBRIDGE_SHARED does not point at a directory with tau2-bench/ (set it to ../shared, as .ci/run does)";

/**
 * A `describe` whose body needs the τ² data (it loads domains or fixtures while tests are
 * collected, which happens even for a skipped describe). Without the data it registers one skipped
 * test named by the reason, so the report says why and nothing is loaded.
 */
export function describeWithTau2Data(name: string, body: (tau2Data: string) => void): void {
  const directory = tau2BenchDirectory;
  if (directory) describe(name, () => body(directory));
  else describe(name, () => it.skip(missingTau2Reason, () => undefined));
}
