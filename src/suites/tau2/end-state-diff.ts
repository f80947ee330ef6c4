/**
 * τ²'s end state against the gold end state, row by row (`Suite.endStateDiffs`, shown by
 * `taubridge view`): the two environments the evaluator's DB check builds — the simulation's
 * messages replayed leniently after the task's initial state, and the task's expected actions
 * replayed after it (`goldEnvironment`) — compared table by table with the hash's equality, the
 * agent's database and, where the domain has its own, the user's.
 */
import type { EndStateDiff, EndStateDiffs, StateDiffRendering, StateTableDiff } from "../../core/state-diff.ts";
import { diffDatabases, unavailableDiff } from "../../metrics/state-diff.ts";
import { PyException, pyJsonDumps, type PyValue } from "../../value/index.ts";
import type { LoadedTau2Results, Tau2SimulationRecord } from "./codec.ts";
import type { LoadedTau2Domain } from "./engine/domain.ts";
import type { Tau2Environment } from "./engine/environment.ts";
import { sameJson } from "./engine/shared-records.ts";
import { goldEnvironment } from "./evaluator.ts";
import type { Tau2Task } from "./tasks.ts";

/** Values as τ²'s tools return them (`json.dumps`); equal when their sorted-keys JSON texts are. */
const RENDERING: StateDiffRendering = { render: (value) => pyJsonDumps(value), same: sameJson };

function databaseDiff(gold: Tau2Environment, predicted: Tau2Environment): StateTableDiff[] {
  const tables = diffDatabases(gold.agent.db as Map<string, PyValue>, predicted.agent.db as Map<string, PyValue>, RENDERING);
  // A domain whose user shares the agent's database (`userSharesAgentDatabase`) has one database.
  if (gold.user && predicted.user && gold.user.db !== gold.agent.db) tables.push(...diffDatabases(gold.user.db as Map<string, PyValue>, predicted.user.db as Map<string, PyValue>, RENDERING, "user/"));
  return tables;
}

const isToolCall = (message: Tau2SimulationRecord["messages"][number]): boolean =>
  (message.role === "assistant" || message.role === "user") && Array.isArray(message.tool_calls) && message.tool_calls.length > 0;

/** One simulation's diff. */
export function tau2EndStateDiff(domain: LoadedTau2Domain, simulation: Tau2SimulationRecord, task: Tau2Task | undefined): EndStateDiff {
  if (!task) return unavailableDiff(`task ${simulation.task_id} is not among the results file's tasks`);
  if (simulation.termination_reason === "infrastructure_error") return unavailableDiff("the simulation ended in an infrastructure error: there is no end state to compare");
  const criteria = task.evaluation_criteria;
  if (!criteria || criteria.actions == null) return unavailableDiff("the task lists no expected actions: τ² compares no end state for it (its reward basis decides on other checks)");
  let predicted: Tau2Environment | undefined;
  let gold: Tau2Environment | undefined;
  try {
    predicted = domain.createEnvironment({ task });
    const state = task.initial_state;
    predicted.setState(
      state?.initialization_data,
      state?.initialization_actions,
      simulation.messages.filter((message) => message.role !== "system") as Parameters<Tau2Environment["setState"]>[2],
      false,
    );
    gold = goldEnvironment(domain, task, criteria.actions);
    const calls = simulation.messages.filter(isToolCall).reduce((total, message) => total + ((message as { tool_calls: unknown[] }).tool_calls.length ?? 0), 0);
    const expected = criteria.actions.length;
    return {
      status: "computed",
      tables: databaseDiff(gold, predicted),
      reason: null,
      compared: `the simulation's ${calls} tool call${calls === 1 ? "" : "s"} vs the task's ${expected} expected action${expected === 1 ? "" : "s"}, each replayed after the task's initial state`,
    };
  } catch (error) {
    if (!PyException.isInstance(error)) throw error;
    return unavailableDiff(`replaying the simulation raised ${error.pythonType}: ${error.message.split("\n")[0]}`);
  } finally {
    for (const environment of [predicted, gold]) void environment?.dispose().catch(() => undefined);
  }
}

/** Every simulation's diff, keyed `taskId#trial`. */
export function tau2EndStateDiffs(domain: LoadedTau2Domain, results: LoadedTau2Results, tasks: ReadonlyMap<string, Tau2Task>, domainName: string): EndStateDiffs {
  const episodes = new Map<string, EndStateDiff>();
  for (const simulation of results.simulations) episodes.set(`${simulation.task_id}#${simulation.trial}`, tau2EndStateDiff(domain, simulation, tasks.get(simulation.task_id)));
  return { episodes, domain: domainName };
}
