/**
 * The transport-neutral worker (`src/worker`) without any process: its messages as zod reads them,
 * errors that keep their class across, the configuration that never holds a secret, and a
 * `UnitWorker` answering every unit once — what a queue transport will drive unchanged.
 */
import { mkdtempSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createBundledRegistries } from "../app/registries.ts";
import { unitKey, type WorkUnit } from "../src/core/run.ts";
import { ConfigError, InfraError } from "../src/errors/error-tree.ts";
import { ModelEndpointUnreachableError } from "../src/model/errors.ts";
import { workerCount } from "../src/local-workers/local-workers.ts";
import { runConfiguration } from "../src/worker/configuration.ts";
import { restoreError, serializeError, WorkerLostError, WorkerProtocolError } from "../src/worker/errors.ts";
import { parseCoordinatorMessage, parseUnitReply, parseWorkerMessage, type RunConfiguration } from "../src/worker/protocol.ts";
import { RemoteTaskSource, type WorkerTransport } from "../src/worker/remote-source.ts";
import { UnitWorker } from "../src/worker/unit-worker.ts";

const unit = (taskIndex: number, trial = 0, attempt = 1): WorkUnit => ({ runId: "run", suite: "tau-bench", domain: "library", taskId: String(taskIndex), taskIndex, trial, seed: null, attempt });

function libraryConfiguration(settings: Record<string, unknown> = {}): RunConfiguration {
  return runConfiguration({ suite: "tau-bench", surface: "api", settings: { logDir: mkdtempSync(join(tmpdir(), "taubridge-unit-worker-")), ...settings }, registries: "bundled", env: {} });
}

function newWorker(warnings: string[] = []) {
  return new UnitWorker({ registries: async () => createBundledRegistries(), warn: (message) => warnings.push(message) });
}

describe("worker protocol messages", () => {
  it("are read with zod: a malformed message is refused naming the field", () => {
    expect(parseCoordinatorMessage({ type: "cancel", configurationId: "c" })).toEqual({ type: "cancel", configurationId: "c" });
    expect(() => parseCoordinatorMessage({ type: "unit", configurationId: "c", unit: { ...unit(1), trial: -1 } })).toThrow(/unit\.trial/);
    expect(() => parseWorkerMessage({ type: "result", configurationId: "c", key: "k", attempt: 1, result: {} })).toThrow(/usage/);
    expect(() => parseWorkerMessage({ type: "hello" })).toThrow(WorkerProtocolError);
    const reply = {
      type: "failed",
      configurationId: "c",
      key: "k",
      attempt: 2,
      error: { name: "Error", message: "x", markers: [] },
      usage: { judge: { calls: 1, promptTokens: 2, completionTokens: 3, cost: null } },
    };
    expect(parseWorkerMessage(JSON.parse(JSON.stringify(reply)))).toEqual(reply);
  });

  it("a unit's reply read by its envelope (a queue's): the result's payload is left to the suite's wire form, the rest is checked", () => {
    const result = { simulation: '{\n  "id": "s"\n}', head: { trial: 0 }, summary: { reward: 1 } };
    const reply = { type: "result", configurationId: "c", key: "k", attempt: 1, result, usage: {} };
    expect(parseUnitReply(JSON.parse(JSON.stringify(reply)))).toEqual(reply);
    expect(parseUnitReply({ type: "refused", configurationId: "c", error: { name: "ConfigError", message: "x", markers: [] } }).type).toBe("refused");
    expect(() => parseUnitReply({ type: "result", configurationId: "c", key: "k", attempt: 1, usage: {} })).toThrow(/result/);
    expect(() => parseUnitReply({ type: "result", configurationId: "c", key: "k", attempt: 0, result, usage: {} })).toThrow(/attempt/);
    expect(() => parseUnitReply({ type: "ready", configurationId: "c", pid: 1, host: "h" })).toThrow(WorkerProtocolError);
  });

  it("errors keep their class across (markers), and lose the secrets the worker knows", () => {
    const config = restoreError(serializeError(new ConfigError("bad option --x")));
    expect(ConfigError.isInstance(config)).toBe(true);
    expect(InfraError.isInstance(config)).toBe(false);
    expect(config.name).toBe("ConfigError");
    const lost = restoreError(JSON.parse(JSON.stringify(serializeError(new WorkerLostError("gone")))));
    expect(InfraError.isInstance(lost)).toBe(true);
    expect(WorkerLostError.isInstance(lost)).toBe(true);
    expect(ConfigError.isInstance(lost)).toBe(false);
    const secret = "sk-this-is-the-workers-own-key-123456";
    const serialized = serializeError(new Error(`calling with ${secret} failed`), [secret]);
    expect(JSON.stringify(serialized)).not.toContain(secret);
    expect(serialized.message).toContain("[REDACTED]");
  });
});

describe("workerCount", () => {
  it("is the number asked for, none for 0, and one per core for auto", () => {
    expect(workerCount(2)).toBe(2);
    expect(workerCount(0)).toBe(0);
    expect(workerCount(undefined)).toBe(0);
    expect(workerCount("auto")).toBe(availableParallelism());
  });
});

describe("a run's configuration for its workers", () => {
  it("holds the flags as given, not where the episodes run, and has an id that follows them", () => {
    const one = runConfiguration({ suite: "tau2", surface: "cli", settings: { env: "mock", workers: "2", maxConcurrency: "3", agentLlmArgs: '{"temperature": 0.0}' }, registries: "bundled", env: {} });
    expect(one.settings).toEqual({ env: "mock", maxConcurrency: "3", agentLlmArgs: '{"temperature": 0.0}' });
    expect(one.suite).toBe("tau2");
    const other = runConfiguration({
      suite: "tau2",
      surface: "cli",
      settings: { env: "mock", workers: "4", maxConcurrency: "3", agentLlmArgs: '{"temperature": 0.0}' },
      registries: "bundled",
      env: {},
    });
    expect(other.id).toBe(one.id); // the worker count is no part of the run
    const changed = runConfiguration({ suite: "tau2", surface: "cli", settings: { env: "mock", maxConcurrency: "3", agentLlmArgs: '{"temperature": 0.5}' }, registries: "bundled", env: {} });
    expect(changed.id).not.toBe(one.id);
  });

  it("is refused when a flag holds a secret, or the value of a key variable", () => {
    const refuse =
      (settings: Record<string, unknown>, env: Record<string, string> = {}) =>
      () =>
        runConfiguration({ suite: "tau2", surface: "cli", settings, registries: "bundled", env });
    expect(refuse({ env: "mock", agentLlmArgs: '{"temperature": 0.0, "api_key": "sk-inline-key-0123456789"}' })).toThrow(/--agent-llm-args holds a secret/);
    expect(refuse({ env: "mock", baseUrl: "https://me:hunter2hunter2@host.example/v1" })).toThrow(/--base-url holds a secret/);
    expect(refuse({ env: "mock", agentOption: ["note=sk-from-the-env-0123456789"] }, { OPENAI_API_KEY: "sk-from-the-env-0123456789" })).toThrow(/value of a key variable/);
    expect(() => refuse({ env: "mock", apiKeyEnv: "MY_KEY" }, { MY_KEY: "sk-named-variable-0123456789" })()).not.toThrow();
  });

  it("is refused when an API option is not plain JSON", () => {
    expect(() => runConfiguration({ suite: "tau-bench", surface: "api", settings: { agentOption: new Map([["a", "b"]]) }, registries: "bundled", env: {} })).toThrow(/--agent-option cannot be sent/);
  });
});

describe("UnitWorker", () => {
  it("builds a configuration once and answers each unit with its result in the suite's wire form", async () => {
    const worker = newWorker();
    const configuration = libraryConfiguration();
    try {
      const [ready, again] = await Promise.all([worker.configure(configuration), worker.configure(configuration)]);
      expect(ready).toMatchObject({ type: "ready", configurationId: configuration.id, pid: process.pid });
      expect(again.type).toBe("ready");
      const reply = await worker.run(configuration.id, unit(3, 1));
      expect(reply).toMatchObject({ type: "result", configurationId: configuration.id, key: unitKey(unit(3, 1)), attempt: 1, usage: {} });
      const result = (reply as { result: { entry: string; summary: { taskId: number; trial: number; reward: number } } }).result;
      expect(result.summary).toMatchObject({ taskId: 3, trial: 1, reward: 1, termination: "user_stop" });
      expect(JSON.parse(result.entry)).toMatchObject({ task_id: 3, trial: 1, reward: 1 });
      expect(JSON.parse(JSON.stringify(reply))).toEqual(reply); // plain JSON: any transport carries it
    } finally {
      await worker.close();
    }
  }, 300_000);

  it("answers a cancelled attempt `cancelled`, and a unit of a configuration it was never sent `failed`", async () => {
    const worker = newWorker();
    const configuration = libraryConfiguration();
    try {
      await worker.configure(configuration);
      const replying = worker.run(configuration.id, unit(2));
      worker.cancel(configuration.id, unitKey(unit(2)));
      expect(await replying).toMatchObject({ type: "cancelled", key: unitKey(unit(2)), attempt: 1 });
      const stray = await worker.run("another-run", unit(1));
      expect(stray.type).toBe("failed");
      expect(WorkerProtocolError.isInstance(restoreError((stray as { error: Parameters<typeof restoreError>[0] }).error))).toBe(true);
    } finally {
      await worker.close();
    }
  }, 300_000);

  it("refuses a configuration it cannot build, with the error that stops the run", async () => {
    const worker = newWorker();
    try {
      const versioned = { ...libraryConfiguration(), taubridgeVersion: "0.0.0-other", id: "other-version" };
      const refused = await worker.configure(versioned);
      expect(refused.type).toBe("refused");
      const error = restoreError((refused as { error: Parameters<typeof restoreError>[0] }).error);
      expect(ConfigError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(/coordinator runs 0\.0\.0-other/);
      const unknownAgent = await worker.configure(libraryConfiguration({ agentStrategy: "no-such-agent" }));
      expect(unknownAgent.type).toBe("refused");
      expect(restoreError((unknownAgent as { error: Parameters<typeof restoreError>[0] }).error).message).toMatch(/no-such-agent/);
    } finally {
      await worker.close();
    }
  }, 300_000);

  it("answers every attempt `failed` with the endpoint's error once a model endpoint refused the run's first call", async () => {
    const worker = newWorker();
    const configuration = libraryConfiguration({ agentStrategy: "tool-calling", model: "m", modelProvider: "openai-compatible", baseUrl: "http://127.0.0.1:9/v1", modelMaxAttempts: 1 });
    try {
      expect((await worker.configure(configuration)).type).toBe("ready");
      const first = await worker.run(configuration.id, unit(0));
      expect(first.type).toBe("failed");
      const error = restoreError((first as { error: Parameters<typeof restoreError>[0] }).error);
      expect(ModelEndpointUnreachableError.isInstance(error)).toBe(true);
      expect(ConfigError.isInstance(error)).toBe(true); // the coordinator's runner stops the run with it
      expect((await worker.run(configuration.id, unit(1))).type).toBe("failed");
    } finally {
      await worker.close();
    }
  }, 300_000);
});

describe("RemoteTaskSource", () => {
  it("leases in order and turns each reply into what the runner reads: result, the attempt's error, a cancellation", async () => {
    const replies = [
      { type: "result", configurationId: "c", key: "k", attempt: 1, result: { any: "json" }, usage: { judge: { calls: 1, promptTokens: 1, completionTokens: 1, cost: 0.5 } } },
      { type: "failed", configurationId: "c", key: "k", attempt: 1, error: serializeError(new ConfigError("stop")), usage: {} },
      { type: "cancelled", configurationId: "c", key: "k", attempt: 1, usage: {} },
    ] as const;
    let next = 0;
    const transport: WorkerTransport = { dispatch: async () => replies[next++] };
    const source = new RemoteTaskSource([unit(1), unit(2)], transport);
    expect(await source.lease()).toEqual(unit(1));
    expect(await source.lease()).toEqual(unit(2));
    expect(await source.lease()).toBeNull();
    const signal = new AbortController().signal;
    expect(await source.execute(unit(1), signal)).toEqual({ result: { any: "json" }, usage: replies[0].usage });
    const failed = await source.execute(unit(1), signal);
    expect("error" in failed && ConfigError.isInstance(failed.error)).toBe(true);
    const cancelled = await source.execute(unit(1), signal);
    expect("error" in cancelled && InfraError.isInstance(cancelled.error)).toBe(true);
    // Nothing is sent once the run stopped.
    const stopped = new AbortController();
    stopped.abort();
    expect("error" in (await source.execute(unit(2), stopped.signal))).toBe(true);
    expect(next).toBe(3);
  });
});
