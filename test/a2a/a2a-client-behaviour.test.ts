/**
 * The A2A client's behaviour on the wire, against a raw HTTP fake: retries only where no answer
 * came or the agent said 429/5xx, with the same message id; no retry on 401 (the credential is
 * sent, never logged); the per-turn timeout; polling an unfinished task (blocking and non-blocking
 * sends); an SSE stream; the v1.0 → v0.3 fallback on -32601; discovery (both card paths, a card
 * with an unroutable host, no card, a dead endpoint); the host allow-list refusing before any
 * connection; the prompt profiles and their markers; deadlines that survive a blocked event loop.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { A2AAgent } from "../../src/a2a/client/a2a-agent.ts";
import { readCard } from "../../src/a2a/client/card.ts";
import { hostPolicy } from "../../src/a2a/client/host-policy.ts";
import { AGENTBEATS_MARKERS, firstMessage, laterMessage } from "../../src/a2a/client/prompts.ts";
import { createA2AAgent } from "../../src/a2a/client/create-agent.ts";
import { deadlineSignal } from "../../src/a2a/client/rpc.ts";
import { exitCodeForError } from "../../src/cli/exit-codes.ts";
import { terminationForError } from "../../src/kernel/episode-kernel.ts";
import { CARD_V03, cardV1, startFakeAgent, type FakeAgent, type FakeAnswer } from "../support/a2a-fake-agent.ts";
import { testDomainView, testParticipantContext } from "../support/participant-context.ts";

const REPLY = { kind: "message", role: "agent", messageId: "r", contextId: "c1", parts: [{ kind: "text", text: '{"name": "respond", "arguments": {"content": "hello"}}' }] };

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
  vi.unstubAllEnvs();
});

async function fakeWith(
  answer: (request: import("../support/a2a-fake-agent.ts").FakeRequest, index: number) => FakeAnswer,
  card: Parameters<typeof startFakeAgent>[0]["card"] = CARD_V03,
): Promise<FakeAgent> {
  const fake = await startFakeAgent({ card, answer });
  opened.push(fake);
  return fake;
}

async function agentFor(options: Record<string, unknown>, warnings: string[] = []): Promise<A2AAgent> {
  const agent = await createA2AAgent({ retryDelay: "0", ...options }, (message) => warnings.push(message));
  opened.push(agent);
  return agent;
}

async function oneTurn(agent: A2AAgent) {
  const session = await agent.start(testParticipantContext({}));
  const outcome = await session.next({ type: "text", content: "hi" }, new AbortController().signal).then(
    (turn) => ({ turn, error: undefined }),
    (error: Error) => ({ turn: undefined, error }),
  );
  const log = session.extra?.()?.protocol as unknown as { version: string; exchanges: Array<Record<string, unknown>> };
  return { ...outcome, log, session };
}

const messageIdOf = (request: { body: Record<string, unknown> | null }) => (request.body?.params as { message: { messageId: string } }).message.messageId;

describe("retries", () => {
  it("a reset connection and a 503 are retried with the same message id; every attempt is measured", async () => {
    const fake = await fakeWith((_request, index) => (index === 0 ? { reset: true } : index === 1 ? { status: 503, raw: "busy" } : { result: REPLY }));
    const { turn, log } = await oneTurn(await agentFor({ endpoint: fake.url }));
    expect(turn?.content).toBe("hello");
    const ids = fake.rpc().map(messageIdOf);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(1);
    expect(log.exchanges.map((exchange) => [exchange.attempt, exchange.httpStatus, (exchange.error as { type: string } | null)?.type ?? null])).toEqual([
      [1, null, "A2ATransportError"],
      [2, 503, "A2ATransportError"],
      [3, 200, null],
    ]);
  });

  it("429 honours Retry-After; after the last retry the turn is a transport error (infra_error)", async () => {
    const fake = await fakeWith(() => ({ status: 429, headers: { "retry-after": "0" }, raw: "{}" }));
    const { error, log } = await oneTurn(await agentFor({ endpoint: fake.url, retries: "1" }));
    expect(error?.name).toBe("A2ATransportError");
    expect(terminationForError(error)).toBe("infra_error");
    expect(fake.rpc()).toHaveLength(2);
    expect(log.exchanges.map((exchange) => exchange.httpStatus)).toEqual([429, 429]);
  });

  it("a JSON-RPC error and a 400 are not retried (agent_error); the code is kept", async () => {
    const fake = await fakeWith(() => ({ error: { code: -32602, message: "Invalid params" } }));
    const { error, log } = await oneTurn(await agentFor({ endpoint: fake.url }));
    expect(error?.name).toBe("A2AProtocolError");
    expect(terminationForError(error)).toBe("agent_error");
    expect(fake.rpc()).toHaveLength(1);
    expect(log.exchanges[0].rpcErrorCode).toBe(-32602);
    const broken = await fakeWith(() => ({ raw: "<html>oops</html>" }));
    const second = await oneTurn(await agentFor({ endpoint: broken.url }));
    expect(second.error?.message).toMatch(/not JSON/);
    expect(broken.rpc()).toHaveLength(1);
  });
});

describe("credentials", () => {
  it("sends the token from --agent-a2a-token-env; a 401 is an auth error, never retried, and the token is never logged", async () => {
    vi.stubEnv("AGENT_TOKEN_FOR_TEST", "s3cret-token-value-123");
    const debug: string[] = [];
    const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => (debug.push(String(chunk)), true));
    try {
      const fake = await fakeWith(() => ({ status: 401, headers: { "www-authenticate": 'Bearer realm="agent"' }, raw: "{}" }));
      const { error, log } = await oneTurn(await agentFor({ endpoint: fake.url, tokenEnv: "AGENT_TOKEN_FOR_TEST", debug: "true" }));
      expect(error?.name).toBe("A2AAuthError");
      expect(error?.message).toContain('Bearer realm="agent"');
      expect(terminationForError(error)).toBe("infra_error");
      expect(fake.rpc()).toHaveLength(1);
      expect(fake.rpc()[0].headers.authorization).toBe("Bearer s3cret-token-value-123");
      expect(fake.requests[0].headers.authorization).toBe("Bearer s3cret-token-value-123"); // the card fetch too
      expect(JSON.stringify(log)).not.toContain("s3cret");
      expect(debug.join("")).toContain("[a2a] turn 1 message/send");
      expect(debug.join("")).not.toContain("s3cret");
    } finally {
      write.mockRestore();
    }
  });

  it("refuses a token variable that is not set, and a token given in place of a variable name", async () => {
    await expect(createA2AAgent({ endpoint: "http://127.0.0.1:9/", tokenEnv: "NOT_SET_ANYWHERE_123" })).rejects.toThrow("--agent-a2a-token-env NOT_SET_ANYWHERE_123: the variable is not set");
    await expect(createA2AAgent({ endpoint: "http://127.0.0.1:9/", tokenEnv: "sk-abc.def" })).rejects.toThrow(/NAME of an environment variable/);
  });
});

describe("unfinished tasks and streams", () => {
  const working = (state: string, parts: unknown[] = []) => ({
    kind: "task",
    id: "t1",
    contextId: "c1",
    status: { state, ...(parts.length ? { message: { kind: "message", role: "agent", messageId: "s", parts } } : {}) },
  });

  it("a working task is polled (tasks/get) until it completes", async () => {
    const fake = await fakeWith((_request, index) => ({
      result: index < 2 ? working(index === 0 ? "submitted" : "working") : { ...working("completed"), artifacts: [{ artifactId: "a", parts: [{ kind: "text", text: "all done" }] }] },
    }));
    const { turn, log } = await oneTurn(await agentFor({ endpoint: fake.url, pollInterval: "0.001" }));
    expect(turn?.content).toBe("all done");
    expect(fake.rpc().map((request) => request.body?.method)).toEqual(["message/send", "tasks/get", "tasks/get"]);
    expect(fake.rpc()[1].body?.params).toMatchObject({ id: "t1" });
    expect(log.exchanges.map((exchange) => exchange.taskState)).toEqual(["submitted", "working", "completed"]);
  });

  it("mode=poll sends non-blocking (v0.3 blocking:false, v1.0 returnImmediately) and polls", async () => {
    for (const card of [CARD_V03, cardV1]) {
      const fake = await fakeWith((request, index) => {
        const v1 = request.body?.method === "SendMessage" || request.body?.method === "GetTask";
        const task = index === 0 ? working("submitted") : { ...working("completed"), artifacts: [{ artifactId: "a", parts: [{ kind: "text", text: "ok" }] }] };
        return { result: v1 ? { task } : task };
      }, card);
      const { turn } = await oneTurn(await agentFor({ endpoint: fake.url, mode: "poll", pollInterval: "0.001" }));
      expect(turn?.content).toBe("ok");
      const configuration = (fake.rpc()[0].body?.params as { configuration: unknown }).configuration;
      expect(configuration).toEqual(card === CARD_V03 ? { blocking: false } : { returnImmediately: true });
    }
  });

  it("a turn whose task is still working when the time is up ends as timeout", async () => {
    const fake = await fakeWith(() => ({ result: working("working") }));
    const { error } = await oneTurn(await agentFor({ endpoint: fake.url, timeout: "0.3", pollInterval: "0.05" }));
    expect(error?.name).toBe("A2ATimeoutError");
    expect(terminationForError(error)).toBe("timeout");
  });

  it("an agent slower than --agent-a2a-timeout: the request is abandoned (timeout)", async () => {
    const fake = await fakeWith(() => ({ delayMs: 20_000, result: REPLY }));
    const { error, log } = await oneTurn(await agentFor({ endpoint: fake.url, timeout: "0.2" }));
    expect(error?.name).toBe("A2ATimeoutError");
    expect(terminationForError(error)).toBe("timeout");
    expect(log.exchanges).toHaveLength(1);
    expect(log.exchanges[0].httpStatus).toBeNull();
  });

  it("mode=stream reads the SSE events (v0.3 kinds, v1.0 wrappers) into the final task", async () => {
    for (const card of [CARD_V03, cardV1]) {
      const fake = await fakeWith((request) => {
        const v1 = request.body?.method === "SendStreamingMessage";
        const events = v1
          ? [
              { task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_SUBMITTED" } } },
              { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } } },
              { artifactUpdate: { taskId: "t1", contextId: "c1", artifact: { artifactId: "a", parts: [{ text: '{"name": "get_order_details", "arguments": {"order_id": "#1"}}' }] } } },
              { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } },
            ]
          : [
              { kind: "task", id: "t1", contextId: "c1", status: { state: "submitted" } },
              { kind: "status-update", taskId: "t1", contextId: "c1", status: { state: "working" }, final: false },
              {
                kind: "artifact-update",
                taskId: "t1",
                contextId: "c1",
                artifact: { artifactId: "a", parts: [{ kind: "text", text: '{"name": "get_order_details", "arguments": {"order_id": "#1"}}' }] },
              },
              { kind: "status-update", taskId: "t1", contextId: "c1", status: { state: "completed" }, final: true },
            ];
        return { events };
      }, card);
      const { turn, log } = await oneTurn(await agentFor({ endpoint: fake.url, mode: "stream" }));
      expect(turn?.toolCalls.map((call) => call.name)).toEqual(["get_order_details"]);
      expect(fake.rpc()[0].body?.method).toBe(card === CARD_V03 ? "message/stream" : "SendStreamingMessage");
      expect(fake.rpc()[0].headers.accept).toBe("text/event-stream");
      expect(log.exchanges).toHaveLength(1);
      expect(log.exchanges[0]).toMatchObject({ taskState: "completed", taskId: "t1", contextId: "c1", httpStatus: 200 });
      expect(log.exchanges[0].responseBytes).toBeGreaterThan(200);
    }
  });
});

describe("deadlines", () => {
  const turnOfTheLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
  const aborted = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
  /** Keeps the event loop busy, as a server starting many evaluations on a loaded machine does. */
  const block = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };

  it("a deadline whose timer fired late after a blocked loop waits once more: an answer read right after the block still counts", async () => {
    const deadline = deadlineSignal(new AbortController().signal, 10);
    block(1000);
    // Several turns of the loop (the I/O that arrived during the block is read in them): no abort yet.
    for (let turn = 0; turn < 4; turn++) await turnOfTheLoop();
    expect(deadline.signal.aborted).toBe(false);
    deadline.done(); // the answer came
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(deadline.signal.aborted).toBe(false);
    expect(deadline.timedOut()).toBe(false);
  });

  it("without an answer it still expires, after the grace; an unblocked deadline expires on time", async () => {
    const late = deadlineSignal(new AbortController().signal, 10);
    block(400);
    await aborted(late.signal);
    expect(late.timedOut()).toBe(true);
    expect((late.signal.reason as Error).name).toBe("TimeoutError");
    const plain = deadlineSignal(new AbortController().signal, 10);
    await aborted(plain.signal);
    expect(plain.timedOut()).toBe(true);
    // The parent's abort passes through and is no timeout.
    const parent = new AbortController();
    const child = deadlineSignal(parent.signal, 60_000);
    parent.abort(new Error("the episode ended"));
    expect(child.signal.aborted).toBe(true);
    expect(child.timedOut()).toBe(false);
    child.done();
  });
});

describe("versions", () => {
  it("speaks 1.0 when the card offers it, and falls back to 0.3 for good after -32601", async () => {
    const fake = await fakeWith((request) => (request.body?.method === "SendMessage" ? { error: { code: -32601, message: "Method not found" } } : { result: REPLY }), cardV1);
    const agent = await agentFor({ endpoint: fake.url });
    const { turn, log, session } = await oneTurn(agent);
    expect(turn?.content).toBe("hello");
    await session.next({ type: "text", content: "more" }, new AbortController().signal);
    expect(fake.rpc().map((request) => request.body?.method)).toEqual(["SendMessage", "message/send", "message/send"]);
    expect(log.exchanges.map((exchange) => [exchange.method, exchange.rpcErrorCode])).toEqual([
      ["SendMessage", -32601],
      ["message/send", null],
      ["message/send", null],
    ]);
    expect((session.extra?.()?.protocol as { version: string }).version).toBe("0.3");
  });

  it("version=0.3 speaks 0.3 to a 1.0 card; version=1.0 to a 0.3 card", async () => {
    const fake = await fakeWith(() => ({ result: REPLY }), cardV1);
    await oneTurn(await agentFor({ endpoint: fake.url, version: "0.3" }));
    expect(fake.rpc()[0].body?.method).toBe("message/send");
    const old = await fakeWith(() => ({ result: { message: REPLY } }));
    await oneTurn(await agentFor({ endpoint: old.url, version: "1.0" }));
    expect(old.rpc()[0].body?.method).toBe("SendMessage");
  });
});

describe("discovery", () => {
  it("a dead endpoint stops the run before the first episode, naming the URL (exit 2)", async () => {
    const fake = await fakeWith(() => ({ result: REPLY }));
    await fake.close();
    const error = await createA2AAgent({ endpoint: fake.url }).catch((failure: Error) => failure);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(`the A2A agent at ${fake.url} does not answer: connection refused (nothing is listening there) (fetching ${fake.url}/.well-known/agent-card.json)`);
    expect(exitCodeForError(error)).toBe(2);
  });

  it("falls back to /.well-known/agent.json; an agent without a card needs rpcUrl", async () => {
    const old = await startFakeAgent({ card: CARD_V03, oldCardPath: true, answer: () => ({ result: REPLY }) });
    opened.push(old);
    const agent = await agentFor({ endpoint: old.url });
    expect(agent.card.cardUrl).toBe(`${old.url}/.well-known/agent.json`);
    const none = await fakeWith(() => ({ result: REPLY }), null);
    await expect(createA2AAgent({ endpoint: none.url })).rejects.toThrow(/no A2A agent card at .*agent-card\.json \(HTTP 404\), .*agent\.json \(HTTP 404\)/);
    const warnings: string[] = [];
    const bare = await agentFor({ endpoint: none.url, rpcUrl: `${none.url}/rpc` }, warnings);
    expect((await oneTurn(bare)).turn?.content).toBe("hello");
    expect(none.rpc()[0].path).toBe("/rpc");
    expect(warnings.join("\n")).toMatch(/no agent card/);
  });

  it("a card advertising 0.0.0.0 is called at the endpoint's host instead (with a warning)", async () => {
    const fake = await fakeWith(
      () => ({ result: REPLY }),
      (url) => ({ ...CARD_V03, url: `http://0.0.0.0:${new URL(url).port}/a2a` }),
    );
    const warnings: string[] = [];
    const agent = await agentFor({ endpoint: fake.url }, warnings);
    expect(agent.connection.rpcUrl).toBe(`${fake.url}/a2a`);
    expect(warnings.join("\n")).toMatch(/advertises 0\.0\.0\.0/);
  });

  it("reads 0.2, 0.3, hybrid and 1.0 cards", () => {
    const endpoint = "http://agent.test/";
    expect(readCard({ name: "old", url: "http://agent.test/rpc" }, `${endpoint}.well-known/agent.json`, endpoint, { version: "auto" })).toMatchObject({
      protocolVersion: "0.3",
      rpcUrl: "http://agent.test/rpc",
    });
    expect(readCard({ ...CARD_V03, url: "http://agent.test/" }, endpoint, endpoint, { version: "auto" })).toMatchObject({
      protocolVersion: "0.3",
      streaming: true,
      name: "fake-agent",
      version: "1.2.3",
    });
    const hybrid = { ...CARD_V03, url: "http://agent.test/v03", supportedInterfaces: [{ url: "http://agent.test/v1", protocolBinding: "JSONRPC", protocolVersion: "1.0" }] };
    expect(readCard(hybrid, endpoint, endpoint, { version: "auto" })).toMatchObject({ protocolVersion: "1.0", rpcUrl: "http://agent.test/v1" });
    expect(readCard(hybrid, endpoint, endpoint, { version: "0.3" })).toMatchObject({ protocolVersion: "0.3", rpcUrl: "http://agent.test/v03" });
    const grpcOnly = { name: "g", supportedInterfaces: [{ url: "http://agent.test/", protocolBinding: "GRPC", protocolVersion: "1.0" }] };
    expect(() => readCard(grpcOnly, endpoint, endpoint, { version: "auto" })).toThrow(/no JSON-RPC interface/);
    expect(readCard({ ...CARD_V03, securitySchemes: { bearer: { type: "http", scheme: "bearer" } } }, endpoint, endpoint, { version: "auto" }).declaresSecurity).toBe(true);
  });
});

describe("the host allow-list", () => {
  it("refuses a disallowed host before any connection, and the card's RPC URL when it names another host", async () => {
    const fake = await fakeWith(() => ({ result: REPLY }));
    const error = await createA2AAgent({ endpoint: fake.url.replace("127.0.0.1", "127.0.0.2"), allowHosts: "10.0.0.0/8" }).catch((failure: Error) => failure);
    expect((error as Error).name).toBe("A2AHostRefusedError");
    expect((error as Error).message).toMatch(/the address 127\.0\.0\.2 is not allowed; allowed: 10\.0\.0\.0\/8 .*nothing was sent/);
    expect(fake.requests).toHaveLength(0);
    // A gateway rewrote the card's URL to another host: refused after the card, before any message.
    const gateway = await fakeWith(() => ({ result: REPLY }), { ...CARD_V03, url: "http://192.0.2.10:9999/" });
    const rewritten = await createA2AAgent({ endpoint: gateway.url, allowHosts: "loopback" }).catch((failure: Error) => failure);
    expect((rewritten as Error).message).toMatch(/RPC URL \(from its card\) http:\/\/192\.0\.2\.10:9999\/: the address 192\.0\.2\.10 is not allowed/);
    expect(gateway.rpc()).toHaveLength(0);
  });

  it("parses its entries and checks names by their addresses", async () => {
    const policy = hostPolicy(["loopback,10.1.0.0/16", "*.example.test", "agent.internal"]);
    expect(policy.allowsAddress("127.0.0.5")).toBe(true);
    expect(policy.allowsAddress("::1")).toBe(true);
    expect(policy.allowsAddress("10.1.2.3")).toBe(true);
    expect(policy.allowsAddress("10.2.0.1")).toBe(false);
    expect(policy.allowsAddress("169.254.169.254")).toBe(false);
    expect(policy.allowsName("a.example.test")).toBe(true);
    expect(policy.allowsName("example.test")).toBe(false);
    await expect(policy.check("http://localhost:8080/", "x")).resolves.toBeUndefined();
    await expect(policy.check("http://[::1]:8080/", "x")).resolves.toBeUndefined();
    await expect(policy.check("http://169.254.169.254/latest", "x")).rejects.toThrow(/not allowed/);
    expect(() => hostPolicy(["10.0.0.0/99"])).toThrow(/not a network/);
    expect(hostPolicy(["http://purple:9019/"]).allowsName("purple")).toBe(true); // a URL stands for its host
  });
});

describe("prompt profiles", () => {
  const domain = testDomainView("retail", "POLICY TEXT", [
    { type: "function", function: { name: "get_order_details", description: "Get an order.", parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] } } },
  ]);

  it("agentbeats (default): policy, the four markers in order, tools and respond schemas, the user's words", () => {
    const text = firstMessage("agentbeats", domain, [{ role: "assistant", content: "Hi! How can I help you today?" }], { type: "text", content: "Where is my order?" });
    const markers = [AGENTBEATS_MARKERS.tools, AGENTBEATS_MARKERS.respond, AGENTBEATS_MARKERS.format, AGENTBEATS_MARKERS.messages];
    const positions = [text.indexOf("POLICY TEXT"), ...markers.map((marker) => text.indexOf(marker)), text.indexOf("Where is my order?")];
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(text).toContain('"name": "get_order_details"');
    expect(text).toContain('"name": "respond"');
    expect(text).not.toContain("How can I help you today"); // the fixed greeting alone is not repeated
    expect(text.endsWith(`${AGENTBEATS_MARKERS.messages}\nWhere is my order?`)).toBe(true);
    expect(
      laterMessage("agentbeats", domain, {
        type: "tool_results",
        results: [
          { id: "1", name: "a", content: "x", error: false },
          { id: "2", name: "b", content: "Error: y", error: true },
        ],
      }),
    ).toBe("Tool 'a' result: x\nTool 'b' result: Error: y");
    expect(laterMessage("agentbeats", domain, { type: "text", content: "thanks" })).toBe("thanks");
  });

  it("agentbeats-tutorial: the older marker family, <json> tags, the singular user-message marker", () => {
    const text = firstMessage("agentbeats-tutorial", domain, [], { type: "text", content: "Where is my order?" });
    expect(text).toContain(AGENTBEATS_MARKERS.tools);
    expect(text).toContain(`${AGENTBEATS_MARKERS.format} Wrap the JSON with <json>...</json> tags.`);
    expect(text).not.toContain(AGENTBEATS_MARKERS.respond);
    expect(text.endsWith(`${AGENTBEATS_MARKERS.message}\nWhere is my order?`)).toBe(true);
  });

  it("agentify and wutims profiles", () => {
    const agentify = firstMessage("agentify", domain, [], { type: "text", content: "Where is my order?" });
    expect(agentify).toContain("<json>");
    expect(agentify.endsWith("User message: Where is my order?")).toBe(true);
    const wutims = firstMessage("wutims", domain, [], { type: "text", content: "Where is my order?" });
    expect(wutims.startsWith("POLICY TEXT")).toBe(true);
    expect(wutims).toContain("<available_tools>\n- get_order_details(order_id: string): Get an order.");
    expect(laterMessage("wutims", domain, { type: "tool_results", results: [{ id: "c1", name: "a", content: "x", error: false }] })).toMatch(/^Tool result \(id=c1\): x\n\n<available_tools>/);
  });
});
