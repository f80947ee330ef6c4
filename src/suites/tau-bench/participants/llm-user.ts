/**
 * τ-bench's LLM user simulator (`--user-strategy llm`; τ-bench: tau_bench/envs/user.py,
 * LLMUserSimulationEnv) and the base the react, verify and reflection simulators build on.
 *
 * The simulator keeps its own history with roles flipped (the real agent's words are `user`
 * messages, the simulator's replies `assistant`), seeded with a system prompt and the fixed
 * `Hi! How can I help you today?`. Calls use the user model's default temperature.
 */
import { TaubridgeError, errorMarker } from "../../../errors/error-tree.ts";
import type { ChatMessage, RoleUsage } from "../../../core/types.ts";
import type { ChatModel } from "../../../core/contracts.ts";
import type { CompletionResult } from "../../../model/types.ts";
import { episodeUsage, UsageTotals } from "../../../model/usage.ts";
import type { UsageMeter } from "../../../core/contracts.ts";
import type { SimulatorCallOptions, UserSimulator } from "./simulated-user.ts";
import { LLM_USER_TEMPLATE, renderUserPrompt, USER_SEED_MESSAGE } from "./user-prompts.ts";

/**
 * The user simulator broke (e.g. a react reply in no known format; the original raises ValueError).
 * `role: "user"` makes the episode kernel end the episode as `user_error` (the batch records it),
 * not as the agent's failure.
 */
export class UserSimulatorError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("UserSimulatorError");
  readonly role = "user";
}

/** A message of the simulator's flipped history. */
export type UserHistoryMessage = Extract<ChatMessage, { role: "system" | "user" | "assistant" }>;

/** Options shared by the LLM-based simulators. */
export interface LlmUserOptions {
  /** The user role's model client. */
  client: ChatModel;
  /** The episode (its trial namespaces the response cache). */
  episode: { taskIndex: number; trial: number };
  /** The episode's meter for the user's spend (every call, verification and reflection included). */
  usage?: UsageMeter;
  /** System prompt template (default: the strategy's own; `{{instruction}}` etc., see `prompts.ts`). */
  template?: string;
  /** The verify / reflect supervisors' prompts (default: taubridge's wording; on τ-bench data, the original's). */
  supervisor?: SupervisorPrompts;
}

/** Builds the supervisor's prompt from the conversation so far and the reply to judge. */
export interface SupervisorPrompts {
  verify(history: readonly { role: string; content: string | null }[], response: string): string;
  reflect(history: readonly { role: string; content: string | null }[], response: string): string;
}

/**
 * The llm user: one completion per turn, the reply appended to the history, its content returned.
 *
 * Cost: {@link reportedCost} reproduces τ-bench's `user_cost`, which is the **last** generation
 * call's cost, overwritten each time (τ-bench: `LLMUserSimulationEnv.generate_next_message`), so
 * result files compare with the original's; {@link usage} is the correct sum over every call this
 * simulator made (verification and reflection calls included). Not reproduced: the original's extra
 * completion at construction (`LLMUserSimulationEnv.__init__` calls `reset`); we make no call until
 * `reset`.
 */
export class LlmUser implements UserSimulator {
  /** The flipped history (exposed for tests and debugging). */
  messages: UserHistoryMessage[] = [];
  protected readonly totals = new UsageTotals();
  protected lastCost: number | null = 0;
  protected readonly template: string;
  /** The current call's cancellation (set by reset/step; every completion of that turn uses it). */
  protected signal: AbortSignal | undefined;

  constructor(protected readonly options: LlmUserOptions) {
    this.template = options.template ?? this.defaultTemplate();
  }

  protected defaultTemplate(): string {
    return LLM_USER_TEMPLATE;
  }

  async reset(instruction: string, options?: SimulatorCallOptions): Promise<string> {
    this.signal = options?.signal;
    this.messages = [
      { role: "system", content: renderUserPrompt(this.template, instruction) },
      { role: "user", content: USER_SEED_MESSAGE },
    ];
    return this.generateNext(this.messages);
  }

  async step(content: string, options?: SimulatorCallOptions): Promise<string> {
    this.signal = options?.signal;
    this.messages.push({ role: "user", content });
    return this.generateNext(this.messages);
  }

  /** τ-bench's `user_cost`: the last generation call's cost (null when that call was unpriced). */
  reportedCost(): number | null {
    return this.lastCost;
  }

  /** Every call of this episode summed (null when no call was made). */
  usage(): RoleUsage | null {
    return episodeUsage(this.totals);
  }

  /** One completion through the user client, counted in {@link usage}. */
  protected async complete(messages: readonly ChatMessage[]): Promise<CompletionResult> {
    const result = await this.options.client.complete({ messages: [...messages], signal: this.signal, cacheNamespace: `trial:${this.options.episode.trial}` });
    this.totals.add(result);
    this.options.usage?.add(result);
    return result;
  }

  /**
   * `generate_next_message(messages)`: complete on `messages`, append the reply to the history
   * (which may differ from `messages`: reflection passes a copy), overwrite the reported cost.
   */
  protected async generateNext(messages: readonly ChatMessage[]): Promise<string> {
    const result = await this.complete(messages);
    this.lastCost = result.cost;
    this.messages.push({ content: result.message.content, role: "assistant" } as UserHistoryMessage);
    return result.message.content ?? "";
  }
}
