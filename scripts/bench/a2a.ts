/**
 * A2A benchmark (issue 23). Not a test.
 *
 * 1. **Client overhead per turn**: the A2A agent strategy's session driven turn after turn (episodes
 *    of 10 turns: the library domain's policy and tools in the first message, tool results after)
 *    against a loopback agent in its own process that answers at once. The overhead is each turn's
 *    wall time less the agent's own handler time in that turn (the agent sends it back in a header),
 *    as p50 and p99; the bare HTTP round trip of a later turn's message, measured right after the
 *    turn, is shown as the floor, and the client's CPU per turn with and without the network.
 *    Target: p50 < 2 ms beyond the agent's time.
 * 2. **One server, 50 evaluations × 8 simulations at once**: `taubridge serve --a2a` (the real CLI,
 *    its own process) evaluating a loopback agent that takes `AGENT_DELAY_MS` per turn (longer than
 *    the heartbeat interval, so heartbeats are needed while turns are held), τ² mock with the
 *    scripted user; every evaluation streamed. Reported: the final states, the longest silence
 *    between two status updates of one evaluation against the heartbeat interval (every heartbeat on
 *    time?) both as the streaming client received them and as the server stamped them
 *    (`status.timestamp`), the server's CPU per simulation (/proc), its peak and final resident
 *    memory, the wall time. Report the figures with the machine's load (`uptime`).
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
import { createA2AAgent } from "../../src/a2a/client/create-agent.ts";
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
  // The agent's own time of each exchange (its `x-handler-ms` header), summed per turn.
  const http = a2a.connection["http" as never] as unknown as { exchange: (...args: unknown[]) => Promise<{ headers: Record<string, unknown> }> };
  const realExchange = http.exchange.bind(http);
  let agentMs = 0;
  http.exchange = async (...args: unknown[]) => {
    const answer = await realExchange(...args);
    agentMs += Number(answer.headers["x-handler-ms"] ?? 0);
    return answer;
  };
  // The floor, measured turn by turn beside the A2A turns (same load): the bare HTTP round trip of
  // a later turn's message to the same agent.
  const bare = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "message/send",
    params: { message: { kind: "message", role: "user", messageId: "m", contextId: "floor", parts: [{ kind: "text", text: "Tool 'search_books' result: []" }] } },
  });
  const floorOnce = async () => {
    const began = performance.now();
    const answer = await request(`${url}/`, { method: "POST", body: bare, headers: { "content-type": "application/json", "a2a-version": "0.3" } });
    await answer.body.text();
    return performance.now() - began;
  };
  const run = async (count: number, withFloor: boolean) => {
    const first: number[] = [];
    const later: number[] = [];
    const paired: number[] = [];
    const floor: number[] = [];
    const beyondAgent: number[] = [];
    for (let episode = 0; first.length + later.length < count; episode++) {
      const session = await a2a.start(context(episode));
      for (let turn = 0; turn < 10 && first.length + later.length < count; turn++) {
        const incoming =
          turn === 0
            ? { type: "text" as const, content: "Hi, I would like to renew the loan of my book, please." }
            : { type: "tool_results" as const, results: [{ id: `c${turn}`, name: "search_books", content: '[{"book_id": "B1", "title": "Dune"}]', error: false }] };
        agentMs = 0;
        const began = performance.now();
        await session.next(incoming, signal);
        const took = performance.now() - began;
        (turn === 0 ? first : later).push(took);
        beyondAgent.push(took - agentMs);
        if (withFloor && turn > 0) {
          const bareMs = await floorOnce();
          floor.push(bareMs);
          paired.push(took - bareMs);
        }
      }
    }
    return { first, later, paired, floor, beyondAgent };
  };
  await run(300, true); // warm-up (JIT, connections)
  const cpu = process.cpuUsage();
  await run(turns, false);
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  const measured = await run(turns, true);
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const times = sorted([...measured.first, ...measured.later]);
  const later = sorted(measured.later);
  const first = sorted(measured.first);
  const paired = sorted(measured.paired);
  const floor = sorted(measured.floor);
  const beyondAgent = sorted(measured.beyondAgent);
  // The client's own work without the network: the same turns against an in-memory answer.
  http.exchange = async (_url: unknown, init: unknown) => {
    const { body } = init as { body: string };
    const id = (JSON.parse(body) as { id: number }).id;
    const text = JSON.stringify({
      jsonrpc: "2.0",
      id,
      result: { kind: "message", role: "agent", messageId: "r", contextId: "c", parts: [{ kind: "text", text: '{"name": "search_books", "arguments": {}}' }] },
    });
    return { status: 200, headers: {}, text, requestBytes: body.length, responseBytes: text.length, ttfbMs: 0, latencyMs: 0 };
  };
  await run(500, false);
  const jsCpu = process.cpuUsage();
  await run(turns, false);
  const jsUsed = process.cpuUsage(jsCpu);
  await a2a.close();
  const handler = await stopAgent(agent);
  return {
    turns,
    turnP50Ms: round(percentile(times, 0.5)),
    turnP99Ms: round(percentile(times, 0.99)),
    firstTurnP50Ms: round(percentile(first, 0.5)),
    laterTurnP50Ms: round(percentile(later, 0.5)),
    agentHandlerP50Ms: round(handler.handlerP50Ms),
    agentHandlerP99Ms: round(handler.handlerP99Ms),
    // The target: each turn's wall time less the agent's own time in that turn (its header), p50 and p99.
    overheadBeyondAgentP50Ms: round(percentile(beyondAgent, 0.5)),
    overheadBeyondAgentP99Ms: round(percentile(beyondAgent, 0.99)),
    bareHttpRoundTripP50Ms: round(percentile(floor, 0.5)),
    bareHttpRoundTripP99Ms: round(percentile(floor, 0.99)),
    laterTurnBeyondBareHttpP50Ms: round(percentile(paired, 0.5)),
    laterTurnBeyondBareHttpP99Ms: round(percentile(paired, 0.99)),
    clientCpuPerTurnMs: round(cpuMs / turns),
    clientCpuPerTurnWithoutNetworkMs: round((jsUsed.user + jsUsed.system) / 1000 / turns),
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

/**
 * Streams one evaluation and returns when its events arrived (ms, this process's clock) and when
 * the server stamped them (`status.timestamp`, ms since the epoch): the first shows what a client
 * sees, the second whether the server itself kept time (this process may be the one that is late).
 */
async function streamEvaluation(server: string, agentUrl: string): Promise<{ times: number[]; stamps: number[]; labels: string[]; final: string; finalText: string }> {
  const message = {
    kind: "message",
    role: "user",
    messageId: crypto.randomUUID(),
    parts: [
      {
        kind: "text",
        text: JSON.stringify({
          participants: { agent: `${agentUrl}/` },
          config: { domain: "mock", task_ids: ["create_task_1", "update_task_1", "update_task_with_user_tools", "impossible_task_1"], num_trials: 2, user: "scripted", max_concurrency: SIMULATIONS },
        }),
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
  const stamps: number[] = [];
  const labels: string[] = [];
  let final = "";
  let finalText = "";
  let buffer = "";
  response.body.setEncoding("utf8");
  for await (const chunk of response.body as AsyncIterable<string>) {
    buffer += chunk;
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!event.startsWith("data:")) continue;
      times.push(performance.now());
      type Status = { state?: string; timestamp?: string; message?: { parts?: Array<{ text?: string }> } };
      const result = (JSON.parse(event.slice(5)) as { result?: { status?: Status } }).result;
      const status = result?.status;
      if (status?.timestamp) {
        stamps.push(Date.parse(status.timestamp));
        labels.push(
          `${status.state}: ${(status.message?.parts ?? [])
            .map((part) => part.text ?? "")
            .join("")
            .slice(0, 80)}`,
        );
      }
      if (status?.state) {
        final = status.state;
        finalText = (status.message?.parts ?? []).map((part) => part.text ?? "").join("");
      }
    }
  }
  return { times, stamps, labels, final, finalText };
}

async function serverUnderLoad() {
  const data = process.env.TAUBRIDGE_SHARED ? join(process.env.TAUBRIDGE_SHARED, "tau2-bench") : undefined;
  if (!data) return { skipped: "TAUBRIDGE_SHARED is not set: the server benchmark needs τ² mock data" };
  const agent = agentProcess({ TOOL_TURNS: "2", TOOL: "get_users", DELAY_MS: String(AGENT_DELAY_MS) });
  const agentUrl = await started(agent);
  const store = mkdtempSync(join(tmpdir(), "taubridge-bench-a2a-"));
  const server = execa(
    "node",
    [
      "--import",
      "tsx",
      join(root, "app", "cli.ts"),
      "serve",
      "--a2a",
      "--port",
      "0",
      "--store",
      store,
      "--data-dir",
      data,
      "--max-evaluations",
      String(evaluations),
      "--max-concurrency",
      String(SIMULATIONS),
      "--heartbeat",
      String(HEARTBEAT_SECONDS),
    ],
    { reject: false, cwd: root },
  );
  const serverUrl = await started(server);
  // A warm-up evaluation first: the server loads (and tsx compiles) the τ² suite on first use.
  const warmUp = await streamEvaluation(serverUrl, agentUrl);
  if (warmUp.final !== "completed") throw new Error(`the warm-up evaluation ended ${warmUp.final}: ${warmUp.finalText}`);
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
  const gapsOf = (series: number[][]) => series.flatMap((values) => values.slice(1).map((value, index) => value - values[index])).sort((a, b) => a - b);
  const gaps = gapsOf(streams.map((stream) => stream.times));
  const serverGaps = gapsOf(streams.map((stream) => stream.stamps));
  // Where the server's longest silence was: the status updates on either side of it.
  let longest = { gap: -1, between: [] as string[] };
  for (const { stamps, labels } of streams) {
    for (let index = 1; index < stamps.length; index++) {
      if (stamps[index] - stamps[index - 1] > longest.gap) longest = { gap: stamps[index] - stamps[index - 1], between: [labels[index - 1], labels[index]] };
    }
  }
  const finalStates: Record<string, number> = {};
  for (const stream of streams) finalStates[stream.final || "(none)"] = (finalStates[stream.final || "(none)"] ?? 0) + 1;
  const notCompleted = [...new Set(streams.filter((stream) => stream.final !== "completed").map((stream) => `${stream.final}: ${stream.finalText.slice(0, 300)}`))];
  const simulations = evaluations * SIMULATIONS;
  return {
    evaluations,
    simulationsPerEvaluation: SIMULATIONS,
    agentDelayPerTurnMs: AGENT_DELAY_MS,
    heartbeatIntervalS: HEARTBEAT_SECONDS,
    finalStates,
    ...(notCompleted.length > 0 ? { notCompleted } : {}),
    statusEvents: streams.reduce((sum, stream) => sum + stream.times.length, 0),
    // As the streaming client saw them (its own event loop is loaded by 50 streams too).
    longestSilenceMs: round(gaps.at(-1) ?? 0, 1),
    silenceP99Ms: round(percentile(gaps, 0.99), 1),
    gapsOverIntervalPlus250Ms: gaps.filter((gap) => gap > HEARTBEAT_SECONDS * 1000 + 250).length,
    gapsOver20s: gaps.filter((gap) => gap > 20_000).length,
    // As the server stamped them (status.timestamp): the server's own punctuality.
    serverLongestSilenceMs: round(serverGaps.at(-1) ?? 0, 1),
    serverSilenceP99Ms: round(percentile(serverGaps, 0.99), 1),
    serverGapsOverIntervalPlus250Ms: serverGaps.filter((gap) => gap > HEARTBEAT_SECONDS * 1000 + 250).length,
    serverLongestSilenceBetween: longest.between,
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
