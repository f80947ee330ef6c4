/**
 * A2A benchmark (issue 23). Not a test.
 *
 * 1. **Client overhead per turn**: the A2A agent strategy's session driven turn after turn (episodes
 *    of 10 turns: the library domain's policy and tools in the first message, tool results after)
 *    against a loopback agent in its own process that answers at once. The overhead is the turn's
 *    wall time beyond the agent's own handler time (the agent measures it); the bare HTTP round trip
 *    of a later turn's message is shown as the floor. Target: p50 < 2 ms beyond the agent's time.
 * 2. **One server, 50 evaluations × 8 simulations at once**: `taubridge serve --a2a` (the real CLI,
 *    its own process) evaluating a loopback agent that takes `AGENT_DELAY_MS` per turn (longer than
 *    the heartbeat interval, so heartbeats are needed while turns are held), τ² mock with the
 *    scripted user; every evaluation streamed. Reported: the longest silence between two status
 *    updates of one evaluation against the heartbeat interval (every heartbeat on time?), the
 *    server's CPU per simulation (/proc), its peak and final resident memory, the wall time.
 *
 * `npm run bench a2a` or `npx tsx scripts/bench/a2a.ts [turns] [evaluations]`.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";
import { request } from "undici";
import { libraryDomain } from "../../domains/library/index.ts";
import type { ParticipantContext } from "../../src/core/contracts.ts";
import { createA2AAgent } from "../../src/a2a/client/register.ts";
import { loadDomain } from "../../src/suites/tau-bench/engine/domain.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const turns = Number(process.argv[2] ?? 2000);
const evaluations = Number(process.argv[3] ?? 50);
const SIMULATIONS = 8;
const HEARTBEAT_SECONDS = 1;
const AGENT_DELAY_MS = 1500;

const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const round = (value: number, digits = 3) => +value.toFixed(digits);

/** Starts a child and resolves with the URL it prints (`listening on <url>`). */
async function started(child: ResultPromise, pattern = /listening on (http:\/\/\S+)/): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match) resolve(match[1].replace(/\/$/, ""));
    });
    void child.then(
      (result) => reject(new Error(`exited early: ${String(result.stderr).slice(0, 500)}`)),
      (error: unknown) => reject(error),
    );
  });
}

function agentProcess(env: Record<string, string>) {
  return execa("node", ["--import", "tsx", join(root, "scripts", "bench", "support", "a2a-bench-agent.ts")], { env: { PORT: "0", ...env }, reject: false, cwd: root });
}

/** Stops the agent and reads its handler-time line. */
async function stopAgent(child: ResultPromise): Promise<{ requests: number; handlerP50Ms: number; handlerP99Ms: number }> {
  child.kill("SIGTERM");
  const result = await child;
  const line = String(result.stdout)
    .split("\n")
    .reverse()
    .find((text) => text.startsWith("{"));
  return JSON.parse(line ?? "{}");
}

async function clientOverhead() {
  const agent = agentProcess({ TOOL_TURNS: "1000000", TOOL: "search_books" });
  const url = await started(agent);
  const a2a = await createA2AAgent({ endpoint: `${url}/`, retries: "0" });
  const domain = loadDomain(libraryDomain, undefined);
  const context = (episode: number): ParticipantContext => ({
    role: "agent",
    task: null,
    domain,
    history: [],
    seed: null,
    solo: false,
    episode: { taskId: String(episode), taskIndex: episode, trial: 0 },
    signal: new AbortController().signal,
    maxSteps: 30,
    transcript: { addMessage: () => undefined },
    usage: { add: () => undefined, addUnpriced: () => undefined },
  });
  const signal = new AbortController().signal;
  const run = async (count: number) => {
    const times: number[] = [];
    for (let episode = 0; times.length < count; episode++) {
      const session = await a2a.start(context(episode));
      for (let turn = 0; turn < 10 && times.length < count; turn++) {
        const incoming =
          turn === 0 ? { type: "text" as const, content: "Hi, I would like to renew the loan of my book, please." } : { type: "tool_results" as const, results: [{ id: `c${turn}`, name: "search_books", content: '[{"book_id": "B1", "title": "Dune"}]', error: false }] };
        const began = performance.now();
        await session.next(incoming, signal);
        times.push(performance.now() - began);
      }
    }
    return times;
  };
  await run(300); // warm-up (JIT, connections)
  const cpu = process.cpuUsage();
  const times = (await run(turns)).sort((a, b) => a - b);
  const cpuMs = (process.cpuUsage(cpu).user + process.cpuUsage(cpu).system) / 1000;
  // The floor: the bare HTTP round trip of a later turn's message (same agent, same pool kind).
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", role: "user", messageId: "m", contextId: "floor", parts: [{ kind: "text", text: "Tool 'search_books' result: []" }] } } });
  const floor: number[] = [];
  for (let index = 0; index < turns; index++) {
    const began = performance.now();
    const answer = await request(`${url}/`, { method: "POST", body, headers: { "content-type": "application/json", "a2a-version": "0.3" } });
    await answer.body.text();
    floor.push(performance.now() - began);
  }
  floor.sort((a, b) => a - b);
  await a2a.close();
  const handler = await stopAgent(agent);
  return {
    turns,
    turnP50Ms: round(percentile(times, 0.5)),
    turnP99Ms: round(percentile(times, 0.99)),
    agentHandlerP50Ms: round(handler.handlerP50Ms),
    agentHandlerP99Ms: round(handler.handlerP99Ms),
    overheadP50Ms: round(percentile(times, 0.5) - handler.handlerP50Ms),
    overheadP99Ms: round(percentile(times, 0.99) - handler.handlerP99Ms),
    bareHttpRoundTripP50Ms: round(percentile(floor, 0.5)),
    bareHttpRoundTripP99Ms: round(percentile(floor, 0.99)),
    clientCpuPerTurnMs: round(cpuMs / turns),
    targetP50Ms: 2,
  };
}

/** utime + stime of a process, in ms (Linux /proc). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function memoryOf(pid: number): { rssMb: number; peakRssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: round(kb("VmRSS") / 1024, 1), peakRssMb: round(kb("VmHWM") / 1024, 1) };
}

/** Streams one evaluation and returns the times (ms) of its events. */
async function streamEvaluation(server: string, agentUrl: string): Promise<{ times: number[]; final: string }> {
  const message = {
    kind: "message",
    role: "user",
    messageId: crypto.randomUUID(),
    parts: [
      {
        kind: "text",
        text: JSON.stringify({ participants: { agent: `${agentUrl}/` }, config: { domain: "mock", task_ids: ["create_task_1", "update_task_1", "update_task_with_user_tools", "impossible_task_1"], num_trials: 2, user: "scripted", max_concurrency: SIMULATIONS } }),
      },
    ],
  };
  const response = await request(`${server}/`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", "a2a-version": "0.3" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/stream", params: { message } }),
    bodyTimeout: 0,
    headersTimeout: 0,
  });
  const times: number[] = [];
  let final = "";
  let buffer = "";
  response.body.setEncoding("utf8");
  for await (const chunk of response.body as AsyncIterable<string>) {
    buffer += chunk;
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!event.startsWith("data:")) continue;
      times.push(performance.now());
      const result = (JSON.parse(event.slice(5)) as { result?: { status?: { state?: string } } }).result;
      if (result?.status?.state) final = result.status.state;
    }
  }
  return { times, final };
}

async function serverUnderLoad() {
  const data = process.env.TAUBRIDGE_SHARED ? join(process.env.TAUBRIDGE_SHARED, "tau2-bench") : undefined;
  if (!data) return { skipped: "TAUBRIDGE_SHARED is not set: the server benchmark needs τ² mock data" };
  const agent = agentProcess({ TOOL_TURNS: "2", TOOL: "get_users", DELAY_MS: String(AGENT_DELAY_MS) });
  const agentUrl = await started(agent);
  const store = mkdtempSync(join(tmpdir(), "taubridge-bench-a2a-"));
  const server = execa(
    "node",
    ["--import", "tsx", join(root, "app", "cli.ts"), "serve", "--a2a", "--port", "0", "--store", store, "--data-dir", data, "--max-evaluations", String(evaluations), "--max-concurrency", String(SIMULATIONS), "--heartbeat", String(HEARTBEAT_SECONDS)],
    { reject: false, cwd: root },
  );
  const serverUrl = await started(server);
  const pid = server.pid as number;
  const cpuBefore = cpuMsOf(pid);
  const memoryBefore = memoryOf(pid);
  const began = performance.now();
  const streams = await Promise.all(Array.from({ length: evaluations }, () => streamEvaluation(serverUrl, agentUrl)));
  const wallSeconds = (performance.now() - began) / 1000;
  const cpuMs = cpuMsOf(pid) - cpuBefore;
  const memory = memoryOf(pid);
  server.kill("SIGTERM");
  await server;
  await stopAgent(agent);
  const gaps = streams.flatMap(({ times }) => times.slice(1).map((time, index) => time - times[index])).sort((a, b) => a - b);
  const simulations = evaluations * SIMULATIONS;
  return {
    evaluations,
    simulationsPerEvaluation: SIMULATIONS,
    agentDelayPerTurnMs: AGENT_DELAY_MS,
    heartbeatIntervalS: HEARTBEAT_SECONDS,
    completed: streams.filter((stream) => stream.final === "completed").length,
    statusEvents: streams.reduce((sum, stream) => sum + stream.times.length, 0),
    longestSilenceMs: round(gaps.at(-1) ?? 0, 1),
    silenceP99Ms: round(percentile(gaps, 0.99), 1),
    gapsOverIntervalPlus250Ms: gaps.filter((gap) => gap > HEARTBEAT_SECONDS * 1000 + 250).length,
    wallSeconds: round(wallSeconds, 1),
    serverCpuPerSimulationMs: round(cpuMs / simulations, 1),
    serverCpuTotalS: round(cpuMs / 1000, 1),
    serverRssBeforeMb: memoryBefore.rssMb,
    serverRssAfterMb: memory.rssMb,
    serverPeakRssMb: memory.peakRssMb,
  };
}

const results = { client: await clientOverhead(), server: await serverUnderLoad() };
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
