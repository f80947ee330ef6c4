/**
 * `taubridge rescore` for τ² results files (ours or the original's): re-evaluates every stored
 * simulation with our evaluator (lenient replay, as τ²'s `evaluate-trajs` does) and reports how many
 * rewards agree with the recorded ones. NL-assertion verdicts are an LLM's: unless a judge model is
 * given, the recorded verdicts are reused, so the comparison isolates our environment, action and
 * communicate checks.
 */
import type { LoadedTau2Domain } from "./engine/domain.ts";
import { evaluateTau2Simulation } from "./evaluator.ts";
import type { Tau2NlJudge } from "./judge.ts";
import { type Tau2Metrics } from "./metrics.ts";
import type { Tau2Task } from "./tasks.ts";
import { PyException, type PyDict, type PyValue } from "../../value/index.ts";
import { type LoadedTau2Results, type Tau2SimulationRecord, rewardOf, simulationMetrics } from "./codec.ts";

export interface Tau2RescoreItem {
  taskId: string;
  trial: number;
  recordedReward: number;
  reward: number | null;
  agree: boolean;
  note?: string;
}

export interface Tau2RescoreReport {
  total: number;
  agree: number;
  items: Tau2RescoreItem[];
  metrics: Tau2Metrics;
  judge: "recorded" | "model";
  /**
   * Every simulation of the file in its order, re-scored (its `reward_info` replaced) where the
   * evaluation ran, as recorded otherwise (infrastructure errors, evaluations that raised): what
   * `rescore -o` writes, as τ²'s `evaluate-trajs -o` does.
   */
  simulations: Tau2SimulationRecord[];
}

/** A judge that answers with the verdicts recorded in the simulation's reward info. */
function recordedJudge(simulation: Tau2SimulationRecord): Tau2NlJudge {
  return {
    judge: async (_messages, assertions) => {
      const info = simulation.reward_info;
      const stored = info instanceof Map ? info.get("nl_assertions") : (info?.nl_assertions ?? null);
      if (!Array.isArray(stored)) throw new Error("no recorded NL verdicts to reuse; pass --judge-model to judge again");
      return stored
        .map((check) => {
          const entry = check instanceof Map ? (check as PyDict) : new Map(Object.entries(check as Record<string, PyValue>));
          return { nl_assertion: String(entry.get("nl_assertion")), met: entry.get("met") === true, justification: String(entry.get("justification")) };
        })
        .slice(0, assertions.length);
    },
  };
}

export async function rescoreTau2Results(domain: LoadedTau2Domain, results: LoadedTau2Results, tasks: ReadonlyMap<string, Tau2Task>, judge?: Tau2NlJudge): Promise<Tau2RescoreReport> {
  const items: Tau2RescoreItem[] = [];
  const rescored: Tau2SimulationRecord[] = [];
  const simulations: Tau2SimulationRecord[] = [];
  for (const simulation of results.simulations) {
    const recordedReward = rewardOf(simulation.reward_info);
    if (simulation.termination_reason === "infrastructure_error") {
      rescored.push(simulation);
      simulations.push(simulation);
      continue;
    }
    const task = tasks.get(simulation.task_id);
    if (!task) {
      items.push({ taskId: simulation.task_id, trial: simulation.trial, recordedReward, reward: null, agree: false, note: "task not in the file's tasks" });
      simulations.push(simulation);
      continue;
    }
    try {
      const info = await evaluateTau2Simulation({
        domain,
        task,
        termination: simulation.termination_reason,
        messages: simulation.messages,
        judge: judge ?? recordedJudge(simulation),
        strictReplay: false,
      });
      const reward = info.reward.value;
      items.push({ taskId: simulation.task_id, trial: simulation.trial, recordedReward, reward, agree: Math.abs(reward - recordedReward) <= 1e-6 });
      const record = { ...simulation, reward_info: info };
      rescored.push(record);
      simulations.push(record);
    } catch (error) {
      const note = PyException.isInstance(error) ? `evaluation raised ${error.pythonType}: ${error.message}` : `evaluation failed: ${error instanceof Error ? error.message : String(error)}`;
      items.push({ taskId: simulation.task_id, trial: simulation.trial, recordedReward, reward: null, agree: false, note });
      simulations.push(simulation);
    }
  }
  const metrics = simulationMetrics(rescored);
  return { total: items.length, agree: items.filter((item) => item.agree).length, items, metrics, judge: judge ? "model" : "recorded", simulations };
}
