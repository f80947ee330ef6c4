/**
 * Checks that a results file is what the command is about to treat it as, before any number is
 * printed: a file recorded on another domain (`rescore gpt-4o-airline.json --env retail`) replays
 * into plausible-looking but meaningless rewards, and files concatenated from several runs give
 * a leaderboard of nothing. Each refusal is one line naming the file and what does not match.
 */
import { ConfigError, DataError } from "../../errors/error-tree.ts";
import { RESPOND_ACTION_NAME, type Task } from "../../core/types.ts";
import type { LoadedDomain } from "./engine/domain.ts";
import { actionsFromEntry } from "./replay.ts";
import type { LoadedResultEntry } from "./codec.ts";

/** At most this many names or ids are listed in a message; the rest are counted. */
const LISTED = 5;

function listed(items: readonly (string | number)[]): string {
  const shown = items.slice(0, LISTED).join(", ");
  return items.length > LISTED ? `${shown} and ${items.length - LISTED} more` : shown;
}

function plainRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function actionNames(value: unknown): string[] {
  return Array.isArray(value) ? value.map((action) => plainRecord(action).name).filter((name): name is string => typeof name === "string") : [];
}

/** The tool names of the entry's recorded task (its ground truth) and of its reward replay. */
function groundTruthToolNames(entry: LoadedResultEntry): string[] {
  const info = plainRecord(entry.plain.info);
  return [...actionNames(plainRecord(info.task).actions), ...actionNames(plainRecord(info.reward_info).actions)];
}

/** The tool names the agent called (steps we recorded, tool calls, or act/react `Action:` lines). */
function agentToolNames(entry: LoadedResultEntry): string[] {
  const extracted = actionsFromEntry(entry);
  if (!("error" in extracted)) return extracted.actions.map((action) => action.name).filter((name) => name !== RESPOND_ACTION_NAME);
  // Unparseable arguments somewhere: the names of the tool calls are still readable.
  return entry.plain.traj.flatMap((message) =>
    (Array.isArray(message.tool_calls) ? message.tool_calls : []).map((call) => plainRecord(plainRecord(call).function).name).filter((name): name is string => typeof name === "string"),
  );
}

/**
 * Refuses a results file that was not recorded on `domain`: every ground-truth tool must be a
 * domain tool, the agent's calls must mostly be domain tools (a model may invent the odd name; a
 * file of another domain uses mostly foreign ones), and every task id must exist in `tasks`.
 */
export function checkResultsMatchDomain(path: string, entries: readonly LoadedResultEntry[], domain: LoadedDomain, tasks: readonly Task[], taskSetName: string): void {
  const known = new Set([...domain.toolNames, RESPOND_ACTION_NAME]);
  const foreignGroundTruth = new Set<string>();
  const agentKnown = new Set<string>();
  const agentForeign = new Set<string>();
  const missingIds = new Set<number>();
  for (const entry of entries) {
    for (const name of groundTruthToolNames(entry)) if (!known.has(name)) foreignGroundTruth.add(name);
    for (const name of agentToolNames(entry)) (known.has(name) ? agentKnown : agentForeign).add(name);
    if (entry.taskId < 0 || entry.taskId >= tasks.length) missingIds.add(entry.taskId);
  }
  const refuse = (what: string): never => {
    throw new ConfigError(`${path} does not belong to --env ${domain.name}: ${what}`);
  };
  if (foreignGroundTruth.size > 0) refuse(`its tasks' ground-truth actions use tools ${domain.name} does not have (${listed([...foreignGroundTruth].sort())})`);
  if (agentForeign.size > agentKnown.size) refuse(`its agent called tools ${domain.name} does not have (${listed([...agentForeign].sort())})`);
  if (missingIds.size > 0) {
    refuse(`task id(s) ${listed([...missingIds].sort((a, b) => a - b))} are not in ${taskSetName} (${tasks.length} tasks)`);
  }
}

/**
 * Checks a results file on its own (no domain given): each `(task, trial)` once, and each task id
 * recorded with one task. Files of different runs pasted together fail one of the two.
 */
export function checkResultsConsistent(path: string, entries: readonly LoadedResultEntry[]): void {
  const seenPairs = new Map<string, number>();
  const taskById = new Map<number, { index: number; key: string }>();
  entries.forEach((entry, index) => {
    const pair = `${entry.taskId}:${entry.trial}`;
    const earlier = seenPairs.get(pair);
    if (earlier !== undefined) {
      throw new DataError(`${path}: entries ${earlier} and ${index} are both task ${entry.taskId} trial ${entry.trial}; is it several runs' results in one file?`);
    }
    seenPairs.set(pair, index);
    const task = plainRecord(plainRecord(entry.plain.info).task);
    if (typeof task.instruction !== "string") return;
    const key = JSON.stringify([task.user_id, task.instruction]);
    const first = taskById.get(entry.taskId);
    if (first && first.key !== key) {
      throw new DataError(`${path}: entries ${first.index} and ${index} record different tasks under task id ${entry.taskId}; is it results of different domains or splits in one file?`);
    }
    if (!first) taskById.set(entry.taskId, { index, key });
  });
}
