/**
 * Hardening, class 5 (two runs on one log directory), on both suites: a run takes
 * `<results>.lock` (O_EXCL, holding pid, host and start time) before it reads or writes its results
 * file; a second run on the same file exits 2 in one line naming the other process; a lock left by
 * a dead process of this host is taken over with a warning; the lock is removed on every ending
 * (success, a refusal after it was taken, Ctrl-C once or twice). No test waits on a clock: each
 * waits for what the run writes.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { acquireResultsLock } from "../src/run/results-lock.ts";
import { runCli, runTau2 } from "./support/cli.ts";
import { describeWithTau2Data, warnIfMissingShared } from "./support/shared-data.ts";

warnIfMissingShared();

const TAU_STEM = "library-test-oracle-none-0.0_ids_0_user-none-scripted";
const TAU2_OFFLINE = ["--domain", "mock", "--agent", "oracle", "--user", "scripted", "--num-tasks", "1"];

function scratch(): string {
  return mkdtempSync(join(tmpdir(), "taubridge-lock-"));
}

/** A pid no process has any more: a child that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

function writeLock(resultsPath: string, holder: { pid: number; host?: string }): string {
  const path = `${resultsPath}.lock`;
  writeFileSync(path, JSON.stringify({ pid: holder.pid, host: holder.host ?? hostname(), startedAt: "2025-06-01T12:00:00.000Z" }));
  return path;
}

/** Expects exit 2, nothing on stdout, and exactly `line` on stderr. */
function expectRefusal(result: { exitCode?: number; stdout: unknown; stderr: unknown }, line: string): void {
  expect(String(result.stderr).trim()).toBe(`taubridge: ${line}`);
  expect(String(result.stdout)).toBe("");
  expect(result.exitCode).toBe(2);
}

/** Resolves once `path` exists (the run wrote it); the test's own timeout bounds the wait. */
async function fileAppears(path: string): Promise<void> {
  while (!existsSync(path)) await sleep(20);
}

/** Sends Ctrl-C once, or twice: the second after the run has said it is winding down (it then quits at once). */
async function interrupt(child: ReturnType<typeof runCli>, signals: number): Promise<void> {
  let stderr = "";
  const said = new Promise<void>((resolve) =>
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes("interrupted")) resolve();
    }),
  );
  child.kill("SIGINT");
  if (signals === 2) {
    await said;
    child.kill("SIGINT");
  }
}

/**
 * A function agent that writes `TAUBRIDGE_TEST_MARKER` on its first turn, then waits (a timer keeps
 * the process alive, so the turn is merely slow): it answers when the run is interrupted, unless
 * `TAUBRIDGE_TEST_DEAF` is set (then only a second Ctrl-C, which quits at once, ends the run).
 */
const STUCK_AGENT = `import { writeFileSync } from "node:fs";
export function respond({ signal }) {
  writeFileSync(process.env.TAUBRIDGE_TEST_MARKER, "turn started");
  return new Promise((resolve) => {
    const timer = setInterval(() => {}, 300_000);
    if (process.env.TAUBRIDGE_TEST_DEAF) return;
    signal.addEventListener("abort", () => {
      clearInterval(timer);
      resolve({ content: "Goodbye." });
    });
  });
}
`;

describe("the lock of a results file, in-process", () => {
  it("is O_EXCL: a second taker in the same process is refused until the first releases", () => {
    const results = join(scratch(), "results.json");
    const first = acquireResultsLock(results, "--save-to");
    expect(JSON.parse(readFileSync(first.path, "utf8"))).toMatchObject({ pid: process.pid, host: hostname() });
    expect(() => acquireResultsLock(results, "--save-to")).toThrow(`${results} is in use by another run (pid ${process.pid}, started `);
    first.release();
    first.release(); // idempotent
    expect(existsSync(first.path)).toBe(false);
    acquireResultsLock(results, "--save-to").release();
  });

  it("removes a folder it created for nothing, and never deletes a lock another run took over", () => {
    const folder = join(scratch(), "new", "deeper");
    const lock = acquireResultsLock(join(folder, "results.json"), "--save-to");
    writeFileSync(lock.path, JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: "2025-06-01T12:00:00.000Z" }));
    lock.release();
    expect(existsSync(lock.path)).toBe(true); // not ours any more
    const empty = join(scratch(), "empty", "sub");
    acquireResultsLock(join(empty, "results.json"), "--save-to").release();
    expect(existsSync(join(empty, ".."))).toBe(false);
  });
});

describe.concurrent("τ-bench --log-dir", () => {
  it("a second run on a results file in use exits 2 naming the other process, and leaves its lock alone", async () => {
    const logDir = scratch();
    const lock = writeLock(join(logDir, `${TAU_STEM}.json`), { pid: process.pid });
    const result = await runCli(["run", "--task-ids", "0", "--log-dir", logDir, "--quiet"]);
    expectRefusal(
      result,
      `${join(logDir, `${TAU_STEM}.json`)} is in use by another run (pid ${process.pid}, started 2025-06-01T12:00:00.000Z); wait for it to end, or give this run another --log-dir (lock file: ${lock})`,
    );
    expect(readdirSync(logDir)).toEqual([`${TAU_STEM}.json.lock`]);
  });

  it("a lock of another host is not judged from here: refused, naming the host", async () => {
    const logDir = scratch();
    writeLock(join(logDir, `${TAU_STEM}.json`), { pid: 1, host: "elsewhere.example" });
    const result = await runCli(["run", "--task-ids", "0", "--log-dir", logDir, "--quiet"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("is in use by another run (pid 1 on host elsewhere.example, started 2025-06-01T12:00:00.000Z)");
  });

  it("a stale lock of a dead process is taken over with a warning, and the run's lock is gone when it ends", async () => {
    const logDir = scratch();
    const pid = deadPid();
    const lock = writeLock(join(logDir, `${TAU_STEM}.json`), { pid });
    const result = await runCli(["run", "--task-ids", "0", "--log-dir", logDir, "--quiet"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(`[taubridge] warning: took over the lock of ${join(logDir, `${TAU_STEM}.json`)} left by pid ${pid} (started 2025-06-01T12:00:00.000Z), which is no longer running`);
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(join(logDir, `${TAU_STEM}.json`))).toBe(true);
  });

  it("a run refused after taking the lock (its agent module throws) releases it, and leaves no folder behind", async () => {
    const logDir = join(scratch(), "logs");
    const module = join(scratch(), "throwing.mjs");
    writeFileSync(module, "export function createAgent() { throw new Error('no key'); }\n");
    const result = await runCli([
      "run",
      "--agent-strategy",
      "vercel-ai",
      "--agent-option",
      `module=${module}`,
      "--model",
      "m",
      "--base-url",
      "http://127.0.0.1:9/v1",
      "--task-ids",
      "0",
      "--log-dir",
      logDir,
      "--quiet",
    ]);
    expect(result.exitCode).toBe(2);
    expect(existsSync(logDir)).toBe(false);
  });

  for (const signals of [1, 2]) {
    it(`Ctrl-C ${signals === 1 ? "once (the run winds down)" : "twice (the run quits at once)"} releases the lock`, async () => {
      const logDir = scratch();
      const agent = join(scratch(), "stuck-agent.mjs");
      writeFileSync(agent, STUCK_AGENT);
      const marker = join(scratch(), "marker");
      const child = runCli(["run", "--agent-strategy", "module", "--agent-module", agent, "--task-ids", "0", "--log-dir", logDir, "--quiet"], {
        env: { TAUBRIDGE_TEST_MARKER: marker, ...(signals === 2 ? { TAUBRIDGE_TEST_DEAF: "1" } : {}) },
      });
      // The results name carries the agent module's folder and file (a scratch folder here): find the lock by its suffix.
      const locks = () => readdirSync(logDir).filter((name) => name.endsWith(".json.lock"));
      await fileAppears(marker);
      expect(locks()).toHaveLength(1);
      await interrupt(child, signals);
      const result = await child;
      expect(result.exitCode).toBe(130);
      expect(locks()).toEqual([]);
    });
  }
});

describeWithTau2Data("τ² --save-to", (tau2Data) => {
  it.concurrent("a second run on a results file in use exits 2 naming the other process", async () => {
    const saveTo = join(scratch(), "results.json");
    const lock = writeLock(saveTo, { pid: process.pid });
    expectRefusal(
      await runTau2(TAU2_OFFLINE, { data: tau2Data, saveTo }),
      `${saveTo} is in use by another run (pid ${process.pid}, started 2025-06-01T12:00:00.000Z); wait for it to end, or give this run another --save-to (lock file: ${lock})`,
    );
    expect(existsSync(saveTo)).toBe(false);
  });

  it.concurrent("a stale lock of a dead process is taken over with a warning, and released at the end", async () => {
    const saveTo = join(scratch(), "results.json");
    const pid = deadPid();
    const lock = writeLock(saveTo, { pid });
    const result = await runTau2(TAU2_OFFLINE, { data: tau2Data, saveTo });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(`[taubridge] warning: took over the lock of ${saveTo} left by pid ${pid} (started 2025-06-01T12:00:00.000Z), which is no longer running`);
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(saveTo)).toBe(true);
  });

  it.concurrent("a run refused after taking the lock (a results file of another run) releases it", async () => {
    const folder = scratch();
    const saveTo = join(folder, "results.json");
    mkdirSync(folder, { recursive: true });
    writeFileSync(saveTo, JSON.stringify({ info: {}, tasks: [], simulations: [{}] }));
    const result = await runTau2(TAU2_OFFLINE, { data: tau2Data, saveTo });
    expect(result.exitCode).toBe(2);
    expect(existsSync(`${saveTo}.lock`)).toBe(false);
  });

  for (const signals of [1, 2]) {
    it(`Ctrl-C ${signals === 1 ? "once" : "twice"} releases the lock`, async () => {
      const saveTo = join(scratch(), "results.json");
      const agent = join(scratch(), "stuck-agent.mjs");
      writeFileSync(agent, STUCK_AGENT);
      const marker = join(scratch(), "marker");
      const child = runTau2(["--domain", "mock", "--agent", "module", "--agent-module", agent, "--user", "scripted", "--num-tasks", "1"], {
        data: tau2Data,
        saveTo,
        env: { TAUBRIDGE_TEST_MARKER: marker, ...(signals === 2 ? { TAUBRIDGE_TEST_DEAF: "1" } : {}) },
      });
      await fileAppears(marker);
      expect(existsSync(`${saveTo}.lock`)).toBe(true);
      await interrupt(child, signals);
      const result = await child;
      expect(result.exitCode).toBe(130);
      expect(existsSync(`${saveTo}.lock`)).toBe(false);
    });
  }
});
