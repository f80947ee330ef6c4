/**
 * τ²-bench's run metrics (τ²: src/tau2/metrics/agent_metrics.py, compute_metrics and pass_hat_k):
 * infrastructure errors are dropped first; the average reward is over the remaining simulations;
 * pass^k per task is C(c, k) / C(n, k) with the task's own trial count n, averaged over tasks, for
 * k = 1..(the smallest trial count of any task). Cost is the mean agent cost (null when any
 * simulation's is unknown).
 */
import { binomial, isSuccess } from "../../metrics/pass-k.ts";

export interface Tau2ScoredSimulation {
  taskId: string;
  reward: number;
  termination: string;
  agentCost: number | null;
  userCost?: number | null;
}

export interface Tau2Metrics {
  simulations: number;
  tasks: number;
  infraErrors: number;
  averageReward: number | null;
  /** k → pass^k (k = 1..max_k). */
  passK: Record<number, number>;
  averageAgentCost: number | null;
  /** Mean user-simulator cost (null when any simulation's is unknown). */
  averageUserCost: number | null;
  terminations: Record<string, number>;
}

export function computeTau2Metrics(simulations: readonly Tau2ScoredSimulation[]): Tau2Metrics {
  const terminations: Record<string, number> = {};
  for (const simulation of simulations) terminations[simulation.termination] = (terminations[simulation.termination] ?? 0) + 1;
  const scored = simulations.filter((simulation) => simulation.termination !== "infrastructure_error");
  const perTask = new Map<string, { n: number; c: number }>();
  for (const simulation of scored) {
    const entry = perTask.get(simulation.taskId) ?? { n: 0, c: 0 };
    entry.n++;
    if (isSuccess(simulation.reward)) entry.c++;
    perTask.set(simulation.taskId, entry);
  }
  const maxK = perTask.size === 0 ? 0 : Math.min(...[...perTask.values()].map((entry) => entry.n));
  const passK: Record<number, number> = {};
  for (let k = 1; k <= maxK; k++) {
    let sum = 0;
    for (const { n, c } of perTask.values()) sum += Number(binomial(c, k)) / Number(binomial(n, k));
    passK[k] = sum / perTask.size;
  }
  const costs = scored.map((simulation) => simulation.agentCost);
  const userCosts = scored.map((simulation) => simulation.userCost ?? null);
  return {
    simulations: simulations.length,
    tasks: new Set(simulations.map((simulation) => simulation.taskId)).size,
    infraErrors: simulations.length - scored.length,
    averageReward: scored.length === 0 ? null : scored.reduce((sum, simulation) => sum + simulation.reward, 0) / scored.length,
    passK,
    averageAgentCost: costs.length === 0 || costs.some((cost) => cost === null) ? null : (costs as number[]).reduce((sum, cost) => sum + cost, 0) / costs.length,
    averageUserCost: userCosts.length === 0 || userCosts.some((cost) => cost === null) ? null : (userCosts as number[]).reduce((sum, cost) => sum + cost, 0) / userCosts.length,
    terminations,
  };
}
