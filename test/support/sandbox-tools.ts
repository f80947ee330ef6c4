import { describe, it } from "vitest";
import { checkSandboxAvailability, type SandboxRuntime } from "../../src/suites/tau2/knowledge/index.ts";
import { tau2BenchDirectory, missingTau2Reason } from "./shared-data.ts";

/**
 * Whether τ³'s shell sandbox can run on this machine (taubridge's `srt` and Debian's `bubblewrap`,
 * `ripgrep`, `socat` on PATH; `.ci/run` installs them). When it cannot, the suites that run shell
 * commands register one skipped test named by the reason, so a missing tool is never a silent pass.
 */
const availability = checkSandboxAvailability();

/** The reason printed when the sandbox cannot run here. */
export const missingSandboxReason = availability.ok ? undefined : `skipped: the srt sandbox cannot run here: ${availability.problem}`;

/**
 * A `describe` whose body runs commands in τ³'s sandbox over the τ² data: it gets the data root and
 * the located `srt`. Without either it registers one skipped test saying why (and prints it once).
 */
export function describeWithSandbox(name: string, body: (tau2Data: string, runtime: SandboxRuntime) => void): void {
  const data = tau2BenchDirectory;
  if (data && availability.ok) {
    describe(name, () => body(data, availability.runtime));
    return;
  }
  const reason = data ? (missingSandboxReason as string) : missingTau2Reason;
  console.warn(`${name}: ${reason}`);
  describe(name, () => it.skip(reason, () => undefined));
}
