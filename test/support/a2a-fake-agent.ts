/**
 * A raw `node:http` A2A agent for wire-level tests: it serves a card (or none) and answers each
 * JSON-RPC request with what the test's handler returns — any body, status, headers, an SSE stream,
 * a slow answer, a reset connection — so the shapes Python and ADK agents send, and the failures
 * real networks produce, can be reproduced exactly. Loopback, ephemeral port, every request
 * recorded (parsed body and headers).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown> | null;
}

/** What the fake answers one JSON-RPC request with. */
export interface FakeAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON-RPC `result` (wrapped in an envelope with the request's id). */
  result?: unknown;
  /** A JSON-RPC `error` object. */
  error?: { code: number; message: string; data?: unknown };
  /** A raw body, sent as is (content type application/json unless headers say otherwise). */
  raw?: string;
  /** Server-sent events: each item is one event's JSON-RPC `result`. */
  events?: unknown[];
  /** Wait this long before answering (the client's abort closes the socket; the fake then stops). */
  delayMs?: number;
  /** Drop the connection without an answer. */
  reset?: boolean;
}

export interface FakeAgentOptions {
  /** The card to serve at /.well-known/agent-card.json (null: 404 there and at agent.json). `{url}` is filled in when absent. */
  card?: Record<string, unknown> | ((url: string) => Record<string, unknown>) | null;
  /** Serve the card at the old path (/.well-known/agent.json) only. */
  oldCardPath?: boolean;
  answer(request: FakeRequest, index: number): FakeAnswer | Promise<FakeAnswer>;
}

export interface FakeAgent {
  url: string;
  requests: FakeRequest[];
  /** JSON-RPC requests only (POSTs). */
  rpc(): FakeRequest[];
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of request) text += chunk;
  return text;
}

export async function startFakeAgent(options: FakeAgentOptions): Promise<FakeAgent> {
  const requests: FakeRequest[] = [];
  let url = "";
  let rpcIndex = 0;
  const server: Server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const text = await readBody(request);
    let body: Record<string, unknown> | null = null;
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
    } catch {
      body = null;
    }
    const recorded: FakeRequest = { method: request.method ?? "", path: request.url ?? "", headers: request.headers, body };
    requests.push(recorded);
    if (request.method === "GET") {
      const newPath = request.url === "/.well-known/agent-card.json" && !options.oldCardPath;
      const oldPath = request.url === "/.well-known/agent.json" && options.oldCardPath;
      if (options.card && (newPath || oldPath)) {
        response.writeHead(200, { "content-type": "application/json" });
        const card = typeof options.card === "function" ? options.card(url) : { url: `${url}/`, ...options.card };
        response.end(JSON.stringify(card));
      } else {
        response.writeHead(404);
        response.end();
      }
      return;
    }
    const answer = await options.answer(recorded, rpcIndex++);
    if (answer.delayMs) {
      const closed = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), answer.delayMs);
        response.on("close", () => (clearTimeout(timer), resolve(true)));
      });
      if (closed) return;
    }
    if (answer.reset) {
      request.socket.destroy();
      return;
    }
    const id = body?.id ?? null;
    if (answer.events) {
      response.writeHead(answer.status ?? 200, { "content-type": "text/event-stream", ...(answer.headers ?? {}) });
      for (const event of answer.events) response.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id, result: event })}\n\n`);
      response.end();
      return;
    }
    const payload = answer.raw ?? JSON.stringify({ jsonrpc: "2.0", id, ...(answer.error ? { error: answer.error } : { result: answer.result }) });
    response.writeHead(answer.status ?? 200, { "content-type": "application/json", ...(answer.headers ?? {}) });
    response.end(payload);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    rpc: () => requests.filter((request) => request.method === "POST"),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A v0.3 card (the fake fills in `url`). */
export const CARD_V03 = { name: "fake-agent", version: "1.2.3", protocolVersion: "0.3.0", capabilities: { streaming: true }, skills: [] };
/** A v1.0 card listing both versions (as the 1.x SDK does with legacy compat). */
export function cardV1(url: string): Record<string, unknown> {
  return {
    name: "fake-agent-v1",
    version: "2.0.0",
    supportedInterfaces: [
      { url: `${url}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${url}/`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ],
    capabilities: { streaming: true },
    skills: [],
  };
}
