/**
 * The contracts every part of taubridge plugs into, in one place: agents, user simulators, the
 * step target (the orchestrator's one step path), recorders, tools and domains, evaluators,
 * framework adapters and chat models (with `model-types.ts`). Like a
 * provider specification, this module imports no framework and nothing of ours but the core types
 * and the value model, so an adapter, a domain or an evaluator can be written against it alone.
 *
 * Ownership (the rule the rest follows): the orchestrator owns an episode — it asks the agent for
 * turns, routes actions through its single step function, counts steps and errors and alone decides
 * the termination reason; agents produce turns; environments execute tools; evaluators score.
 */
import type { Action, ChatMessage, JsonValue, RoleUsage, StepEvent, StepOrigin, Task, TerminationReason } from "./types.ts";
import type { PyDict, PyValue } from "../value/index.ts";
import type { CompletionRequest, CompletionResult, ModelRole } from "./model-types.ts";

// ─── Steps ──────────────────────────────────────────────────────────────────────────────────────

/** One step asked of the orchestrator: by the agent's turn, a bridge inside a framework, or the harness. */
export interface StepRequest {
  action: Action;
  origin: StepOrigin;
  /** The framework's or model's tool-call id, when there is one. */
  toolCallId?: string;
  /** The framework tool name, when it differs from the benchmark action name. */
  frameworkToolName?: string;
}

/**
 * What a step returned. `refused` means nothing was stepped or recorded (the episode had already
 * ended, or its step budget was spent); `observation` then holds the text to give the caller.
 */
export interface StepOutcome {
  observation: string;
  /** The step ended the episode (a terminate tool, or the user's stop). */
  done: boolean;
  refused: boolean;
  /** τ²: the tool reported an error (counts toward `max_errors`). */
  error?: boolean;
}

/**
 * The orchestrator's step path as the agent side sees it. Bridges and framework adapters step the
 * environment only through this, so every step is recorded and counted in one place.
 */
export interface StepTarget {
  step(request: StepRequest): Promise<StepOutcome>;
  /** Records an action that was planned but deliberately not stepped (dry run); counts toward the budget. */
  plan(request: StepRequest): StepOutcome;
  /** True once the orchestrator has decided the episode is over (no further steps are accepted). */
  readonly ended: boolean;
}

// ─── Environment and tools ──────────────────────────────────────────────────────────────────────

/** The database view tools read and write (an episode's copy-on-write database implements it). */
export interface ToolDatabase {
  get(collection: string, key: string): PyValue | undefined;
  has(collection: string, key: unknown): boolean;
  /** The record, copied into the episode on first write, for in-place mutation. */
  mutable(collection: string, key: string): PyDict;
  set(collection: string, key: string, value: PyValue): void;
}

/**
 * One domain tool as the environment runs it. The schema the model sees is not here: it is loaded
 * from the data directory so the original authors' text stays data.
 */
export interface ToolImplementation<Database extends ToolDatabase = ToolDatabase> {
  /** The tool name the model calls. */
  readonly name: string;
  /** The Python class name, as it appears in argument-binding TypeError texts. */
  readonly className: string;
  /** The Python module (file) name; defaults to {@link name}. Used in one fully qualified error text. */
  readonly module?: string;
  /** Parameter names in the Python signature's order (after `data`). */
  readonly parameters: readonly string[];
  /** Read-only tools never change the database (used for reporting, not for behaviour). */
  readonly kind?: "read" | "write" | "think" | "generic";
  /**
   * Runs the tool. Arguments are bound by name and not type-checked, as in the original. Throw a
   * Python exception (the value module's `PyException`) for the Python error paths; any other
   * exception is a harness bug. Return `null` only to reproduce a None return.
   */
  invoke(db: Database, args: Readonly<Record<string, PyValue>>): string | null;
}

/** Which benchmark's rules a domain follows (hash, reward, result file shape). */
export type Suite = "tau-bench" | "tau2-bench" | "taubridge";

/**
 * A domain as code: its tools and how to find its data. The data itself (database, policy, tasks,
 * tool schemas) is loaded from a data directory at run time, never compiled in.
 */
export interface DomainDefinition {
  readonly name: string;
  readonly suite: Suite;
  /** One line for `--help` and error messages. */
  readonly description: string;
  /** Sub-directory of the data root holding this domain's files (`retail`). */
  readonly dataSubdirectory: string;
  /** A directory shipped inside the package, used when no data root is given (our own domain). */
  readonly bundledDataDirectory?: string;
  /** Collection files (`<name>.json`) in the order of the original's data dict. */
  readonly collections: readonly string[];
  /** Tools in the original's registration order (the order of `tools_info.json`). */
  readonly tools: readonly ToolImplementation[];
  /** Tools that end the episode (τ-bench: `transfer_to_human_agents`). */
  readonly terminateTools: readonly string[];
  /** Task split → task file name. */
  readonly splits: Readonly<Record<string, string>>;
  readonly defaultSplit: string;
  readonly policyFile: string;
  readonly toolsInfoFile: string;
}

/** The result of one tool step in an environment. */
export interface ToolStepResult {
  observation: string;
  /** A terminate tool ran. */
  done: boolean;
  /** The observation reports an error (`Error: …`, or τ²'s error flag). */
  error: boolean;
}

/**
 * An episode's environment as the orchestrator drives it: it executes tool actions on the episode's
 * own database and renders observations. It neither talks to the user nor scores.
 */
export interface EpisodeEnvironment {
  step(action: Action): ToolStepResult;
  /** The suite's hash of the current database. */
  dataHash(): string;
}

// ─── Agents ─────────────────────────────────────────────────────────────────────────────────────

/** What the agent is told at the start of a turn: the user's words, or the result of its last action. */
export type AgentInput =
  | { type: "user"; content: string }
  | {
      type: "tool_result";
      /** The action's name (for an invalid call, the name the model used). */
      name: string;
      content: string;
      toolCallId?: string;
    };

/**
 * One agent turn. Model strategies produce one action per turn; framework adapters run their own
 * loop (stepping through {@link StepTarget}) and end the turn with what they say to the user.
 */
export type AgentTurn =
  | { type: "respond"; content: string | null }
  | { type: "tool_call"; action: Action; toolCallId?: string }
  /** A malformed action: nothing is stepped; `error` is the observation the agent gets back. It still counts as a turn. */
  | { type: "invalid"; name: string; error: string; toolCallId?: string };

/** What an agent may know of the domain it is tested on: its policy and the tools it may call. */
export interface DomainView {
  readonly name: string;
  /** The policy text (the agent's system prompt in τ-bench). */
  readonly policy: string;
  /** Benchmark tool names, in the original's order. */
  readonly toolNames: readonly string[];
  /** The tool schemas exactly as the model receives them (OpenAI function-tool form). */
  readonly toolSchemas: { readonly json: readonly Record<string, unknown>[] };
}

/** Everything an agent gets for one episode. */
export interface AgentEpisodeContext {
  domain: DomainView;
  task: Task;
  /** Which episode this is (agents namespace response caches by trial). */
  episode: { taskIndex: number; trial: number };
  /** The orchestrator's step path (bridges step through it inside a turn). */
  steps: StepTarget;
  /** The trajectory's message list, in the strategy's own shape (τ-bench's `traj`). */
  recorder: MessageRecorder;
  /** The step budget, for frameworks that take their own loop limit. */
  maxSteps: number;
  /** Aborted on the episode timeout or when the run is cancelled (a turn's own signal is also aborted when the episode ends inside the turn). */
  signal: AbortSignal;
}

/** One episode of an agent: it produces turns until the orchestrator ends the episode. */
export interface AgentSession {
  /** The agent's next turn for the given input. Throwing ends the episode (`agent_error`, or `infra_error` for a TaubridgeError InfraError). */
  turn(input: AgentInput, signal: AbortSignal): Promise<AgentTurn>;
  /**
   * The episode ended after the last action (the user stopped, a terminate tool ran, the budget was
   * spent): the answer to that action, for the trajectory. Not called when the episode ended inside
   * a turn or failed.
   */
  finish?(input: AgentInput): void;
  /** Strategy-specific data for the results file (bridge statistics, invalid calls, …). */
  extra?(): Record<string, JsonValue> | undefined;
  /**
   * τ-bench's act/react agents start their `info` empty instead of from the reset info; an episode
   * that took no step then reports `{}`. Only those strategies set this.
   */
  readonly infoStartsEmpty?: boolean;
  /** Releases what the episode holds (child processes); called once, whatever the outcome. */
  close?(): Promise<void>;
}

/**
 * The agent under test. One instance serves every episode of a run (possibly concurrently), so all
 * per-episode state lives in the session {@link start} returns.
 */
export interface Agent {
  readonly name: string;
  start(context: AgentEpisodeContext): Promise<AgentSession> | AgentSession;
  /** Releases resources (child processes, servers) at the end of the run. */
  close?(): Promise<void>;
}

// ─── User simulators ────────────────────────────────────────────────────────────────────────────

/** Per-call options the orchestrator passes to its user simulator. */
export interface UserCallOptions {
  /** Aborted when the episode times out or the run is interrupted; model-backed users pass it on. */
  signal?: AbortSignal;
}

/** The simulated user. */
export interface UserSimulator {
  /** Starts the conversation for an instruction; returns the user's first utterance. */
  reset(instruction: string, options?: UserCallOptions): Promise<string>;
  /** Answers the agent's message. */
  step(content: string, options?: UserCallOptions): Promise<string>;
  /** τ-bench's `user_cost` (the original reports the last call's cost); null when unknown. */
  reportedCost(): number | null;
  /** The user's model usage in this episode, when it called a model. */
  usage?(): RoleUsage | null;
}

// ─── Recording ──────────────────────────────────────────────────────────────────────────────────

/** Where an agent writes its trajectory messages. */
export interface MessageRecorder {
  addMessage(message: ChatMessage): void;
  /** The agent's model usage, added as calls happen so an episode that throws still reports its spend. */
  readonly agentUsage: {
    /** One model call's result. */
    add(result: { usage: { promptTokens: number; completionTokens: number }; cost: number | null; cached: boolean }): void;
    /** Calls a framework reported in bulk, with no price (their cost is unknown). */
    addUnpriced(calls: number, promptTokens: number, completionTokens: number): void;
  };
}

// ─── Evaluation ─────────────────────────────────────────────────────────────────────────────────

/** A finished episode as an evaluator sees it. */
export interface FinishedEpisode {
  task: Task;
  termination: TerminationReason;
  /** Every stepped action in order (responds included), as recorded by the orchestrator. */
  steps: readonly StepEvent[];
  /** The episode's end state. */
  environment: EpisodeEnvironment;
}

/** An evaluator's verdict: the reward, its breakdown by component, and the suite's own reward info. */
export interface Evaluation {
  reward: number;
  /** Component → score (τ¹: `actions`, `outputs`; τ²: `DB`, `ENV_ASSERTION`, `ACTION`, `COMMUNICATE`, `NL_ASSERTION`). */
  breakdown: Record<string, number>;
  /** The suite's reward info exactly as its results files carry it (τ¹ `RewardResult`), or null when not evaluated. */
  rewardInfo: unknown;
}

/** Scores finished episodes for one suite. */
export interface Evaluator {
  readonly suite: Suite;
  evaluate(episode: FinishedEpisode): Evaluation;
}

// ─── Framework adapters ─────────────────────────────────────────────────────────────────────────

/** A load-time hook: patches a framework's exports as the module loads (ESM or CJS). */
export interface ModuleHook {
  /** Unique id; installing the same id twice is a no-op. */
  readonly id: string;
  /** Package names or exported subpaths (`@langchain/core/tools`). Never internal file paths. */
  readonly modules: readonly string[];
  onLoad(exports: Record<string, unknown>, info: ModuleLoadInfo): Record<string, unknown> | void;
}

export interface ModuleLoadInfo {
  /** The matched module name or specifier. */
  module: string;
  /** Which module system loaded this copy (dual packages load one of each). */
  system: "esm" | "cjs";
  baseDir?: string;
}

/** A loaded user module and the export chosen from it. */
export interface UserAgentSource {
  modulePath: string;
  exportName: string;
  /** A factory (called once per episode, so episodes never share agent state) or a ready agent (shared). */
  kind: "factory" | "instance";
  value: unknown;
}

/** Token usage of one framework turn (what the framework reports). */
export interface UsageDelta {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/** One user turn handed to the framework's own run loop. */
export interface TurnOutcome {
  /** The agent's final text for this turn; it becomes a `respond` action. */
  text: string;
  /** The turn's assistant/tool messages in τ-bench's trajectory shape (not the user message). */
  messages: ChatMessage[];
  usage?: UsageDelta;
}

/** A conversation with one framework agent, for one episode; it keeps the history in the framework's own shape. */
export interface FrameworkConversation {
  /** The agent's system prompt, when it can be read, for the trajectory's first message. */
  readonly system?: string;
  turn(userMessage: string, signal: AbortSignal): Promise<TurnOutcome>;
}

/** What an adapter may read of the run's settings to build the framework's model client. */
export interface FrameworkSettings {
  apiKey: string;
  baseURL?: string;
  model?: string;
  /** Every `--agent-option` as a string. */
  options: Readonly<Record<string, string>>;
}

export interface ConversationContext {
  settings: FrameworkSettings;
  /** The episode's step budget (`--max-steps`). */
  maxSteps: number;
  /**
   * The framework's own loop limit per user turn (model calls), where it takes one per call:
   * `--agent-option maxTurns`, else one more than `maxSteps`, so the step budget (which ends the
   * episode as `max_steps`) always trips before the framework's own limit (an error).
   */
  maxTurns: number;
}

/**
 * What each framework adapter provides: its load-time hooks, how to recognise and patch the user's
 * agent object, and how to hand one user turn to the framework's run loop. Everything else (bridge
 * session, modes, recording, budgets, termination) is shared by the adapter driver and the orchestrator.
 */
export interface FrameworkAdapter<A = unknown> {
  readonly name: string;
  /** `--agent-option` keys this adapter reads beyond the common ones (any other key is rejected as a typo). */
  readonly agentOptions?: readonly string[];
  readonly hooks: readonly ModuleHook[];
  /**
   * Where the framework sends model calls when the run gives no `--base-url`, in words for messages
   * (e.g. OpenAI's public API): errors and the run's notice name it, so a failure says where it went.
   */
  defaultEndpoint?(): string;
  /** Checks the user's export is this framework's agent and patches what can be reached from it (idempotent). */
  prepare(candidate: unknown, source: UserAgentSource): A | Promise<A>;
  converse(agent: A, context: ConversationContext): FrameworkConversation | Promise<FrameworkConversation>;
}

// ─── Model clients ──────────────────────────────────────────────────────────────────────────────

/**
 * A chat model as agents and user simulators use it: one completion per call, in OpenAI
 * chat-completions shapes (`model-types.ts`, no SDK types). The model layer's `ModelClient` (retries,
 * pricing, cache, per-endpoint queues) and the in-process scripted client both implement it.
 */
export interface ChatModel {
  readonly role: ModelRole;
  readonly model: string;
  complete(request: CompletionRequest): Promise<CompletionResult>;
}

// ─── τ²-bench participants ──────────────────────────────────────────────────────────────────────

/** A tool call a τ² participant makes; `arguments` keep Python's int/float distinction. */
export interface Tau2CallRequest {
  /** The provider's tool-call id (τ² keeps it; `""` when there is none). */
  id: string;
  name: string;
  arguments: PyDict;
}

/** One message a τ² participant generates: text, tool calls, or both (τ²'s `AssistantMessage`/`UserMessage`). */
export interface Tau2Turn {
  content: string | null;
  toolCalls: readonly Tau2CallRequest[];
  /** US dollars for the model call that produced it; null when unknown (never a made-up 0). */
  cost?: number | null;
  usage?: { completion_tokens: number; prompt_tokens: number } | null;
  /** The provider's raw response, when the participant keeps it. */
  raw?: unknown;
}

/** What a participant is handed: the other side's text, or the results of its own tool calls (τ²'s Multi/ToolMessage). */
export type Tau2Incoming = { type: "text"; content: string | null } | { type: "tool_results"; results: ReadonlyArray<{ id: string; name: string; content: string; error: boolean }> };

/** A message of the starting conversation as a participant sees it (its filtered view of the task's history). */
export interface Tau2HistoryEntry {
  role: "assistant" | "user" | "tool";
  content: string | null;
  toolCalls?: readonly Tau2CallRequest[];
  /** Tool results: the call they answer. */
  id?: string;
  error?: boolean;
}

/** Everything a τ² participant gets for one episode. `Task` is the τ² task type (kept generic so the core imports no data model). */
export interface Tau2ParticipantContext<Task = unknown> {
  task: Task;
  /** The domain's policy (the agent's) and tool names per side. */
  domain: { name: string; policy: string; agentToolNames: readonly string[]; userToolNames: readonly string[] };
  /** The participant's view of the task's message history (empty for a fresh conversation). */
  history: readonly Tau2HistoryEntry[];
  /** The trial's seed (τ² passes it to the model call arguments); null when the run has none. */
  seed: number | null;
  solo: boolean;
  episode: { taskId: string; trial: number };
  signal: AbortSignal;
  /**
   * Agents only: the orchestrator's step path for agents that run tools inside their own turn (a
   * framework through the bridge). Each step is recorded as an assistant tool-call message and its
   * result — two hops, counted like any other — and can end the episode.
   */
  steps?: StepTarget;
  /** The hop budget, for frameworks that take their own loop limit. */
  maxSteps?: number;
}

/** One episode of a τ² participant (τ²'s `generate_next_message` with its state). */
export interface Tau2ParticipantSession {
  /** The next message; `incoming` is null only for a solo agent's first message. Throwing ends the attempt (τ² retries it). */
  next(incoming: Tau2Incoming | null, signal: AbortSignal): Promise<Tau2Turn>;
  /** τ²'s `agent.is_stop` (agents only; τ²'s user stop is decided by the stop tokens). */
  isStop?(turn: Tau2Turn): boolean;
  /** Releases what the episode holds. */
  close?(): Promise<void>;
}

/** A τ² agent or user simulator: one instance serves every episode; per-episode state lives in the session. */
export interface Tau2Participant<Task = unknown> {
  readonly name: string;
  start(context: Tau2ParticipantContext<Task>): Promise<Tau2ParticipantSession> | Tau2ParticipantSession;
  close?(): Promise<void>;
}
