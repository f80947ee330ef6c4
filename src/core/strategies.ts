/**
 * The contract of shared strategies (agent and user factories, what they are built from) and of a
 * run's model clients: participants and the suites build on these; the run layer fills them.
 */
import { Registry } from "./registry.ts";
import type { ChatModel, DomainView, Participant } from "./contracts.ts";

/** The model clients of a run, one per role, created on first use. */
export interface RunModels {
  agent(): ChatModel;
  user(): ChatModel;
  /** τ²'s NL-assertion judge (a run without `judgeModel` has none: asking is a one-line error). */
  judge?(): ChatModel;
  /**
   * Set once a role's endpoint refused a call before it had ever answered (wrong `--base-url`, server
   * not started): the batch layer stops the run with this error instead of failing every episode.
   */
  unreachable?(): Error | undefined;
}

/** The run settings a strategy may read: the same fields on both suites. */
export interface StrategySettings {
  agentStrategy: string;
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  agentPromptFile?: string;
  userPromptFile?: string;
  fewShotDisplaysPath?: string;
  /** The run's seed (τ-bench: shuffling and few-shot sampling). */
  seed: number;
  /** Strategy-specific options (`--agent-option`: bridge mode, agent module, workflow path, …). */
  agentOptions: Record<string, unknown>;
}

/** A transcript line as a supervisor prompt reads it. */
type HistoryLine = { role: string; content: string | null };

/** The benchmark's own prompt templates, for suites whose sources hold them (τ-bench's act/react agents and user simulators). */
export interface OriginalPrompts {
  /** The act / react system prompt, `{{policy}}` where the policy goes. */
  chatReact(useReasoning: boolean): string;
  /** A user simulator's system prompt, `{{instruction}}` where the instruction goes. */
  user(kind: "llm" | "react"): string;
  supervisor: { verify(history: readonly HistoryLine[], response: string): string; reflect(history: readonly HistoryLine[], response: string): string };
}

/** What a factory may use to build its part of a run. */
export interface BuildContext<Domain extends DomainView = DomainView> {
  config: StrategySettings;
  /** The domain as the strategy's side sees it (τ-bench runs pass the loaded domain, which is one). */
  domain: Domain;
  /** The suite's original prompts, when its data directory holds them; `warn` says so once a strategy needs them and they are absent. */
  originalPrompts?: (warn?: (message: string) => void) => OriginalPrompts | null;
  /** Per-role model clients (created on first use; shared queues per endpoint). */
  models: RunModels;
  /** The run's warning channel (stderr in the CLI), for what a user should know before episodes start. */
  warn?(message: string): void;
}

/** Builds the agent under test for a run (one instance shared by all episodes). */
export interface AgentFactory {
  readonly description: string;
  /** Strategies that call a model need `--model`/`--model-provider`. */
  readonly requiresModel: boolean;
  /**
   * The suites the strategy runs on (`tau-bench`, `tau2`), when not all: a run of another suite
   * refuses it in one line before any episode, and `taubridge strategies` does not list it there.
   */
  readonly suites?: readonly string[];
  create(context: BuildContext): Participant<unknown> | Promise<Participant<unknown>>;
}

/** Builds the user of a run (one participant; each episode starts its own session). */
export interface UserFactory {
  readonly description: string;
  readonly requiresModel: boolean;
  create(context: BuildContext): Participant<unknown>;
}

/** A fresh registry of agent strategies (`--agent-strategy` names). */
export function agentStrategyRegistry(): Registry<AgentFactory> {
  return new Registry<AgentFactory>("agent strategy");
}

/** A fresh registry of user strategies (`--user-strategy` names). */
export function userStrategyRegistry(): Registry<UserFactory> {
  return new Registry<UserFactory>("user strategy");
}
