import type { AgentInput, MessageRecorder } from "../core/contracts.ts";
import type { ChatMessage } from "../core/types.ts";

/**
 * The message list an OpenAI-style agent keeps for one episode, mirrored into the episode's
 * trajectory as it grows: the tool-calling agent's and the function agent's conversations have the
 * same shapes (τ-bench's `traj`), so they share this.
 */
export class ChatTranscript {
  readonly messages: ChatMessage[] = [];

  constructor(private readonly recorder: MessageRecorder) {}

  append(...added: ChatMessage[]): void {
    for (const message of added) {
      this.messages.push(message);
      this.recorder.addMessage(message);
    }
  }

  /** An input in the original's message shapes: the user's words, or the tool message answering the last call. */
  receive(input: AgentInput): void {
    if (input.type === "user") this.append({ role: "user", content: input.content });
    else this.append({ role: "tool", tool_call_id: input.toolCallId ?? "", name: input.name, content: input.content });
  }
}
