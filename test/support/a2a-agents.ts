/**
 * Scripted remote agents built on the real A2A SDKs (`@a2a-js/sdk` 1.3.0, and 0.3.14 installed as
 * `a2a-v03`), on 127.0.0.1 with an ephemeral port: the peers the A2A client is tested against.
 * Each new conversation (a message without a `contextId`) takes the next script; each turn of it
 * answers with the script's next decision (tool calls, or words for the user), rendered in the
 * chosen reply format and agent style. Deterministic: no model, no timing.
 *
 * Styles: `message` (a message-only agent: the AgentBeats/τ² purple agents), `task` (every reply a
 * completed task with an artifact: Google ADK), `input-required` (one task per conversation, kept
 * waiting for input between turns: a hybrid agent).
 */
import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { AgentCard as AgentCardV1, Message as MessageV1, Task as TaskV1, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import { duplicateInterfacesForLegacy } from "@a2a-js/sdk/compat/v0_3";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import * as v03server from "a2a-v03/server";
import * as v03express from "a2a-v03/server/express";

/**
 * One decision of the remote agent: tool calls (several make one turn), or words for the user.
 * Arguments given as a string are JSON text written into the reply verbatim (so `100.0` stays a
 * float, as a Python agent's `json.dumps` writes it).
 */
export type Decision = { calls: Array<{ name: string; arguments: Record<string, unknown> | string }> } | { say: string };

type Call = Extract<Decision, { calls: unknown }>["calls"][number];

/** `{"name": …, "arguments": …}` with the arguments' text as given. */
function callText(call: Call, extra = ""): string {
  const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
  return `{"name": ${JSON.stringify(call.name)}, "arguments": ${args}${extra}}`;
}

const argumentsObject = (call: Call): Record<string, unknown> => (typeof call.arguments === "string" ? (JSON.parse(call.arguments) as Record<string, unknown>) : call.arguments);
const argumentsText = (call: Call): string => (typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments));

export type ReplyFormat = "json" | "data" | "json-tag" | "openai" | "fence" | "tool_call";
export type AgentStyle = "message" | "task" | "input-required";

export interface ScriptedAgentOptions {
  sdk: "1.3" | "0.3";
  style?: AgentStyle;
  format?: ReplyFormat;
  /** One script per conversation, taken in the order conversations start. */
  scripts: Decision[][];
  /** Require `Authorization: Bearer <token>` on the JSON-RPC route (the card stays public). */
  token?: string;
  /** Metadata to attach to each reply (e.g. ADK's usage metadata). */
  metadata?: Record<string, unknown>;
  /** Hold this conversation's (0-based, in start order) first turn until `release()`: a turn that takes as long as the test wants. */
  holdConversation?: number;
}

export interface ScriptedAgent {
  url: string;
  /** Every JSON-RPC request the agent received (parsed body and headers). */
  requests: Array<{ body: Record<string, unknown>; headers: Record<string, string | string[] | undefined> }>;
  /** The text of each message the agent received, by conversation (contextId) in arrival order. */
  conversations: Map<string, string[]>;
  /** Resolves when the held turn has arrived (see `holdConversation`). */
  held: Promise<void>;
  /** Lets the held turn (and any later one) answer. */
  release(): void;
  close(): Promise<void>;
}

/** The reply parts of a decision: the text (or data) the client must read back as the same decision. */
export function renderDecision(decision: Decision, format: ReplyFormat): { text?: string; data?: Record<string, unknown> } {
  if ("say" in decision) {
    if (format === "data") return { data: { name: "respond", arguments: { content: decision.say } } };
    if (format === "tool_call") return { text: decision.say };
    const respond = JSON.stringify({ name: "respond", arguments: { content: decision.say } });
    return format === "json-tag" ? { text: `<json>${respond}</json>` } : format === "fence" ? { text: `Here is my answer:\n\`\`\`json\n${respond}\n\`\`\`` } : { text: respond };
  }
  const calls = decision.calls;
  const many = (items: string[]) => `[${items.join(", ")}]`;
  switch (format) {
    case "data":
      return { data: { tool_calls: calls.map((call) => ({ name: call.name, arguments: argumentsObject(call) })) } };
    case "openai":
      return { text: JSON.stringify({ tool_calls: calls.map((call, index) => ({ id: `call_${index}`, type: "function", function: { name: call.name, arguments: argumentsText(call) } })) }) };
    case "tool_call":
      return { text: calls.length === 1 ? `{"tool_call": ${callText(calls[0])}}` : `{"tool_calls": ${many(calls.map((call) => `{"tool_call": ${callText(call)}}`))}}` };
    case "json-tag":
      return { text: calls.map((call) => `<json>${callText(call)}</json>`).join("\n") };
    case "fence":
      return { text: `I will call the tool now.\n\`\`\`json\n${calls.length === 1 ? callText(calls[0]) : many(calls.map((call) => callText(call)))}\n\`\`\`` };
    default:
      return { text: calls.length === 1 ? callText(calls[0]) : many(calls.map((call) => callText(call))) };
  }
}

/** The conversation state the scripted logic keeps per contextId. */
class Script {
  private readonly queue: Decision[][];
  private readonly positions = new Map<string, { script: Decision[]; next: number; index: number }>();
  readonly conversations = new Map<string, string[]>();
  private started = 0;
  private releaseHeld: () => void = () => undefined;
  private readonly releasing: Promise<void>;
  private arrived: () => void = () => undefined;
  readonly held: Promise<void>;

  constructor(
    scripts: Decision[][],
    private readonly hold?: number,
  ) {
    this.queue = scripts.map((script) => [...script]);
    this.releasing = new Promise((resolve) => {
      this.releaseHeld = resolve;
    });
    this.held = new Promise((resolve) => {
      this.arrived = resolve;
    });
  }

  release(): void {
    this.releaseHeld();
  }

  async decide(contextId: string, text: string): Promise<Decision> {
    let state = this.positions.get(contextId);
    if (!state) {
      state = { script: this.queue.shift() ?? [], next: 0, index: this.started++ };
      this.positions.set(contextId, state);
      this.conversations.set(contextId, []);
    }
    this.conversations.get(contextId)?.push(text);
    if (state.index === this.hold && state.next === 0) {
      this.arrived();
      await this.releasing;
    }
    const decision = state.script[state.next++];
    return decision ?? { say: "I have nothing more to do." };
  }
}

function listen(app: express.Express): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}` });
    });
  });
}

function recordingApp(requests: ScriptedAgent["requests"], token: string | undefined): express.Express {
  const app = express();
  app.use(express.json({ limit: "10mb" }));
  app.use((req, res, next) => {
    if (req.method === "POST") requests.push({ body: req.body as Record<string, unknown>, headers: req.headers });
    if (req.method === "POST" && token !== undefined && req.headers.authorization !== `Bearer ${token}`) {
      res.status(401).setHeader("WWW-Authenticate", 'Bearer realm="scripted"').json({ error: "unauthorized" });
      return;
    }
    next();
  });
  return app;
}

/** A scripted agent on `@a2a-js/sdk` 1.3.0 (v1.0 and, through legacy compat, v0.3). */
async function startV1(options: ScriptedAgentOptions, script: Script, requests: ScriptedAgent["requests"]): Promise<{ server: Server; url: string }> {
  const style = options.style ?? "message";
  const format = options.format ?? "json";
  const metadata = options.metadata;
  const partsOf = (decision: Decision) => {
    const rendered = renderDecision(decision, format);
    return rendered.data ? [{ data: rendered.data }] : [{ text: rendered.text }];
  };
  const executor: AgentExecutor = {
    async execute(context: RequestContext, bus: ExecutionEventBus) {
      const text = context.userMessage.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
      const decision = await script.decide(context.contextId, text);
      const parts = partsOf(decision);
      if (style === "message") {
        bus.publish(AgentEvent.message(MessageV1.fromJSON({ messageId: randomUUID(), contextId: context.contextId, role: "ROLE_AGENT", parts, ...(metadata ? { metadata } : {}) })));
        bus.finished();
        return;
      }
      const base = { id: context.taskId, contextId: context.contextId };
      if (context.task) bus.publish(AgentEvent.task(context.task));
      else bus.publish(AgentEvent.task(TaskV1.fromJSON({ ...base, status: { state: "TASK_STATE_SUBMITTED" }, history: [] })));
      if (style === "task") {
        bus.publish(
          AgentEvent.artifactUpdate(
            TaskArtifactUpdateEvent.fromJSON({
              taskId: base.id,
              contextId: base.contextId,
              artifact: { artifactId: randomUUID(), name: "reply", parts, ...(metadata ? { metadata } : {}) },
              lastChunk: true,
            }),
          ),
        );
        bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId: base.id, contextId: base.contextId, status: { state: "TASK_STATE_COMPLETED" } })));
      } else {
        const message = { messageId: randomUUID(), contextId: base.contextId, taskId: base.id, role: "ROLE_AGENT", parts };
        bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId: base.id, contextId: base.contextId, status: { state: "TASK_STATE_INPUT_REQUIRED", message } })));
      }
      bus.finished();
    },
    async cancelTask() {},
  };
  const placeholder = "http://127.0.0.1:1/";
  const card = AgentCardV1.fromJSON({
    name: "scripted-agent",
    description: "a scripted test agent (no model)",
    version: "1.0.0",
    supportedInterfaces: [{ url: placeholder, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: [{ id: "tau", name: "customer service", description: "answers customers", tags: ["test"] }],
  });
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const app = recordingApp(requests, options.token);
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
  app.use("/", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  const listening = await listen(app);
  card.supportedInterfaces = duplicateInterfacesForLegacy([{ url: `${listening.url}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }], ["JSONRPC"]);
  return listening;
}

/** A scripted agent on `@a2a-js/sdk` 0.3.14 (v0.3 only). */
async function startV03(options: ScriptedAgentOptions, script: Script, requests: ScriptedAgent["requests"]): Promise<{ server: Server; url: string }> {
  const style = options.style ?? "message";
  const format = options.format ?? "json";
  const metadata = options.metadata;
  const partsOf = (decision: Decision) => {
    const rendered = renderDecision(decision, format);
    return rendered.data ? [{ kind: "data" as const, data: rendered.data }] : [{ kind: "text" as const, text: rendered.text as string }];
  };
  const executor: v03server.AgentExecutor = {
    async execute(context, bus) {
      const text = context.userMessage.parts.map((part) => (part.kind === "text" ? part.text : "")).join("");
      const decision = await script.decide(context.contextId, text);
      const parts = partsOf(decision);
      if (style === "message") {
        bus.publish({ kind: "message", messageId: randomUUID(), contextId: context.contextId, role: "agent", parts, ...(metadata ? { metadata } : {}) });
        bus.finished();
        return;
      }
      const base = { taskId: context.taskId, contextId: context.contextId };
      bus.publish(context.task ?? { kind: "task", id: base.taskId, contextId: base.contextId, status: { state: "submitted", timestamp: new Date().toISOString() }, history: [] });
      if (style === "task") {
        bus.publish({ kind: "artifact-update", ...base, artifact: { artifactId: randomUUID(), name: "reply", parts, ...(metadata ? { metadata } : {}) }, lastChunk: true });
        bus.publish({ kind: "status-update", ...base, status: { state: "completed", timestamp: new Date().toISOString() }, final: true });
      } else {
        const message = { kind: "message" as const, messageId: randomUUID(), ...base, role: "agent" as const, parts };
        bus.publish({ kind: "status-update", ...base, status: { state: "input-required", message, timestamp: new Date().toISOString() }, final: true });
      }
      bus.finished();
    },
    async cancelTask() {},
  };
  const card = {
    name: "scripted-agent-v03",
    description: "a scripted test agent (no model), A2A 0.3",
    url: "http://127.0.0.1:1/",
    version: "0.3.0",
    protocolVersion: "0.3.0",
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "tau", name: "customer service", description: "answers customers", tags: ["test"] }],
  };
  const handler = new v03server.DefaultRequestHandler(card as never, new v03server.InMemoryTaskStore(), executor);
  const app = recordingApp(requests, options.token);
  app.use("/.well-known/agent-card.json", v03express.agentCardHandler({ agentCardProvider: handler }));
  app.use("/", v03express.jsonRpcHandler({ requestHandler: handler, userBuilder: v03express.UserBuilder.noAuthentication }));
  const listening = await listen(app);
  card.url = `${listening.url}/`;
  return listening;
}

/** Starts a scripted agent on the chosen SDK; `close()` stops it. */
export async function startScriptedAgent(options: ScriptedAgentOptions): Promise<ScriptedAgent> {
  const script = new Script(options.scripts, options.holdConversation);
  const requests: ScriptedAgent["requests"] = [];
  const { server, url } = options.sdk === "1.3" ? await startV1(options, script, requests) : await startV03(options, script, requests);
  return {
    url,
    requests,
    conversations: script.conversations,
    held: script.held,
    release: () => script.release(),
    close: () =>
      new Promise<void>((resolve) => {
        script.release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
