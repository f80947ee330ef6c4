/**
 * τ-bench's tool-calling agent (spec §8.1), driven through our model layer: the model gets the
 * policy as system prompt and the domain tools in the API's `tools` field; the first tool call of
 * each reply becomes the environment action, a reply without tool calls is said to the user.
 *
 * Also home of the small helpers every model-driven agent shares (termination, tool-argument
 * parsing), so the few-shot, act/react and human agents agree on them.
 */
import { RESPOND_ACTION_FIELD_NAME, RESPOND_ACTION_NAME, type Action, type ChatMessage, type JsonValue, type StepResult, type TerminationReason } from "../core/types.ts";
import type { LoadedDomain } from "../engine/domain.ts";
import type { ModelClient } from "../model/model-client.ts";
import type { CompletionResult, ToolDefinition } from "../model/types.ts";
import { episodeUsage } from "../model/usage.ts";
import { JsonSyntaxError, parsePythonJson, isPyDict, pyTypeName, type PyDict } from "../value/index.ts";
import type { Agent, AgentEpisodeContext, AgentEpisodeResult } from "./agent.ts";
import { renderTemplate, TOOL_CALLING_TEMPLATE, type AgentPromptValues } from "./prompts.ts";

/**
 * Why the loop ended: done by the user's `###STOP###` (the step's source is `user`) → `user_stop`,
 * done by a terminate tool → `agent_stop`, not done after `maxSteps` turns → `max_steps`.
 */
export function terminationOf(last: StepResult | undefined): TerminationReason {
  if (!last?.done) return "max_steps";
  return last.info.source === "user" ? "user_stop" : "agent_stop";
}

/** The values every agent template can use for a domain. */
export function domainPromptValues(domain: LoadedDomain): AgentPromptValues {
  return {
    policy: domain.policy,
    tools_json: domain.toolSchemas.pythonJson,
    tool_names: domain.definition.tools.map((tool) => tool.name).join(", "),
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
    const detail = error instanceof JsonSyntaxError ? error.message : String(error);
    return { ok: false, error: `Error: the arguments of ${name} are not valid JSON: ${detail}` };
  }
  if (!isPyDict(value)) return { ok: false, error: `Error: the arguments of ${name} must be a JSON object, not ${pyTypeName(value)}` };
  return { ok: true, kwargs: value };
}

/** Options of {@link ToolCallingAgent}. */
export interface ToolCallingAgentOptions {
  /** The agent role's model client (usage is also summed per episode by the agent). */
  client: ModelClient;
  domain: LoadedDomain;
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
 * is used (and kept in the history), arguments are parsed losslessly, the reset `info` is merged
 * with every step's info, and the trajectory is the message list the model saw, in the original's
 * shapes (`{content, role}` / `{content, role, tool_calls: [{function: {arguments, name}, id, type}]}` /
 * `{role, tool_call_id, name, content}`).
 */
export class ToolCallingAgent implements Agent {
  readonly name: string = "tool-calling";
  protected readonly tools: readonly ToolDefinition[];

  constructor(protected readonly options: ToolCallingAgentOptions) {
    this.tools = options.domain.toolSchemas.json as unknown as ToolDefinition[];
  }

  /** The system prompt of one episode (few-shot overrides this to add sampled examples). */
  protected systemPrompt(_episode: AgentEpisodeContext["episode"]): SystemPrompt {
    return { content: renderTemplate(this.options.template ?? TOOL_CALLING_TEMPLATE, { ...domainPromptValues(this.options.domain) }, "agent prompt") };
  }

  async solve(context: AgentEpisodeContext): Promise<AgentEpisodeResult> {
    const { env, maxSteps, signal, recorder, episode } = context;
    const { client } = this.options;
    const system = this.systemPrompt(episode);
    const reset = await env.reset();
    const messages: ChatMessage[] = [
      { role: "system", content: system.content },
      { role: "user", content: reset.observation },
    ];
    for (const message of messages) recorder.addMessage(message);
    const append = (...added: ChatMessage[]) => {
      for (const message of added) {
        messages.push(message);
        recorder.addMessage(message);
      }
    };
    let info: Record<string, unknown> = { ...reset.info };
    let reward = 0;
    let last: StepResult | undefined;
    // Counted on the recorder, so an episode that ends in an exception still reports what it spent.
    const usage = recorder.agentUsage;
    const invalidToolCalls: JsonValue[] = [];

    for (let turn = 0; turn < maxSteps; turn++) {
      signal.throwIfAborted();
      const result: CompletionResult = await client.complete({ messages, tools: this.tools, signal, cacheNamespace: `trial:${episode.trial}` });
      usage.add(result);
      const reply = result.message;
      const call = reply.tool_calls?.[0];
      if (!call) {
        const action = respondAction(reply.content);
        last = await env.step(action);
        recorder.addStep({ action, observation: last.observation, reward: last.reward, done: last.done, origin: "agent" }, last);
        reward = last.reward;
        info = { ...info, ...last.info };
        append({ content: reply.content, role: "assistant" }, { role: "user", content: last.observation });
        if (last.done) break;
        continue;
      }
      // Only the first tool call is used and kept (τ-bench truncates `tool_calls` to one).
      const kept: ChatMessage = {
        content: reply.content,
        role: "assistant",
        tool_calls: [{ function: { arguments: call.function.arguments, name: call.function.name }, id: call.id, type: "function" }],
      };
      const parsed = parseToolArguments(call.function.name, call.function.arguments);
      if (!parsed.ok) {
        // Deliberate fix: the original's json.loads error aborts the task; we report it to the model.
        invalidToolCalls.push({ turn, toolCallId: call.id, name: call.function.name, arguments: call.function.arguments, error: parsed.error });
        append(kept, { role: "tool", tool_call_id: call.id, name: call.function.name, content: parsed.error });
        continue;
      }
      const action: Action = { name: call.function.name, kwargs: parsed.kwargs };
      last = await env.step(action);
      recorder.addStep({ action, observation: last.observation, reward: last.reward, done: last.done, origin: "agent", toolCallId: call.id }, last);
      reward = last.reward;
      info = { ...info, ...last.info };
      append(kept, { role: "tool", tool_call_id: call.id, name: call.function.name, content: last.observation });
      if (last.done) break;
    }

    const extra: Record<string, JsonValue> = { ...(system.extra ?? {}) };
    if (invalidToolCalls.length > 0) extra.invalidToolCalls = invalidToolCalls;
    return {
      reward,
      termination: terminationOf(last),
      info,
      usage: episodeUsage(usage),
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    };
  }
}
