import type * as Zod from "zod";
import { lazySchema } from "../../data/lazy-zod.ts";
import { DataError } from "../../errors/error-tree.ts";
import { TERMINATION_REASONS, type Action, type RewardResult, type RoleUsage, type Task, type TerminationReason } from "../../core/types.ts";
import { readPythonJsonFile } from "../../data/data-files.ts";
import { PrintedJson, PyFloat, pyJsonDumpsIndented, toJs, type PyDict, type PyValue } from "../../value/index.ts";
import type { RunManifest } from "../../core/run-manifest.ts";
import type { EpisodeResult } from "./loop.ts";
import type { EpisodeSummary } from "../../core/run.ts";
import { readCheckpoint, REWARD, TRIAL, type CheckpointContents } from "../../run/checkpoint.ts";

/**
 * Version of the `taubridge` block we add to each τ-bench result entry.
 * 1: termination, rewardBreakdown (component → score; absent in files written by earlier
 *    taubridge versions), usage (agent/user), durationMs, steps (actions with origin), error.
 * 2: adds `manifest` (the run manifest, `src/core/run-manifest.ts`, with the definition hash of the
 *    entry's own task) to every entry of a results file, and `policy` (`run --policy`: the
 *    episode's adherence and hits, and the run's score) when the run was checked against one.
 *    Checkpoint lines stay as in 1 (their header holds the run's identity).
 */
export const RESULT_SCHEMA_VERSION = 2;

function actionDump(action: Action): PyDict {
  return new Map<string, PyValue>([
    ["name", action.name],
    ["kwargs", action.kwargs],
  ]);
}

/** τ-bench's pydantic `Task.model_dump()` (annotator dropped). */
export function taskDump(task: Task): PyDict {
  return new Map<string, PyValue>([
    ["user_id", task.user_id],
    ["actions", task.actions.map(actionDump)],
    ["instruction", task.instruction],
    ["outputs", task.outputs],
  ]);
}

function floatOrNull(value: unknown): PyFloat | null {
  return typeof value === "number" ? new PyFloat(value) : value instanceof PyFloat ? value : null;
}

function rewardInfoDump(rewardInfo: RewardResult): PyDict {
  const info = rewardInfo.info;
  const infoDump: PyDict =
    "r_actions" in info
      ? new Map<string, PyValue>([
          ["r_actions", new PyFloat(info.r_actions)],
          ["gt_data_hash", info.gt_data_hash],
        ])
      : new Map<string, PyValue>([
          ["r_outputs", new PyFloat(info.r_outputs)],
          ["outputs", new Map(Object.entries(info.outputs))],
        ]);
  return new Map<string, PyValue>([
    ["reward", new PyFloat(rewardInfo.reward)],
    ["info", infoDump],
    ["actions", rewardInfo.actions.map(actionDump)],
  ]);
}

/** Normalises an `info` dict to what the original's pydantic dump prints (floats as floats, task dumped). */
function infoDump(info: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(info)) {
    if (key === "task" && value && typeof value === "object" && "instruction" in value && !(value instanceof Map)) out.task = taskDump(value as Task);
    else if (key === "reward_info") out.reward_info = value && !(value instanceof Map) ? rewardInfoDump(value as RewardResult) : (value ?? null);
    else if (key === "user_cost") out.user_cost = floatOrNull(value);
    else out[key] = value;
  }
  return out;
}

/** One results-file entry: τ-bench's `{task_id, reward, info, traj, trial}` plus our `taubridge` block. */
export function resultEntry(episode: EpisodeResult): Record<string, unknown> {
  return {
    task_id: episode.taskId,
    reward: new PyFloat(episode.reward),
    info: infoDump(episode.info),
    traj: episode.traj,
    trial: episode.trial,
    taubridge: {
      schemaVersion: RESULT_SCHEMA_VERSION,
      termination: episode.termination,
      rewardBreakdown: new Map(Object.entries(episode.rewardBreakdown).map(([component, score]) => [component, new PyFloat(score)])),
      usage: episode.usage,
      durationMs: Math.round(episode.durationMs * 1000) / 1000,
      steps: episode.steps.map((step) => ({
        action: actionDump(step.action),
        origin: step.origin,
        done: step.done,
        ...(step.toolCallId ? { toolCallId: step.toolCallId } : {}),
        ...(step.frameworkToolName ? { frameworkToolName: step.frameworkToolName } : {}),
      })),
      ...(episode.plannedOnly.length > 0 ? { plannedOnly: episode.plannedOnly.map((step) => ({ action: actionDump(step.action), origin: step.origin, toolCallId: step.toolCallId })) } : {}),
      ...(episode.error ? { error: episode.error } : {}),
      ...(episode.extra ? { extra: episode.extra } : {}),
    },
  };
}

/**
 * A recorded entry (lossless) with a re-scored episode's reward: `reward`, `info.reward_info` and
 * our block's `rewardBreakdown` replaced, everything else as recorded (`rescore -o`).
 */
export function rescoredEntry(raw: PyDict, episode: Pick<EpisodeResult, "reward" | "info" | "rewardBreakdown">): PyDict {
  const entry = new Map(raw);
  entry.set("reward", new PyFloat(episode.reward));
  const rewardInfo = episode.info.reward_info as RewardResult | null | undefined;
  const info = entry.get("info");
  if (info instanceof Map) entry.set("info", new Map(info).set("reward_info", rewardInfo ? rewardInfoDump(rewardInfo) : null));
  const block = entry.get("taubridge");
  if (block instanceof Map && block.has("rewardBreakdown"))
    entry.set("taubridge", new Map(block).set("rewardBreakdown", new Map(Object.entries(episode.rewardBreakdown).map(([component, score]) => [component, new PyFloat(score)]))));
  return entry;
}

/** The results file text: a JSON list with Python's `indent=2` formatting, as run.py writes it. */
export function resultsFileText(episodes: readonly EpisodeResult[]): string {
  return pyJsonDumpsIndented(episodes.map(resultEntry), 2);
}

/** How an entry printed at its place in the results file (level 1, indent 2) ends: its `taubridge` block closing, then the entry. */
const ENTRY_END = "\n    }\n  }";

/** An entry's block with `key` set (last), as a Map or a plain object like the entry's. */
function withBlockKey(entry: unknown, key: string, value: unknown): unknown {
  if (entry instanceof Map) {
    const block = entry.get("taubridge");
    if (!(block instanceof Map)) return entry;
    const stamped = new Map(block);
    stamped.delete(key);
    return new Map(entry).set("taubridge", stamped.set("schemaVersion", RESULT_SCHEMA_VERSION).set(key, value as PyValue));
  }
  if (entry && typeof entry === "object") {
    const plain = entry as Record<string, unknown>;
    const block = plain.taubridge;
    if (!block || typeof block !== "object") return entry;
    const { [key]: _previous, ...rest } = block as Record<string, unknown>;
    return { ...plain, taubridge: { ...rest, schemaVersion: RESULT_SCHEMA_VERSION, [key]: value } };
  }
  return entry;
}

/**
 * An entry as the results file holds it: `manifest` added as the last field of its `taubridge`
 * block. An entry printed for its place (a `PrintedJson`, made here or by a worker process) gets the
 * manifest's text (printed once per task by the caller) spliced in before its block closes — the
 * same bytes a print of the whole value gives, without printing the entry again; an entry read
 * back from a checkpoint (a resume) gets it as a value. Called by the coordinator only, so a run
 * writes the same file in one process, with `--workers` or over a queue.
 */
export function entryWithManifest(entry: unknown, manifest: RunManifest, manifestText: string): unknown {
  if (entry instanceof PrintedJson) {
    if (entry.indent === 2 && entry.level === 1 && entry.indented.endsWith(ENTRY_END) && !entry.indented.includes('\n      "manifest": '))
      return PrintedJson.fromText(`${entry.indented.slice(0, -ENTRY_END.length)},\n      "manifest": ${manifestText}${ENTRY_END}`, 2, 1);
    return withBlockKey(entry.value, "manifest", manifest);
  }
  return withBlockKey(entry, "manifest", manifest);
}

/** The manifest's text at its place in an entry (level 3 of the results file), for {@link entryWithManifest}. */
export function entryManifestText(manifest: RunManifest): string {
  return pyJsonDumpsIndented(manifest, 2, 3);
}

/** A results entry (lossless) with the `run --policy` record of its episode added to its block. */
export function entryWithPolicy(entry: PyDict, policy: Record<string, unknown>): PyDict {
  return withBlockKey(entry, "policy", policy) as PyDict;
}

const TASK_INDEX = "expected a τ-bench task index (an integer ≥ 0)";

/** Validates an entry read back from a results file (ours or the original's). */
function buildResultEntrySchema(z: typeof Zod.z) {
  const usageSchema = z.object({ calls: z.number(), promptTokens: z.number(), completionTokens: z.number(), cost: z.number().nullable() }).nullable();
  return z.object({
    task_id: z.number().int(TASK_INDEX).gte(0, TASK_INDEX),
    reward: z.number().gte(0, REWARD).lte(1, REWARD),
    info: z.record(z.string(), z.unknown()),
    traj: z.array(z.record(z.string(), z.unknown())),
    trial: z.number().int(TRIAL).gte(0, TRIAL),
    taubridge: z
      .object({
        schemaVersion: z.number().int(),
        termination: z.enum(TERMINATION_REASONS),
        usage: z.object({ agent: usageSchema, user: usageSchema }).optional(),
        durationMs: z.number().optional(),
        steps: z.array(z.unknown()).optional(),
      })
      .passthrough()
      .optional(),
  });
}

const resultEntrySchema = lazySchema(buildResultEntrySchema);

/** How an entry's episode failed and which framework tools the bridge refused, as the entry records them. */
export interface EntryFailure {
  /** The episode's error message (`taubridge.error.message`, or τ-bench's `info.error`); null when it ended without one. */
  error: string | null;
  /** Framework tools with no benchmark mapping (`taubridge.extra.unmappedTools`, or `extra.bridge.unmappedTools` for FastWorkflow). */
  unmappedTools: string[];
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/**
 * Reads the failure facts of a plain-JSON results entry (ours or the original's), so the run
 * summary and `report` can show why episodes failed without re-reading trajectories.
 */
export function entryFailure(plain: Record<string, unknown>): EntryFailure {
  const block = (plain.taubridge ?? {}) as Record<string, unknown>;
  const info = (plain.info ?? {}) as Record<string, unknown>;
  const recorded = block.error as { message?: unknown } | undefined;
  const error = typeof recorded?.message === "string" ? recorded.message : typeof info.error === "string" ? info.error : null;
  const extra = (block.extra ?? {}) as Record<string, unknown>;
  const bridge = (extra.bridge ?? {}) as Record<string, unknown>;
  return { error, unmappedTools: [...new Set([...stringList(extra.unmappedTools), ...stringList(bridge.unmappedTools)])] };
}

/** A results entry as read back: the plain-JSON view for reports plus the lossless one for replays. */
export interface LoadedResultEntry extends EntryFailure {
  taskId: number;
  trial: number;
  reward: number;
  termination: TerminationReason | null;
  usage: { agent: RoleUsage | null; user: RoleUsage | null } | null;
  /** The lossless parse of the entry (tool-call arguments keep their Python types). */
  raw: PyDict;
  plain: Zod.infer<ReturnType<typeof buildResultEntrySchema>>;
}

/**
 * Reads a results file (ours or τ-bench's). Errors name the file, entry index and field; an entry
 * from a newer taubridge schema is rejected rather than misread.
 */
export function loadResultsFile(path: string): LoadedResultEntry[] {
  const parsed = readPythonJsonFile(path, "results file");
  if (!Array.isArray(parsed)) throw new DataError(`${path}: expected a JSON list of results`);
  return parsed.map((entry, index) => {
    const result = resultEntrySchema().safeParse(toJs(entry));
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new DataError(`${path}: entry ${index}: field ${issue.path.join(".") || "(entry)"}: ${issue.message}`);
    }
    const block = result.data.taubridge;
    if (block && block.schemaVersion > RESULT_SCHEMA_VERSION) {
      throw new DataError(`${path}: entry ${index}: schemaVersion ${block.schemaVersion} is newer than this taubridge understands (${RESULT_SCHEMA_VERSION}); upgrade taubridge`);
    }
    return {
      taskId: result.data.task_id,
      trial: result.data.trial,
      reward: result.data.reward,
      termination: block?.termination ?? null,
      usage: block?.usage ?? null,
      ...entryFailure(result.data as Record<string, unknown>),
      raw: entry as PyDict,
      plain: result.data,
    };
  });
}

/** The summary of a results entry (a checkpoint line, or a file read back). */
export function summaryFromEntry(raw: PyDict): EpisodeSummary {
  const plain = toJs(raw) as Record<string, unknown>;
  const block = (plain.taubridge ?? {}) as Record<string, unknown>;
  return {
    taskId: plain.task_id as number,
    trial: plain.trial as number,
    reward: plain.reward as number,
    termination: (block.termination as TerminationReason | undefined) ?? null,
    usage: (block.usage as EpisodeSummary["usage"]) ?? null,
    ...entryFailure(plain),
  };
}

/** The summary of an episode run now; the same fields {@link summaryFromEntry} reads back on resume. */
export function summaryFromResult(result: EpisodeResult): EpisodeSummary {
  const failure = entryFailure({ taubridge: { error: result.error, extra: result.extra } });
  return { taskId: result.taskId, trial: result.trial, reward: result.reward, termination: result.termination, usage: result.usage, ...failure };
}

/** Reads a τ-bench run's checkpoint (ours). */
export function readTauBenchCheckpoint(path: string): CheckpointContents {
  return readCheckpoint(path, summaryFromEntry);
}
