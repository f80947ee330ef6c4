/**
 * `taubridge serve --a2a` (the server in process, loopback, ephemeral ports), driven by the SDK's
 * clients (1.3.0 speaking 1.0, 0.3.14 speaking 0.3) and by raw AgentBeats-style JSON-RPC: the card
 * in both versions, 401 before any handling, an evaluation streamed (submitted → working per
 * simulation → Result artifact → completed), polled (non-blocking sends), canceled mid-run (partial
 * results kept, no new conversation), heartbeats while an agent turn is held, another caller's task
 * id answering "not found", a disallowed agent host refused without a connection (also after a
 * gateway-style rewrite of the agent's URL), size and concurrency limits, deterministic routing,
 * and results equal to an offline run of the same configuration.
 */
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import { SendMessageRequest, type StreamResponse } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { ClientFactory as ClientFactoryV03 } from "a2a-v03/client";
import { runBenchmark } from "../../app/index.ts";
import { createBundledRegistries } from "../../app/registries.ts";
import { startA2AServer, type A2AServerOptions, type RunningA2AServer } from "../../src/a2a/server/serve.ts";
import { startScriptedModelServer } from "../../src/testing/index.ts";
import { startScriptedAgent, type ScriptedAgent } from "../support/a2a-agents.ts";
import { oracleScripts } from "../support/a2a-decisions.ts";
import { CARD_V03, startFakeAgent } from "../support/a2a-fake-agent.ts";
import { describeWithTau2Data, tauBenchDirectory } from "../support/shared-data.ts";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
  vi.unstubAllEnvs();
});

const TOKEN_A = "token-of-caller-a-0123456789";
const TOKEN_B = "token-of-caller-b-9876543210";
const IDS = ["create_task_1", "update_task_1"];

type Json = Record<string, unknown>;

async function serve(data: string, overrides: Partial<A2AServerOptions> = {}): Promise<RunningA2AServer & { logs: string[]; store: string }> {
  const logs: string[] = [];
  const store = mkdtempSync(join(tmpdir(), "a2a-store-"));
  const server = await startA2AServer(
    { host: "127.0.0.1", port: 0, store, tokens: [], tau2DataDir: data, heartbeatSeconds: 5, log: (line) => logs.push(line), ...overrides },
    await createBundledRegistries(),
  );
  opened.push(server);
  return Object.assign(server, { logs, store });
}

async function agent(data: string, options: { hold?: number; ids?: string[] } = {}): Promise<ScriptedAgent> {
  const scripted = await startScriptedAgent({
    sdk: "0.3",
    scripts: oracleScripts(data, "mock", options.ids ?? IDS),
    style: "message",
    ...(options.hold !== undefined ? { holdConversation: options.hold } : {}),
  });
  opened.push(scripted);
  return scripted;
}

/** The AgentBeats assessment request (τ² mock with the scripted user: no model anywhere). */
const assessment = (agentUrl: string, config: Json = {}) =>
  JSON.stringify({ participants: { agent: agentUrl }, config: { domain: "mock", task_ids: IDS, user: "scripted", max_concurrency: 1, ...config } });

const v03Message = (text: string, extra: Json = {}) => ({ kind: "message", role: "user", messageId: crypto.randomUUID(), parts: [{ kind: "text", text }], ...extra });
const v1Message = (text: string) => ({ role: "ROLE_USER", messageId: crypto.randomUUID(), parts: [{ text }] });

async function rpc(url: string, method: string, params: Json, options: { token?: string; version?: string } = {}): Promise<{ status: number; body: Json; headers: Headers }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), "a2a-version": options.version ?? (method.includes("/") ? "0.3" : "1.0") },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return { status: response.status, body: (await response.json()) as Json, headers: response.headers };
}

/** A raw SSE stream's events (each a JSON-RPC response's `result`), with a hook per event. */
async function stream(url: string, method: string, params: Json, options: { token?: string; onEvent?: (event: Json) => void | Promise<void> } = {}): Promise<Json[]> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream",
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      "a2a-version": method.includes("/") ? "0.3" : "1.0",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  const events: Json[] = [];
  let buffer = "";
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const data = buffer
        .slice(0, end)
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim())
        .join("\n");
      buffer = buffer.slice(end + 2);
      if (data) {
        const event = (JSON.parse(data) as { result: Json }).result;
        events.push(event);
        await options.onEvent?.(event);
      }
      end = buffer.indexOf("\n\n");
    }
  }
  return events;
}

const stateOf = (event: Json) => ((event.status as Json | undefined)?.state as string | undefined) ?? (event.kind as string);
const textOf = (event: Json) => (((event.status as Json)?.message as Json | undefined)?.parts as Json[] | undefined)?.map((part) => part.text).join("") ?? "";
const resultData = (task: Json) => ((task.artifacts as Json[]).find((artifact) => artifact.name === "Result")?.parts as Json[]).find((part) => "data" in part)?.data as Json;

describeWithTau2Data("serve --a2a: the card, authentication, routing", (data) => {
  it("serves the card for A2A 1.0 (ProtoJSON) and 0.3, at both paths, and /healthz, all public", async () => {
    const server = await serve(data, { tokens: [TOKEN_A] });
    const v1 = await fetch(`${server.url}.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } });
    const card1 = (await v1.json()) as Json;
    expect(v1.headers.get("vary")).toMatch(/A2A-Version/i);
    expect(v1.headers.get("etag")).toBeTruthy();
    expect(card1.securitySchemes).toEqual({ bearer: { httpAuthSecurityScheme: { scheme: "Bearer", description: "a token of TAUBRIDGE_A2A_TOKEN" } } });
    expect(card1.securityRequirements).toEqual([{ schemes: { bearer: {} } }]); // ProtoJSON leaves the empty scope list out
    expect(card1.supportedInterfaces).toEqual([
      { url: server.url, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: server.url, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ]);
    expect((card1.skills as Json[]).map((skill) => skill.id)).toEqual(["run_evaluation", "list_domains", "get_evaluation_results"]);
    expect(JSON.stringify(card1)).not.toContain("$case");
    const v03 = (await (await fetch(`${server.url}.well-known/agent.json`)).json()) as Json;
    expect(v03).toMatchObject({ url: server.url, protocolVersion: "0.3", preferredTransport: "JSONRPC", capabilities: { streaming: true } });
    expect(v03.securitySchemes).toEqual({ bearer: { type: "http", scheme: "Bearer", description: "a token of TAUBRIDGE_A2A_TOKEN" } });
    expect(v03.security).toEqual([{ bearer: [] }]);
    const health = await fetch(`${server.url}healthz`);
    expect(await health.json()).toMatchObject({ status: "ok", evaluations: { running: 0, queued: 0 } });
  });

  it("answers 401 without a token or with a wrong one, before any handling (nothing stored)", async () => {
    const server = await serve(data, { tokens: [TOKEN_A] });
    for (const token of [undefined, "not-a-token"]) {
      const answer = await rpc(server.url, "message/send", { message: v03Message('{"tool": "list_domains"}') }, { ...(token ? { token } : {}) });
      expect(answer.status).toBe(401);
      expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer realm="taubridge"/);
      expect((answer.body.error as Json).message).toMatch(/unauthorized/);
    }
    expect(readdirSync(join(server.store, "tasks"))).toEqual([]);
    const ok = await rpc(server.url, "message/send", { message: v03Message('{"tool": "list_domains"}') }, { token: TOKEN_A });
    expect(ok.status).toBe(200);
  });

  it("routes by content: list_domains; invalid arguments, unknown requests and credentials in a message are rejected with the reason", async () => {
    const server = await serve(data);
    const domains = await rpc(server.url, "message/send", { message: v03Message('{"tool": "list_domains", "arguments": {}}') });
    const task = domains.body.result as Json;
    expect(stateOf(task)).toBe("completed");
    const suites = (((task.artifacts as Json[])[0].parts as Json[])[1].data as { suites: Array<{ suite: string; domains: Array<{ id: string }> }> }).suites;
    expect(suites.find((suite) => suite.suite === "tau2")?.domains.map((domain) => domain.id)).toContain("mock");
    const invalid = (await rpc(server.url, "message/send", { message: v03Message(JSON.stringify({ participants: { agent: "not a url" }, config: { domain: "mock", num_trials: 0 } })) })).body
      .result as Json;
    expect(stateOf(invalid)).toBe("rejected");
    expect(textOf(invalid)).toMatch(/invalid arguments for run_evaluation:\n {2}participants\.agent: must be an http\(s\) URL\n {2}config\.num_trials: Too small/);
    const unknown = (await rpc(server.url, "message/send", { message: v03Message("please evaluate my agent") })).body.result as Json;
    expect(stateOf(unknown)).toBe("rejected");
    expect(textOf(unknown)).toMatch(/Accepted: .*"tool": "run_evaluation"/);
    const secret = (await rpc(server.url, "message/send", { message: v03Message(assessment("http://127.0.0.1:9/", { user_llm_args: { api_key: "sk-shouldnotbehere123456" } })) })).body.result as Json;
    expect(stateOf(secret)).toBe("rejected");
    expect(textOf(secret)).toMatch(/credentials are never accepted inside messages .*config\.user_llm_args\.api_key/);
  });

  it("refuses a request over --max-request-bytes with a clear JSON-RPC error", async () => {
    const server = await serve(data, { maxRequestBytes: 2048 });
    const answer = await rpc(server.url, "message/send", { message: v03Message("x".repeat(5000)) });
    expect(answer.status).toBe(413);
    expect((answer.body.error as Json).message).toMatch(/request too large: \d+ bytes \(this server takes at most 2048, --max-request-bytes\)/);
  });
});

describeWithTau2Data("serve --a2a: evaluations", (data) => {
  it("SDK 1.3.0 client (A2A 1.0), streaming: submitted → working per simulation → Result artifact → completed; equal to an offline run", async () => {
    const scripted = await agent(data);
    const server = await serve(data, { tokens: [TOKEN_A] });
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory()] }));
    const client = await factory.createFromUrl(server.url);
    expect(client.protocolVersion).toBe("1.0");
    const request = SendMessageRequest.fromJSON({
      message: {
        role: "ROLE_USER",
        messageId: crypto.randomUUID(),
        parts: [{ data: { tool: "run_evaluation", arguments: { agent_url: scripted.url, domain: "mock", task_ids: IDS, user: "scripted", max_concurrency: 1 } } }],
      },
    });
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(request, { serviceParameters: { Authorization: `Bearer ${TOKEN_A}` } })) events.push(event);
    const kinds = events.map((event) => (event.payload?.$case === "statusUpdate" ? `status:${event.payload.value.status?.state}` : event.payload?.$case));
    expect(kinds[0]).toBe("task");
    expect(kinds.at(-2)).toBe("artifactUpdate");
    expect(kinds.at(-1)).toBe("status:3"); // TASK_STATE_COMPLETED
    const progress = events
      .flatMap((event) => (event.payload?.$case === "statusUpdate" ? event.payload.value.status?.message?.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")) : []))
      .join("\n");
    expect(progress).toMatch(/\[1\/2\] task create_task_1 trial 0: reward 1 \(user_stop\)/);
    expect(progress).toMatch(/\[2\/2\] task update_task_1 trial 0: reward 1 \(user_stop\)/);
    const artifact = events.find((event) => event.payload?.$case === "artifactUpdate");
    const data1 = artifact?.payload?.$case === "artifactUpdate" ? (artifact.payload.value.artifact?.parts.find((part) => part.content?.$case === "data")?.content?.value as Json) : {};
    expect(data1).toMatchObject({ domain: "mock", score: 2, max_score: 2, pass_rate: 100, task_rewards: { create_task_1: 1, update_task_1: 1 }, complete: true, num_simulations: 2 });
    expect((data1.a2a_metrics as Json).requests).toBe(4);
    // The same configuration run offline gives the same rewards and pass^k.
    const offlineAgent = await agent(data);
    const offline = await runBenchmark({
      suite: "tau2",
      domain: "mock",
      dataDir: data,
      agent: "a2a_agent",
      agentA2aEndpoint: offlineAgent.url,
      user: "scripted",
      taskIds: IDS,
      maxConcurrency: 1,
      saveTo: join(mkdtempSync(join(tmpdir(), "a2a-off-")), "r.json"),
    } as never);
    expect(data1.pass_hat_k).toEqual(offline.metrics.passK);
    expect(data1.task_rewards).toEqual(Object.fromEntries(offline.episodes.map((episode) => [String(episode.taskId), episode.reward])));
    // GetTask shows the stored task with its artifact.
    const taskId = events[0].payload?.$case === "task" ? events[0].payload.value.id : "";
    const stored = await client.getTask({ tenant: "", id: taskId }, { serviceParameters: { Authorization: `Bearer ${TOKEN_A}` } });
    expect(stored.status?.state).toBe(3);
    expect(stored.artifacts.map((item) => item.name)).toEqual(["Result"]);
  });

  it("SDK 0.3.14 client, blocking send of the AgentBeats request: a completed task with the Result artifact", async () => {
    const scripted = await agent(data);
    const server = await serve(data);
    const client = await new ClientFactoryV03().createFromUrl(server.url);
    const result = (await client.sendMessage({ message: v03Message(assessment(scripted.url)) as never })) as unknown as Json;
    expect(result.kind).toBe("task");
    expect(stateOf(result)).toBe("completed");
    expect(resultData(result)).toMatchObject({ task_rewards: { create_task_1: 1, update_task_1: 1 }, pass_rate: 100, suite: "tau2" });
    // get_evaluation_results returns the same result, by the evaluation id (= the task id)
    const fetched = (await client.sendMessage({
      message: v03Message(JSON.stringify({ tool: "get_evaluation_results", arguments: { evaluation_id: result.id, include_simulations: true } })) as never,
    })) as unknown as Json;
    const fetchedData = resultData(fetched) as { state: string; result: Json; simulations: Json[] };
    expect(fetchedData.state).toBe("completed");
    expect(fetchedData.result.task_rewards).toEqual(resultData(result).task_rewards);
    expect(fetchedData.simulations.map((simulation) => simulation.taskId)).toEqual(IDS);
  });

  it("raw AgentBeats-style message/stream (v0.3): task → status-update(working)… → artifact-update (JSON data part) → status-update(completed, final)", async () => {
    const scripted = await agent(data);
    const server = await serve(data);
    const events = await stream(server.url, "message/stream", { message: v03Message(assessment(scripted.url)) });
    expect(events[0]).toMatchObject({ kind: "task", status: { state: "submitted" } });
    const middle = events.slice(1, -2);
    expect(middle.length).toBeGreaterThanOrEqual(3);
    expect(middle.every((event) => event.kind === "status-update" && stateOf(event) === "working")).toBe(true);
    expect(events.at(-2)).toMatchObject({ kind: "artifact-update", artifact: { name: "Result" } });
    expect((((events.at(-2) as Json).artifact as Json).parts as Json[])[1]).toMatchObject({ kind: "data", data: { score: 2, max_score: 2 } });
    expect(events.at(-1)).toMatchObject({ kind: "status-update", status: { state: "completed" }, final: true });
  });

  it("polling: a non-blocking send (v0.3 blocking:false, v1.0 returnImmediately) answers at once; tasks/get / GetTask follow it to the end", async () => {
    const [first, second] = [await agent(data), await agent(data)];
    const server = await serve(data);
    const v03 = (await rpc(server.url, "message/send", { message: v03Message(assessment(first.url)), configuration: { blocking: false } })).body.result as Json;
    expect(["submitted", "working"]).toContain(stateOf(v03));
    const v1 = ((await rpc(server.url, "SendMessage", { message: v1Message(assessment(second.url)), configuration: { returnImmediately: true } })).body.result as Json).task as Json;
    expect(["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"]).toContain(stateOf(v1));
    for (const [method, id, done] of [
      ["tasks/get", v03.id, "completed"],
      ["GetTask", v1.id, "TASK_STATE_COMPLETED"],
    ] as const) {
      let task: Json = {};
      for (let polls = 0; polls < 600 && stateOf(task) !== done; polls++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        task = (await rpc(server.url, method, { id })).body.result as Json;
      }
      expect(stateOf(task)).toBe(done);
      expect(resultData(task)).toMatchObject({ score: 2 });
    }
  });

  it("cancel mid-run: the held turn is abandoned, no new conversation starts, the partial result is kept; heartbeats came while the turn was held", async () => {
    const scripted = await agent(data, { hold: 1, ids: [...IDS, "update_task_with_message_history"] });
    const server = await serve(data, { heartbeatSeconds: 0.2 });
    let taskId = "";
    let heartbeats = 0;
    let canceled: Promise<Json> | undefined;
    const events = await stream(
      server.url,
      "message/stream",
      { message: v03Message(assessment(scripted.url, { task_ids: [...IDS, "update_task_with_message_history"] })) },
      {
        onEvent: async (event) => {
          if (event.kind === "task") taskId = event.id as string;
          if ((event.metadata as Json | undefined)?.heartbeat === true && scripted.conversations.size === 2) heartbeats++;
          // Cancel once the held turn has been waiting through two heartbeats.
          if (heartbeats === 2 && !canceled) canceled = rpc(server.url, "tasks/cancel", { id: taskId }).then((answer) => answer.body);
        },
      },
    );
    const cancelAnswer = (await canceled) as Json;
    expect(stateOf(cancelAnswer.result as Json)).toBe("canceled");
    expect(events.at(-1)).toMatchObject({ kind: "status-update", status: { state: "canceled" } });
    const result = (events.find((event) => event.kind === "artifact-update") as Json).artifact as Json;
    expect((result.parts as Json[])[1].data as Json).toMatchObject({ complete: false, num_simulations: 1, task_rewards: { create_task_1: 1 } });
    expect(scripted.conversations.size).toBe(2); // the third task never started
    const stored = (await rpc(server.url, "tasks/get", { id: taskId })).body.result as Json;
    expect(stateOf(stored)).toBe("canceled");
  });

  it("another caller's task id answers 'not found' everywhere; ListTasks shows each caller only its own", async () => {
    const scripted = await agent(data);
    const server = await serve(data, { tokens: [TOKEN_A, TOKEN_B] });
    const mine = (await rpc(server.url, "message/send", { message: v03Message(assessment(scripted.url)) }, { token: TOKEN_A })).body.result as Json;
    expect(stateOf(mine)).toBe("completed");
    const id = mine.id as string;
    for (const [method, params] of [
      ["tasks/get", { id }],
      ["tasks/cancel", { id }],
      ["GetTask", { id }],
    ] as const) {
      const other = await rpc(server.url, method, params, { token: TOKEN_B });
      expect((other.body.error as Json | undefined)?.code, method).toBe(-32001);
    }
    const results = (await rpc(server.url, "message/send", { message: v03Message(JSON.stringify({ tool: "get_evaluation_results", arguments: { evaluation_id: id } })) }, { token: TOKEN_B })).body
      .result as Json;
    expect(stateOf(results)).toBe("rejected");
    expect(textOf(results)).toMatch(/no evaluation .* visible only to the caller that started them/);
    const listB = ((await rpc(server.url, "ListTasks", {}, { token: TOKEN_B })).body.result as Json).tasks as Json[];
    expect(listB.map((task) => task.id)).not.toContain(id);
    const listA = ((await rpc(server.url, "ListTasks", {}, { token: TOKEN_A })).body.result as Json).tasks as Json[];
    expect(listA.map((task) => task.id)).toContain(id);
    const listed = (await rpc(server.url, "message/send", { message: v03Message('{"tool": "get_evaluation_results", "arguments": {"list": true}}') }, { token: TOKEN_A })).body.result as Json;
    expect(JSON.stringify(listed.artifacts)).toContain(`"evaluation_id":"${id}"`);
  });

  it("a disallowed agent host is refused without a connection, also when the agent's card names another host (gateway rewrite)", async () => {
    const elsewhere = await startFakeAgent({ card: CARD_V03, answer: () => ({ result: {} }) });
    opened.push(elsewhere);
    const server = await serve(data, { allowAgentHosts: ["127.0.0.1"] });
    const other = elsewhere.url.replace("127.0.0.1", "127.0.0.2");
    const refused = (await rpc(server.url, "message/send", { message: v03Message(assessment(other)) })).body.result as Json;
    expect(stateOf(refused)).toBe("rejected");
    expect(textOf(refused)).toMatch(/the agent http:\/\/127\.0\.0\.2:\d+: the address 127\.0\.0\.2 is not allowed; allowed: 127\.0\.0\.1 .*nothing was sent/);
    // The card (from an allowed host) points elsewhere: refused after the card, before any message goes there.
    const target = await startFakeAgent({ card: CARD_V03, answer: () => ({ result: {} }) });
    opened.push(target);
    const gateway = await startFakeAgent({ card: { ...CARD_V03, url: target.url.replace("127.0.0.1", "127.0.0.3") }, answer: () => ({ result: {} }) });
    opened.push(gateway);
    const rewritten = (await rpc(server.url, "message/send", { message: v03Message(assessment(gateway.url)) })).body.result as Json;
    expect(stateOf(rewritten)).toBe("failed");
    expect(textOf(rewritten)).toMatch(/RPC URL \(from its card\) http:\/\/127\.0\.0\.3:\d+\/: the address 127\.0\.0\.3 is not allowed/);
    expect(gateway.rpc()).toHaveLength(0);
    expect(target.requests).toHaveLength(0);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("concurrency limits: beyond --max-evaluations an evaluation waits (queued, position 1); beyond --max-queued it is refused", async () => {
    const held = await agent(data, { hold: 0 });
    const quick = await agent(data);
    const server = await serve(data, { maxEvaluations: 1, maxQueued: 1 });
    const first = (await rpc(server.url, "message/send", { message: v03Message(assessment(held.url)), configuration: { blocking: false } })).body.result as Json;
    await held.held;
    const events: Json[] = [];
    const second = stream(server.url, "message/stream", { message: v03Message(assessment(quick.url)) }, { onEvent: (event) => void events.push(event) });
    while (!events.some((event) => /queued \(position 1\)/.test(textOf(event)))) await new Promise((resolve) => setTimeout(resolve, 20));
    const third = (await rpc(server.url, "message/send", { message: v03Message(assessment(quick.url)) })).body.result as Json;
    expect(stateOf(third)).toBe("rejected");
    expect(textOf(third)).toMatch(/the server is busy: 1 evaluation\(s\) running and 1 waiting \(--max-evaluations 1, --max-queued 1\)/);
    held.release();
    const finished = await second;
    expect(finished.at(-1)).toMatchObject({ status: { state: "completed" } });
    let task: Json = first;
    while (stateOf(task) !== "completed") task = (await rpc(server.url, "tasks/get", { id: first.id })).body.result as Json;
  });

  it("AgentBeats' model settings: a litellm-style user_llm on user_llm_args.api_base drives τ²'s LLM user simulator; num_tasks; a disallowed api_base is refused", async () => {
    // num_tasks 1: the first task of mock's base split.
    const scripted = await agent(data, { ids: ["create_task_1"] });
    const model = await startScriptedModelServer({
      scripts: { "user-model": [{ content: "Hello. Please create a task called 'Important Meeting' for user_1." }, { content: "Thank you. ###STOP###" }] },
    });
    opened.push(model);
    // "openai/…" is the openai provider (as litellm reads it), which wants a key: any value, set on the server's side.
    vi.stubEnv("OPENAI_API_KEY", "not-a-real-key");
    const server = await serve(data);
    const config = { domain: "mock", num_tasks: 1, user_llm: "openai/user-model", user_llm_args: { api_base: model.baseURL, temperature: 0 } };
    const result = (await rpc(server.url, "message/send", { message: v03Message(JSON.stringify({ participants: { agent: scripted.url }, config })) })).body.result as Json;
    expect(stateOf(result), textOf(result)).toBe("completed");
    expect(resultData(result)).toMatchObject({ domain: "mock", task_rewards: { create_task_1: 1 }, num_simulations: 1, score: 1, max_score: 1 });
    const calls = model.requests.filter((request) => request.path.endsWith("/chat/completions"));
    expect(calls.map((call) => [(call.body as Json).model, (call.body as Json).temperature])).toEqual([
      ["user-model", 0],
      ["user-model", 0],
    ]);
    model.assertAllConsumed();
    model.assertNoFailures();
    // A model endpoint the allow-list does not allow: refused before anything runs or connects.
    const strict = await serve(data, { allowAgentHosts: ["127.0.0.1"] });
    const elsewhere = { ...config, user_llm_args: { api_base: model.baseURL.replace("127.0.0.1", "127.0.0.2"), temperature: 0 } };
    const before = model.requests.length;
    const refused = (await rpc(strict.url, "message/send", { message: v03Message(JSON.stringify({ participants: { agent: scripted.url }, config: elsewhere })) })).body.result as Json;
    expect(stateOf(refused)).toBe("rejected");
    expect(textOf(refused)).toMatch(/user_llm_args\.api_base http:\/\/127\.0\.0\.2:\d+\/v1: the address 127\.0\.0\.2 is not allowed/);
    expect(model.requests.length).toBe(before);
  });

  it.skipIf(!tauBenchDirectory)('"suite": "tau-bench": task ids are indices into the test split', async () => {
    const tasks = JSON.parse((await import("node:fs")).readFileSync(join(tauBenchDirectory as string, "retail", "tasks_test.json"), "utf8")) as Array<{
      actions: Array<{ name: string; kwargs: Json }>;
    }>;
    const scripted = await startScriptedAgent({ sdk: "1.3", scripts: [[...tasks[0].actions.map((action) => ({ calls: [{ name: action.name, arguments: action.kwargs }] })), { say: "Done." }]] });
    opened.push(scripted);
    const server = await serve(data, { tauBenchDataDir: tauBenchDirectory as string });
    const result = (
      await rpc(server.url, "message/send", { message: v03Message(JSON.stringify({ participants: { agent: scripted.url }, config: { suite: "tau-bench", domain: "retail", task_ids: [0] } })) })
    ).body.result as Json;
    expect(stateOf(result)).toBe("completed");
    expect(resultData(result)).toMatchObject({ suite: "tau-bench", task_rewards: { "0": 1 }, a2a_metrics: { versions: ["1.0"] } });
  });
});
