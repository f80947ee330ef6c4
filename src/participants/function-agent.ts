/**
 * The function agent (`--agent-strategy module --agent-module ./my-agent.ts`): the simplest way to
 * put an in-house agent under test when it is neither a supported framework nor a bare model. The
 * module exports one function,
 *
 * ```ts
 * export async function respond({ messages, tools, signal }) {
 *   return { content: "How can I help?" };                                  // say something to the user
 *   return { toolCalls: [{ name: "get_order_details", arguments: { order_id: "#W1" } }] }; // or call tools
 * }
 * ```
 *
 * called once per decision with the conversation so far (OpenAI chat messages: the policy as the
 * system message, the user's words, the agent's earlier replies and tool calls, and the tool
 * results) and the domain's tools (OpenAI function-tool schemas). Several tool calls in one answer
 * are one turn: τ-bench steps them in order, each one agent action; τ² sends them as one message,
 * and the function is asked again with all their results. Arguments may
 * be an object or the JSON text a model produced (read losslessly: `100.0` stays a float).
 *
 * By default the module runs in worker threads (`function-agent-pool.ts`: a synchronous infinite
 * loop is stopped by the episode timeout, `process.exit` ends only the worker, and what state a
 * module keeps between episodes); `--agent-isolation none` runs it in the harness's own thread.
 */
import { resolve } from "node:path";
import type { Incoming, Participant, ParticipantContext, ParticipantSession, ToolCall, Turn } from "../core/contracts.ts";
import { AgentProtocolError, ConfigError } from "../errors/error-tree.ts";
import type { ChatMessage, JsonValue } from "../core/types.ts";
import { fromJs, isPyDict, pyJsonDumps, type PyValue } from "../value/index.ts";
import { parseToolArguments } from "./tool-calling-agent.ts";
import { loadUserAgentModule } from "./user-module.ts";
import { ChatTranscript } from "./chat-transcript.ts";
import { FunctionAgentPool } from "./function-agent-pool.ts";

/** One tool call as the user's function returns it. */
export interface FunctionToolCall {
  name: string;
  /** An object of named arguments, or their JSON text. Default `{}`. */
  arguments?: Record<string, unknown> | string;
  /** An id for the trajectory; generated when missing. */
  id?: string;
}

/** What the user's `respond` returns: words for the user, or tool calls. */
export type FunctionAgentReply = { content: string; toolCalls?: undefined } | { toolCalls: FunctionToolCall[]; content?: string | null };

/** What the user's `respond` receives. */
export interface FunctionAgentRequest {
  /** The conversation so far, OpenAI chat shapes (a copy: the function may keep or change it). */
  messages: ChatMessage[];
  /** The tools the agent may call, OpenAI function-tool form. */
  tools: Record<string, unknown>[];
  /** Aborted when the episode times out or the run is interrupted. */
  signal: AbortSignal;
  /** Which episode this is (for the function's own logs). */
  episode: { taskIndex: number; trial: number };
}

/** An episode's hold on where `respond` runs: the harness's thread, or one worker of a pool. */
interface FunctionAgentLease {
  respond(request: FunctionAgentRequest): Promise<FunctionAgentReply>;
  release(): void;
}

export type RespondFunction = (request: FunctionAgentRequest) => FunctionAgentReply | Promise<FunctionAgentReply>;

/** Where `respond` runs: in worker threads (the default), or in the harness's own thread. */
export type FunctionAgentIsolation = "worker" | "none";

export const FUNCTION_AGENT_ISOLATIONS: readonly FunctionAgentIsolation[] = ["worker", "none"];

/** Loads a function agent from a module path (its `respond` export, or the one named by `exportName`). */
export async function loadFunctionAgent(modulePath: string, exportName = "respond", options: { isolation?: FunctionAgentIsolation } = {}): Promise<FunctionAgent> {
  const isolation = options.isolation ?? "worker";
  if (!FUNCTION_AGENT_ISOLATIONS.includes(isolation)) throw new ConfigError(`agent isolation must be one of ${FUNCTION_AGENT_ISOLATIONS.join(", ")}, got "${String(isolation)}"`);
  if (isolation === "worker") {
    const pool = await FunctionAgentPool.open({ modulePath: resolve(modulePath), displayPath: modulePath, exportName, agentName: 'the agent "module"' });
    return new FunctionAgent(pool);
  }
  const source = await loadUserAgentModule(resolve(modulePath), exportName);
  if (typeof source.value !== "function") throw new ConfigError(`agent module ${modulePath}: "${exportName}" must be a function ({messages, tools, signal}) => {content} | {toolCalls}`);
  return new FunctionAgent(source.value as RespondFunction);
}

/**
 * The agent for a `respond` function; one function serves every episode (it gets the whole
 * conversation each time). Given the function, it calls it in the harness's own thread; given a
 * {@link FunctionAgentPool}, it sends each episode's turns to one of the pool's workers.
 */
export class FunctionAgent implements Participant {
  readonly name = "module";

  constructor(private readonly source: RespondFunction | FunctionAgentPool) {}

  start(context: ParticipantContext): ParticipantSession {
    const source = this.source;
    const lease: FunctionAgentLease = source instanceof FunctionAgentPool ? (source.lease() as FunctionAgentLease) : { respond: async (request) => source(request), release: () => undefined };
    return new FunctionSession(lease, context, source instanceof FunctionAgentPool);
  }

  /** Ends the workers (the end of the run). */
  async close(): Promise<void> {
    if (this.source instanceof FunctionAgentPool) await this.source.close();
  }
}

class FunctionSession implements ParticipantSession {
  /** In a worker, a turn past τ²'s timeout can be stopped (the worker is replaced). */
  readonly stopsAtTimeout: boolean;
  private readonly transcript: ChatTranscript;
  private readonly invalidReplies: JsonValue[] = [];
  private calls = 0;

  constructor(
    private readonly lease: FunctionAgentLease,
    private readonly context: ParticipantContext,
    isolated: boolean,
  ) {
    this.stopsAtTimeout = isolated;
    this.transcript = new ChatTranscript(context.transcript);
    this.transcript.append({ role: "system", content: context.domain.policy });
  }

  async next(incoming: Incoming | null, signal: AbortSignal): Promise<Turn> {
    if (incoming) this.transcript.receive(incoming);
    const reply = await this.lease.respond({
      messages: structuredClone(this.transcript.messages),
      tools: this.context.domain.toolSchemas.json.map((tool) => structuredClone(tool)),
      signal,
      episode: { taskIndex: this.context.episode.taskIndex, trial: this.context.episode.trial },
    });
    return this.read(reply);
  }

  /** Turns the function's reply into a turn: its words, or its tool calls (recorded as one assistant message). */
  private read(reply: FunctionAgentReply): Turn {
    if (!reply || typeof reply !== "object") throw new AgentProtocolError(`respond() returned ${String(reply)}; expected {content} or {toolCalls}`);
    const toolCalls = (reply as { toolCalls?: unknown }).toolCalls;
    if (Array.isArray(toolCalls) && toolCalls.length > 0) {
      const calls = toolCalls.map((call) => this.toolCall(call));
      const recorded = calls.map((call, index) => ({ id: call.id, type: "function" as const, function: { name: call.name, arguments: argumentText(toolCalls[index]) } }));
      const content = typeof reply.content === "string" ? reply.content : null;
      this.transcript.append({ role: "assistant", content, tool_calls: recorded });
      return { content, toolCalls: calls };
    }
    if (typeof reply.content !== "string") throw new AgentProtocolError("respond() must return {content: string} or {toolCalls: [{name, arguments}]}");
    this.transcript.append({ role: "assistant", content: reply.content });
    return { content: reply.content, toolCalls: [] };
  }

  private toolCall(call: unknown): ToolCall {
    const id = `call_module_${++this.calls}`;
    if (!call || typeof call !== "object" || typeof (call as FunctionToolCall).name !== "string") {
      const error = `Error: a tool call must be {name, arguments}; got ${JSON.stringify(call)}`;
      this.invalidReplies.push({ id, error });
      return { id, name: String((call as { name?: unknown } | null)?.name ?? ""), arguments: new Map(), invalid: error };
    }
    const { name, arguments: args } = call as FunctionToolCall;
    const toolCallId = (call as FunctionToolCall).id ?? id;
    if (typeof args === "string") {
      const parsed = parseToolArguments(name, args);
      return parsed.ok ? { id: toolCallId, name, arguments: parsed.kwargs } : { id: toolCallId, name, arguments: new Map(), invalid: parsed.error };
    }
    const kwargs: PyValue = fromJs(args ?? {});
    if (!isPyDict(kwargs)) return { id: toolCallId, name, arguments: new Map(), invalid: `Error: the arguments of ${name} must be an object` };
    return { id: toolCallId, name, arguments: kwargs };
  }

  finish(incoming: Incoming): void {
    this.transcript.receive(incoming);
  }

  extra(): Record<string, JsonValue> | undefined {
    return this.invalidReplies.length > 0 ? { invalidToolCalls: this.invalidReplies } : undefined;
  }

  /** Hands the episode's worker back (or ends it, when a turn is still running: it was aborted). */
  async close(): Promise<void> {
    this.lease.release();
  }
}

function argumentText(call: unknown): string {
  const args = (call as FunctionToolCall | null)?.arguments;
  if (typeof args === "string") return args;
  try {
    return pyJsonDumps(fromJs(args ?? {}));
  } catch {
    return "{}";
  }
}
