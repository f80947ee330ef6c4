/**
 * Where a run lives in Redis, in one place: the queue of a run is named by its results file's stem
 * (`taubridge queue status <run>` takes the same name), every key is under the `taubridge` prefix,
 * and a job's id names its unit's task, trial and attempt — so adding the same attempt twice (a
 * coordinator started again, a resumed run) finds the job already there instead of adding one.
 */
import { basename } from "node:path";
import { ConfigError } from "../errors/error-tree.ts";
import type { WorkUnit } from "../core/run.ts";

/** The prefix of every key taubridge writes (BullMQ's `prefix` option; our own keys use it too). */
export const KEY_PREFIX = "taubridge";
/** The hash of the runs workers serve: run name → its record (`run-record.ts`). */
export const REGISTRY_KEY = `${KEY_PREFIX}:registry`;
/** The channel every change of the registry is announced on (the run's name): workers read the registry at once instead of at their next poll. */
export const REGISTRY_CHANNEL = `${KEY_PREFIX}:registry-changed`;
/**
 * The channel a worker answers a run's announcement on once it is ready for the run's jobs (its
 * consumer open, the run built): `{ run, worker }`. A coordinator adds a new run's first jobs after
 * every worker that heard the announcement said so (or a bound passed), so none is taken late.
 */
export const RUN_READY_CHANNEL = `${KEY_PREFIX}:run-ready`;
/** The channel a cancel is published on (`{ run, key? }`): workers cut the attempts it names. */
export const CANCEL_CHANNEL = `${KEY_PREFIX}:cancel`;

/** A run's queue name: its results file's stem (a τ² run's unit names the file, a τ-bench run's the stem). */
export function runNameOf(runId: string): string {
  return checkedRunName(basename(runId).replace(/\.json$/, ""));
}

/** A run name as given on the command line (`queue status <run>`), checked. */
export function checkedRunName(name: string): string {
  if (name.length === 0 || name.includes(":") || name.length > 200) {
    throw new ConfigError(`"${name}" cannot name a queue (a results file's stem, without ":", at most 200 characters)`);
  }
  return name;
}

/** A key of a run's own (outside BullMQ's), under the run's queue keys so `queue clean` removes it with them. */
export function runKey(run: string, ...parts: string[]): string {
  return [KEY_PREFIX, run, "taubridge", ...parts].join(":");
}

/** The id of one attempt's job: task, trial and attempt, spelled so BullMQ takes it (no ":", never an integer). */
export function jobIdOf(unit: Pick<WorkUnit, "taskId" | "trial" | "attempt">): string {
  return `task-${encodeURIComponent(unit.taskId)}.trial-${unit.trial}.attempt-${unit.attempt}`;
}

/**
 * The connection a `--queue` URL names (`redis://[user:password@]host:port/db`, `rediss://` for
 * TLS), checked in one line. The URL may hold the Redis password: it is never written anywhere.
 */
export function queueUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`--queue: "${redactUrl(value)}" is not a URL; give redis://host:port/db`);
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") throw new ConfigError(`--queue: ${redactUrl(value)} is not a redis:// or rediss:// URL`);
  const db = url.pathname.replace(/^\//, "");
  if (db !== "" && !/^\d+$/.test(db)) throw new ConfigError(`--queue: the database in ${redactUrl(value)} must be a number (redis://host:port/0)`);
  return url;
}

/** The URL without its password, for messages. */
export function redactUrl(value: string): string {
  return value.replace(/\/\/([^/@]*)@/, (_match, credentials: string) => `//${credentials.includes(":") ? `${credentials.split(":")[0]}:***` : "***"}@`);
}
