/**
 * Issue 29: Ctrl-C, then resume, must not change scores. An episode cut by the run's own interrupt
 * is never recorded; the rerun runs it — whether the agent honours its `signal` or not. The run is
 * interrupted once a marker shows an episode in flight (the slow agent holds one reply until the
 * interrupt), never after a fixed sleep.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { runCli } from "./support/cli.ts";

const SLOW_AGENT = join(import.meta.dirname, "fixtures", "interrupts", "slow-agent.mjs");
const scratch = (prefix: string) => mkdtempSync(join(tmpdir(), `taubridge-${prefix}-`));

interface Report {
  resultsPath: string;
  passK: Record<string, number | null>;
}

function runArgs(logDir: string, extra: readonly string[]): string[] {
  return [
    "run",
    "--agent-strategy",
    "module",
    "--agent-module",
    SLOW_AGENT,
    "--task-ids",
    "0",
    "1",
    "2",
    "--num-trials",
    "3",
    "--max-concurrency",
    "2",
    "--log-dir",
    logDir,
    "--format",
    "json",
    ...extra,
  ];
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

type Entry = { task_id: number; trial: number; reward: number; info: { error?: string }; taubridge: { termination: string } };

describe("an interrupted τ-bench run, resumed, scores as an uninterrupted one", () => {
  const cases = [
    { name: "an agent that honours its signal (worker isolation)", signal: "honour", extra: [] as string[] },
    { name: "an agent that ignores its signal (no isolation)", signal: "ignore", extra: ["--agent-isolation", "none"] },
  ];
  for (const { name, signal, extra } of cases) {
    it(name, async () => {
      const baseline = await runCli(runArgs(scratch("baseline"), extra), { env: { SLOW_AGENT_DELAY_MS: "0" } });
      expect(baseline.exitCode).toBe(0);
      const expected = (JSON.parse(baseline.stdout) as Report).passK;

      const logDir = scratch("interrupted");
      const markers = scratch("markers");
      const env = { SLOW_AGENT_MARKERS: markers, SLOW_AGENT_SIGNAL: signal };
      const first = runCli(runArgs(logDir, extra), { env });
      let stderr = "";
      first.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      // Task 2, trial 1 holds its first reply: that episode is in flight when the interrupt comes.
      await waitFor(() => existsSync(join(markers, "holding")), "an episode in flight");
      first.kill("SIGINT");
      await waitFor(() => stderr.includes("interrupted:"), "the run to see the interrupt");
      writeFileSync(join(markers, "release"), ""); // an agent that ignores the signal answers now
      const interrupted = await first;
      expect(interrupted.exitCode).toBe(130);
      const partial = JSON.parse(readFileSync(join(logDir, readdirJson(logDir)), "utf8")) as Entry[];
      expect(partial.length).toBeLessThan(9);
      expect(partial.filter((entry) => entry.info.error !== undefined)).toEqual([]);
      expect(partial.map((entry) => `${entry.task_id}:${entry.trial}`)).not.toContain("2:1"); // the held episode was cut: not recorded

      const resumed = await runCli(runArgs(logDir, extra), { env });
      expect(resumed.exitCode).toBe(0);
      const report = JSON.parse(resumed.stdout) as Report;
      const entries = JSON.parse(readFileSync(report.resultsPath, "utf8")) as Entry[];
      expect(entries).toHaveLength(9);
      expect(entries.filter((entry) => entry.taubridge.termination !== "user_stop").map((entry) => `${entry.task_id}:${entry.trial} ${entry.taubridge.termination} ${entry.info.error ?? ""}`)).toEqual(
        [],
      );
      expect(report.passK).toEqual(expected);
    }, 600_000); // three runs of nine episodes each on a loaded machine: a generous bound, never a timing assumption
  }
});

function readdirJson(directory: string): string {
  const file = readdirSync(directory).find((name) => name.endsWith(".json") && !name.endsWith(".meta.json"));
  if (!file) throw new Error(`no results file in ${directory}`);
  return file;
}
