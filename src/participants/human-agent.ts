/**
 * A person plays the agent in the terminal: they read the user's messages and tool outputs, call
 * tools with `/tool <name> {json}`, and type replies to the user. Useful to probe a domain's tools
 * and policy by hand, and to see what the simulated user does with a given answer.
 *
 * Also home of {@link LineReader}, the line input shared with the human user simulator, so that a
 * human agent and a human user on the same terminal read one stdin through one reader.
 */
import { createInterface, type Interface } from "node:readline";
import { AgentProtocolError } from "../errors/error-tree.ts";
import { type DomainView, incomingText, type Incoming, type Participant, type ParticipantContext, type ParticipantSession, type Turn } from "../core/contracts.ts";
import { RESPOND_ACTION_NAME, type Action, type ChatMessage } from "../core/types.ts";
import { pyJsonDumps } from "../value/index.ts";
import { parseToolArguments, respondAction } from "./tool-calling-agent.ts";

/**
 * Reads lines one at a time from a stream. Unlike `readline.question`, lines that arrive before
 * anyone asks are buffered, so a piped or scripted input (tests, `printf ... | taubridge run`) is
 * never lost.
 */
export class LineReader {
  private readonly lines: string[] = [];
  private readonly waiting: ((line: string | null) => void)[] = [];
  private ended = false;
  private readonly rl: Interface;

  constructor(input: NodeJS.ReadableStream) {
    this.rl = createInterface({ input, terminal: false, crlfDelay: Infinity });
    this.rl.on("line", (line) => {
      const next = this.waiting.shift();
      if (next) next(line);
      else this.lines.push(line);
      if (this.waiting.length === 0) this.rl.pause();
    });
    this.rl.on("close", () => {
      this.ended = true;
      for (const next of this.waiting.splice(0)) next(null);
    });
    // Paused while nobody waits for a line, so an idle stdin never keeps the process alive.
    this.rl.pause();
  }

  /** The next line (without its newline), or `null` once the input has ended. */
  next(): Promise<string | null> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(null);
    const promise = new Promise<string | null>((resolve) => this.waiting.push(resolve));
    this.rl.resume();
    return promise;
  }

  close(): void {
    this.rl.close();
  }
}

/** Where a human strategy reads and writes. Defaults to the process's terminal. */
export interface TerminalIO {
  reader: LineReader;
  output: NodeJS.WritableStream;
}

let terminal: TerminalIO | undefined;

/** The process terminal (stdin/stdout), created once and shared by the human agent and user. */
export function processTerminal(): TerminalIO {
  terminal ??= { reader: new LineReader(process.stdin), output: process.stdout };
  return terminal;
}

/** A terminal over any streams (tests feed a stream instead of stdin). */
export function streamTerminal(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): TerminalIO {
  return { reader: new LineReader(input), output };
}

const HELP = [
  "Type a message to say it to the user, or a command:",
  "  /tool <name> {json arguments}   call a tool (arguments default to {})",
  "  /tools                          list the tools",
  "  /policy                         show the policy",
  "  /help                           this help",
  "  //text                          say text that starts with /",
].join("\n");

/**
 * The human agent. Each typed message or `/tool` call is one agent turn (max steps apply).
 * Episodes are served one at a time (a terminal has one keyboard), whatever the concurrency.
 * The trajectory uses the tool-calling agent's shapes with ids `call_human_<turn>`. End of input → an agent error.
 */
export class HumanAgent implements Participant {
  readonly name = "human";
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly io: TerminalIO = processTerminal()) {}

  /** Waits until the previous episode's session is closed: one episode at a time on one terminal. */
  async start(context: ParticipantContext): Promise<ParticipantSession> {
    const previous = this.queue;
    let release!: () => void;
    this.queue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    return new HumanSession(this.io, context, release);
  }
}

class HumanSession implements ParticipantSession {
  private turns = 0;
  private last: { action: Action; toolCallId: string | undefined } | undefined;

  constructor(
    private readonly io: TerminalIO,
    private readonly context: ParticipantContext,
    private readonly release: () => void,
  ) {
    const { domain } = this;
    context.transcript.addMessage({ role: "system", content: domain.policy });
    this.write(`\n=== ${domain.name} task ${context.episode.taskIndex}, trial ${context.episode.trial} (you are the agent; /help for commands) ===`);
  }

  private get domain(): DomainView {
    return this.context.domain;
  }

  private write(text: string): void {
    this.io.output.write(`${text}\n`);
  }

  private async read(prompt: string): Promise<string> {
    this.io.output.write(prompt);
    const line = await this.io.reader.next();
    if (line === null) throw new AgentProtocolError("the human agent's input ended before the episode was done");
    return line;
  }

  private receive(incoming: Incoming): void {
    const transcript = this.context.transcript;
    const content = incomingText(incoming);
    if (!this.last || this.last.action.name === RESPOND_ACTION_NAME || !this.last.toolCallId) {
      transcript.addMessage({ role: "user", content });
      this.write(`user: ${content}`);
    } else {
      transcript.addMessage({ role: "tool", tool_call_id: this.last.toolCallId, name: this.last.action.name, content });
      this.write(`tool: ${content}`);
    }
  }

  async next(incoming: Incoming | null, signal: AbortSignal): Promise<Turn> {
    if (incoming) this.receive(incoming);
    for (;;) {
      signal.throwIfAborted();
      const trimmed = (await this.read("agent> ")).trim();
      const action = this.command(trimmed);
      if (!action) continue;
      this.turns++;
      return this.record(action);
    }
  }

  /** A typed line as an action, or undefined for help, listings and typos (which are not turns). */
  private command(trimmed: string): { action: Action; toolCallId?: string } | undefined {
    if (trimmed === "") return undefined;
    if (trimmed === "/help") return void this.write(HELP);
    if (trimmed === "/tools") {
      for (const entry of this.domain.toolSchemas.json) {
        const fn = (entry as { function?: { name?: string; description?: string } }).function;
        this.write(`  ${fn?.name}: ${fn?.description ?? ""}`);
      }
      return undefined;
    }
    if (trimmed === "/policy") return void this.write(this.domain.policy);
    const tool = /^\/tool\s+(\S+)\s*(.*)$/s.exec(trimmed);
    if (tool) {
      const [, name, argumentText] = tool;
      const parsed = parseToolArguments(name, argumentText.trim() === "" ? "{}" : argumentText);
      if (!parsed.ok) return void this.write(parsed.error);
      return { action: { name, kwargs: parsed.kwargs }, toolCallId: `call_human_${this.turns + 1}` };
    }
    if (trimmed.startsWith("/") && !trimmed.startsWith("//")) return void this.write(`unknown command ${trimmed.split(/\s/)[0]}; /help lists the commands`);
    return { action: respondAction(trimmed.startsWith("//") ? trimmed.slice(1) : trimmed) };
  }

  private record({ action, toolCallId }: { action: Action; toolCallId?: string }): Turn {
    this.last = { action, toolCallId };
    if (action.name === RESPOND_ACTION_NAME || !toolCallId) {
      // Words are a message, not a `respond` tool call: τ-bench's loop makes them its respond action,
      // and τ² (which has no respond tool) sends them to the user.
      const content = String(action.kwargs.get("content") ?? "");
      this.context.transcript.addMessage({ content, role: "assistant" });
      return { content, toolCalls: [] };
    }
    const message: ChatMessage = {
      content: null,
      role: "assistant",
      tool_calls: [{ function: { arguments: pyJsonDumps(action.kwargs), name: action.name }, id: toolCallId, type: "function" }],
    };
    this.context.transcript.addMessage(message);
    return { content: null, toolCalls: [{ id: toolCallId, name: action.name, arguments: action.kwargs }] };
  }

  finish(incoming: Incoming): void {
    this.receive(incoming);
  }

  async close(): Promise<void> {
    this.write("=== episode over ===");
    this.release();
  }
}
