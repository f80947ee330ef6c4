/**
 * The original's submission checks (`verify_trajectories_public.py`: `check_tasks`,
 * `check_num_trials`; `prepare_submission.py`: `validate_submission_traj_set`), each defect named
 * with its domain and file. Unlike the original, a defect is an error for the caller to act on.
 */
import type { LeaderboardResultsFile, LeaderboardTaskDefinition } from "../core/leaderboard.ts";

/** One failed check. */
export interface Defect {
  domain: string | null;
  file: string | null;
  defect: string;
}

const sample = (ids: readonly string[]) => `${ids.slice(0, 8).join(", ")}${ids.length > 8 ? `, … (${ids.length})` : ""}`;

const sameHash = (task: LeaderboardTaskDefinition, current: LeaderboardTaskDefinition) => task.hash === current.hash;

/**
 * `check_tasks`: the file's tasks are the base split's, each with the current definition's hash
 * (`same`: the suite's comparison, which may spare the hashing of equal definitions).
 */
export function checkTasks(
  file: LeaderboardResultsFile,
  base: readonly LeaderboardTaskDefinition[],
  same: (task: LeaderboardTaskDefinition, current: LeaderboardTaskDefinition) => boolean = sameHash,
): Defect[] {
  const wanted = new Map(base.map((task) => [task.id, task]));
  const have = new Map(file.tasks.map((task) => [task.id, task]));
  const missing = [...wanted.keys()].filter((id) => !have.has(id));
  const extra = [...have.keys()].filter((id) => !wanted.has(id));
  const at = { domain: file.domain, file: file.path };
  if (missing.length > 0 || extra.length > 0) {
    const parts = [...(missing.length > 0 ? [`missing tasks of the base split: ${sample(missing)}`] : []), ...(extra.length > 0 ? [`tasks not in the base split: ${sample(extra)}`] : [])];
    return [{ ...at, defect: parts.join("; ") }];
  }
  const changed = [...wanted].filter(([id, current]) => !same(have.get(id) as LeaderboardTaskDefinition, current)).map(([id]) => id);
  return changed.length > 0 ? [{ ...at, defect: `${changed.length} task(s) differ from the current task definitions: ${sample(changed)}` }] : [];
}

/** `check_num_trials`: every task has exactly `info.num_trials` simulations. */
export function checkNumTrials(file: LeaderboardResultsFile): Defect[] {
  const counts = new Map<string, number>();
  for (const simulation of file.simulations) counts.set(simulation.taskId, (counts.get(simulation.taskId) ?? 0) + 1);
  const wrong = file.tasks.filter((task) => (counts.get(task.id) ?? 0) !== file.numTrials).map((task) => `${task.id} (${counts.get(task.id) ?? 0})`);
  return wrong.length > 0 ? [{ domain: file.domain, file: file.path, defect: `${wrong.length} task(s) do not have exactly num_trials=${file.numTrials} simulations: ${sample(wrong)}` }] : [];
}

/** `validate_submission_traj_set`: no domain twice; agent and user model and arguments the same in every file. */
export function checkTrajectorySet(files: readonly LeaderboardResultsFile[]): Defect[] {
  const defects: Defect[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const earlier = seen.get(file.domain);
    if (earlier !== undefined) defects.push({ domain: file.domain, file: file.path, defect: `domain ${file.domain} appears twice (also in ${earlier})` });
    else seen.set(file.domain, file.path);
  }
  const first = files[0];
  for (const file of files.slice(1)) {
    if (file.agentUserConfiguration !== first.agentUserConfiguration)
      defects.push({
        domain: file.domain,
        file: file.path,
        defect: `agent and user simulator must be the same in every domain: ${first.domain} has ${first.agentUserDescription}, ${file.domain} has ${file.agentUserDescription}`,
      });
  }
  return defects;
}

/** A defect as one line: `<domain>: <defect> (<file>)`. */
export function defectLine(defect: Defect): string {
  return `${defect.domain ?? "submission"}: ${defect.defect}${defect.file ? ` (${defect.file})` : ""}`;
}
