/**
 * The canonical episode record: one shape for an episode of either suite, whoever wrote its results
 * file (taubridge, or the original τ-bench / τ² code). Each suite's reader produces it from its
 * results files — τ-bench's published trajectories carry only `traj`, so what they do not say is
 * null — and failure analysis, a policy engine, a results viewer or a queue worker read only this.
 * The suite's own entry is kept as it was read (`native`), so nothing is lost.
 */
import type { RoleUsage, TerminationReason } from "./types.ts";

/** Whose call a tool call was. */
export type Requestor = "agent" | "user";

/** A tool call in a message: its arguments as plain JSON (numbers keep their value, not their Python spelling). */
export interface RecordToolCall {
  id: string;
  name: string;
  arguments: unknown;
  requestor: Requestor;
}

/** One message of the conversation. */
export interface RecordMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  /** Assistant (and τ² user) messages: the calls they make. */
  toolCalls?: RecordToolCall[];
  /** Tool messages: the call answered, whose it was, and whether the tool reported an error. */
  toolCallId?: string;
  requestor?: Requestor;
  error?: boolean;
  /** What producing the message cost (τ²), when recorded. */
  cost?: number | null;
  timestamp?: string;
}

/** One tool call as the environment saw it: executed (with its result), or planned and not executed. */
export interface RecordStep {
  name: string;
  arguments: unknown;
  requestor: Requestor;
  /** Who asked for it: the agent's own turn, a bridge inside a framework, the harness (decision-only), a dry-run plan, the user. */
  origin: string;
  toolCallId: string | null;
  /** The framework's own tool name, when the bridge mapped it to a benchmark tool of another name. */
  frameworkToolName: string | null;
  /** The observation, when the file records it (null: not recorded). */
  result: string | null;
  error: boolean | null;
}

/**
 * One HTTP exchange with a remote participant (an agent behind the A2A protocol), measured as it
 * happened: card fetches, sends, polls and retries alike. Tokens are what the agent reported, or
 * an estimate of the payload text labelled as such (`source`), never a made-up count.
 */
export interface ProtocolExchange {
  /** The agent turn it belongs to (0 for the card fetch before the first turn). */
  turn: number;
  /** 1 for the first try of a request, 2… for retries (which reuse the message id). */
  attempt: number;
  /** The JSON-RPC method (`message/send`, `SendMessage`, `tasks/get`, …) or `GET agent-card`. */
  method: string;
  /** The URL called, without credentials. */
  url: string;
  protocolVersion: string;
  /** null: no HTTP answer (connection refused, reset, timed out before the headers). */
  httpStatus: number | null;
  /** The JSON-RPC error code of the answer, if it was an error. */
  rpcErrorCode: number | null;
  /** Time to the response headers, and to the whole body, in milliseconds. */
  ttfbMs: number | null;
  latencyMs: number;
  requestBytes: number;
  responseBytes: number;
  messageId: string | null;
  contextId: string | null;
  taskId: string | null;
  /** The remote task's state in the answer (`completed`, `input-required`, …), if it was a task. */
  taskState: string | null;
  tokens: { input: number; output: number; source: "reported" | "estimated" } | null;
  /** What went wrong (the error class's name and message), null for a good exchange. */
  error: { type: string; message: string } | null;
}

/** A remote participant's protocol log for one episode (kept in the results file with the episode). */
export interface ProtocolLog {
  protocol: "a2a";
  /** The protocol version spoken (`0.3`, `1.0`). */
  version: string;
  /** The agent's base URL as configured, and the RPC URL its card named. */
  endpoint: string;
  rpcUrl: string;
  /** The agent's card: name and version, when it said. */
  agent: { name: string | null; version: string | null };
  exchanges: ProtocolExchange[];
}

/** One episode, canonically. */
export interface EpisodeRecord {
  schemaVersion: 1;
  /** `tau-bench` or `tau2`. */
  suite: string;
  /** The domain, when the file or the caller says it. */
  domain: string | null;
  taskId: string;
  trial: number;
  seed: number | null;
  /** The kernel's termination reason (each suite's own spelling mapped onto it); null when the file records none. */
  termination: TerminationReason | null;
  reward: number;
  /** Reward by component (τ-bench: actions, outputs; τ²: DB, ENV_ASSERTION, ACTION, COMMUNICATE, NL_ASSERTION). */
  rewardBreakdown: Record<string, number>;
  messages: RecordMessage[];
  /** Executed tool calls in order (τ-bench's responds are not tool calls and are left out). */
  steps: RecordStep[];
  /** Calls a framework planned that were not executed (dry run). Decision-only calls were executed: they are steps with origin `harness`. */
  planned: RecordStep[];
  /** Tools of a framework agent that are not the benchmark's: refused by the bridge, never executed. */
  unmappedTools: string[];
  usage: { agent: RoleUsage | null; user: RoleUsage | null };
  cost: { agent: number | null; user: number | null };
  error: { kind: TerminationReason | "error"; message: string } | null;
  durationSeconds: number | null;
  /** A remote agent's measured exchanges (A2A), when the episode's agent was one; absent otherwise. */
  protocol?: ProtocolLog;
  /** The suite's own entry, as its results file holds it (plain JSON). */
  native: unknown;
}
