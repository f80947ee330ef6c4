/**
 * What `--workers` (and `runBenchmark({ workers })`) turns into: the run's configuration, checked
 * (no secret, registries a worker can recreate, no in-process model clients), a pool of local
 * worker processes started at once — they build the run while the coordinator builds its own —
 * and the task source factory the suite's batch leases through. The CLI and the API own the pool:
 * they close it however the run ends.
 */
import { availableParallelism } from "node:os";
import type { TaskSourceFactory } from "../core/run.ts";
import { ConfigError } from "../errors/error-tree.ts";
import type { Registries } from "../run/registries.ts";
import type { RunSettings } from "../run/run-settings.ts";
import { runConfiguration } from "../worker/configuration.ts";
import { remoteTaskSource } from "../worker/remote-source.ts";
import { LocalWorkerPool } from "./process-pool.ts";

/** The number of worker processes a `--workers` value asks for (0: none, the run stays in this process; `auto`: one per core). */
export function workerCount(value: unknown): number {
  if (value === "auto") return availableParallelism();
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : 0;
}

/** A run's worker processes: the task source its batch leases through, and `close` for whoever started them. */
export interface LocalWorkers {
  readonly count: number;
  readonly source: TaskSourceFactory;
  readonly pool: LocalWorkerPool;
  close(): Promise<void>;
}

export interface LocalWorkersRequest {
  settings: RunSettings;
  /** The run flags as given (by option name), sent to the workers. */
  raw: Record<string, unknown>;
  surface: "cli" | "api";
  registries: Registries;
  warn(message: string): void;
  /** In-process model clients (the API's `models` hook): they cannot cross to another process. */
  models?: unknown;
  /** A task source the caller brings (the API's `taskSource` hook): the run's units go there instead. */
  taskSource?: TaskSourceFactory;
}

/**
 * Starts the worker processes a run asks for (`settings.values.workers`), or returns undefined when
 * it asks for none. Refused in one line (a ConfigError) when the run cannot go to workers.
 */
export function startLocalWorkers(request: LocalWorkersRequest): LocalWorkers | undefined {
  const count = workerCount(request.settings.values.workers);
  if (count === 0) return undefined;
  if (request.taskSource) throw new ConfigError("--workers and a task source (hooks.taskSource) both say where the run's episodes go; give one");
  if (request.models !== undefined)
    throw new ConfigError("--workers runs episodes in other processes, which cannot use in-process model clients (hooks.models); point the run at a model server (--base-url)");
  const workers = request.registries.workers;
  if (!workers) throw new ConfigError("--workers: these registries do not say how a worker process recreates them (Registries.workers); use the bundled registries");
  if (!request.registries.suites.get(request.settings.suite).unitRunner) throw new ConfigError(`--workers: the ${request.settings.suite} suite cannot run episodes in worker processes`);
  const configuration = runConfiguration({ suite: request.settings.suite, surface: request.surface, settings: request.raw, registries: workers.set });
  if (request.settings.values.maxConcurrency === 1 && count > 1) {
    request.warn(`--workers ${count} with --max-concurrency 1: one episode runs at a time, so one worker is busy at a time; raise --max-concurrency to use them all`);
  }
  const pool = new LocalWorkerPool({ count, entry: workers.entry, configuration, warn: request.warn });
  return { count, source: remoteTaskSource(pool), pool, close: () => pool.close() };
}
