import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import { checkSandboxAvailability, type SandboxAvailability, type SandboxRuntime, sandboxEnvironment } from "../../src/suites/tau2/knowledge/index.ts";
import { tau2BenchDirectory, missingTau2Reason } from "./shared-data.ts";

/**
 * Whether `srt` itself runs a command here (its tools may be installed where `bwrap` cannot make
 * namespaces: a container without the right seccomp profile, Ubuntu's AppArmor restriction). One
 * `echo` through taubridge's `srt` with no network and no writes, in a scratch directory: srt's own
 * work, none of ours, so a failure here is the machine's and the tests skip naming it.
 */
function srtRunsHere(runtime: SandboxRuntime): string | undefined {
  const scratch = mkdtempSync(join(tmpdir(), "tau3-srt-probe-"));
  try {
    const settings = join(scratch, "srt-settings.json");
    writeFileSync(settings, JSON.stringify({ network: { allowedDomains: [], deniedDomains: [] }, filesystem: { denyRead: [], allowWrite: [], denyWrite: [] } }));
    const probe = spawnSync(runtime.node, [runtime.cli, "--settings", settings, "echo sandbox-ok"], { cwd: scratch, env: sandboxEnvironment(), encoding: "utf8", timeout: 120_000 });
    if (probe.status === 0 && probe.stdout === "sandbox-ok\n") return undefined;
    const said = `${probe.stderr ?? ""}${probe.stdout ?? ""}`.trim().split("\n")[0] || probe.error?.message || `exit ${probe.status}`;
    return `srt cannot run a command on this machine (${said}); see "When the sandbox does not start" in docs/tau3-banking-knowledge.md`;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

let availability: SandboxAvailability | undefined;

/**
 * Whether τ³'s shell sandbox can run on this machine (taubridge's `srt` and Debian's `bubblewrap`,
 * `ripgrep`, `socat` on PATH — `.ci/run` installs them — and `srt` able to run a command). Checked
 * once per test file, when a suite that needs it is declared.
 */
function sandboxAvailability(): SandboxAvailability {
  if (availability) return availability;
  const found = checkSandboxAvailability();
  const problem = found.ok ? srtRunsHere(found.runtime) : found.problem;
  availability = problem === undefined && found.ok ? found : { ok: false, problem: problem as string };
  return availability;
}

/**
 * A `describe` whose body runs commands in τ³'s sandbox over the τ² data: it gets the data root and
 * the located `srt`. Without either it registers one skipped test named by the reason (and prints
 * it), so a missing tool is never a silent pass.
 */
export function describeWithSandbox(name: string, body: (tau2Data: string, runtime: SandboxRuntime) => void): void {
  const data = tau2BenchDirectory;
  const sandbox = data ? sandboxAvailability() : undefined;
  if (data && sandbox?.ok) {
    describe(name, () => body(data, sandbox.runtime));
    return;
  }
  const reason = data && sandbox && !sandbox.ok ? `skipped: the srt sandbox cannot run here: ${sandbox.problem}` : missingTau2Reason;
  console.warn(`${name}: ${reason}`);
  describe(name, () => it.skip(reason, () => undefined));
}
