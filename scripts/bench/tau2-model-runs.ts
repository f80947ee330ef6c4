/**
 * τ² model-path benchmark (issue: τ²-bench with models), on τ² telecom with `llm_agent` and
 * `user_simulator` over real HTTP on 127.0.0.1 (a scripted server in a worker thread):
 * 1. harness CPU per model call with an instant model (the event loop's busy time ÷ calls);
 * 2. with every answer delayed 100 ms, 64 concurrent telecom simulations of 10 conversational turns:
 *    wall time ÷ ideal (calls × 100 ms ÷ 64), target ≤ 1.2.
 */
import { mkdtempSync } from "node:fs";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLatencyServer } from "./support/latency-worker.ts";
import { tau2Domains } from "../../domains/tau2.ts";
import { tau2Participants } from "../../src/suites/tau2/participants/registry.ts";
import { tau2ModelSettings } from "../../src/suites/tau2/models.ts";
import { createRunModels } from "../../src/run/model-clients.ts";
import { TAU2_RUN_DEFAULTS, buildTau2Run } from "../../src/suites/tau2/build.ts";
import { runTau2Batch } from "../../src/suites/tau2/batch.ts";

const TURNS = 10;
const shared = process.env.TAUBRIDGE_SHARED;
const root = shared ? join(shared, "tau2-bench") : "";
if (!shared || !existsSync(root)) {
  console.log(JSON.stringify({ skipped: "TAUBRIDGE_SHARED with tau2-bench/ is not set" }));
  process.exit(0);
}

const startServer = (latencyMs: number) => startLatencyServer(latencyMs, TURNS);

async function batch(latencyMs: number, simulations: number, concurrency: number) {
  const server = await startServer(latencyMs);
  try {
    const args = { temperature: 0.0, api_base: server.baseURL };
    const layer = createRunModels(
      tau2ModelSettings({ agentLlm: "bench-agent", userLlm: "bench-user", agentLlmArgs: args, userLlmArgs: args, maxConcurrency: concurrency, values: { modelTimeout: 120, modelMaxAttempts: 6 } }),
    );
    const models = { agent: layer.agent, user: layer.user, unreachable: layer.unreachable };
    const options = {
      ...TAU2_RUN_DEFAULTS,
      domain: "telecom",
      agent: "llm_agent",
      user: "user_simulator",
      agentLlm: "bench-agent",
      userLlm: "bench-user",
      agentLlmArgs: args,
      userLlmArgs: args,
      taskSplitName: "base",
      numTasks: simulations,
      maxConcurrency: concurrency,
      timeout: null,
      dataDir: root,
      saveTo: join(mkdtempSync(join(tmpdir(), "tau2-bench-")), "results.json"),
    };
    const run = await buildTau2Run(options, { domains: tau2Domains(), ...tau2Participants() }, models);
    const started = performance.now();
    const loop = performance.eventLoopUtilization();
    const result = await runTau2Batch(run);
    const wallMs = performance.now() - started;
    const busyMs = performance.eventLoopUtilization(loop).active;
    return { simulations: result.simulations.length, calls: await server.count(), wallMs, busyMs, terminations: result.metrics.terminations };
  } finally {
    await server.close();
  }
}

const instant = await batch(0, 40, 1);
console.log(JSON.stringify({ instantModel: { ...instant, harnessCpuPerCallMs: Number((instant.busyMs / instant.calls).toFixed(3)) } }));
const slow = await batch(100, 64, 64);
const idealMs = (slow.calls * 100) / 64;
console.log(JSON.stringify({ latency100ms64Concurrent: { ...slow, idealMs: Math.round(idealMs), ratio: Number((slow.wallMs / idealMs).toFixed(3)) } }));
