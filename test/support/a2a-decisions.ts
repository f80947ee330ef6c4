/**
 * Scripts for scripted remote agents that make τ²'s oracle decisions: the task's assistant actions
 * as tool calls (their arguments as Python's `json.dumps` writes them), a request to the user for
 * each run of user-side actions (τ²'s scripted user then performs them), and the closing words with
 * what the task must communicate.
 */
import { tau2OracleClosing, tau2OraclePlan } from "../../src/suites/tau2/participants/oracle.ts";
import { loadTau2TaskSet } from "../../src/suites/tau2/task-sets.ts";
import { pyJsonDumps } from "../../src/value/index.ts";
import type { Decision } from "./a2a-agents.ts";

/** One script per task, in the task set's order (the order a run with concurrency 1 starts them). */
export function oracleScripts(data: string, taskSetName: string, ids: readonly string[]): Decision[][] {
  const set = loadTau2TaskSet(data, { taskSetName, split: "base", taskIds: [...ids] });
  return set.tasks.map((task) => {
    const decisions: Decision[] = tau2OraclePlan(task).map((step) =>
      step.side === "assistant"
        ? { calls: [{ name: step.action.name, arguments: pyJsonDumps(step.action.arguments) }] }
        : { say: `Please do this on your phone: ${step.actions.map((action) => action.name).join(", ")}.` },
    );
    decisions.push({ say: tau2OracleClosing(task) });
    return decisions;
  });
}
