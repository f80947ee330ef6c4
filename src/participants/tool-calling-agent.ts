/**
 * τ-bench's tool-calling agent (τ-bench: tau_bench/agents/tool_calling_agent.py, ToolCallingAgent),
 * driven through our model layer: the model gets the policy as system prompt and the domain tools in
 * the API's `tools` field; the first tool call of each reply becomes the environment action, a reply
 * without tool calls is said to the user.
 *
 * Also home of the small helpers every model-driven agent shares (prompt values, respond actions,
 * tool-argument parsing), so the few-shot, act/react and human agents agree on them.
 */
import { RESPOND_ACTION_FIELD_NAME, RESPOND_ACTION_NAME, type Action, type JsonValue } from "../core/types.ts";
import type { ChatModel } from "../core/contracts.ts";
import type { CompletionResult, ToolDefinition } from "../model/types.ts";
import { JsonSyntaxError, parsePythonJson } from "../value/index.ts";
import { isPyDict, pyTypeName, type PyDict } from "../value/index.ts";
import type { DomainView, Incoming, Participant, ParticipantContext, ParticipantSession, Turn } from "../core/contracts.ts";
import { renderTemplate, TOOL_CALLING_TEMPLATE, type AgentPromptValues } from "./prompts.ts";
import { ChatTranscript } from "./chat-transcript.ts";

/** The values every agent template can use for a domain. */
export function domainPromptValues(domain: DomainView): AgentPromptValues {
  return {
    policy: domain.policy,
    tools_json: domain.toolSchemas.pythonJson,
    tool_names: domain.toolNames.join(", "),
    respond_action_name: RESPOND_ACTION_NAME,
  };
}

/** A respond action (τ-bench: `Action(name="respond", kwargs={"content": content})`; content may be None). */
export function respondAction(content: string | null): Action {
  return { name: RESPOND_ACTION_NAME, kwargs: new Map([[RESPOND_ACTION_FIELD_NAME, content]]) };
}

/** Outcome of reading a tool call's `arguments` text. */
export type ParsedArguments = { ok: true; kwargs: PyDict } | { ok: false; error: string };

/**
 * Parses tool-call arguments with Python's `json.loads` semantics (lossless: `100.0` stays a float,
 * key order is kept), because the values end up in the hashed database.
 *
 * Deliberate fix: where the original raises (and loses the whole task), a malformed text or a
 * non-object gives an `Error: ...` observation that the caller feeds back to the model.
 */
export function parseToolArguments(name: string, text: string): ParsedArguments {
  let value;
  try {
    value = parsePythonJson(text);
  } catch (error) {
    const detail = JsonSyntaxError.isInstance(error) ? error.message : String(error);
    return { ok: false, error: `Error: the arguments of ${name} are not valid JSON: ${detail}` };
  }
  if (!isPyDict(value)) return { ok: false, error: `Error: the arguments of ${name} must be a JSON object, not ${pyTypeName(value)}` };
  return { ok: true, kwargs: value };
}

/** Options of {@link ToolCallingAgent}. */
export interface ToolCallingAgentOptions {
  /** The agent role's model client (usage is also summed per episode by the agent). */
  client: ChatModel;
  domain: DomainView;
  /** System prompt template (default: the policy alone). */
  template?: string;
}

/** What one episode's system prompt is, plus strategy data for the results file. */
export interface SystemPrompt {
  content: string;
  extra?: Record<string, JsonValue>;
}

/**
 * The tool-calling agent. Message handling follows the original exactly: only the first tool call
 * is used (and kept in the history), arguments are parsed losslessly, and the trajectory is the
 * message list the model saw, in the original's shapes (`{content, role}` /
 * `{content, role, tool_calls: [{function: {arguments, name}, id, type}]}` /
 * `{role, tool_call_id, name, content}`).
 */
export class ToolCallingAgent implements Participant {
  readonly name: string = "tool-calling";
  protected readonly tools: readonly ToolDefinition[];

  constructor(protected readonly options: ToolCallingAgentOptions) {
    this.tools = options.domain.toolSchemas.json as unknown as ToolDefinition[];
  }

  /** The system prompt of one episode (few-shot overrides this to add sampled examples). */
  protected systemPrompt(_episode: ParticipantContext["episode"]): SystemPrompt {
    return { content: renderTemplate(this.options.template ?? TOOL_CALLING_TEMPLATE, { ...domainPromptValues(this.options.domain) }, "agent prompt") };
  }

  /** taubridge's own code: run without the agent guard (see `Participant.trusted`). */
  readonly trusted = true;

  start(context: ParticipantContext): ParticipantSession {
    return new ToolCallingSession(this.options.client, this.tools, this.systemPrompt(context.episode), context);
  }
}

/** One episode of the tool-calling agent: the message list the model sees, one model call per turn. */
class ToolCallingSession implements ParticipantSession {
  private readonly transcript: ChatTranscript;
  private readonly invalidToolCalls: JsonValue[] = [];
  private turns = 0;

  constructor(
    private readonly client: ChatModel,
    private readonly tools: readonly ToolDefinition[],
    private readonly system: SystemPrompt,
    private readonly context: ParticipantContext,
  ) {
    this.transcript = new ChatTranscript(context.transcript);
    this.transcript.append({ role: "system", content: system.content });
  }

  async next(incoming: Incoming | null, signal: AbortSignal): Promise<Turn> {
    if (incoming) this.transcript.receive(incoming);
    const turn = this.turns++;
    const result: CompletionResult = await this.client.complete({ messages: this.transcript.messages, tools: this.tools, signal, cacheNamespace: `trial:${this.context.episode.trial}` });
    this.context.usage.add(result);
    const reply = result.message;
    const call = reply.tool_calls?.[0];
    if (!call) {
      this.transcript.append({ content: reply.content, role: "assistant" });
      return { content: reply.content, toolCalls: [] };
    }
    // Only the first tool call is used and kept (τ-bench truncates `tool_calls` to one).
    this.transcript.append({
      content: reply.content,
      role: "assistant",
      tool_calls: [{ function: { arguments: call.function.arguments, name: call.function.name }, id: call.id, type: "function" }],
    });
    const parsed = parseToolArguments(call.function.name, call.function.arguments);
    if (!parsed.ok) {
      // Deliberate fix: the original's json.loads error aborts the task; we report it to the model.
      this.invalidToolCalls.push({ turn, toolCallId: call.id, name: call.function.name, arguments: call.function.arguments, error: parsed.error });
      return { content: reply.content, toolCalls: [{ id: call.id, name: call.function.name, arguments: new Map(), invalid: parsed.error }] };
    }
    return { content: reply.content, toolCalls: [{ id: call.id, name: call.function.name, arguments: parsed.kwargs }] };
  }

  extra(): Record<string, JsonValue> | undefined {
    const extra: Record<string, JsonValue> = { ...(this.system.extra ?? {}) };
    if (this.invalidToolCalls.length > 0) extra.invalidToolCalls = this.invalidToolCalls;
    return Object.keys(extra).length > 0 ? extra : undefined;
  }

  /** The answer to the last action belongs to the trajectory too (the original appends it before checking `done`). */
  finish(incoming: Incoming): void {
    this.transcript.receive(incoming);
  }
}
