/**
 * τ-bench's reflection user simulator (`--user-strategy reflection`; τ-bench:
 * tau_bench/envs/user.py, ReflectionUserSimulationEnv): a rejected reply is reflected on by a
 * supervisor, which proposes a better one, and the simulator tries again.
 */
import type { ChatMessage } from "../../../core/types.ts";
import { LlmUser } from "./llm-user.ts";
import { reflectOnResponse, verifyResponse } from "./verify-user.ts";

/**
 * The reflection user (2 attempts), with the original's exact call pattern
 * (`ReflectionUserSimulationEnv.generate_next_message`):
 * 1. generate the initial reply (appended to the history) and verify it against a *copy* of the
 *    context taken before it; verified → return it;
 * 2. otherwise reflect, append the proposed text to the copy as a `user` message (as if the agent
 *    had said it), generate again (also appended to the history, so the history now has two
 *    consecutive assistant turns, reproduced on purpose) and verify against the copy;
 * 3. return the new reply if verified, else the initial one.
 * The supervisor sees the reply text here (not the message object, unlike verify).
 */
export class ReflectionUser extends LlmUser {
  maxAttempts = 2;

  protected override async generateNext(messages: readonly ChatMessage[]): Promise<string> {
    const context: ChatMessage[] = [...messages];
    const complete = (request: readonly ChatMessage[]) => this.complete(request);
    const initial = await super.generateNext(context);
    if (await verifyResponse(complete, initial, context, this.options.supervisor)) return initial;
    for (let attempt = 1; attempt < this.maxAttempts; attempt++) {
      const proposed = await reflectOnResponse(complete, initial, context, this.options.supervisor);
      context.push({ role: "user", content: proposed });
      const next = await super.generateNext(context);
      if (await verifyResponse(complete, next, context, this.options.supervisor)) return next;
    }
    return initial;
  }
}
