/**
 * The one participant contract: every agent and every user of both suites — model strategies,
 * τ²'s `llm_agent` family and user simulator, τ-bench's user simulators, the oracle and scripted
 * counterparts, the function agent, framework adapters through the bridge, the Python bridge, a
 * person at the terminal — is a {@link Participant}. Per episode it starts a session, and the
 * session produces one {@link Turn} (text and/or any number of tool calls, with its cost and usage)
 * from what it receives. The suite's loop decides what a turn means (τ-bench steps each call as one
 * agent action; τ² sends the whole message as one hop); the participant never steps the
 * environment itself, except through the kernel's step path it is handed (a framework's own loop).
 */
import type { PyDict } from "../value/index.ts";
import type { StepTarget } from "./steps.ts";
import type { ChatMessage, JsonValue } from "./types.ts";

/** Which side of the conversation a participant plays. */
export type ParticipantRole = "agent" | "user";

/** A tool call in a turn; `arguments` keep Python's int/float distinction. */
export interface ToolCall {
  /** The provider's or framework's tool-call id (`""` when there is none). */
  id: string;
  name: string;
  arguments: PyDict;
  /**
   * The call could not be read (its arguments were not a JSON object): nothing is executed and this
   * text is the observation the participant gets back. τ-bench counts it as an agent action.
   */
  invalid?: string;
}

/** The result of one of the participant's own tool calls. */
export interface ToolResult {
  /** The id of the call it answers. */
  id: string;
  name: string;
  content: string;
  /** The tool reported an error. */
  error: boolean;
}

/** What a participant is handed: the other side's words, or the results of its own tool calls. */
export type Incoming = { type: "text"; content: string | null } | { type: "tool_results"; results: readonly ToolResult[] };

/** Token counts of one turn, as τ² records them per message. */
export interface TurnUsage {
  completion_tokens: number;
  prompt_tokens: number;
}

/** One turn a participant produces: text, tool calls, or both. */
export interface Turn {
  content: string | null;
  toolCalls: readonly ToolCall[];
  /**
   * US dollars for producing this turn as the suite reports it (τ²: the message's cost; τ-bench
   * users: the last generation's cost), null when unknown, never a made-up 0. Undefined: the
   * kernel takes what the participant's usage meter recorded since its previous turn.
   */
  cost?: number | null;
  usage?: TurnUsage | null;
  /** The provider's raw response, when the participant keeps it. */
  raw?: unknown;
}

/** What a participant may know of the domain: its policy and the tools of its side. */
export interface DomainView {
  readonly name: string;
  /** The policy text (the agent's system prompt). */
  readonly policy: string;
  /** Tool names in the original's order. */
  readonly toolNames: readonly string[];
  /** The tool schemas exactly as the model receives them (OpenAI function-tool form), and as Python's `json.dumps` prints them. */
  readonly toolSchemas: { readonly json: readonly Record<string, unknown>[]; readonly pythonJson: string };
}

/** A message of the starting conversation as a participant sees it (its filtered view of the task's history). */
export interface HistoryEntry {
  role: "assistant" | "user" | "tool";
  content: string | null;
  toolCalls?: readonly ToolCall[];
  /** Tool results: the call they answer. */
  id?: string;
  error?: boolean;
}

/** Where a participant records its model spend as it happens (so an episode that fails midway still reports it). */
export interface UsageMeter {
  /** One model call's result. */
  add(result: { usage: { promptTokens: number; completionTokens: number }; cost: number | null; cached: boolean }): void;
  /** Calls a framework reported in bulk, with no price (their cost is unknown). */
  addUnpriced(calls: number, promptTokens: number, completionTokens: number): void;
}

/** Where a participant keeps its own view of the conversation (τ-bench results carry the agent's as `traj`). */
export interface Transcript {
  addMessage(message: ChatMessage): void;
}

/** Everything a participant gets for one episode. `Task` is the suite's task type (the core imports no data model). */
export interface ParticipantContext<Task = unknown> {
  role: ParticipantRole;
  task: Task;
  domain: DomainView;
  /** The participant's view of the task's message history (empty for a fresh conversation). */
  history: readonly HistoryEntry[];
  /** The trial's seed (τ² passes it to the model call arguments); null when the run has none. */
  seed: number | null;
  /** τ²'s solo mode: the agent works from a ticket, with no user. */
  solo: boolean;
  /** Which episode this is (agents namespace response caches by trial). */
  episode: { taskId: string; taskIndex: number; trial: number };
  /** Aborted on the episode's timeout or when the run is cancelled. */
  signal: AbortSignal;
  /** Agents: the kernel's step path, for tools a framework runs inside its own turn. */
  steps?: StepTarget;
  /** The step budget, for frameworks that take their own loop limit. */
  maxSteps: number;
  transcript: Transcript;
  usage: UsageMeter;
}

/** One episode of a participant. */
export interface ParticipantSession {
  /**
   * The next turn. `incoming` is null for the first turn of a conversation the participant opens
   * (τ-bench's user, τ²'s solo agent). Throwing ends the episode (τ-bench: agent_error, user_error,
   * infra_error for an `InfraError`; τ²: the attempt crashes and is retried).
   */
  next(incoming: Incoming | null, signal: AbortSignal): Promise<Turn>;
  /** τ²'s `agent.is_stop`: the turn ends the episode as agent_stop. */
  isStop?(turn: Turn): boolean;
  /**
   * The episode ended after the participant's last turn (the user stopped, a terminate tool ran,
   * the budget was spent): the answer to that turn, for the transcript. Not called when the episode
   * ended inside a turn or failed.
   */
  finish?(incoming: Incoming): void;
  /**
   * Strategy-specific data for the results file (bridge statistics, invalid calls, …). A remote
   * agent puts its measured exchanges under `protocol` (a `ProtocolLog`, `episode-record.ts`):
   * both suites keep that with the episode and in its canonical record.
   */
  extra?(): Record<string, JsonValue> | undefined;
  /**
   * τ-bench's act/react agents start their `info` empty instead of from the reset info; an episode
   * that took no step then reports `{}`. Only those strategies set this.
   */
  readonly infoStartsEmpty?: boolean;
  /**
   * A turn still running when τ²'s `--timeout` passes may be stopped there: set by participants
   * whose code runs where the harness can stop it (a module agent in a worker thread). Without it,
   * τ² waits for the turn and records it before ending as `timeout`, as its orchestrator does.
   */
  readonly stopsAtTimeout?: boolean;
  /** Releases what the episode holds (child processes); called once, whatever the outcome. */
  close?(): Promise<void>;
}

/**
 * An agent or a user. One instance serves every episode of a run (possibly concurrently), so all
 * per-episode state lives in the session {@link start} returns.
 */
export interface Participant<Task = unknown> {
  readonly name: string;
  start(context: ParticipantContext<Task>): ParticipantSession | Promise<ParticipantSession>;
  /** Releases resources (child processes, servers) at the end of the run. */
  close?(): Promise<void>;
  /**
   * Set once the endpoint this participant calls on its own (a framework's model client, a remote
   * agent) refused its very first call: every episode would fail the same way, so the run stops
   * with this error (exit 2) instead of recording each as an infrastructure error.
   */
  unreachable?(): Error | undefined;
}

/** The text of an incoming message (tool results joined), for participants that only read words. */
export function incomingText(incoming: Incoming): string {
  if (incoming.type === "text") return incoming.content ?? "";
  return incoming.results.map((result) => result.content).join("\n");
}
