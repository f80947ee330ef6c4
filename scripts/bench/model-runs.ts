/**
 * Model-path benchmark (issue: model-driven runs).
 * 1. Harness overhead per turn with an instant scripted model (tool-calling agent + llm user over
 *    real HTTP on 127.0.0.1, the library domain): turns per second on one process.
 * 2. With a scripted server that answers after 100 ms: 64 concurrent episodes of 10 conversational
 *    turns each; the ratio of wall time to the ideal (model calls × latency ÷ concurrency), target ≤ 1.2.
 * A "call" is one chat completion (agent or user); a conversational turn is one of each.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { registerModelStrategies } from "../../src/agents/register.ts";
import { buildRun, runBatch } from "../../src/runner/batch.ts";

const TURNS = 10;

async function startServer(latencyMs: number): Promise<{ baseURL: string; count(): Promise<number>; close(): Promise<void> }> {
  // Workers do not inherit tsx's loader on Node 20: a tiny ESM bootstrap registers it first.
  const entry = new URL("./support/latency-server.ts", import.meta.url).href;
  const tsxApi = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import { register } from ${JSON.stringify(tsxApi)}; register(); await import(${JSON.stringify(entry)});`;
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), { workerData: { latencyMs, turns: TURNS } });
  const next = () => new Promise<Record<string, unknown>>((resolve) => worker.once("message", resolve));
  const { baseURL } = (await next()) as { baseURL: string };
  return {
    baseURL,
    async count() {
      worker.postMessage("count");
      return ((await next()) as { count: number }).count;
    },
    async close() {
      worker.postMessage("close");
      await new Promise((resolve) => worker.once("exit", resolve));
    },
  };
}

/** Runs `tasks × trials` episodes of the library domain: tool-calling agent, llm user, both scripted. */
async function run(latencyMs: number, tasks: number, trials: number, concurrency: number) {
  const server = await startServer(latencyMs);
  process.env.TAUBRIDGE_BENCH_KEY = "bench";
  try {
    const built = buildRun({
      env: "library",
      agentStrategy: "tool-calling",
      userStrategy: "llm",
      model: "bench-agent",
      modelProvider: "openai-compatible",
      baseUrl: server.baseURL,
      apiKeyEnv: "TAUBRIDGE_BENCH_KEY",
      userModel: "bench-user",
      userModelProvider: "openai-compatible",
      userBaseUrl: server.baseURL,
      userApiKeyEnv: "TAUBRIDGE_BENCH_KEY",
      endIndex: tasks,
      numTrials: trials,
      maxConcurrency: concurrency,
      maxSteps: 100,
      logDir: mkdtempSync(join(tmpdir(), "taubridge-bench-")),
      resume: false,
      quiet: true,
    });
    const started = performance.now();
    const outcome = await runBatch(built);
    const wallMs = performance.now() - started;
    return { episodes: outcome.summaries.length, calls: await server.count(), wallMs };
  } finally {
    await server.close();
  }
}

registerModelStrategies();
await run(0, 4, 1, 1); // warm-up

const instant = await run(0, 8, 2, 1);
const perCallMs = instant.wallMs / instant.calls;
console.log(
  JSON.stringify(
    {
      instantModel: {
        episodes: instant.episodes,
        modelCalls: instant.calls,
        wallMs: Number(instant.wallMs.toFixed(1)),
        msPerCall: Number(perCallMs.toFixed(3)),
        callsPerSecond: Number((1000 / perCallMs).toFixed(0)),
        conversationalTurnsPerSecond: Number((1000 / (2 * perCallMs)).toFixed(0)),
        note: "one episode at a time; includes the loopback HTTP round trip to a server in a worker thread",
      },
    },
    null,
    2,
  ),
);

const latency = 100;
const concurrency = 64;
const slow = await run(latency, 8, 8, concurrency);
// Every call waits `latency`; the 64 episodes run at once, so the ideal is calls × latency ÷ concurrency.
const ideal = (slow.calls * latency) / concurrency;
console.log(
  JSON.stringify(
    {
      latency100ms: {
        episodes: slow.episodes,
        concurrency,
        modelCalls: slow.calls,
        wallMs: Number(slow.wallMs.toFixed(0)),
        idealMs: Number(ideal.toFixed(0)),
        ratio: Number((slow.wallMs / ideal).toFixed(3)),
        target: "≤ 1.2",
      },
    },
    null,
    2,
  ),
);
