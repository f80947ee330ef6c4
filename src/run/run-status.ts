import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import type * as Zod from "zod";
import { DataError } from "../errors/error-tree.ts";
import { lazySchema } from "../data/lazy-zod.ts";
import { writeFileAtomic } from "./atomic-file.ts";

/**
 * A run's status beside its results file: `<stem>.meta.json` next to `<stem>.json`.
 *
 * Why a sidecar: the results file must stay the plain JSON list τ-bench's own tools read, so it
 * cannot say "this run was cut short". The batch layer writes this file every time it writes the
 * results file (complete or not), so a rerun that finishes replaces a stale "partial", and
 * `taubridge report` reads it to mark the run's row as partial.
 */
export const RUN_STATUS_SCHEMA_VERSION = 1;

function buildRunStatusSchema(z: typeof Zod.z) {
  return z.object({
    kind: z.literal("taubridge.run-status"),
    schemaVersion: z.number().int(),
    status: z.enum(["complete", "partial"]),
    episodes: z.number().int().nonnegative(),
    expectedEpisodes: z.number().int().nonnegative(),
    interrupted: z.boolean(),
    resultsFile: z.string(),
    checkpointFile: z.string(),
    writtenAt: z.string(),
    /** What decided the run's outcomes (τ²: kept here, since its results file is τ²'s own format), for the next resume. */
    identity: z.record(z.string(), z.unknown()).optional(),
  });
}

const runStatusSchema = lazySchema(buildRunStatusSchema);

export type RunStatus = Zod.infer<ReturnType<typeof buildRunStatusSchema>>;

/** `results/x.json` → `results/x.meta.json`. */
export function runStatusPath(resultsPath: string): string {
  return `${resultsPath.replace(/\.json$/, "")}.meta.json`;
}

/** True for a path that names a run-status sidecar rather than a results file. */
export function isRunStatusPath(path: string): boolean {
  return path.endsWith(".meta.json");
}

/** Writes the status of the run whose results file is `resultsPath` (atomically, like the results file). */
export function writeRunStatus(resultsPath: string, run: { episodes: number; expectedEpisodes: number; interrupted: boolean; checkpointPath: string; identity?: object }): RunStatus {
  const status: RunStatus = {
    kind: "taubridge.run-status",
    schemaVersion: RUN_STATUS_SCHEMA_VERSION,
    status: run.interrupted || run.episodes < run.expectedEpisodes ? "partial" : "complete",
    episodes: run.episodes,
    expectedEpisodes: run.expectedEpisodes,
    interrupted: run.interrupted,
    resultsFile: basename(resultsPath),
    checkpointFile: basename(run.checkpointPath),
    writtenAt: new Date().toISOString(),
    ...(run.identity ? { identity: run.identity as Record<string, unknown> } : {}),
  };
  writeFileAtomic(runStatusPath(resultsPath), `${JSON.stringify(status, null, 2)}\n`);
  return status;
}

/** The status beside a results file, or null when there is none (the original's files, copies). */
export function readRunStatus(resultsPath: string): RunStatus | null {
  const path = runStatusPath(resultsPath);
  if (!existsSync(path)) return null;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new DataError(`${path}: not valid JSON (${(error as Error).message})`, { cause: error });
  }
  const parsed = runStatusSchema().safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DataError(`${path}: field ${issue.path.join(".") || "(top level)"}: ${issue.message}`);
  }
  return parsed.data;
}
