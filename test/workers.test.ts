/**
 * `--workers N` (local worker processes) end to end, through the CLI from the sources:
 *
 * - byte-identical output: golden scenarios run in one process and with `--workers 2
 *   --max-concurrency 3` print and write the same bytes (masked as the golden guard masks: times,
 *   durations, ids, paths), on τ-bench (retail oracle, a scripted model, a framework agent through
 *   the bridge, a module agent) and τ² (telecom oracle, llm_agent and a framework agent on the
 *   scripted server);
 * - Ctrl-C (SIGINT to the whole process group, as a terminal sends it) while episodes are in
 *   flight: exit 130, the cut episodes are not recorded, and running the command again finishes
 *   the run with the one-process results;
 * - a worker killed with SIGKILL mid-episode: its episode is retried on a replacement (τ²), or
 *   recorded once as an infrastructure error with exit 3 and re-run by the next run (τ-bench);
 * - secrets never cross the pipe (the protocol log), exit 2 for a run whose flags hold one and for
 *   a dead model endpoint.
 *
 * Episodes are held at a scripted model server's gate, never timed.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptedRequest } from "../src/testing/index.ts";
import { missing, runScenario, scenarioFiles } from "./golden/run-scenario.ts";
import type { Scenario } from "./golden/scenarios.ts";
import { runCli } from "./support/cli.ts";
import { filesOf, gatedScenario, releaseGatedRun, scenarioNamed, until, withArgs, withoutHeadings } from "./support/gated-runs.ts";

const WORKERS = ["--workers", "2", "--max-concurrency", "3"];
const TIMEOUT = 900_000;

/** τ² telecom (its base split) with the oracle agent: no golden scenario runs that split. */
const TAU2_TELECOM_ORACLE: Scenario = {
  name: "tau2-telecom-oracle",
  needs: ["tau2-bench"],
  invocations: (context) => [
    { args: ["tau2", "run", "--data-dir", context.tau2Bench, "--save-to", join(context.out, "results.json"), "--quiet", "--domain", "telecom", "--agent", "oracle", "--user", "scripted"] },
  ],
};

/**
 * A scenario's one-process output, run once per file and shared by every test that compares with it
 * (the parity cases, and the interrupted and killed runs' baselines): the same command gives the
 * same masked output, so running it again would only cost time.
 */
const oneProcessRuns = new Map<string, ReturnType<typeof runScenario>>();
function oneProcess(scenario: Scenario): ReturnType<typeof runScenario> {
  let run = oneProcessRuns.get(scenario.name);
  if (!run) oneProcessRuns.set(scenario.name, (run = runScenario(scenario)));
  return run;
}

/** The first section (`### name`) where two renderings differ, for the failure message. */
function firstDifference(left: string, right: string): string | undefined {
  if (left === right) return undefined;
  const sections = (text: string) => text.split(/^(?=### )/m);
  const [a, b] = [sections(left), sections(right)];
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    if (a[index] !== b[index]) {
      const at = [...(a[index] ?? "")].findIndex((char, position) => char !== (b[index] ?? "")[position]);
      return `section ${(a[index] ?? b[index] ?? "").split("\n")[0]} differs at character ${at}: one process …${(a[index] ?? "").slice(Math.max(0, at - 80), at + 80)}… workers …${(b[index] ?? "").slice(Math.max(0, at - 80), at + 80)}…`;
    }
  }
  return "they differ";
}

describe("--workers 2 prints and writes what one process does", () => {
  const cases: Array<[string, Scenario]> = [
    ["τ-bench retail oracle", scenarioNamed("tau-retail-test-oracle")],
    ["τ-bench tool-calling agent and LLM user on the scripted server", scenarioNamed("tau-library-tool-calling-llm-user")],
    ["τ-bench framework agent through the bridge (vercel-ai)", scenarioNamed("tau-library-vercel-ai")],
    ["τ-bench module agent", scenarioNamed("tau-library-module")],
    ["τ² telecom oracle", TAU2_TELECOM_ORACLE],
    ["τ² llm_agent and user simulator on the scripted server", scenarioNamed("tau2-mock-llm-agent-user-simulator")],
    ["τ² framework agent through the bridge (langchain)", scenarioNamed("tau2-retail-langchain")],
  ];
  for (const [title, scenario] of cases) {
    const reason = missing(scenario.needs);
    it.skipIf(reason !== undefined)(
      `${title}${reason ? ` (skipped: ${reason})` : ""}`,
      async () => {
        // Independent runs (each its own model server and folders): at the same time.
        const [one, workers] = await Promise.all([oneProcess(scenario), runScenario(withArgs(scenario, WORKERS))]);
        expect(one.whole).toMatch(/^exit 0$/m);
        expect(firstDifference(withoutHeadings(one.whole), withoutHeadings(workers.whole))).toBeUndefined();
      },
      TIMEOUT,
    );
  }
});

interface LogLine {
  direction: "to" | "from" | "exit";
  worker: number;
  pid: number;
  message: { type: string; key?: string; attempt?: number; unit?: { taskId: string; trial: number; attempt: number } };
}

function logLines(path: string): LogLine[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.endsWith("}"))
    .map((line) => JSON.parse(line) as LogLine);
}

const results = (log: string) => logLines(log).filter((line) => line.direction === "from" && line.message.type === "result");

/** A scenario's run started by hand (the CLI from the sources, its own process group), with the protocol log. */
function startRun(args: readonly string[], log: string, env: Record<string, string> = {}) {
  return runCli(args, { detached: true, env: { TAUBRIDGE_WORKER_LOG: log, TAUBRIDGE_DEBUG: "", ...env } });
}

type WorkersRun = Awaited<ReturnType<typeof gatedScenario>> & { log: string };

/**
 * A scenario on a gated model server, with a protocol log for its runs, given to `body`; the gate
 * is opened and the server closed afterwards, whatever happened.
 */
async function withGatedRun(name: string, closed: (request: ScriptedRequest, log: string) => boolean, body: (run: WorkersRun) => Promise<void>): Promise<void> {
  const log = join(mkdtempSync(join(tmpdir(), "taubridge-worker-log-")), "protocol.jsonl");
  const run = { ...(await gatedScenario(scenarioNamed(name), (request) => closed(request, log))), log };
  try {
    await body(run);
  } finally {
    await releaseGatedRun(run);
  }
}

/** Whether a run wrote what the one-process baseline wrote: undefined when it did, else where they differ. */
function filesDiffer(baseline: { whole: string }, run: WorkersRun): string | undefined {
  return firstDifference(filesOf(baseline.whole), scenarioFiles(run.context));
}

/** The τ-bench results file a run wrote (its only `.json` besides the status sidecar). */
function tauBenchEntries<Entry>(run: WorkersRun): Entry[] {
  const name = readdirSync(run.context.out).find((file) => file.endsWith(".json") && !file.endsWith(".meta.json")) as string;
  return JSON.parse(readFileSync(join(run.context.out, name), "utf8")) as Entry[];
}

describe("a --workers run interrupted with Ctrl-C", () => {
  const scenario = scenarioNamed("tau2-mock-llm-agent-user-simulator");
  const reason = missing(scenario.needs);
  it.skipIf(reason !== undefined)(
    `exits 130 without recording the cut episodes; the same command finishes it as one process would${reason ? ` (skipped: ${reason})` : ""}`,
    async () => {
      const baseline = await oneProcess(scenario);
      // Once one simulation is recorded, every model call waits: the episodes in flight are cut by the interrupt.
      await withGatedRun(
        scenario.name,
        (_request, log) => results(log).length >= 1,
        async (run) => {
          const args = [...run.args, "--workers", "2", "--max-concurrency", "2"];
          const first = startRun(args, run.log);
          await until(() => run.gate.held.length >= 2, "two episodes waiting at the model");
          process.kill(-(first.pid as number), "SIGINT"); // the terminal's Ctrl-C: coordinator and workers alike
          const interrupted = await first;
          expect(interrupted.exitCode).toBe(130);
          const partial = JSON.parse(readFileSync(join(run.context.out, "results.json"), "utf8")) as { simulations: Array<{ termination_reason: string }> };
          expect(partial.simulations.length).toBeGreaterThanOrEqual(1);
          expect(partial.simulations.length).toBeLessThan(10);
          // The episodes the interrupt cut are not recorded (as failures or otherwise).
          expect(partial.simulations.filter((simulation) => simulation.termination_reason !== "user_stop" && simulation.termination_reason !== "agent_stop")).toEqual([]);
          const status = JSON.parse(readFileSync(join(run.context.out, "results.meta.json"), "utf8")) as { interrupted: boolean };
          expect(status.interrupted).toBe(true);
          // Each held episode was told to stop and answered that it did.
          const cancelled = logLines(run.log).filter((line) => line.direction === "from" && line.message.type === "cancelled");
          expect(cancelled.length).toBeGreaterThanOrEqual(2);
          expect(logLines(run.log).filter((line) => line.direction === "from" && line.message.type === "failed")).toEqual([]);

          run.gate.open();
          const second = await startRun(args, run.log);
          expect(second.exitCode).toBe(0);
          expect(filesDiffer(baseline, run)).toBeUndefined();
        },
      );
    },
    TIMEOUT,
  );
});

describe("a --workers run sent SIGTERM (the whole process group, as a service manager or `kill -TERM -<pgid>` does)", () => {
  const scenario = scenarioNamed("tau-library-tool-calling-llm-user");
  it(
    "τ-bench without episode retries: exit 130, the workers' attempts cancelled and nothing recorded as an infrastructure error",
    async () => {
      await withGatedRun(
        scenario.name,
        (_request, log) => results(log).length >= 1,
        async (run) => {
          const first = startRun([...run.args, "--workers", "2", "--max-concurrency", "2"], run.log);
          await until(() => run.gate.held.length >= 2, "two episodes waiting at the model");
          process.kill(-(first.pid as number), "SIGTERM");
          const stopped = await first;
          expect(stopped.exitCode).toBe(130);
          // The workers outlived the signal and answered the coordinator's cancel; none died with its episode.
          const lines = logLines(run.log);
          expect(lines.filter((line) => line.direction === "from" && line.message.type === "cancelled").length).toBeGreaterThanOrEqual(2);
          expect(lines.filter((line) => line.direction === "exit" && (line.message as { signal?: string | null }).signal)).toEqual([]);
          const entries = tauBenchEntries<{ taubridge: { termination: string } }>(run);
          expect(entries.length).toBeGreaterThanOrEqual(1);
          expect(entries.filter((entry) => entry.taubridge.termination === "infra_error")).toEqual([]);
        },
      );
    },
    TIMEOUT,
  );
});

describe("a worker process killed mid-episode", () => {
  /** Once one episode is recorded, the next model call to arrive waits (one episode held). */
  const holdOne = () => {
    let holding = false;
    return (_request: ScriptedRequest, log: string) => {
      if (holding || results(log).length < 1) return false;
      holding = true;
      return true;
    };
  };

  /** Waits until every other episode is done, then kills the worker holding the last one; returns its unit key. */
  async function killHolder(run: WorkersRun, episodes: number): Promise<string> {
    await until(() => run.gate.held.length === 1 && results(run.log).length === episodes - 1, "every episode but the held one");
    const done = new Set(results(run.log).map((line) => line.message.key));
    const sent = logLines(run.log).filter((line) => line.direction === "to" && line.message.type === "unit");
    const holder = sent.find((line) => !done.has(`${line.message.unit?.taskId}\u0000${line.message.unit?.trial}`)) as LogLine;
    process.kill(holder.pid, "SIGKILL");
    await until(() => logLines(run.log).some((line) => line.direction === "exit" && line.pid === holder.pid), "the worker's exit");
    run.gate.open();
    return `${holder.message.unit?.taskId}\u0000${holder.message.unit?.trial}`;
  }

  const tau2 = scenarioNamed("tau2-mock-llm-agent-user-simulator");
  const tau2Reason = missing(tau2.needs);
  it.skipIf(tau2Reason !== undefined)(
    `τ²: its episode runs again on a replacement and the results are one process's${tau2Reason ? ` (skipped: ${tau2Reason})` : ""}`,
    async () => {
      const baseline = await oneProcess(tau2);
      await withGatedRun(tau2.name, holdOne(), async (run) => {
        const finished = startRun([...run.args, "--workers", "2", "--max-concurrency", "2", "--retry-delay", "0"], run.log);
        const key = await killHolder(run, 10);
        const done = await finished;
        expect(done.exitCode).toBe(0);
        const attempts = logLines(run.log).filter((line) => line.direction === "to" && line.message.type === "unit" && `${line.message.unit?.taskId}\u0000${line.message.unit?.trial}` === key);
        expect(attempts.map((line) => line.message.unit?.attempt)).toEqual([1, 2]);
        // Every (task, trial) recorded once, as one process records it.
        expect(new Set(results(run.log).map((line) => line.message.key)).size).toBe(10);
        expect(results(run.log)).toHaveLength(10);
        expect(filesDiffer(baseline, run)).toBeUndefined();
      });
    },
    TIMEOUT,
  );

  const tau = scenarioNamed("tau-library-tool-calling-llm-user");
  it(
    `τ-bench without episode retries: recorded once as an infrastructure error (exit 3), re-run by the next run`,
    async () => {
      const baseline = await oneProcess(tau);
      await withGatedRun(tau.name, holdOne(), async (run) => {
        const first = startRun([...run.args, "--workers", "2", "--max-concurrency", "2"], run.log);
        const key = await killHolder(run, 11);
        const lost = await first;
        expect(lost.exitCode).toBe(3);
        expect(lost.stderr).toContain("1 episode(s) ended in infrastructure errors");
        const entries = tauBenchEntries<{ task_id: number; trial: number; info: { error?: string }; taubridge: { termination: string } }>(run);
        expect(entries).toHaveLength(11);
        const failed = entries.filter((entry) => entry.taubridge.termination === "infra_error");
        expect(failed.map((entry) => `${entry.task_id}\u0000${entry.trial}`)).toEqual([key]);
        expect(failed[0].info.error).toMatch(/^worker \d \(pid \d+\) was killed by SIGKILL while it ran this episode$/);
        // The next run (one process) re-runs it: the results are one process's.
        const second = await runCli(run.args);
        expect(second.exitCode).toBe(0);
        expect(filesDiffer(baseline, run)).toBeUndefined();
      });
    },
    TIMEOUT,
  );
});

describe("the response cache, shared by the worker processes", () => {
  const scenario = scenarioNamed("tau-library-tool-calling-llm-user");
  it(
    "is filled by every worker (entries written whole) and answers a second run entirely, with the same results",
    async () => {
      const cache = mkdtempSync(join(tmpdir(), "taubridge-workers-cache-"));
      await withGatedRun(
        scenario.name,
        () => false,
        async (run) => {
          const args = [...run.args, "--workers", "2", "--max-concurrency", "4", "--cache-dir", cache];
          const first = await startRun(args, run.log);
          expect(first.exitCode).toBe(0);
          const calls = run.server.requests.length;
          expect(calls).toBeGreaterThan(0);
          const filled = scenarioFiles(run.context);
          const entries = readdirSync(cache, { recursive: true }).filter((name) => String(name).endsWith(".json"));
          expect(entries).toHaveLength(new Set(run.server.requests.map((request) => JSON.stringify(request.body))).size);
          expect(readdirSync(cache, { recursive: true }).filter((name) => String(name).endsWith(".tmp"))).toEqual([]);
          const second = await startRun([...args, "--no-resume"], run.log);
          expect(second.exitCode).toBe(0);
          expect(run.server.requests.length).toBe(calls); // every call answered from the cache
          expect(scenarioFiles(run.context)).toBe(filled);
        },
      );
    },
    TIMEOUT,
  );
});

describe("what crosses the pipe, and runs --workers refuses", () => {
  const scenario = scenarioNamed("tau2-mock-llm-agent-user-simulator");
  const reason = missing(scenario.needs);
  it.skipIf(reason !== undefined)(
    `keys stay in the environment: every worker reads its own, none is on the pipe${reason ? ` (skipped: ${reason})` : ""}`,
    async () => {
      const secret = `sk-workers-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
      await withGatedRun(
        scenario.name,
        () => false,
        async (run) => {
          const args = [...run.args, "--workers", "2", "--max-concurrency", "2", "--agent-api-key-env", "WORKERS_TEST_AGENT_KEY", "--user-api-key-env", "WORKERS_TEST_USER_KEY"];
          const done = await startRun(args, run.log, { WORKERS_TEST_AGENT_KEY: secret, WORKERS_TEST_USER_KEY: `${secret}-user` });
          expect(done.exitCode).toBe(0);
          const pipe = readFileSync(run.log, "utf8");
          expect(pipe).toContain('"type":"configure"');
          expect(pipe).toContain("WORKERS_TEST_AGENT_KEY"); // the variable's name travels…
          expect(pipe).not.toContain(secret); // …its value never does
          expect(results(run.log)).toHaveLength(10);
          // The workers called the model with the key from their own environment.
          const calls = run.server.requests.filter((request) => request.path.endsWith("/chat/completions"));
          expect(calls.length).toBeGreaterThan(0);
          expect(calls.every((request) => request.hadAuthorization)).toBe(true);
          expect(readFileSync(join(run.context.out, "results.json"), "utf8")).not.toContain(secret);
        },
      );
    },
    TIMEOUT,
  );

  it.skipIf(reason !== undefined)(
    `--workers auto starts one worker process per core, each recording its simulations once${reason ? ` (skipped: ${reason})` : ""}`,
    async () => {
      await withGatedRun(
        scenario.name,
        () => false,
        async (run) => {
          const done = await startRun([...run.args, "--workers", "auto", "--max-concurrency", "4"], run.log);
          expect(done.exitCode).toBe(0);
          // Counted by the configurations sent (one per process started), not by which ones became ready first.
          const configured = logLines(run.log).filter((line) => line.direction === "to" && line.message.type === "configure");
          expect(new Set(configured.map((line) => line.pid)).size).toBe(availableParallelism());
          expect(new Set(configured.map((line) => line.worker))).toEqual(new Set(Array.from({ length: availableParallelism() }, (_, index) => index + 1)));
          expect(new Set(results(run.log).map((line) => line.message.key)).size).toBe(10);
          expect(results(run.log)).toHaveLength(10);
          const written = JSON.parse(readFileSync(join(run.context.out, "results.json"), "utf8")) as { simulations: unknown[] };
          expect(written.simulations).toHaveLength(10);
        },
      );
    },
    TIMEOUT,
  );

  it(
    "a run whose flags hold a key is refused before any worker starts (exit 2, one line)",
    async () => {
      const logDir = mkdtempSync(join(tmpdir(), "taubridge-workers-refused-"));
      const result = await runCli(["run", "--log-dir", logDir, "--workers", "2", "--base-url", "https://user:sw0rdfish-pass@models.example/v1", "--model", "m", "--agent-strategy", "tool-calling"]);
      expect(result.exitCode).toBe(2);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(/--workers: --base-url holds a secret/);
      expect(result.stderr).not.toContain("sw0rdfish-pass");
    },
    TIMEOUT,
  );

  it(
    "a model endpoint that refuses the first call stops the run (exit 2), leaving no checkpoint",
    async () => {
      const logDir = join(mkdtempSync(join(tmpdir(), "taubridge-workers-dead-")), "out");
      const result = await runCli([
        "run",
        "--log-dir",
        logDir,
        "--workers",
        "2",
        "--max-concurrency",
        "2",
        "--agent-strategy",
        "tool-calling",
        "--model",
        "m",
        "--model-provider",
        "openai-compatible",
        "--base-url",
        "http://127.0.0.1:9/v1",
      ]);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain("http://127.0.0.1:9/v1");
      expect(existsSync(logDir) ? readdirSync(logDir) : []).toEqual([]);
    },
    TIMEOUT,
  );
});
