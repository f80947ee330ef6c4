/**
 * Tasks whose score means less than it seems (the silent passes reported in
 * sierra-research/tau2-bench issues #81 and #384; τ²: src/tau2/evaluator/evaluator.py,
 * evaluate_simulation): no evaluation criteria (reward 1.0 whatever the agent does), or a
 * reward-basis component with nothing to check (74 retail tasks list `NL_ASSERTION` with no
 * assertions; a `COMMUNICATE` basis with no `communicate_info`; `ACTION` with no actions; `DB` when
 * neither actions nor env assertions are given). Every report lists them.
 */
import type { Tau2Task } from "./tasks.ts";

export interface Tau2TaskFlag {
  taskId: string;
  reasons: string[];
}

export function flagTau2Tasks(tasks: readonly Tau2Task[]): Tau2TaskFlag[] {
  const flags: Tau2TaskFlag[] = [];
  for (const task of tasks) {
    const criteria = task.evaluation_criteria;
    const reasons: string[] = [];
    if (!criteria) reasons.push("no evaluation criteria: every run scores 1.0");
    else {
      const basis = criteria.reward_basis;
      if (basis.includes("NL_ASSERTION") && !criteria.nl_assertions?.length) reasons.push("NL_ASSERTION in the basis but no nl_assertions: that component always scores 1.0");
      if (basis.includes("COMMUNICATE") && !criteria.communicate_info?.length) reasons.push("COMMUNICATE in the basis but no communicate_info: always 1.0");
      if (basis.includes("ACTION") && !criteria.actions?.length) reasons.push("ACTION in the basis but no actions: always 1.0");
      if (basis.includes("ENV_ASSERTION") && !criteria.env_assertions?.length) reasons.push("ENV_ASSERTION in the basis but no env_assertions: always 1.0");
      if (basis.includes("DB") && criteria.actions == null && criteria.env_assertions == null) reasons.push("DB in the basis but neither actions nor env_assertions: the database check always passes");
      if (basis.length === 0) reasons.push("empty reward basis: every run scores 1.0");
    }
    if (reasons.length > 0) flags.push({ taskId: task.id, reasons });
  }
  return flags;
}
