/**
 * Function-agent benchmark (issue "hardening", class 2): what running `respond()` in a worker
 * thread (`--agent-isolation worker`, the default) costs per turn against calling it in the
 * harness's own thread (`--agent-isolation none`). Not a test.
 *
 * A trivial `respond()` (it answers `{content: "ok"}`) is driven through the function agent's
 * session exactly as an episode drives it: the bundled library domain's policy as the system
 * message and its tool schemas, one user message per turn, episodes of 30 turns (τ-bench's step
 * budget, so the conversation grows to 61 messages), N turns in all. Both modes pay the same
 * copies of the conversation; the worker adds the message round trip and the structured clone
 * across threads. Also: how long starting a worker takes (once per concurrent episode, and after a
 * worker had to be replaced), for a `.mjs` and a `.ts` module, from the sources (through tsx) and,
 * when `dist/` exists, from the build.
 *
 * `npm run bench function-agent` or `npx tsx scripts/bench/function-agent.ts [turns]`.
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { DomainView, ParticipantContext } from "../../src/core/contracts.ts";
import { libraryDomain } from "../../domains/library/index.ts";
import { loadDomain } from "../../src/suites/tau-bench/engine/domain.ts";
import { type FunctionAgent, loadFunctionAgent } from "../../src/participants/function-agent.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const turns = Number(process.argv[2] ?? 3000);
const TURNS_PER_EPISODE = 30;

const directory = mkdtempSync(join(tmpdir(), "taubridge-bench-fn-"));
const moduleJs = join(directory, "agent.mjs");
writeFileSync(moduleJs, 'export function respond() {\n  return { content: "ok" };\n}\n');
const moduleTs = join(directory, "agent.mts");
writeFileSync(moduleTs, 'export function respond(_request: unknown): { content: string } {\n  return { content: "ok" };\n}\n');

const domain: DomainView = loadDomain(libraryDomain, undefined);

function context(taskIndex: number): ParticipantContext {
  return {
    role: "agent",
    task: null,
    domain,
    history: [],
    seed: null,
    solo: false,
    episode: { taskId: String(taskIndex), taskIndex, trial: 0 },
    signal: new AbortController().signal,
    maxSteps: TURNS_PER_EPISODE,
    transcript: { addMessage: () => undefined },
    usage: { add: () => undefined, addUnpriced: () => undefined },
  };
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

/** Per-turn latencies (ms) of `count` turns, in episodes of {@link TURNS_PER_EPISODE}. */
async function turnTimes(agent: FunctionAgent, count: number): Promise<number[]> {
  const times: number[] = [];
  const signal = new AbortController().signal;
  for (let episode = 0; times.length < count; episode++) {
    const session = agent.start(context(episode));
    for (let turn = 0; turn < TURNS_PER_EPISODE && times.length < count; turn++) {
      const started = performance.now();
      await session.next({ type: "text", content: `Hello, this is message ${turn} of the user; please renew my loans.` }, signal);
      times.push(performance.now() - started);
    }
    await session.close?.();
  }
  return times;
}

function summary(times: number[]) {
  const sorted = [...times].sort((left, right) => left - right);
  const mean = times.reduce((sum, time) => sum + time, 0) / times.length;
  return { turns: times.length, meanMs: +mean.toFixed(4), medianMs: +percentile(sorted, 0.5).toFixed(4), p95Ms: +percentile(sorted, 0.95).toFixed(4), p99Ms: +percentile(sorted, 0.99).toFixed(4) };
}

async function startTimes(load: typeof loadFunctionAgent, modulePath: string, repeats: number) {
  const times: number[] = [];
  for (let index = 0; index < repeats; index++) {
    const started = performance.now();
    const agent = await load(modulePath, "respond", { isolation: "worker" });
    times.push(performance.now() - started);
    await agent.close();
  }
  const sorted = [...times].sort((left, right) => left - right);
  return { starts: repeats, medianMs: +percentile(sorted, 0.5).toFixed(1), minMs: +sorted[0].toFixed(1), maxMs: +sorted.at(-1)!.toFixed(1) };
}

const inThread = await loadFunctionAgent(moduleJs, "respond", { isolation: "none" });
const inWorker = await loadFunctionAgent(moduleJs, "respond", { isolation: "worker" });
await turnTimes(inThread, 300); // warm-up (JIT)
await turnTimes(inWorker, 300);
const results = {
  turns,
  turnsPerEpisode: TURNS_PER_EPISODE,
  policyChars: domain.policy.length,
  tools: domain.toolSchemas.json.length,
  inThread: summary(await turnTimes(inThread, turns)),
  worker: summary(await turnTimes(inWorker, turns)),
};
await inWorker.close();
const extra = { perTurnExtraMedianMs: +(results.worker.medianMs - results.inThread.medianMs).toFixed(4), perTurnExtraMeanMs: +(results.worker.meanMs - results.inThread.meanMs).toFixed(4) };
const starts: Record<string, unknown> = { workerStartMjs: await startTimes(loadFunctionAgent, moduleJs, 10), workerStartTs: await startTimes(loadFunctionAgent, moduleTs, 5) };
// The published build: its worker file is JavaScript, so a .mjs module needs no tsx in the worker.
const built = join(root, "dist", "src", "participants", "function-agent.js");
if (existsSync(built)) {
  const { loadFunctionAgent: loadBuilt } = (await import(pathToFileURL(built).href)) as { loadFunctionAgent: typeof loadFunctionAgent };
  starts.builtWorkerStartMjs = await startTimes(loadBuilt, moduleJs, 10);
  starts.builtWorkerStartTs = await startTimes(loadBuilt, moduleTs, 5);
} else starts.built = "dist/ missing (npm run build): worker start of the build not measured";
process.stdout.write(`${JSON.stringify({ ...results, ...extra, ...starts }, null, 2)}\n`);
