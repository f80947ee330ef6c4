/**
 * τ-bench's react user simulator (`--user-strategy react`; τ-bench: tau_bench/envs/user.py,
 * ReactUserSimulationEnv): the model writes a `Thought:` and a `User Response:`, and a parser
 * decides what the agent sees.
 */
import { STOP_TOKEN, type ChatMessage } from "../../../core/types.ts";
import { LlmUser, UserSimulatorError, type UserHistoryMessage } from "./llm-user.ts";
import { REACT_USER_TEMPLATE } from "./user-prompts.ts";

function splitExactlyOnce(text: string, separator: string): string {
  const parts = text.split(separator);
  if (parts.length !== 2) {
    throw new UserSimulatorError(`react user: the reply contains "${separator}" ${parts.length - 1} times, expected once (Python: ValueError: too many values to unpack (expected 2)): ${text}`);
  }
  return parts[1].trim();
}

/**
 * The original's parser (`ReactUserSimulationEnv.parse_response`), quirks included:
 * - any `###STOP###` in the reply → exactly `###STOP###`;
 * - else a reply containing `Thought:` → everything after it, stripped (it must occur exactly once).
 *   Reproduced on purpose: that is the thought **and** the `User Response:` section, so the thought
 *   leaks to the agent;
 * - else the text after `User Response:` (exactly once);
 * - else a {@link UserSimulatorError} `Invalid response format: …` (the episode ends as user_error).
 */
export function parseReactUserReply(text: string): string {
  if (text.includes(STOP_TOKEN)) return STOP_TOKEN;
  if (text.includes("Thought:")) return splitExactlyOnce(text, "Thought:");
  if (text.includes("User Response:")) return splitExactlyOnce(text, "User Response:");
  throw new UserSimulatorError(`Invalid response format: ${text}`);
}

/** The react user: generation as llm (the raw reply is kept in the history), then {@link parseReactUserReply}. */
export class ReactUser extends LlmUser {
  protected override defaultTemplate(): string {
    return REACT_USER_TEMPLATE;
  }

  protected override async generateNext(messages: readonly ChatMessage[]): Promise<string> {
    const result = await this.complete(messages);
    this.messages.push({ content: result.message.content, role: "assistant" } as UserHistoryMessage);
    this.lastCost = result.cost;
    return parseReactUserReply(result.message.content ?? "");
  }
}
