/**
 * τ-bench's end state against the gold end state, row by row (`Suite.endStateDiffs`, shown by
 * `taubridge view`): the episode's actions (its recorded steps, or what the original's trajectory
 * shows) replayed on a fresh environment, against the evaluator's own ground-truth state (the
 * task's actions replayed on fresh data, `groundTruthStateFor`), compared with the hash's equality.
 */
import { RESPOND_ACTION_NAME, type Task } from "../../core/types.ts";
import type { EndStateDiff, EndStateDiffs, StateDiffRendering } from "../../core/state-diff.ts";
import { diffDatabases, unavailableDiff } from "../../metrics/state-diff.ts";
import { hashableRepr, pyJsonDumps, type PyDict, type PyValue } from "../../value/index.ts";
import type { LoadedResultEntry } from "./codec.ts";
import type { DomainDefinition, LoadedDomain } from "./engine/domain.ts";
import { Environment } from "./engine/environment.ts";
import { actionsFromEntry, taskFromInfo } from "./replay.ts";

/** Values as τ-bench's tools print them (`json.dumps`); equal when their hash texts are. */
const RENDERING: StateDiffRendering = {
  render: (value) => pyJsonDumps(value),
  same: (gold, actual) => hashableRepr(gold) === hashableRepr(actual),
};

/**
 * The domain a results file was recorded on, when it does not say (the originals' files, ours
 * copied without their checkpoint): the one domain whose tools include every tool the file's
 * episodes and tasks call. Null when none or several fit.
 */
export function inferTauBenchDomain(entries: readonly LoadedResultEntry[], definitions: readonly DomainDefinition[]): DomainDefinition | null {
  const names = new Set<string>();
  for (const entry of entries) {
    const task = taskFromInfo(entry.raw, undefined);
    for (const action of task?.actions ?? []) names.add(action.name);
    const extracted = actionsFromEntry(entry);
    if (!("error" in extracted)) for (const action of extracted.actions) names.add(action.name);
  }
  names.delete(RESPOND_ACTION_NAME);
  if (names.size === 0) return null;
  const fitting = definitions.filter((definition) => {
    const tools = new Set(definition.tools.map((tool) => tool.name));
    return [...names].every((name) => tools.has(name));
  });
  return fitting.length === 1 ? fitting[0] : null;
}

/** One episode's diff: its actions on a fresh environment against the task's ground-truth state. */
export function tauBenchEndStateDiff(domain: LoadedDomain, entry: LoadedResultEntry, task: Task | undefined, groundTruth: (task: Task) => { db: Environment["db"] }): EndStateDiff {
  if (!task) return unavailableDiff(`task ${entry.taskId} is neither in the results entry nor in ${domain.name}'s task split`);
  if (entry.termination === "infra_error") return unavailableDiff("the episode ended in an infrastructure error: there is no end state to compare");
  const extracted = actionsFromEntry(entry);
  if ("error" in extracted) return unavailableDiff(`the episode's actions cannot be read back: ${extracted.error}`);
  const environment = new Environment(domain);
  let calls = 0;
  for (const action of extracted.actions) {
    if (action.name === RESPOND_ACTION_NAME) continue;
    calls++;
    try {
      environment.step(action);
    } catch {
      // What raised in the episode (a tool returning None) changed nothing the hash sees after it either.
    }
  }
  const gold = groundTruth(task);
  const goldActions = task.actions.filter((action) => action.name !== RESPOND_ACTION_NAME && !domain.definition.terminateTools.includes(action.name)).length;
  return {
    status: "computed",
    tables: diffDatabases(gold.db.snapshot() as Map<string, PyValue>, environment.db.snapshot() as Map<string, PyValue>, RENDERING),
    reason: null,
    compared: `the episode's ${calls} tool call${calls === 1 ? "" : "s"} vs the task's ${goldActions} gold action${goldActions === 1 ? "" : "s"}, each replayed on fresh ${domain.name} data`,
  };
}

/** Every entry's diff, keyed `taskId#trial`; tasks come from each entry (`info.task`), else the given split. */
export function tauBenchEndStateDiffs(domain: LoadedDomain, entries: readonly LoadedResultEntry[], tasks: readonly Task[], groundTruth: (task: Task) => { db: Environment["db"] }): EndStateDiffs {
  const episodes = new Map<string, EndStateDiff>();
  for (const entry of entries) {
    const task = taskFromInfo(entry.raw as PyDict, tasks[entry.taskId]);
    episodes.set(`${entry.taskId}#${entry.trial}`, tauBenchEndStateDiff(domain, entry, task, groundTruth));
  }
  return { episodes, domain: domain.name };
}
