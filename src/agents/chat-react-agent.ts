/**
 * τ-bench's act and react agents (`ChatReActAgent`, spec §8.3): no API tools at all; the tools are
 * described in the system prompt and the model writes its action as text (`Action:` + JSON, react
 * with a `Thought:` line first), which we parse.
 */
import { RESPOND_ACTION_NAME, type Action, type ChatMessage, type JsonValue, type StepResult } from "../core/types.ts";
import type { LoadedDomain } from "../engine/domain.ts";
import type { ModelClient } from "../model/model-client.ts";
import { episodeUsage } from "../model/usage.ts";
import { parsePythonJson, isPyDict, pyTypeName, type PyValue } from "../value/index.ts";
import type { Agent, AgentEpisodeContext, AgentEpisodeResult } from "./agent.ts";
import { ACT_ACTION_FORMAT, CHAT_REACT_TEMPLATE, REACT_ACTION_FORMAT, renderTemplate } from "./prompts.ts";
import { domainPromptValues, respondAction, terminationOf } from "./tool-calling-agent.ts";

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
  client: ModelClient;
  domain: LoadedDomain;
  /** true: react (`Thought:` + `Action:`); false: act (`Action:` only). */
  useReasoning: boolean;
  /** System prompt template (default: policy, `#Available tools`, tools JSON, instruction block). */
  template?: string;
}

/**
 * The act / react agent. Faithful to the original: completions without `tools`; the observation of
 * a tool action is prefixed with `API output: `; every turn appends the assistant reply and a
 * `user` message with the observation; `info` starts as `{}` (not the reset info). Fixed: a
 * missing `response_cost` no longer crashes it (quirk 13), and a malformed action does not abort.
 */
export class ChatReActAgent implements Agent {
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

  async solve({ env, maxSteps, signal, recorder, episode }: AgentEpisodeContext): Promise<AgentEpisodeResult> {
    const reset = await env.reset();
    const messages: ChatMessage[] = [
      { role: "system", content: this.prompt },
      { role: "user", content: reset.observation },
    ];
    for (const message of messages) recorder.addMessage(message);
    let info: Record<string, unknown> = {};
    let reward = 0;
    let last: StepResult | undefined;
    const usage = recorder.agentUsage;
    const invalidActions: JsonValue[] = [];

    for (let turn = 0; turn < maxSteps; turn++) {
      signal.throwIfAborted();
      const result = await this.options.client.complete({ messages, signal, cacheNamespace: `trial:${episode.trial}` });
      usage.add(result);
      const reply: ChatMessage = { content: result.message.content, role: "assistant" };
      const parsed = parseChatAction(result.message.content);
      let observation: string;
      if (!parsed.ok) {
        invalidActions.push({ turn, content: result.message.content, error: parsed.error });
        observation = API_OUTPUT_PREFIX + parsed.error;
      } else {
        const action = parsed.action;
        last = await env.step(action);
        recorder.addStep({ action, observation: last.observation, reward: last.reward, done: last.done, origin: "agent" }, last);
        reward = last.reward;
        info = { ...info, ...last.info };
        observation = action.name === RESPOND_ACTION_NAME ? last.observation : API_OUTPUT_PREFIX + last.observation;
      }
      const feedback: ChatMessage = { role: "user", content: observation };
      messages.push(reply, feedback);
      recorder.addMessage(reply);
      recorder.addMessage(feedback);
      if (last?.done) break;
    }

    return {
      reward,
      termination: terminationOf(last),
      info,
      usage: episodeUsage(usage),
      ...(invalidActions.length > 0 ? { extra: { invalidActions } } : {}),
    };
  }
}
