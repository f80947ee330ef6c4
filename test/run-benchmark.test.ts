/**
 * The library API on the sources: `runBenchmark` (bound to the bundled registries by app/index.ts)
 * on the bundled library domain, its option validation (the flag table, the CLI's errors), and the
 * flag table as the one source of the CLI's options, help and defaults.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, RUN_FLAGS, formatReport, loadDomain, optionName, runBenchmark, type EpisodeResult, type RunFlag, type TaskSourceFactory } from "../app/index.ts";
import { createProgram } from "../src/cli/main.ts";
import { modelClientConfigSchema } from "../src/model/model-client.ts";
import { parseRunConfig } from "../src/suites/tau-bench/run-config.ts";
import { createBundledRegistries } from "../app/registries.ts";

const logDir = () => mkdtempSync(join(tmpdir(), "taubridge-api-"));

describe("runBenchmark", () => {
  it("runs the bundled domain: every episode, pass^k keyed by k, onEpisode per episode, resume on a second call", async () => {
    const tasks = loadDomain("library").tasks().length;
    const seen: EpisodeResult[] = [];
    const directory = logDir();
    const options = { env: "library", agentStrategy: "oracle", userStrategy: "scripted", numTrials: 2, logDir: directory };
    const result = await runBenchmark(options, { onEpisode: (episode) => seen.push(episode) });
    expect(result.episodes).toHaveLength(2 * tasks);
    expect(seen).toHaveLength(2 * tasks);
    expect(result.episodes.every((episode) => episode.reward === 1 && !episode.resumed && episode.termination !== null)).toBe(true);
    expect(result.metrics.passK).toEqual({ 1: 1, 2: 1 });
    expect(result.metrics.avgReward).toBe(1);
    expect(Object.values(result.metrics.terminations).reduce((sum, count) => sum + (count ?? 0), 0)).toBe(2 * tasks);
    expect(result.metrics.usage.agent.calls).toBe(0);
    expect(formatReport(result)).toMatch(/Pass\^1.*Pass\^2/);
    const again = await runBenchmark(options);
    expect(again.episodes.every((episode) => episode.resumed)).toBe(true);
  });

  it("validates options with the CLI's rules and errors, naming the flag", async () => {
    await expect(runBenchmark({ numTrials: 0 })).rejects.toThrow(new ConfigError("--num-trials: must be between 1 and 10000, got 0"));
    await expect(runBenchmark({ numTrials: 1.5 })).rejects.toThrow("--num-trials: expected an integer, got 1.5");
    await expect(runBenchmark({ baseUrl: "nope" })).rejects.toThrow('--base-url: must be a URL, got "nope"');
    await expect(runBenchmark({ bogus: 1 } as never)).rejects.toThrow(/unknown run option "bogus"; known: env, agentStrategy/);
    await expect(runBenchmark({ format: "json" } as never)).rejects.toThrow(/unknown run option "format"/);
    await expect(runBenchmark({ env: "airlin", logDir: logDir() })).rejects.toThrow('Unknown domain "airlin"; known: library, retail, airline');
  });

  it("stops at the signal: nothing new runs after an abort", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await runBenchmark({ logDir: logDir() }, { signal: controller.signal });
    expect(result.episodes).toHaveLength(0);
  });
});

describe("the run layer's task source is a plug-in", () => {
  /** A source that leases the pending units last first and records what the runner tells it. */
  function recordingSource() {
    const leased: string[] = [];
    const completed: string[] = [];
    const factory: TaskSourceFactory = (pending) => {
      const queue = [...pending].reverse();
      return {
        lease: async () => {
          const unit = queue.shift() ?? null;
          if (unit) leased.push(`${unit.suite}:${unit.taskId}:${unit.trial}:${unit.attempt}`);
          return unit;
        },
        complete: async (unit) => {
          completed.push(`${unit.taskId}:${unit.trial}`);
        },
        fail: async () => undefined,
      };
    };
    return { factory, leased, completed };
  }

  it("τ-bench: every unit leased from the given source, completed there, results in report order", async () => {
    const source = recordingSource();
    const result = await runBenchmark({ taskIds: [0, 1, 2], logDir: logDir() }, { taskSource: source.factory });
    expect(source.leased).toEqual(["tau-bench:2:0:1", "tau-bench:1:0:1", "tau-bench:0:0:1"]);
    expect(source.completed).toEqual(["2:0", "1:0", "0:0"]);
    expect(result.episodes.map((episode) => episode.taskId)).toEqual([0, 1, 2]);
  });

  it.skipIf(!process.env.TAUBRIDGE_SHARED)("τ²: the same source shape", async () => {
    const source = recordingSource();
    const saveTo = join(logDir(), "results.json");
    const dataDir = join(process.env.TAUBRIDGE_SHARED as string, "tau2-bench");
    const result = await runBenchmark(
      { suite: "tau2", domain: "mock", agent: "oracle", user: "scripted", taskIds: ["create_task_1", "update_task_1"], dataDir, saveTo },
      { taskSource: source.factory },
    );
    expect(source.leased).toEqual(["tau2:update_task_1:0:1", "tau2:create_task_1:0:1"]);
    // τ² lists the simulations in report order (task-list order), whatever order they ran and finished in.
    expect(result.episodes.map((episode) => episode.taskId)).toEqual(["create_task_1", "update_task_1"]);
  });
});

describe("runBenchmark({ workers })", () => {
  const withoutDurations = (text: string) => text.replace(/"durationMs": [\d.e+-]+/g, '"durationMs": 0');

  it("runs the episodes in worker processes: the results file one process writes, the same episodes, onEpisode for each", async () => {
    const options = { env: "library", agentStrategy: "oracle", userStrategy: "scripted", numTrials: 2, maxConcurrency: 3 };
    const [alone, spread] = [logDir(), logDir()];
    const one = await runBenchmark({ ...options, logDir: alone });
    const seen: EpisodeResult[] = [];
    const workers = await runBenchmark({ ...options, logDir: spread, workers: 2 }, { onEpisode: (episode) => seen.push(episode) });
    expect(seen).toHaveLength(one.episodes.length);
    expect(seen.every((episode) => episode.reward === 1 && episode.traj.length > 0 && episode.steps.length > 0)).toBe(true);
    expect(workers.episodes).toEqual(one.episodes);
    expect(workers.metrics).toEqual(one.metrics);
    expect(withoutDurations(readFileSync(workers.resultsPath, "utf8"))).toBe(withoutDurations(readFileSync(one.resultsPath, "utf8")));
  }, 300_000);

  it.skipIf(!process.env.TAUBRIDGE_SHARED)(
    "τ²: the same simulations, whole when asked for (onEpisode, details), the same results file",
    async () => {
      const dataDir = join(process.env.TAUBRIDGE_SHARED as string, "tau2-bench");
      const options = { suite: "tau2", domain: "mock", agent: "oracle", user: "scripted", maxConcurrency: 3, dataDir };
      const one = await runBenchmark({ ...options, saveTo: join(logDir(), "results.json") });
      const seen: Array<{ task_id: string; messages: unknown[]; reward_info: unknown }> = [];
      const workers = await runBenchmark({ ...options, saveTo: join(logDir(), "results.json"), workers: 2 }, { onEpisode: (simulation) => seen.push(simulation) });
      expect(workers.episodes).toEqual(one.episodes);
      expect(seen.map((simulation) => simulation.task_id).sort()).toEqual(one.episodes.map((episode) => String(episode.taskId)).sort());
      type Simulations = { simulations: Array<{ task_id: string; messages: unknown[]; reward_info: unknown }> };
      const [mine, theirs] = [(one.details as unknown as Simulations).simulations, (workers.details as unknown as Simulations).simulations];
      expect(theirs.map((simulation) => [simulation.task_id, simulation.messages.length])).toEqual(mine.map((simulation) => [simulation.task_id, simulation.messages.length]));
      expect(seen.every((simulation) => simulation.messages.length > 0 && simulation.reward_info !== null)).toBe(true);
      const masked = (path: string) => readFileSync(path, "utf8").replace(/"(timestamp|start_time|end_time|id)": "[^"]*"|"duration": [\d.e+-]+/g, "");
      expect(masked(workers.resultsPath)).toBe(masked(one.resultsPath));
    },
    300_000,
  );

  it("refuses what cannot cross to another process, in one line", async () => {
    await expect(runBenchmark({ logDir: logDir(), workers: 2 }, { models: { agent: () => undefined } })).rejects.toThrow(
      /--workers runs episodes in other processes, which cannot use in-process model clients/,
    );
    await expect(
      runBenchmark({ logDir: logDir(), workers: 2 }, { taskSource: (pending) => ({ lease: async () => pending[0] ?? null, complete: async () => undefined, fail: async () => undefined }) }),
    ).rejects.toThrow(/--workers and a task source/);
    await expect(runBenchmark({ logDir: logDir(), workers: -1 })).rejects.toThrow("--workers: must be auto or between 0 and 256, got -1");
    await expect(runBenchmark({ logDir: logDir(), workers: "many" as never })).rejects.toThrow('--workers: expected an integer or "auto", got "many"');
  });
});

describe("the docs of the task source", () => {
  it("say it is pluggable and where it plugs in (src/run/README.md, docs/architecture.md)", () => {
    const root = join(import.meta.dirname, "..");
    for (const file of ["src/run/README.md", "docs/architecture.md"]) {
      const text = readFileSync(join(root, file), "utf8").replace(/\s+/g, " ");
      expect(text, file).toContain("BenchmarkHooks.taskSource");
      expect(text, file).not.toMatch(/not yet pluggable|creates its `InProcessTaskSource` itself/i);
    }
  });
});

describe("the run flag table", () => {
  it("is the CLI's run options and help, one to one", () => {
    const run = createProgram(createBundledRegistries).commands.find((command) => command.name() === "run")!;
    // Visible options only: τ²'s spellings are hidden aliases, and τ²'s unsupported flags hidden refusals.
    const cliFlags = run.options
      .filter((option) => !option.hidden)
      .map((option) => option.long)
      .filter((flag) => !flag?.startsWith("--no-"));
    expect(cliFlags).toEqual(RUN_FLAGS.map((flag) => flag.flag));
    const help = run.helpInformation();
    for (const flag of RUN_FLAGS) expect(help).toContain(flag.flag);
    expect(help).toContain("--no-resume");
  });

  it("gives the defaults everywhere: --model-max-attempts is 6 in the CLI table, the run config and the model client", () => {
    const flag = (RUN_FLAGS as readonly RunFlag[]).find((entry) => optionName(entry.flag) === "modelMaxAttempts")!;
    expect(flag.default).toBe(6);
    expect(parseRunConfig({ env: "library", agentStrategy: "oracle", userStrategy: "scripted" }).modelMaxAttempts).toBe(6);
    expect(modelClientConfigSchema.parse({ model: "m" }).maxAttempts).toBe(6);
  });

  it("names the flag when the run config rejects a field", () => {
    expect(() => parseRunConfig({ env: "library", agentStrategy: "oracle", userStrategy: "scripted", episodeTimeoutMs: -1 })).toThrow(/^invalid option --episode-timeout: /);
  });
});
