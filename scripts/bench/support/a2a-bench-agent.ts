/**
 * The remote agent of the A2A benchmarks, as its own process (so its CPU is not the harness's): a
 * raw `node:http` A2A 0.3 agent. Each conversation (contextId) answers `TOOL_TURNS` tool calls
 * (`TOOL`, no arguments) and then words for the user, after `DELAY_MS` (a timer, not CPU). It
 * measures its own handler time per request (body received → answer ready, less the delay), sends
 * it back in an `x-handler-ms` header and prints the distribution on SIGTERM as one JSON line. Started with PORT=0 it prints its URL.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const delay = Number(process.env.DELAY_MS ?? 0);
const toolTurns = Number(process.env.TOOL_TURNS ?? 0);
const tool = process.env.TOOL ?? "get_users";
const turns = new Map<string, number>();
const handlerMs: number[] = [];

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const started = performance.now();
    if (request.method === "GET") {
      const port = (server.address() as AddressInfo).port;
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          name: "bench-agent",
          version: "1",
          protocolVersion: "0.3.0",
          url: `http://127.0.0.1:${port}/`,
          capabilities: {},
          skills: [],
          defaultInputModes: ["text/plain"],
          defaultOutputModes: ["text/plain"],
        }),
      );
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number; params: { message: { contextId?: string } } };
    const context = body.params.message.contextId ?? randomUUID();
    const turn = (turns.get(context) ?? 0) + 1;
    turns.set(context, turn);
    const text = turn <= toolTurns ? `{"name": "${tool}", "arguments": {}}` : '{"name": "respond", "arguments": {"content": "All done, thank you."}}';
    const answer = () => {
      const payload = JSON.stringify({ jsonrpc: "2.0", id: body.id, result: { kind: "message", role: "agent", messageId: randomUUID(), contextId: context, parts: [{ kind: "text", text }] } });
      // The handler's time (less the deliberate delay) goes with the answer, so the client can subtract it turn by turn.
      const took = performance.now() - started - delay;
      handlerMs.push(took);
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(payload), "x-handler-ms": took.toFixed(4) });
      response.end(payload);
    };
    if (delay > 0) setTimeout(answer, delay);
    else answer();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on("SIGTERM", () => {
  const sorted = [...handlerMs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  process.stdout.write(`${JSON.stringify({ requests: sorted.length, handlerP50Ms: at(0.5), handlerP99Ms: at(0.99) })}\n`);
  process.exit(0);
});
