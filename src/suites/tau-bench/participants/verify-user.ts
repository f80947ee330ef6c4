/**
 * τ-bench's verify user simulator (`--user-strategy verify`; τ-bench: tau_bench/envs/user.py,
 * VerifyUserSimulationEnv): every generated reply is checked by a supervisor completion before it
 * is used; up to 3 attempts.
 */
import type { ChatMessage } from "../../../core/types.ts";
import type { AssistantMessage, CompletionResult } from "../../../model/types.ts";
import { pyStrRepr } from "../../../value/index.ts";
import { LlmUser, type SupervisorPrompts, UserSimulatorError, type UserHistoryMessage } from "./llm-user.ts";
import { reflectPrompt, transcriptOf, verifyPrompt } from "./user-prompts.ts";

/** taubridge's own supervisor wording (used where τ-bench's sources are not in the data directory). */
const OUR_SUPERVISOR: SupervisorPrompts = {
  verify: (history, response) => verifyPrompt(transcriptOf(history), response),
  reflect: (history, response) => reflectPrompt(transcriptOf(history), response),
};

/** How a simulator makes one completion (counted in its usage). */
export type CompleteFunction = (messages: readonly ChatMessage[]) => Promise<CompletionResult>;

/**
 * Python's `str()` of the litellm `Message` object, which is what the original's verify strategy
 * puts under `# Response:` instead of the text (reproduced; τ-bench: tau_bench/envs/user.py,
 * verify). Pinned to the fields of litellm 1.41 (`content role tool_calls function_call`); newer
 * litellm versions print more fields.
 */
export function pythonMessageStr(message: AssistantMessage): string {
  const content = message.content === null ? "None" : pyStrRepr(message.content);
  return `content=${content} role='assistant' tool_calls=None function_call=None`;
}

/**
 * The supervisor check: one completion with a single `user` message (the transcript of `history`
 * and the response); true iff the answer contains `true`, case-insensitively.
 */
export async function verifyResponse(complete: CompleteFunction, response: string, history: readonly ChatMessage[], prompts: SupervisorPrompts = OUR_SUPERVISOR): Promise<boolean> {
  const result = await complete([{ role: "user", content: prompts.verify(history as { role: string; content: string | null }[], response) }]);
  return (result.message.content ?? "").toLowerCase().includes("true");
}

/**
 * The reflection call: the supervisor writes a `Reflection:` and a new `Response:`; the text after
 * `Response:` (which must occur exactly once, as in the original's tuple unpacking) is returned.
 */
export async function reflectOnResponse(complete: CompleteFunction, response: string, history: readonly ChatMessage[], prompts: SupervisorPrompts = OUR_SUPERVISOR): Promise<string> {
  const result = await complete([{ role: "user", content: prompts.reflect(history as { role: string; content: string | null }[], response) }]);
  const text = result.message.content ?? "";
  const parts = text.split("Response:");
  if (parts.length !== 2) {
    throw new UserSimulatorError(`reflection user: the supervisor's answer contains "Response:" ${parts.length - 1} times, expected once: ${text}`);
  }
  return parts[1].trim();
}

/**
 * The verify user: generate, verify; a verified reply is appended to the history and returned.
 * After `maxAttempts` (3) rejections the last reply is returned **without** being appended
 * (reproduced; τ-bench: `VerifyUserSimulationEnv.generate_next_message`). Each generation overwrites
 * the reported cost; verification calls do not, but they are counted in `usage()`.
 */
export class VerifyUser extends LlmUser {
  maxAttempts = 3;

  protected override async generateNext(messages: readonly ChatMessage[]): Promise<string> {
    let current: AssistantMessage | undefined;
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const result = await this.complete(messages);
      current = result.message;
      this.lastCost = result.cost;
      if (await verifyResponse((request) => this.complete(request), pythonMessageStr(current), messages, this.options.supervisor)) {
        this.messages.push({ content: current.content, role: "assistant" } as UserHistoryMessage);
        return current.content ?? "";
      }
    }
    return current?.content ?? "";
  }
}
