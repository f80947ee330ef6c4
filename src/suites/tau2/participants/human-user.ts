/**
 * A person plays the τ² user in the terminal (`--user human`), as τ²'s `tau2 play` lets one do: they
 * see the task's user scenario (persona and instructions) and the agent's messages, type the
 * customer's replies, and call the user's own tools on a dual-control domain (mock's inbox,
 * telecom's phone) with `/tool <name> {json}`. A message with τ²'s stop token (`###STOP###`) ends
 * the conversation, as the simulator's does.
 */
import type { Incoming, Participant, ParticipantContext, ParticipantSession, Turn } from "../../../core/contracts.ts";
import { TaubridgeError } from "../../../errors/error-tree.ts";
import { STOP_TOKEN } from "../../../core/types.ts";
import { processTerminal, type TerminalIO } from "../../../participants/human-agent.ts";
import { parseToolArguments } from "../../../participants/tool-calling-agent.ts";
import { renderTau2UserScenario } from "../engine/extract/index.ts";
import type { Tau2Task } from "../tasks.ts";

const HELP = [
  "Type the customer's message to the agent, or a command:",
  `  ${STOP_TOKEN}                      (in a message) end the conversation`,
  "  /tool <name> {json arguments}   call one of your own tools (arguments default to {})",
  "  /tools                          list your tools",
  "  /scenario                       show your scenario again",
  "  /help                           this help",
  "  //text                          say text that starts with /",
].join("\n");

class HumanUserSession implements ParticipantSession {
  private calls = 0;

  constructor(
    private readonly io: TerminalIO,
    private readonly context: ParticipantContext<Tau2Task>,
    private readonly release: () => void,
  ) {
    this.write(`\n=== ${context.domain.name} task ${context.episode.taskId}, trial ${context.episode.trial} (you are the user; /help for commands) ===`);
    this.write(this.scenario());
  }

  private scenario(): string {
    return renderTau2UserScenario(this.context.task.user_scenario);
  }

  private write(text: string): void {
    this.io.output.write(`${text}\n`);
  }

  async next(incoming: Incoming | null, signal: AbortSignal): Promise<Turn> {
    if (incoming?.type === "tool_results") for (const result of incoming.results) this.write(`tool: ${result.content}`);
    else if (incoming?.type === "text" && incoming.content) this.write(`agent: ${incoming.content}`);
    for (;;) {
      signal.throwIfAborted();
      this.io.output.write("user> ");
      const line = await this.io.reader.next();
      if (line === null) throw Object.assign(new TaubridgeError("the human user's input ended before the episode was done"), { role: "user" });
      const turn = this.command(line.trim());
      if (turn) return turn;
    }
  }

  /** A typed line as the user's turn, or undefined for help, listings and typos (which are not turns). */
  private command(trimmed: string): Turn | undefined {
    if (trimmed === "") return undefined;
    if (trimmed === "/help") return void this.write(HELP);
    if (trimmed === "/scenario") return void this.write(this.scenario());
    if (trimmed === "/tools") {
      const tools = this.context.domain.toolSchemas.json.map((entry) => (entry as { function?: { name?: string; description?: string } }).function);
      if (tools.length === 0) this.write("  (this domain gives the user no tools)");
      for (const tool of tools) this.write(`  ${tool?.name}: ${tool?.description ?? ""}`);
      return undefined;
    }
    const tool = /^\/tool\s+(\S+)\s*(.*)$/s.exec(trimmed);
    if (tool) {
      const [, name, argumentText] = tool;
      const parsed = parseToolArguments(name, argumentText.trim() === "" ? "{}" : argumentText);
      if (!parsed.ok) return void this.write(parsed.error);
      this.calls++;
      return { content: null, toolCalls: [{ id: `user_human_${String(this.calls).padStart(3, "0")}`, name, arguments: parsed.kwargs }], cost: 0 };
    }
    if (trimmed.startsWith("/") && !trimmed.startsWith("//")) return void this.write(`unknown command ${trimmed.split(/\s/)[0]}; /help lists the commands`);
    return { content: trimmed.startsWith("//") ? trimmed.slice(1) : trimmed, toolCalls: [], cost: 0 };
  }

  async close(): Promise<void> {
    this.write("=== episode over ===");
    this.release();
  }
}

/**
 * `--user human` on τ²: episodes are served one at a time (a terminal has one keyboard), whatever
 * the concurrency. No model: cost 0. End of input is the user's error.
 */
export function tau2HumanUser(io: TerminalIO = processTerminal()): Participant<Tau2Task> {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    name: "human",
    start: async (context) => {
      const previous = queue;
      let release!: () => void;
      queue = new Promise<void>((resolve) => (release = resolve));
      await previous;
      return new HumanUserSession(io, context, release);
    },
  };
}
