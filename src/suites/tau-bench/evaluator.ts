import { ConfigError } from "../../errors/error-tree.ts";
import type { Evaluation, Evaluator, FinishedEpisode, DomainSuite } from "../../core/contracts.ts";
import { RESPOND_ACTION_FIELD_NAME, RESPOND_ACTION_NAME, type RewardResult, type Task } from "../../core/types.ts";
import type { GroundTruthState, LoadedDomain } from "./engine/domain.ts";
import { Environment } from "./engine/environment.ts";
import { invokeTool } from "./engine/tool.ts";
import { pyJsonDumps, type PyValue } from "../../value/index.ts";

/**
 * τ-bench's reward (τ-bench: tau_bench/envs/base.py, Env.calculate_reward) as an evaluator: the end
 * state's data hash against the hash after replaying the ground-truth actions on fresh data, then —
 * when the task lists outputs — a case-insensitive substring check of each output in what the agent
 * said, with commas removed from the agent's words only. `rewardInfo` is the original's
 * `RewardResult`; the breakdown names the two components (`actions`, and `outputs` when the task
 * has any).
 *
 * Deliberate isolation (no score change): the replay runs on its own database and the episode keeps
 * the agent's end state.
 */
export class TauBenchEvaluator implements Evaluator {
  readonly suite: DomainSuite;

  constructor(private readonly domain: LoadedDomain) {
    this.suite = domain.definition.suite;
  }

  evaluate(episode: FinishedEpisode): Evaluation {
    const groundTruth = groundTruthStateFor(this.domain, episode.task);
    const groundTruthHash = groundTruth.hash;
    // Equality is all the reward needs: compare the touched records instead of hashing the end state.
    const environment = episode.environment;
    const actionsMatch = environment instanceof Environment ? environment.db.sameStateAs(groundTruth.db) : environment.dataHash() === groundTruthHash;
    const breakdown: Record<string, number> = { actions: actionsMatch ? 1 : 0 };
    let info: RewardResult["info"] = { r_actions: actionsMatch ? 1.0 : 0.0, gt_data_hash: groundTruthHash };
    if (episode.task.outputs.length > 0) {
      const said = episode.steps
        .filter((step) => step.action.name === RESPOND_ACTION_NAME)
        .map((step) => {
          const content = step.action.kwargs.get(RESPOND_ACTION_FIELD_NAME);
          return typeof content === "string" ? content.toLowerCase().replaceAll(",", "") : "";
        });
      const outputs: Record<string, boolean> = {};
      for (const output of episode.task.outputs) outputs[output] = said.some((content) => content.includes(output.toLowerCase()));
      const outputsMet = Object.values(outputs).every(Boolean);
      breakdown.outputs = outputsMet ? 1 : 0;
      info = { r_outputs: outputsMet ? 1.0 : 0.0, outputs };
    }
    const reward = Object.values(breakdown).every((score) => score === 1) ? 1.0 : 0.0;
    const rewardInfo: RewardResult = { reward, info, actions: episode.task.actions.filter((action) => action.name !== RESPOND_ACTION_NAME) };
    return { reward, breakdown, rewardInfo };
  }
}

/** The ground-truth end-state hash of a task (see {@link groundTruthStateFor}). */
export function groundTruthHashFor(domain: LoadedDomain, task: Task): string {
  return groundTruthStateFor(domain, task).hash;
}

/**
 * The ground-truth end state of a task: replay its actions (terminate tools skipped) on fresh
 * data. Deterministic, so it is computed once per task and shared across trials and episodes.
 */
export function groundTruthStateFor(domain: LoadedDomain, task: Task): GroundTruthState {
  // Fast path by task object (the domain's own task lists); the text key covers tasks rebuilt
  // elsewhere (rescore reads them back from results files).
  const byObject = domain.groundTruthByTask.get(task);
  if (byObject) return byObject;
  const key = pyJsonDumps(
    task.actions.map(
      (action) =>
        new Map<string, PyValue>([
          ["name", action.name],
          ["kwargs", action.kwargs],
        ]),
    ),
  );
  const cached = domain.groundTruthHashes.get(key);
  if (cached) {
    domain.groundTruthByTask.set(task, cached);
    return cached;
  }
  const db = domain.newDatabase();
  for (const action of task.actions) {
    if (domain.definition.terminateTools.includes(action.name)) continue;
    const tool = domain.toolsByName.get(action.name);
    if (!tool) continue; // `Unknown action` changes nothing; a ground-truth respond would only talk to the user.
    invokeTool(tool, domain.definition.dataSubdirectory, db, action.kwargs);
  }
  const state: GroundTruthState = { db, hash: db.tauBenchHash() };
  domain.groundTruthHashes.set(key, state);
  domain.groundTruthByTask.set(task, state);
  return state;
}

/** The evaluator of a loaded domain's suite (τ-bench and our own domain share τ-bench's). */
export function evaluatorFor(domain: LoadedDomain): Evaluator {
  if (domain.definition.suite === "tau2-bench") throw new ConfigError(`no evaluator for suite ${domain.definition.suite} yet`);
  return new TauBenchEvaluator(domain);
}
