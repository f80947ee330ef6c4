// The loopback model server of the scale benchmark, in a process of its own (so its CPU is not the
// harness's): an OpenAI-compatible `POST …/chat/completions` answering after `LATENCY_MS`. The
// agent model (`bench-agent`) always answers a short text; the user model stops (`###STOP###`)
// once it has seen `TURNS` agent messages (the user simulator sees them as `user` messages). It
// reads only what it needs from a request (the model, the count of user messages) instead of
// parsing 20 KB of JSON per call, and keeps counters, not requests. `GET /stats` answers the number
// of completions, the times of the first request and the last answer, the most requests in flight
// and the TCP connections accepted, and the CPU time this server process has used (so a run can
// tell whether the server, on the same cores, is what holds the harness back).
//
//   node scripts/bench/support/scale-server.mjs   (env LATENCY_MS, TURNS; prints {"port": …} once listening)
import { createServer } from "node:http";

const latencyMs = Number(process.env.LATENCY_MS ?? 500);
const turns = Number(process.env.TURNS ?? 10);
let completions = 0;
let firstRequestAt = null;
let lastAnswerAt = null;
let inFlight = 0;
let peakInFlight = 0;
let connections = 0;

function answer(content, promptTokens) {
  return JSON.stringify({
    id: "bench",
    object: "chat.completion",
    created: 0,
    model: "bench",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: promptTokens, completion_tokens: 10, total_tokens: promptTokens + 10 },
  });
}

/** Occurrences of `"role":"user"` (the writer's spelling: no spaces). */
function userMessages(body) {
  let count = 0;
  for (let at = body.indexOf('"role":"user"'); at >= 0; at = body.indexOf('"role":"user"', at + 13)) count++;
  return count;
}

const server = createServer((request, response) => {
  if (request.method === "GET" && request.url === "/stats") {
    response.writeHead(200, { "content-type": "application/json" });
    const cpu = process.cpuUsage();
    const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
    response.end(JSON.stringify({ completions, firstRequestAt, lastAnswerAt, peakInFlight, connections, cpuMs }));
    return;
  }
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    firstRequestAt ??= Date.now();
    inFlight++;
    if (inFlight > peakInFlight) peakInFlight = inFlight;
    const body = Buffer.concat(chunks).toString("utf8");
    const agent = body.includes('"model":"bench-agent"');
    const text = agent ? answer("Thanks, I am looking into it.", 1000) : answer(userMessages(body) > turns ? "###STOP###" : "Please continue, it still does not work.", 500);
    setTimeout(() => {
      completions++;
      inFlight--;
      lastAnswerAt = Date.now();
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      response.end(text);
    }, latencyMs);
  });
});
server.keepAliveTimeout = 60_000;
server.on("connection", () => connections++);
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
