/**
 * Environment benchmark: time per task of a fresh environment + ground-truth replay + reward on the
 * τ-bench retail and airline test sets, the same through the orchestrator (oracle agent, scripted
 * user, evaluator: a whole episode), and resident memory with 256 retail episodes open.
 * Reference: the original Python environment takes about 300 ms (retail) and 800 ms (airline) per
 * task on this machine class, measured the same way.
 */
import { join } from "node:path";
import { Environment } from "../../src/suites/tau-bench/engine/environment.ts";
import { loadDomain } from "../../src/suites/tau-bench/engine/domain.ts";
import { ScriptedUser } from "../../src/suites/tau-bench/participants/scripted-user.ts";
import { TauBenchEvaluator } from "../../src/suites/tau-bench/evaluator.ts";
import { OracleAgent } from "../../src/suites/tau-bench/participants/oracle-agent.ts";
import { runEpisode } from "../../src/suites/tau-bench/loop.ts";
import { simulatedUser } from "../../src/suites/tau-bench/participants/simulated-user.ts";
import type { LoadedDomain } from "../../src/suites/tau-bench/engine/domain.ts";
import type { Task } from "../../src/core/types.ts";
import { airlineDomain } from "../../domains/airline/index.ts";
import { retailDomain } from "../../domains/retail/index.ts";
import type { DomainDefinition } from "../../src/suites/tau-bench/engine/domain.ts";

const REFERENCE_MS: Record<string, number> = { retail: 300, airline: 800 };

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

async function episodeOnce(domain: LoadedDomain, task: Task): Promise<number> {
  const environment = new Environment(domain);
  for (const action of task.actions) environment.step(action);
  // The agent's closing words, so tasks graded on outputs can score too (no user model involved).
  const respond = { action: { name: "respond", kwargs: new Map([["content", task.outputs.join("; ")]]) }, observation: "", reward: 0, done: true, origin: "agent" as const };
  return new TauBenchEvaluator(domain).evaluate({ task, termination: "user_stop", steps: [respond], environment }).reward;
}

async function orchestratedOnce(domain: LoadedDomain, task: Task, index: number): Promise<number> {
  const result = await runEpisode({
    domain,
    task,
    taskIndex: index,
    trial: 0,
    agent: new OracleAgent(domain),
    user: simulatedUser("scripted", () => new ScriptedUser()),
    evaluator: new TauBenchEvaluator(domain),
    maxSteps: 30,
  });
  return result.reward;
}

async function measure(domain: LoadedDomain, tasks: Task[], once: (domain: LoadedDomain, task: Task, index: number) => Promise<number>) {
  for (let index = 0; index < tasks.length; index++) await once(domain, tasks[index], index); // warm-up (JIT, hash index)
  const times: number[] = [];
  let rewardSum = 0;
  for (let pass = 0; pass < 3; pass++) {
    for (let index = 0; index < tasks.length; index++) {
      domain.clearGroundTruthCache(); // the original replays the ground truth for every reward
      const started = performance.now();
      rewardSum += await once(domain, tasks[index], index);
      times.push(performance.now() - started);
    }
  }
  times.sort((a, b) => a - b);
  return { times, mean: times.reduce((sum, time) => sum + time, 0) / times.length, allRewardsOne: rewardSum === tasks.length * 3 };
}

export async function benchEnvironment(dataRoot: string): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  for (const definition of [retailDomain, airlineDomain] as DomainDefinition[]) {
    const domain = loadDomain(definition, dataRoot);
    const tasks = domain.tasks("test");
    const { times, mean, allRewardsOne } = await measure(domain, tasks, episodeOnce);
    const orchestrated = await measure(domain, tasks, orchestratedOnce);
    results[definition.name] = {
      tasks: tasks.length,
      meanMsPerTask: Number(mean.toFixed(3)),
      p50Ms: Number(percentile(times, 0.5).toFixed(3)),
      p99Ms: Number(percentile(times, 0.99).toFixed(3)),
      referenceMsPerTask: REFERENCE_MS[definition.name],
      speedup: Number((REFERENCE_MS[definition.name] / mean).toFixed(1)),
      target: "≥ 50× faster",
      allRewardsOne,
      orchestratedEpisode: {
        meanMsPerTask: Number(orchestrated.mean.toFixed(3)),
        p50Ms: Number(percentile(orchestrated.times, 0.5).toFixed(3)),
        speedup: Number((REFERENCE_MS[definition.name] / orchestrated.mean).toFixed(1)),
        allRewardsOne: orchestrated.allRewardsOne,
      },
    };
  }

  // Memory: 256 retail episodes open at once, each holding the end state of a ground-truth replay.
  const retail = loadDomain(retailDomain, dataRoot);
  const tasks = retail.tasks("test");
  global.gc?.();
  const before = process.memoryUsage().rss;
  const open: Environment[] = [];
  for (let index = 0; index < 256; index++) {
    const env = new Environment(retail);
    for (const action of tasks[index % tasks.length].actions) env.step(action);
    open.push(env);
  }
  global.gc?.();
  const after = process.memoryUsage().rss;
  results.memory = {
    openRetailEpisodes: open.length,
    residentMb: Number((after / 2 ** 20).toFixed(1)),
    residentBeforeEpisodesMb: Number((before / 2 ** 20).toFixed(1)),
    perEpisodeKb: Number(((after - before) / open.length / 1024).toFixed(1)),
    target: "< 400 MB resident",
    touchedRecords: open.reduce((sum, env) => sum + env.db.touchedRecords, 0),
  };
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = process.env.TAUBRIDGE_DATA_DIR ?? (process.env.TAUBRIDGE_SHARED ? join(process.env.TAUBRIDGE_SHARED, "tau-bench") : undefined);
  if (!root) {
    console.error("set TAUBRIDGE_SHARED (or TAUBRIDGE_DATA_DIR) to the data to benchmark");
    process.exit(2);
  }
  console.log(JSON.stringify(await benchEnvironment(root), null, 2));
}
