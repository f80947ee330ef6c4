/**
 * τ² environment benchmark: per task, one offline simulation through the orchestrator (oracle
 * agent performing the ground truth, scripted user doing the user-side actions) plus τ²'s
 * evaluation (`evaluate_simulation`: predicted replay, gold replay, hashes, assertions), on the
 * telecom and retail base sets — the work the original's ~110 ms (telecom) and ~640 ms (retail)
 * per task measure. Also: loading and validating all 2,285 telecom tasks, and resident memory
 * with 256 telecom episodes open at once.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadedTau2Domains } from "../../domains/tau2.ts";

const tau2DomainRegistry = await loadedTau2Domains();
import { tau2OracleAgent } from "../../src/suites/tau2/participants/oracle.ts";
import { loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import { readTau2FirstAgentMessage } from "../../src/suites/tau2/engine/upstream-text.ts";
import { evaluateTau2Simulation } from "../../src/suites/tau2/evaluator.ts";
import type { Tau2NlJudge } from "../../src/suites/tau2/judge.ts";
import { runTau2Episode } from "../../src/suites/tau2/loop.ts";
import { loadTau2TaskSet } from "../../src/suites/tau2/task-sets.ts";
import { readTau2Tasks } from "../../src/suites/tau2/tasks.ts";
import { tau2ScriptedUser } from "../../src/suites/tau2/participants/scripted-user.ts";

const REFERENCE_MS: Record<string, number> = { telecom: 110, retail: 640 };
const shared = process.env.TAUBRIDGE_SHARED;
const root = shared ? join(shared, "tau2-bench") : "";
if (!shared || !existsSync(root)) {
  console.log(JSON.stringify({ skipped: "TAUBRIDGE_SHARED with tau2-bench/ is not set" }));
  process.exit(0);
}

/** The fixtures' stand-in judge (every assertion met), so retail's NL-gated tasks score as in the reference measurement. */
const metJudge: Tau2NlJudge = { judge: async (_messages, assertions) => assertions.map((nl_assertion) => ({ nl_assertion, met: true, justification: "benchmark stand-in" })) };
const firstAgentMessage = readTau2FirstAgentMessage(root);

async function perTask(name: string) {
  if (!tau2DomainRegistry.has(name)) return { domain: name, skipped: "domain not registered" };
  const domain = loadTau2Domain(tau2DomainRegistry.get(name), root);
  const { tasks } = loadTau2TaskSet(root, { taskSetName: name, split: "base" });
  const once = async (index: number) => {
    const task = tasks[index];
    const outcome = await runTau2Episode({ domain, task, trial: 0, seed: 626729, agent: tau2OracleAgent, user: tau2ScriptedUser, firstAgentMessage });
    return (await evaluateTau2Simulation({ domain, task, termination: outcome.termination, messages: outcome.messages, judge: metJudge })).reward.value;
  };
  for (let index = 0; index < tasks.length; index++) await once(index); // warm-up
  const times: number[] = [];
  let solved = 0;
  for (let pass = 0; pass < 3; pass++) {
    for (let index = 0; index < tasks.length; index++) {
      const started = performance.now();
      if ((await once(index)) === 1) solved++;
      times.push(performance.now() - started);
    }
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((sum, value) => sum + value, 0) / times.length;
  return {
    domain: name,
    tasks: tasks.length,
    solvedPerPass: solved / 3,
    meanMs: Number(mean.toFixed(3)),
    p50Ms: Number(times[Math.floor(times.length / 2)].toFixed(3)),
    p95Ms: Number(times[Math.floor(times.length * 0.95)].toFixed(3)),
    referenceMs: REFERENCE_MS[name],
    speedup: Number((REFERENCE_MS[name] / mean).toFixed(1)),
  };
}

function loadTelecomTasks() {
  const started = performance.now();
  const tasks = readTau2Tasks(join(root, "telecom", "tasks.json"));
  return { tasks: tasks.length, ms: Number((performance.now() - started).toFixed(1)) };
}

async function memoryWith256Open() {
  const domain = loadTau2Domain(tau2DomainRegistry.get("telecom"), root);
  const { tasks } = loadTau2TaskSet(root, { taskSetName: "telecom", split: "base" });
  globalThis.gc?.();
  const before = process.memoryUsage().heapUsed;
  const environments = [];
  for (let index = 0; index < 256; index++) {
    const environment = domain.createEnvironment();
    const task = tasks[index % tasks.length];
    environment.setState(task.initial_state?.initialization_data, task.initial_state?.initialization_actions, []);
    environments.push(environment);
  }
  globalThis.gc?.();
  const after = process.memoryUsage();
  return {
    episodes: environments.length,
    rssMb: Number((after.rss / 1e6).toFixed(1)),
    heapAddedMb: Number(((after.heapUsed - before) / 1e6).toFixed(1)),
    perEpisodeKb: Number(((after.heapUsed - before) / 256 / 1e3).toFixed(1)),
  };
}

console.log(JSON.stringify({ loadTelecomTasks: loadTelecomTasks() }));
for (const name of ["telecom", "retail"]) console.log(JSON.stringify(await perTask(name)));
console.log(JSON.stringify({ memory: await memoryWith256Open() }));
