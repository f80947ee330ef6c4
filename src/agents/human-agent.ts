/**
 * A person plays the agent in the terminal: they read the user's messages and tool outputs, call
 * tools with `/tool <name> {json}`, and type replies to the user. Useful to probe a domain's tools
 * and policy by hand, and to see what the simulated user does with a given answer.
 *
 * Also home of {@link LineReader}, the line input shared with the human user simulator, so that a
 * human agent and a human user on the same terminal read one stdin through one reader.
 */
import { createInterface, type Interface } from "node:readline";
import { AgentProtocolError } from "../core/errors.ts";
import { RESPOND_ACTION_NAME, type Action, type ChatMessage, type StepResult } from "../core/types.ts";
import { pyJsonDumps } from "../value/index.ts";
import type { Agent, AgentEpisodeContext, AgentEpisodeResult } from "./agent.ts";
import { parseToolArguments, respondAction, terminationOf } from "./tool-calling-agent.ts";

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
 * The trajectory uses the tool-calling agent's shapes with ids `call_human_<turn>`, and `info`
 * merges the reset info like the tool-calling agent. End of input → an agent error.
 */
export class HumanAgent implements Agent {
  readonly name = "human";
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly io: TerminalIO = processTerminal()) {}

  solve(context: AgentEpisodeContext): Promise<AgentEpisodeResult> {
    const run = this.queue.then(() => this.solveOne(context));
    this.queue = run.catch(() => undefined);
    return run;
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

  private async solveOne({ env, maxSteps, signal, recorder, episode }: AgentEpisodeContext): Promise<AgentEpisodeResult> {
    const reset = await env.reset();
    recorder.addMessage({ role: "system", content: env.domain.policy });
    recorder.addMessage({ role: "user", content: reset.observation });
    this.write(`\n=== ${env.domain.name} task ${episode.taskIndex}, trial ${episode.trial} (you are the agent; /help for commands) ===`);
    this.write(`user: ${reset.observation}`);
    let info: Record<string, unknown> = { ...reset.info };
    let reward = 0;
    let last: StepResult | undefined;
    let turn = 0;
    while (turn < maxSteps) {
      signal.throwIfAborted();
      const line = await this.read("agent> ");
      const trimmed = line.trim();
      if (trimmed === "") continue;
      if (trimmed === "/help") {
        this.write(HELP);
        continue;
      }
      if (trimmed === "/tools") {
        for (const entry of env.domain.toolSchemas.json) {
          const fn = (entry as { function?: { name?: string; description?: string } }).function;
          this.write(`  ${fn?.name}: ${fn?.description ?? ""}`);
        }
        continue;
      }
      if (trimmed === "/policy") {
        this.write(env.domain.policy);
        continue;
      }
      let action: Action;
      let toolCallId: string | undefined;
      const tool = /^\/tool\s+(\S+)\s*(.*)$/s.exec(trimmed);
      if (tool) {
        const [, name, argumentText] = tool;
        const parsed = parseToolArguments(name, argumentText.trim() === "" ? "{}" : argumentText);
        if (!parsed.ok) {
          this.write(parsed.error);
          continue; // a typo is not a turn
        }
        action = { name, kwargs: parsed.kwargs };
        toolCallId = `call_human_${turn + 1}`;
      } else if (trimmed.startsWith("/") && !trimmed.startsWith("//")) {
        this.write(`unknown command ${trimmed.split(/\s/)[0]}; /help lists the commands`);
        continue;
      } else {
        action = respondAction(trimmed.startsWith("//") ? trimmed.slice(1) : trimmed);
      }
      turn++;
      last = await env.step(action);
      recorder.addStep({ action, observation: last.observation, reward: last.reward, done: last.done, origin: "agent", ...(toolCallId ? { toolCallId } : {}) }, last);
      reward = last.reward;
      info = { ...info, ...last.info };
      recordTurn(recorder, action, last, toolCallId);
      this.write(action.name === RESPOND_ACTION_NAME ? `user: ${last.observation}` : `tool: ${last.observation}`);
      if (last.done) break;
    }
    this.write(`=== episode over: reward ${reward} (${terminationOf(last)}) ===`);
    return { reward, termination: terminationOf(last), info, usage: null };
  }
}

function recordTurn(recorder: AgentEpisodeContext["recorder"], action: Action, result: StepResult, toolCallId: string | undefined): void {
  if (action.name === RESPOND_ACTION_NAME || !toolCallId) {
    recorder.addMessage({ content: String(action.kwargs.get("content") ?? ""), role: "assistant" });
    recorder.addMessage({ role: "user", content: result.observation });
    return;
  }
  const message: ChatMessage = {
    content: null,
    role: "assistant",
    tool_calls: [{ function: { arguments: pyJsonDumps(action.kwargs), name: action.name }, id: toolCallId, type: "function" }],
  };
  recorder.addMessage(message);
  recorder.addMessage({ role: "tool", tool_call_id: toolCallId, name: action.name, content: result.observation });
}
