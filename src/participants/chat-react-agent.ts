/**
 * τ-bench's act and react agents (τ-bench: tau_bench/agents/chat_react_agent.py, ChatReActAgent):
 * no API tools at all; the tools are described in the system prompt and the model writes its action
 * as text (`Action:` + JSON, react with a `Thought:` line first), which we parse.
 */
import { RESPOND_ACTION_NAME, type Action, type ChatMessage, type JsonValue } from "../core/types.ts";
import type { ChatModel } from "../core/contracts.ts";
import { parsePythonJson } from "../value/index.ts";
import { isPyDict, pyTypeName, type PyValue } from "../value/index.ts";
import type { DomainView, Incoming, Participant, ParticipantContext, ParticipantSession, Turn } from "../core/contracts.ts";
import { ACT_ACTION_FORMAT, CHAT_REACT_TEMPLATE, REACT_ACTION_FORMAT, renderTemplate } from "./prompts.ts";
import { domainPromptValues, respondAction } from "./tool-calling-agent.ts";

/** Prefix of every tool observation shown to an act/react model (as in the original). */
export const API_OUTPUT_PREFIX = "API output: ";

/** Outcome of reading an act/react reply. */
export type ParsedChatAction = { ok: true; action: Action } | { ok: false; error: string };

/**
 * Reads the action out of an act/react reply, as the original does: the text after the **last**
 * `Action:` (the whole reply when there is none), stripped, parsed as JSON (Python semantics,
 * lossless). Text that is not JSON is said to the user as it is (`respond` with that text).
 *
 * Deliberate fix: JSON that is not an object with a string `name` and an object `arguments` makes
 * the original raise (AssertionError / pydantic error) and lose the task; here it yields an
 * `Error: ...` observation for the model, and the episode goes on.
 */
export function parseChatAction(content: string | null): ParsedChatAction {
  const parts = (content ?? "").split("Action:");
  const actionText = parts[parts.length - 1].trim();
  let parsed: PyValue;
  try {
    parsed = parsePythonJson(actionText);
  } catch {
    return { ok: true, action: respondAction(actionText) };
  }
  if (!isPyDict(parsed)) return { ok: false, error: `Error: the Action must be a JSON object with "name" and "arguments", not ${pyTypeName(parsed)}` };
  if (!parsed.has("name") || !parsed.has("arguments")) return { ok: false, error: 'Error: the Action must have both "name" and "arguments"' };
  const name = parsed.get("name");
  const args = parsed.get("arguments");
  if (typeof name !== "string") return { ok: false, error: `Error: the Action's "name" must be a string, not ${pyTypeName(name)}` };
  if (!isPyDict(args)) return { ok: false, error: `Error: the Action's "arguments" must be a JSON object, not ${pyTypeName(args)}` };
  return { ok: true, action: { name, kwargs: args } };
}

/** Options of {@link ChatReActAgent}. */
export interface ChatReActAgentOptions {
  client: ChatModel;
  domain: DomainView;
  /** true: react (`Thought:` + `Action:`); false: act (`Action:` only). */
  useReasoning: boolean;
  /** System prompt template (default: policy, `#Available tools`, tools JSON, instruction block). */
  template?: string;
}

/**
 * The act / react agent. Faithful to the original: completions without `tools`; the observation of
 * a tool action is prefixed with `API output: `; every turn appends the assistant reply and a
 * `user` message with the observation; `info` starts as `{}` (not the reset info). Fixed: a
 * missing `response_cost` no longer crashes it (the original's `ChatReActAgent.solve` adds it
 * unguarded), and a malformed action does not abort.
 */
export class ChatReActAgent implements Participant {
  readonly name: string;
  private readonly prompt: string;

  constructor(private readonly options: ChatReActAgentOptions) {
    this.name = options.useReasoning ? "react" : "act";
    this.prompt = renderTemplate(
      options.template ?? CHAT_REACT_TEMPLATE,
      { ...domainPromptValues(options.domain), action_format: options.useReasoning ? REACT_ACTION_FORMAT : ACT_ACTION_FORMAT },
      "agent prompt",
    );
  }

  /** The system prompt every episode uses. */
  get systemPrompt(): string {
    return this.prompt;
  }

  /** taubridge's own code: run without the agent guard (see `Participant.trusted`). */
  readonly trusted = true;

  start(context: ParticipantContext): ParticipantSession {
    return new ChatReActSession(this.options.client, this.prompt, context);
  }
}

/** One act/react episode: the reply and the observation are appended as one exchange per turn. */
class ChatReActSession implements ParticipantSession {
  readonly infoStartsEmpty = true;
  private readonly messages: ChatMessage[] = [];
  private readonly invalidActions: JsonValue[] = [];
  private turns = 0;
  private lastAction: Action | undefined;

  constructor(
    private readonly client: ChatModel,
    prompt: string,
    private readonly context: ParticipantContext,
  ) {
    this.append({ role: "system", content: prompt });
  }

  private append(message: ChatMessage): void {
    this.messages.push(message);
    this.context.transcript.addMessage(message);
  }

  /** Every observation is a `user` message; a tool's carries the `API output: ` prefix, a respond's is the user's reply as is. */
  private receive(incoming: Incoming): void {
    if (incoming.type === "text") {
      this.append({ role: "user", content: incoming.content ?? "" });
      return;
    }
    for (const result of incoming.results) {
      const content = this.lastAction?.name === RESPOND_ACTION_NAME ? result.content : API_OUTPUT_PREFIX + result.content;
      this.append({ role: "user", content });
    }
  }

  async next(incoming: Incoming | null, signal: AbortSignal): Promise<Turn> {
    if (incoming) this.receive(incoming);
    const turn = this.turns++;
    const result = await this.client.complete({ messages: this.messages, signal, cacheNamespace: `trial:${this.context.episode.trial}` });
    this.context.usage.add(result);
    this.append({ content: result.message.content, role: "assistant" });
    const parsed = parseChatAction(result.message.content);
    if (!parsed.ok) {
      this.invalidActions.push({ turn, content: result.message.content, error: parsed.error });
      this.lastAction = undefined;
      return { content: result.message.content, toolCalls: [{ id: "", name: "", arguments: new Map(), invalid: parsed.error }] };
    }
    this.lastAction = parsed.action;
    // A respond is passed on as the action it is (its arguments as the model wrote them), like any other.
    return { content: result.message.content, toolCalls: [{ id: "", name: parsed.action.name, arguments: parsed.action.kwargs }] };
  }

  finish(incoming: Incoming): void {
    this.receive(incoming);
  }

  extra(): Record<string, JsonValue> | undefined {
    return this.invalidActions.length > 0 ? { invalidActions: this.invalidActions } : undefined;
  }
}
