/**
 * The remote agent as a participant: an agent behind the Agent2Agent protocol, evaluated like any
 * other agent strategy, on both suites, through the episode kernel. One conversation (`contextId`)
 * per episode; one A2A send per agent turn; unfinished tasks polled (or streamed); the reply read
 * in any style (`actions.ts`) as words for the user or tool calls, several in one turn when the
 * agent makes several; every HTTP exchange measured and kept with the episode (`extra().protocol`).
 */
import { randomUUID } from "node:crypto";
import type { ProtocolExchange, ProtocolLog } from "../../core/episode-record.ts";
import type { Incoming, Participant, ParticipantContext, ParticipantSession, ToolCall, Turn } from "../../core/contracts.ts";
import type { ChatMessage, JsonValue, ToolCallRecord } from "../../core/types.ts";
import { fromJs, isPyDict, type PyDict, pyJsonDumps, pyTypeName } from "../../value/index.ts";
import { A2AAuthError, A2AEndpointRefusedError, A2AProtocolError, A2ATaskError, A2ATimeoutError, A2ATransportError } from "./errors.ts";
import { parseReply, type ParsedCall } from "./actions.ts";
import type { AgentCardInfo } from "./card.ts";
import { A2AHttp } from "./http.ts";
import type { HostPolicy } from "./host-policy.ts";
import { isObject, jsonText, numberField, type Plain, type PlainObject, parseJson } from "./json.ts";
import { firstMessage, laterMessage, type Profile } from "./prompts.ts";
import { A2AConnection, type CallContext, type ExchangeFacts } from "./rpc.ts";
import { applyStreamEvent, INTERRUPTED_STATES, messageParams, readResult, readStreamEvent, TERMINAL_STATES, type WirePart, type WireResult, type WireTask, WireShapeError } from "./wire.ts";

/** The client's settings (from `--agent-endpoint`, `--agent-a2a-*` and `--agent-option`s). */
export interface A2AAgentSettings {
  endpoint: string;
  /** Seconds the agent has for one turn (its reply, polls and stream included). */
  timeoutSeconds: number;
  /** The bearer token, if any (read from the variable `--agent-a2a-token-env` names). */
  token: string | null;
  profile: Profile;
  /**
   * `send` (default): a blocking send, then polls while the task is unfinished; `poll`: a
   * non-blocking send, then polls; `stream`: SSE when the card offers it (else `send`).
   */
  mode: "send" | "poll" | "stream";
  retries: number;
  retryDelayMs: number;
  /** First poll interval (doubled up to 1 s). */
  pollIntervalMs: number;
  policy?: HostPolicy;
  debug?: (line: string) => void;
}

/** Estimated tokens of a text (about 4 characters per token), labelled as an estimate wherever shown. */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Token counts an agent reports in metadata: ADK's and kagent's usage metadata, or a `usage` object. */
export function reportedTokens(metadata: PlainObject | null): { input: number; output: number } | null {
  if (!metadata) return null;
  for (const key of ["adk_usage_metadata", "kagent_usage_metadata", "usage_metadata"]) {
    const usage = metadata[key];
    if (isObject(usage)) {
      const input = numberField(usage, "promptTokenCount") ?? numberField(usage, "prompt_token_count");
      const output = numberField(usage, "candidatesTokenCount") ?? numberField(usage, "candidates_token_count");
      if (input !== undefined || output !== undefined) return { input: input ?? 0, output: output ?? 0 };
    }
  }
  const usage = metadata.usage;
  if (isObject(usage)) {
    const input = numberField(usage, "input_tokens") ?? numberField(usage, "prompt_tokens") ?? numberField(usage, "inputTokens");
    const output = numberField(usage, "output_tokens") ?? numberField(usage, "completion_tokens") ?? numberField(usage, "outputTokens");
    if (input !== undefined || output !== undefined) return { input: input ?? 0, output: output ?? 0 };
  }
  return null;
}

/** Every metadata block of a result (task, its status message, artifacts; or the message). */
function metadataBlocks(result: WireResult): PlainObject[] {
  if (result.type === "message") return result.message.metadata ? [result.message.metadata] : [];
  const { task } = result;
  return [task.metadata, task.statusMessage?.metadata ?? null, ...task.artifacts.map((artifact) => artifact.metadata)].filter((block): block is PlainObject => block !== null);
}

function resultFacts(result: WireResult): ExchangeFacts {
  if (result.type === "message") return { contextId: result.message.contextId, taskId: result.message.taskId, taskState: null };
  return { contextId: result.task.contextId, taskId: result.task.id, taskState: result.task.state };
}

/** The parts that carry a reply, by the state of its task (README, "Replies"). */
function replyParts(result: WireResult): WirePart[] {
  if (result.type === "message") return result.message.parts;
  const { task } = result;
  const artifacts = task.artifacts.flatMap((artifact) => artifact.parts);
  const status = task.statusMessage?.parts ?? [];
  const fromHistory = [...task.history].reverse().find((message) => message.role === "agent")?.parts ?? [];
  const ordered = task.state === "input-required" ? [status, artifacts, fromHistory] : [artifacts, status, fromHistory];
  return ordered.find((parts) => parts.length > 0) ?? [];
}

function statusText(task: WireTask): string {
  return (task.statusMessage?.parts ?? [])
    .map((part) => (part.kind === "text" ? part.text : part.kind === "data" ? jsonText(part.data) : ""))
    .join(" ")
    .trim();
}

/** One episode's conversation with the remote agent. */
class A2ASession implements ParticipantSession {
  private contextId: string | null = null;
  /** The agent's task waiting for input (`input-required`): the next message continues it. */
  private pendingTaskId: string | null = null;
  private turn = 0;
  private readonly exchanges: ProtocolExchange[] = [];

  constructor(
    private readonly agent: A2AAgent,
    private readonly context: ParticipantContext,
  ) {}

  async next(incoming: Incoming | null, signal: AbortSignal): Promise<Turn> {
    const turn = ++this.turn;
    const text =
      turn === 1
        ? firstMessage(this.agent.settings.profile, this.context.domain, this.context.history, incoming)
        : laterMessage(this.agent.settings.profile, this.context.domain, incoming ?? { type: "text", content: "" });
    this.receive(incoming);
    const messageId = randomUUID();
    const callContext: CallContext = {
      turn,
      messageId,
      signal,
      deadline: performance.now() + this.agent.settings.timeoutSeconds * 1000,
      record: (exchange) => this.exchanges.push(exchange),
    };
    const result = await this.agent.guardFirstCall(() => this.reply(text, callContext));
    return this.turnOf(result, turn);
  }

  /** What arrived, in the transcript (τ-bench's `traj` of this agent: the conversation as the harness saw it). */
  private receive(incoming: Incoming | null): void {
    if (!incoming) return;
    if (incoming.type === "text") this.context.transcript.addMessage({ role: "user", content: incoming.content ?? "" });
    else for (const result of incoming.results) this.context.transcript.addMessage({ role: "tool", tool_call_id: result.id, name: result.name, content: result.content });
  }

  finish(incoming: Incoming): void {
    this.receive(incoming);
  }

  /** Sends one message and waits for the reply: a blocking send (or a stream), then polls while the task is unfinished. */
  private async reply(text: string, call: CallContext): Promise<WireResult> {
    const poll = this.agent.settings.mode === "poll";
    const params = (version: "0.3" | "1.0"): PlainObject => ({
      message: messageParams(version, { messageId: call.messageId as string, text, contextId: this.contextId, taskId: this.pendingTaskId }),
      ...(poll ? { configuration: version === "0.3" ? { blocking: false } : { returnImmediately: true } } : {}),
    });
    const connection = this.agent.connection;
    let result = this.agent.streams ? await this.streamed(params, call, text) : this.read(await connection.call("send", params, call, (raw) => this.facts(raw, text)), call);
    while (result.type === "task" && !TERMINAL_STATES.has(result.task.state) && !INTERRUPTED_STATES.has(result.task.state)) result = await this.poll(result.task, call);
    return result;
  }

  private read(raw: Plain, call: CallContext): WireResult {
    try {
      return readResult(raw);
    } catch (error) {
      if (error instanceof WireShapeError) {
        const failure = new A2AProtocolError(`the A2A agent's reply is unreadable: ${error.message}`, { url: this.agent.connection.rpcUrl });
        const last = this.exchanges.at(-1);
        if (last && last.turn === call.turn) last.error = { type: failure.name, message: failure.message };
        throw failure;
      }
      throw error;
    }
  }

  /** Exchange facts of a raw result (shape errors are reported by {@link read}). */
  private facts(raw: Plain, sent: string): ExchangeFacts {
    try {
      return this.factsOf(readResult(raw), sent);
    } catch {
      return {};
    }
  }

  /** What an answer says about the task, and its tokens: as the agent reported them, else estimated from the texts. */
  private factsOf(result: WireResult, sent: string): ExchangeFacts {
    const reported = metadataBlocks(result)
      .map(reportedTokens)
      .find((tokens) => tokens !== null);
    const replyText = replyParts(result)
      .map((part) => (part.kind === "text" ? part.text : part.kind === "data" ? jsonText(part.data) : ""))
      .join("\n");
    const tokens = reported ? { ...reported, source: "reported" as const } : { input: estimateTokens(sent), output: estimateTokens(replyText), source: "estimated" as const };
    return { ...resultFacts(result), tokens };
  }

  private async streamed(params: (version: "0.3" | "1.0") => PlainObject, call: CallContext, sent: string): Promise<WireResult> {
    let current: WireResult | null = null;
    for await (const raw of this.agent.connection.stream(params, call, () => (current ? this.factsOf(current, sent) : {}))) {
      let event;
      try {
        event = readStreamEvent(raw);
      } catch (error) {
        if (error instanceof WireShapeError) throw new A2AProtocolError(`an event of the A2A agent's stream is unreadable: ${error.message}`, { url: this.agent.connection.rpcUrl });
        throw error;
      }
      current = applyStreamEvent(current, event);
      if (current.type === "message") break;
      // A task snapshot opens the stream; when it continues a task that waited for input, its state is
      // still the old one: only status events end the turn (or the end of the stream).
      if (event.type !== "status") continue;
      if (event.final || TERMINAL_STATES.has(event.state)) break;
    }
    if (current === null) throw new A2AProtocolError("the A2A agent's stream ended without an event", { url: this.agent.connection.rpcUrl });
    return current;
  }

  /** One poll of an unfinished task, after a wait that grows from the poll interval to 1 s. */
  private async poll(task: WireTask, call: CallContext): Promise<WireResult> {
    const polls = this.exchanges.filter((exchange) => exchange.turn === call.turn && exchange.method.toLowerCase().includes("get")).length;
    const wait = Math.min(1000, this.agent.settings.pollIntervalMs * 2 ** polls);
    if (performance.now() + wait > call.deadline)
      throw new A2ATimeoutError(`the A2A agent's task ${task.id} was still ${task.state} when the turn's ${this.agent.settings.timeoutSeconds} s were up`, {
        url: this.agent.connection.rpcUrl,
        phase: "poll",
      });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      call.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
    });
    call.signal.throwIfAborted();
    const raw = await this.agent.connection.call(
      "get",
      () => ({ id: task.id, historyLength: 1 }),
      { ...call, messageId: null },
      (value) => this.facts(value, ""),
    );
    const result = this.read(raw, call);
    if (result.type !== "task") throw new A2AProtocolError(`the A2A agent answered a poll of task ${task.id} with a message`, { url: this.agent.connection.rpcUrl });
    return result;
  }

  /** The reply as a turn: its state checked, its context kept, its parts read as words or tool calls. */
  private turnOf(result: WireResult, turn: number): Turn {
    const url = this.agent.connection.rpcUrl;
    this.pendingTaskId = null;
    if (result.type === "task") {
      const { task } = result;
      if (task.state === "auth-required") throw new A2AAuthError(`the A2A agent's task ${task.id} asks for authorization (auth-required): ${statusText(task) || "no reason given"}`, { url });
      if (task.state === "failed" || task.state === "rejected" || task.state === "canceled")
        throw new A2ATaskError(`the A2A agent reported its task ${task.state}: ${statusText(task) || "no reason given"}`, { url, state: task.state });
      if (task.state === "input-required") this.pendingTaskId = task.id;
      if (task.contextId) this.contextId = task.contextId;
    } else if (result.message.contextId) this.contextId = result.message.contextId;
    const parsed = parseReply(replyParts(result));
    const last = this.exchanges.at(-1);
    if (parsed.content === null && parsed.calls.length === 0) {
      const failure = new A2AProtocolError(`the A2A agent's reply at turn ${turn} has no text and no tool call (empty_response)`, { url });
      if (last) last.error = { type: "empty_response", message: failure.message };
      throw failure;
    }
    // A remote agent's spend is unknown (cost null, never 0); its tokens only when it reports them.
    const reported = metadataBlocks(result)
      .map(reportedTokens)
      .find((tokens) => tokens !== null);
    this.context.usage.addUnpriced(1, reported?.input ?? 0, reported?.output ?? 0);
    const toolCalls = parsed.calls.map((call, index) => toolCallOf(call, turn, index));
    this.context.transcript.addMessage(transcriptMessage(parsed.content, toolCalls));
    return { content: parsed.content, toolCalls, cost: null, usage: reported ? { prompt_tokens: reported.input, completion_tokens: reported.output } : null, raw: { style: parsed.style } };
  }

  extra(): Record<string, JsonValue> {
    const log: ProtocolLog = {
      protocol: "a2a",
      version: this.agent.connection.version,
      endpoint: this.agent.settings.endpoint,
      rpcUrl: this.agent.connection.rpcUrl,
      agent: { name: this.agent.card.name, version: this.agent.card.version },
      exchanges: this.exchanges,
    };
    return { protocol: log as unknown as JsonValue };
  }
}

/** An agent's tool call as a turn's call: its arguments read losslessly, a malformed one kept as invalid (the agent is told). */
function toolCallOf(call: ParsedCall, turn: number, index: number): ToolCall {
  const id = call.id ?? `a2a_${turn}_${index}`;
  let args: Plain | undefined = call.arguments;
  if (typeof args === "string") {
    const text = args;
    try {
      args = text.trim() === "" ? {} : parseJson(text);
    } catch {
      return { id, name: call.name, arguments: new Map(), invalid: `Error: the arguments of ${call.name} are not valid JSON: ${text.slice(0, 200)}` };
    }
  }
  const value = args === undefined || args === null ? new Map() : fromJs(args);
  if (!isPyDict(value)) return { id, name: call.name, arguments: new Map(), invalid: `Error: the arguments of ${call.name} must be a JSON object, not ${pyTypeName(value)}` };
  return { id, name: call.name, arguments: value as PyDict };
}

function transcriptMessage(content: string | null, calls: readonly ToolCall[]): ChatMessage {
  if (calls.length === 0) return { role: "assistant", content };
  const toolCalls: ToolCallRecord[] = calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: pyJsonDumps(call.arguments) } }));
  return { role: "assistant", content, tool_calls: toolCalls };
}

/**
 * The remote agent of a run: its card read once (before the first episode), one connection pool,
 * one session per episode. `unreachable()` stops the run when the endpoint refused its first call.
 */
export class A2AAgent implements Participant {
  readonly name = "a2a";
  private refused: Error | undefined;

  constructor(
    readonly settings: A2AAgentSettings,
    readonly card: AgentCardInfo,
    readonly connection: A2AConnection,
    private readonly http: A2AHttp,
  ) {}

  /** Streams when asked to and the card says the agent streams. */
  get streams(): boolean {
    return this.settings.mode === "stream" && this.card.streaming;
  }

  start(context: ParticipantContext): ParticipantSession {
    return new A2ASession(this, context);
  }

  /**
   * Runs a turn's exchange; while the endpoint has never answered, a failure that means nobody is
   * there (no answer, 401/403, 404/405) marks the run unreachable (exit 2, naming the URL).
   */
  async guardFirstCall<T>(body: () => Promise<T>): Promise<T> {
    if (this.connection.answered) return body();
    try {
      return await body();
    } catch (error) {
      if (!this.connection.answered && !this.refused && error instanceof Error && endpointIsDown(error)) {
        this.refused = new A2AEndpointRefusedError(
          `the A2A agent at ${this.settings.endpoint} refused the run's first call (${this.connection.rpcUrl}): ${error.message}`,
          { url: this.connection.rpcUrl },
          { cause: error },
        );
      }
      throw error;
    }
  }

  unreachable(): Error | undefined {
    return this.refused;
  }

  async close(): Promise<void> {
    await this.http.close();
  }
}

function endpointIsDown(error: Error): boolean {
  if (A2ATransportError.isInstance(error) || A2AAuthError.isInstance(error)) return true;
  if (A2AProtocolError.isInstance(error)) return error.details.httpStatus === 404 || error.details.httpStatus === 405;
  return false;
}
