/**
 * Model-path benchmark (issue: model-driven runs).
 * 1. Harness overhead per turn with an instant scripted model (tool-calling agent + llm user over
 *    real HTTP on 127.0.0.1, the library domain): turns per second on one process.
 * 2. With a scripted server that answers after 100 ms: 64 concurrent episodes of 10 conversational
 *    turns each; the ratio of wall time to the ideal (model calls × latency ÷ concurrency), target ≤ 1.2.
 *    Measured twice in one process: "cold" is the first concurrent batch (code paths still being
 *    compiled by the JIT), "warm" the same batch again (steady state of a long run).
 * 3. For context, the floor: the bare `openai` SDK on the same transport and server, 64 loops of the
 *    same number of sequential calls with the same request shapes (policy + tools on agent calls),
 *    and nothing else. The gap between it and (2) is what taubridge itself costs.
 * A "call" is one chat completion (agent or user); a conversational turn is one of each.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLatencyServer } from "./support/latency-worker.ts";
import OpenAI from "openai";
import { loadDomain } from "../../src/suites/tau-bench/engine/domain.ts";
import { libraryDomain } from "../../domains/library/index.ts";
import { keepAliveFetch } from "../../src/model/http-transport.ts";
import { buildRun } from "../../src/suites/tau-bench/build.ts";
import { runBatch } from "../../src/suites/tau-bench/batch.ts";
import { createBundledRegistries } from "../../app/registries.ts";

const registries = await createBundledRegistries(); // the bundled domains and strategies, as the CLI has them

const TURNS = 10;

const startServer = (latencyMs: number) => startLatencyServer(latencyMs, TURNS);

type BenchServer = Awaited<ReturnType<typeof startServer>>;

/** Runs `tasks × trials` episodes of the library domain: tool-calling agent, llm user, both scripted. */
async function run(latencyMs: number, tasks: number, trials: number, concurrency: number) {
  const server = await startServer(latencyMs);
  try {
    return await batchOn(server, tasks, trials, concurrency);
  } finally {
    await server.close();
  }
}

async function batchOn(server: BenchServer, tasks: number, trials: number, concurrency: number) {
  process.env.TAUBRIDGE_BENCH_KEY = "bench";
  const before = await server.count();
  const built = buildRun(
    {
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
    },
    { registries },
  );
  const started = performance.now();
  const loop = performance.eventLoopUtilization();
  const outcome = await runBatch(built);
  const wallMs = performance.now() - started;
  // Time the harness's own thread was busy (the server runs on another thread).
  const busyMs = performance.eventLoopUtilization(loop).active;
  return { episodes: outcome.summaries.length, calls: (await server.count()) - before, wallMs, busyMs };
}

/**
 * The floor: `loops` concurrent loops of `callsPerLoop` sequential SDK calls shaped like an episode's
 * (agent calls carry the library policy and tool schemas and a growing history; user calls are small).
 */
async function bareSdkLoops(baseURL: string, loops: number, callsPerLoop: number) {
  const domain = loadDomain(libraryDomain, undefined);
  const client = new OpenAI({ apiKey: "bench", baseURL, maxRetries: 0, fetch: keepAliveFetch });
  const tools = domain.toolSchemas.json as unknown as OpenAI.Chat.Completions.ChatCompletionTool[];
  const loop = async () => {
    const history: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: "system", content: domain.policy }];
    for (let call = 0; call < callsPerLoop; call++) {
      if (call % 2 === 0) {
        await client.chat.completions.create({
          model: "bench-user",
          messages: [
            { role: "system", content: "You are a library member." },
            { role: "user", content: "Hello" },
          ],
        });
        history.push({ role: "user", content: `Please continue (${call}).` });
      } else {
        const answer = await client.chat.completions.create({ model: "bench-agent", messages: history, tools });
        history.push({ role: "assistant", content: answer.choices[0]!.message.content });
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: loops }, loop));
  return { calls: loops * callsPerLoop, wallMs: performance.now() - started };
}

await run(0, 4, 1, 1); // warm-up

const instant = await run(0, 8, 4, 1);
const perCallMs = instant.wallMs / instant.calls;
const busyPerCallMs = instant.busyMs / instant.calls;
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
        harnessCpuMsPerCall: Number(busyPerCallMs.toFixed(3)),
        harnessCpuMsPerTurn: Number((2 * busyPerCallMs).toFixed(3)),
        harnessOnlyTurnsPerSecondOnOneCore: Number((1000 / (2 * busyPerCallMs)).toFixed(0)),
        note: "one episode at a time; wall figures include the loopback round trip to the server (a worker thread); harnessCpu is the harness thread's busy time alone (agent, user, environment, SDK and HTTP client)",
      },
    },
    null,
    2,
  ),
);

const latency = 100;
const concurrency = 64;
const server = await startServer(latency);
try {
  const cold = await batchOn(server, 8, 8, concurrency);
  const warm = await batchOn(server, 8, 8, concurrency);
  const floor = await bareSdkLoops(server.baseURL, concurrency, cold.calls / concurrency);
  // Every call waits `latency`; the 64 episodes run at once, so the ideal is calls × latency ÷ concurrency.
  const describe = (measured: { calls: number; wallMs: number }) => {
    const ideal = (measured.calls * latency) / concurrency;
    return { modelCalls: measured.calls, wallMs: Number(measured.wallMs.toFixed(0)), idealMs: Number(ideal.toFixed(0)), ratio: Number((measured.wallMs / ideal).toFixed(3)) };
  };
  console.log(
    JSON.stringify(
      {
        latency100ms: {
          episodes: cold.episodes,
          concurrency,
          target: "≤ 1.2",
          cold: describe(cold),
          warm: describe(warm),
          bareSdkFloor: { ...describe(floor), note: "openai SDK alone, same transport/server/request shapes: the part of the ratio taubridge does not add" },
        },
      },
      null,
      2,
    ),
  );
} finally {
  await server.close();
}
