import type { Incoming, Transcript } from "../core/contracts.ts";
import type { ChatMessage } from "../core/types.ts";

/**
 * The message list an OpenAI-style agent keeps for one episode, mirrored into the episode's
 * transcript as it grows: the tool-calling agent's and the function agent's conversations have the
 * same shapes (τ-bench's `traj`), so they share this.
 */
export class ChatTranscript {
  readonly messages: ChatMessage[] = [];

  constructor(private readonly transcript: Transcript) {}

  append(...added: ChatMessage[]): void {
    for (const message of added) {
      this.messages.push(message);
      this.transcript.addMessage(message);
    }
  }

  /** What arrived, in the original's message shapes: the user's words, or one tool message per result. */
  receive(incoming: Incoming): void {
    if (incoming.type === "text") this.append({ role: "user", content: incoming.content ?? "" });
    else for (const result of incoming.results) this.append({ role: "tool", tool_call_id: result.id, name: result.name, content: result.content });
  }
}
