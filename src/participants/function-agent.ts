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
 * are stepped in order, each one agent action, before the function is asked again. Arguments may
 * be an object or the JSON text a model produced (read losslessly: `100.0` stays a float).
 */
import { resolve } from "node:path";
import type { Agent, AgentEpisodeContext, AgentInput, AgentSession, AgentTurn } from "../core/contracts.ts";
import { AgentProtocolError, ConfigError } from "../core/errors.ts";
import type { ChatMessage, JsonValue } from "../core/types.ts";
import { fromJs, isPyDict, pyJsonDumps, type PyValue } from "../value/index.ts";
import { parseToolArguments } from "./tool-calling-agent.ts";
import { loadUserAgentModule } from "./user-module.ts";
import { ChatTranscript } from "./chat-transcript.ts";

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

export type RespondFunction = (request: FunctionAgentRequest) => FunctionAgentReply | Promise<FunctionAgentReply>;

/** Loads a function agent from a module path (its `respond` export, or the one named by `exportName`). */
export async function loadFunctionAgent(modulePath: string, exportName = "respond"): Promise<FunctionAgent> {
  const source = await loadUserAgentModule(resolve(modulePath), exportName);
  if (typeof source.value !== "function") throw new ConfigError(`agent module ${modulePath}: "${exportName}" must be a function ({messages, tools, signal}) => {content} | {toolCalls}`);
  return new FunctionAgent(source.value as RespondFunction);
}

/** The agent for a `respond` function; one function serves every episode (it gets the whole conversation each time). */
export class FunctionAgent implements Agent {
  readonly name = "module";

  constructor(private readonly respond: RespondFunction) {}

  start(context: AgentEpisodeContext): AgentSession {
    return new FunctionSession(this.respond, context);
  }
}

class FunctionSession implements AgentSession {
  private readonly transcript: ChatTranscript;
  private readonly queued: AgentTurn[] = [];
  private readonly invalidReplies: JsonValue[] = [];
  private calls = 0;

  constructor(
    private readonly respond: RespondFunction,
    private readonly context: AgentEpisodeContext,
  ) {
    this.transcript = new ChatTranscript(context.recorder);
    this.transcript.append({ role: "system", content: context.domain.policy });
  }

  async turn(input: AgentInput, signal: AbortSignal): Promise<AgentTurn> {
    this.transcript.receive(input);
    const next = this.queued.shift();
    if (next) return next;
    const reply = await this.respond({
      messages: structuredClone(this.transcript.messages),
      tools: this.context.domain.toolSchemas.json.map((tool) => structuredClone(tool)),
      signal,
      episode: this.context.episode,
    });
    return this.read(reply);
  }

  /** Turns the function's reply into turns: the first is returned, the rest queued. */
  private read(reply: FunctionAgentReply): AgentTurn {
    if (!reply || typeof reply !== "object") throw new AgentProtocolError(`respond() returned ${String(reply)}; expected {content} or {toolCalls}`);
    const toolCalls = (reply as { toolCalls?: unknown }).toolCalls;
    if (Array.isArray(toolCalls) && toolCalls.length > 0) {
      const turns = toolCalls.map((call) => this.toolTurn(call));
      const recorded = turns.map((turn, index) => ({
        id: (turn as { toolCallId: string }).toolCallId,
        type: "function" as const,
        function: { name: turn.type === "tool_call" ? turn.action.name : (turn as { name: string }).name, arguments: argumentText(toolCalls[index]) },
      }));
      this.transcript.append({ role: "assistant", content: typeof reply.content === "string" ? reply.content : null, tool_calls: recorded });
      this.queued.push(...turns.slice(1));
      return turns[0];
    }
    if (typeof reply.content !== "string") throw new AgentProtocolError("respond() must return {content: string} or {toolCalls: [{name, arguments}]}");
    this.transcript.append({ role: "assistant", content: reply.content });
    return { type: "respond", content: reply.content };
  }

  private toolTurn(call: unknown): AgentTurn {
    const id = `call_module_${++this.calls}`;
    if (!call || typeof call !== "object" || typeof (call as FunctionToolCall).name !== "string") {
      const error = `Error: a tool call must be {name, arguments}; got ${JSON.stringify(call)}`;
      this.invalidReplies.push({ id, error });
      return { type: "invalid", name: String((call as { name?: unknown } | null)?.name ?? ""), error, toolCallId: id };
    }
    const { name, arguments: args } = call as FunctionToolCall;
    const toolCallId = (call as FunctionToolCall).id ?? id;
    if (typeof args === "string") {
      const parsed = parseToolArguments(name, args);
      if (!parsed.ok) return { type: "invalid", name, error: parsed.error, toolCallId };
      return { type: "tool_call", action: { name, kwargs: parsed.kwargs }, toolCallId };
    }
    const kwargs: PyValue = fromJs(args ?? {});
    if (!isPyDict(kwargs)) return { type: "invalid", name, error: `Error: the arguments of ${name} must be an object`, toolCallId };
    return { type: "tool_call", action: { name, kwargs }, toolCallId };
  }

  finish(input: AgentInput): void {
    this.transcript.receive(input);
  }

  extra(): Record<string, JsonValue> | undefined {
    return this.invalidReplies.length > 0 ? { invalidToolCalls: this.invalidReplies } : undefined;
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
