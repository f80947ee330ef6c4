/**
 * Environment benchmark (issue: foundation): time per task of reset + ground-truth replay + reward
 * on the τ-bench retail and airline test sets, and resident memory with 256 retail episodes open.
 * Reference: the original Python environment takes about 300 ms (retail) and 800 ms (airline) per
 * task on this machine class, measured the same way.
 */
import { join } from "node:path";
import { Environment } from "../../src/engine/environment.ts";
import { loadDomain } from "../../src/engine/domain.ts";
import { ScriptedUser } from "../../src/users/scripted-user.ts";
import { airlineDomain } from "../../domains/airline/index.ts";
import { retailDomain } from "../../domains/retail/index.ts";
import type { DomainDefinition } from "../../src/engine/domain.ts";

const REFERENCE_MS: Record<string, number> = { retail: 300, airline: 800 };

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

async function episodeOnce(env: Environment): Promise<number> {
  await env.reset();
  for (const action of env.task.actions) env.stepTool(action);
  // The agent's closing words, so tasks graded on outputs can score too (no user model involved).
  env.actions.push({ name: "respond", kwargs: new Map([["content", env.task.outputs.join("; ")]]) });
  return env.calculateReward().reward;
}

export async function benchEnvironment(dataRoot: string): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  for (const definition of [retailDomain, airlineDomain] as DomainDefinition[]) {
    const domain = loadDomain(definition, dataRoot);
    const tasks = domain.tasks("test");
    // Warm-up pass (JIT and the base database's hash index), then the measured passes.
    for (let index = 0; index < tasks.length; index++) await episodeOnce(new Environment(domain, tasks[index], index, new ScriptedUser()));
    const times: number[] = [];
    let rewardSum = 0;
    for (let pass = 0; pass < 3; pass++) {
      for (let index = 0; index < tasks.length; index++) {
        domain.clearGroundTruthCache(); // the original replays the ground truth for every reward
        const started = performance.now();
        rewardSum += await episodeOnce(new Environment(domain, tasks[index], index, new ScriptedUser()));
        times.push(performance.now() - started);
      }
    }
    times.sort((a, b) => a - b);
    const mean = times.reduce((sum, time) => sum + time, 0) / times.length;
    results[definition.name] = {
      tasks: tasks.length,
      meanMsPerTask: Number(mean.toFixed(3)),
      p50Ms: Number(percentile(times, 0.5).toFixed(3)),
      p99Ms: Number(percentile(times, 0.99).toFixed(3)),
      referenceMsPerTask: REFERENCE_MS[definition.name],
      speedup: Number((REFERENCE_MS[definition.name] / mean).toFixed(1)),
      target: "≥ 50× faster",
      allRewardsOne: rewardSum === tasks.length * 3,
    };
  }

  // Memory: 256 retail episodes open at once, each holding the end state of a ground-truth replay.
  const retail = loadDomain(retailDomain, dataRoot);
  const tasks = retail.tasks("test");
  global.gc?.();
  const before = process.memoryUsage().rss;
  const open: Environment[] = [];
  for (let index = 0; index < 256; index++) {
    const env = new Environment(retail, tasks[index % tasks.length], index % tasks.length, new ScriptedUser());
    await env.reset();
    for (const action of env.task.actions) env.stepTool(action);
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
