/**
 * What `replay` takes besides a suite's own action file, the same for both suites: the output of
 * `taubridge records` (one record, several as JSON lines or a JSON array: the episode picked by
 * `--task-id`/`--trial`; its steps replayed), and the episodes of a results file (`--from`). A
 * record says its suite, domain and task, so a replay of it needs no more flags.
 */
import { ConfigError } from "../errors/error-tree.ts";
import type { EpisodeRecord } from "../core/episode-record.ts";

/** The parts of a canonical record `replay` reads. */
export type ReplayableRecord = Pick<EpisodeRecord, "suite" | "domain" | "taskId" | "trial" | "steps">;

/** Record schemas `replay` reads: 1, and 2 (which added `expected` and `review`; the replayed parts are the same). */
const REPLAYABLE_SCHEMAS: ReadonlySet<unknown> = new Set([1, 2]);

function isRecord(value: unknown): value is ReplayableRecord {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return REPLAYABLE_SCHEMAS.has(record.schemaVersion) && typeof record.suite === "string" && typeof record.taskId === "string" && typeof record.trial === "number" && Array.isArray(record.steps);
}

/**
 * The records an action file holds when it is `records` output (a record, a JSON array of them, or
 * JSON lines), else undefined (a suite's own action list).
 */
export function recordsIn(text: string): ReplayableRecord[] | undefined {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    const lines = text.split("\n").filter((line) => line.trim() !== "");
    if (lines.length < 2) return undefined;
    try {
      document = lines.map((line) => JSON.parse(line) as unknown);
    } catch {
      return undefined; // not JSON lines either: the suite's parser names the syntax error
    }
  }
  if (isRecord(document)) return [document];
  if (Array.isArray(document) && document.length > 0 && document.every(isRecord)) return document;
  return undefined;
}

const list = (values: Iterable<string | number>) => [...new Set(values)].join(", ");

/**
 * One episode of `episodes` (of `source`): the only one, or the one `--task-id` (and `--trial`,
 * default the task's first trial) names. Anything else is one line saying what the file holds.
 */
export function pickEpisode<Episode extends { taskId: string; trial: number }>(episodes: readonly Episode[], source: string, taskId?: string, trial?: number): Episode {
  if (taskId === undefined) {
    if (episodes.length === 1 && trial === undefined) return episodes[0];
    if (episodes.length === 0) throw new ConfigError(`${source} holds no episode`);
    throw new ConfigError(`${source} holds ${episodes.length} episodes; pick one with --task-id (${list(episodes.map((episode) => episode.taskId))}) and --trial`);
  }
  const ofTask = episodes.filter((episode) => episode.taskId === taskId).sort((left, right) => left.trial - right.trial);
  if (ofTask.length === 0) throw new ConfigError(`${source} has no episode of task ${taskId}; its tasks: ${list(episodes.map((episode) => episode.taskId))}`);
  if (trial === undefined) return ofTask[0];
  const picked = ofTask.find((episode) => episode.trial === trial);
  if (!picked) throw new ConfigError(`${source} has no trial ${trial} of task ${taskId}; its trials: ${list(ofTask.map((episode) => episode.trial))}`);
  return picked;
}
