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
  /** The suite's own entry, as its results file holds it (plain JSON). */
  native: unknown;
}
