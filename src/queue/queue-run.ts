/**
 * What `--queue` (and `runBenchmark({ queue })`) turns into on the coordinator: the run checked the
 * way `--workers` checks it (no secret in its configuration, registries a worker can recreate, no
 * in-process model clients, a suite with a unit runner), the Redis probed, and the task source
 * factory whose attempts become jobs. The CLI and the API own it: they close it however the run
 * ends, and end the run as interrupted when `taubridge queue cancel` cancels it.
 */
import type { TaskSourceFactory } from "../core/run.ts";
import { ConfigError } from "../errors/error-tree.ts";
import type { Registries } from "../run/registries.ts";
import type { RunSettings } from "../run/run-settings.ts";
import { runConfiguration } from "../worker/configuration.ts";
import { probeRedis } from "./connection.ts";
import { QueueCoordinator } from "./coordinator.ts";
import type { RateLimit } from "./run-record.ts";

/** Flags that say where the episodes go and how they are paced, not what they are: they never travel in the configuration. */
const QUEUE_OPTIONS = new Set(["queue", "providerLimit", "rateLimit"]);

export interface QueueRunRequest {
  settings: RunSettings;
  /** The run flags as given (by option name): the configuration workers build. */
  raw: Record<string, unknown>;
  surface: "cli" | "api";
  registries: Registries;
  warn(message: string): void;
  /** In-process model clients (the API's `models` hook): they cannot cross to another machine. */
  models?: unknown;
  /** A task source the caller brings (the API's `taskSource` hook). */
  taskSource?: TaskSourceFactory;
}

export interface QueueRun {
  readonly source: TaskSourceFactory;
  /** Aborts when the run is cancelled on the queue (`taubridge queue cancel`). */
  readonly cancelled: AbortSignal;
  close(): Promise<void>;
}

/** `requests/seconds` as a rate. */
function rateOf(text: string): RateLimit {
  const [requests, seconds] = text.split("/");
  return { requests: Number(requests), seconds: Number(seconds) };
}

/** Starts the coordinator's side of a queued run, or returns undefined when the run names no queue. */
export async function startQueueRun(request: QueueRunRequest): Promise<QueueRun | undefined> {
  const values = request.settings.values;
  const url = values.queue as string | undefined;
  const providerLimits = Object.fromEntries(Object.entries((values.providerLimit ?? {}) as Record<string, string>).map(([name, n]) => [name, Number(n)]));
  const rateLimits = Object.fromEntries(Object.entries((values.rateLimit ?? {}) as Record<string, string>).map(([name, rate]) => [name, rateOf(rate)]));
  if (!url) {
    if (Object.keys(providerLimits).length > 0 || Object.keys(rateLimits).length > 0)
      throw new ConfigError("--provider-limit and --rate-limit are shared by the workers of a queue: give --queue (in one process, --max-concurrency bounds each endpoint)");
    return undefined;
  }
  if (values.workers) throw new ConfigError("--queue and --workers both say where the run's episodes go; give one");
  if (request.taskSource) throw new ConfigError("--queue and a task source (hooks.taskSource) both say where the run's episodes go; give one");
  if (request.models !== undefined)
    throw new ConfigError("--queue runs episodes on other machines, which cannot use in-process model clients (hooks.models); point the run at a model server (--base-url)");
  const workers = request.registries.workers;
  if (!workers) throw new ConfigError("--queue: these registries do not say how a worker recreates them (Registries.workers); use the bundled registries");
  if (!request.registries.suites.get(request.settings.suite).unitRunner) throw new ConfigError(`--queue: the ${request.settings.suite} suite cannot run episodes on workers`);
  const settings = Object.fromEntries(Object.entries(request.raw).filter(([name]) => !QUEUE_OPTIONS.has(name)));
  let configuration: ReturnType<typeof runConfiguration>;
  try {
    configuration = runConfiguration({ suite: request.settings.suite, surface: request.surface, settings, registries: workers.set });
  } catch (error) {
    if (ConfigError.isInstance(error)) throw new ConfigError(error.message.replace(/^--workers:/, "--queue:"));
    throw error;
  }
  await probeRedis(url);
  const coordinator = new QueueCoordinator({ url, configuration, providerLimits, rateLimits, warn: request.warn });
  return { source: coordinator.source(), cancelled: coordinator.cancelled, close: () => coordinator.close() };
}
