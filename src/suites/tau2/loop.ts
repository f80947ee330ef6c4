/**
 * τ²-bench's episode, as its `Orchestrator` runs it (`src/tau2/orchestrator/orchestrator.py`,
 * half-duplex text mode), over the episode kernel:
 *
 *   initialize()                  the task's initial state; who speaks first
 *   while not done:
 *       step()                    one hop: to the user, to the agent, or to the environment
 *       check_termination()       max_steps, then too_many_errors, then the timeout
 *
 * Every tool call — a participant's message sent to the environment, a framework's call inside
 * the agent's turn — goes through the kernel's one recorded step path, which counts tool errors.
 * A participant that throws or sends an empty message crashes the attempt (the batch layer retries
 * it and finally records an infrastructure error), as in τ².
 */
import type { DomainView, Incoming, Participant, ParticipantSession, StepOutcome, StepRequest, StepTarget, Turn } from "../../core/contracts.ts";
import type { SuiteRules } from "../../core/suite-rules.ts";
import type { JsonValue, TerminationReason } from "../../core/types.ts";
import { EpisodeEndingError } from "../../errors/error-tree.ts";
import { startGuarded } from "../../kernel/agent-guard.ts";
import { EPISODE_ENDED_OUTPUT, EpisodeKernel, type StepExecution } from "../../kernel/episode-kernel.ts";
import type { PyDict } from "../../value/index.ts";
import type { LoadedTau2Domain } from "./engine/domain.ts";
import { orchestratorMessages } from "./engine/engine-messages.ts";
import type { Tau2Environment, Tau2ToolCall } from "./engine/environment.ts";
import { toReplayMessage } from "./engine/task-state.ts";
import { historyView, isUserStop, participantMessage, Tau2ProtocolError, validate, validateHistory } from "./loop-messages.ts";
import { TAU2_BENCH_RULES } from "./rules.ts";
import { type Tau2ParticipantMessage, type Tau2SimulationMessage, type Tau2TerminationReason, type Tau2ToolMessage, fromTaskMessage, hasTextContent, isToolCallMessage } from "./simulation.ts";
import type { Tau2Task } from "./tasks.ts";
import { tau2DomainViews } from "./views.ts";

export { Tau2ProtocolError } from "./loop-messages.ts";

type Role = "agent" | "user" | "env";

/** Everything one τ² episode needs, already resolved. */
export interface Tau2EpisodeParts {
  domain: LoadedTau2Domain;
  task: Tau2Task;
  trial: number;
  seed: number | null;
  agent: Participant<Tau2Task>;
  user: Participant<Tau2Task>;
  /** What each side sees of the domain (policy, its tools); default: the domain's own views (`views.ts`). */
  views?: { agent: (solo: boolean, task?: Tau2Task) => DomainView; user: (task?: Tau2Task) => DomainView };
  /** The fixed first agent message (τ²'s greeting, read from its sources). */
  firstAgentMessage: string;
  rules?: SuiteRules;
  maxSteps?: number;
  maxErrors?: number;
  /** τ²'s `--timeout` in seconds, checked after each hop; null for none. */
  timeoutSeconds?: number | null;
  solo?: boolean;
  /** τ²'s `--enforce-communication-protocol`: a message with both text and tool calls (or, solo, agent text that is not a stop) ends the run as agent_error / user_error. */
  enforceCommunicationProtocol?: boolean;
  signal?: AbortSignal;
}

/** What an episode produced, before evaluation. */
export interface Tau2EpisodeOutcome {
  termination: Tau2TerminationReason;
  /** The trajectory in timestamp order, `turn_idx` numbered. */
  messages: Tau2SimulationMessage[];
  startTime: string;
  endTime: string;
  durationSeconds: number;
  steps: number;
  errors: number;
  /** The environment at the end (its hashes are the predicted state), already disposed. */
  environment: Tau2Environment;
  /** Tool calls planned in dry-run mode (never executed). */
  planned: Array<{ name: string; arguments: PyDict; toolCallId: string | null }>;
  /** Tool calls a framework agent planned in decision-only mode and the harness stepped, with the framework's own tool name. */
  decisions: Array<{ name: string; arguments: PyDict; toolCallId: string | null; frameworkToolName: string }>;
  /** Tools a framework agent called that are not the benchmark's (refused by the bridge, never executed). */
  unmappedTools: string[];
  /** A remote agent's protocol log (A2A), when the agent was one. */
  protocol?: JsonValue;
  /** The agent's failure that ended the episode with its own termination (a remote agent's protocol error, its timeout). */
  agentFailure?: { type: string; message: string };
}

/** The framework tools the bridge refused in an episode, from the agent session's extra data. */
function unmappedToolsOf(extra: Record<string, JsonValue> | undefined): string[] {
  // Node adapters report them at the top level; the Python bridge under `bridge`.
  const bridge = extra?.bridge;
  const tools = extra?.unmappedTools ?? (bridge && typeof bridge === "object" && !Array.isArray(bridge) ? bridge.unmappedTools : undefined);
  return Array.isArray(tools) ? tools.filter((tool): tool is string => typeof tool === "string") : [];
}

/** A remote agent's measured exchanges (`extra().protocol`), kept with the simulation. */
function protocolOf(extra: Record<string, JsonValue> | undefined): { protocol?: JsonValue } {
  return extra?.protocol !== undefined ? { protocol: extra.protocol } : {};
}

/** τ²'s spelling of the kernel's termination reasons. */
const TAU2_SPELLING: Partial<Record<TerminationReason, Tau2TerminationReason>> = { max_errors: "too_many_errors", infra_error: "infrastructure_error" };

export function tau2Termination(reason: TerminationReason): Tau2TerminationReason {
  return TAU2_SPELLING[reason] ?? (reason as Tau2TerminationReason);
}

class Tau2Episode implements StepTarget {
  readonly rules: SuiteRules;
  readonly kernel: EpisodeKernel;
  readonly trajectory: Tau2SimulationMessage[] = [];
  readonly environment: Tau2Environment;
  readonly solo: boolean;
  from: Role = "agent";
  to: Role = "user";
  current: Tau2SimulationMessage | Tau2ToolMessage[] | null = null;
  agent!: ParticipantSession;
  user!: ParticipantSession;
  private insideCalls = 0;
  /** The tool calls the current tool results answer (their names go to the participant). */
  private answeredCalls: readonly Tau2ToolCall[] = [];
  /** The tool message of the last executed call. */
  private lastToolMessage: Tau2ToolMessage | undefined;
  /** The agent's failure that ended the episode with its own termination (`EpisodeEndingError`). */
  agentFailure: EpisodeEndingError | undefined;

  private readonly views: NonNullable<Tau2EpisodeParts["views"]>;

  constructor(readonly parts: Tau2EpisodeParts) {
    this.views = parts.views ?? tau2DomainViews(parts.domain);
    this.rules = parts.rules ?? TAU2_BENCH_RULES;
    this.solo = parts.solo ?? false;
    this.environment = parts.domain.createEnvironment({ solo: this.solo, task: parts.task });
    this.kernel = new EpisodeKernel({ execute: (request, requestor) => this.callEnvironment(request, requestor), precedence: "last", ...(parts.signal ? { signal: parts.signal } : {}) });
  }

  get done(): boolean {
    return this.kernel.ended;
  }

  /** One tool call through the dual-control environment; its tool message joins the trajectory. */
  private async callEnvironment(request: StepRequest, requestor: "agent" | "user"): Promise<StepExecution> {
    const call: Tau2ToolCall = { id: request.toolCallId ?? "", name: request.action.name, arguments: request.action.kwargs, requestor: requestor === "agent" ? "assistant" : "user" };
    const result = await this.environment.getResponseAsync(call);
    const message: Tau2ToolMessage = { role: "tool", ...result, timestamp: this.kernel.clock.now() };
    this.trajectory.push(message);
    this.lastToolMessage = message;
    return { observation: result.content, done: false, error: result.error };
  }

  /** Executes one call of a participant's message through the kernel's step path. */
  private async execute(call: Tau2ToolCall): Promise<Tau2ToolMessage> {
    const requestor = call.requestor === "user" ? "user" : "agent";
    await this.kernel.execute({ action: { name: call.name, kwargs: call.arguments }, origin: requestor, ...(call.id ? { toolCallId: call.id } : {}) }, requestor);
    return this.lastToolMessage!;
  }

  get ended(): boolean {
    return this.kernel.ended;
  }

  /**
   * The step path for agents that run tools inside their turn (framework adapters through the
   * bridge): each step is an assistant tool-call message, one environment hop and the hop back —
   * recorded, counted and checked exactly as if the agent had sent the call as its message. A step
   * that ends the episode stops the agent's turn; later steps are refused (nothing executed).
   */
  async step(request: StepRequest): Promise<StepOutcome> {
    if (this.done) return { observation: EPISODE_ENDED_OUTPUT, done: true, refused: true };
    const call: Tau2ToolCall = { id: request.toolCallId ?? `bridge_${++this.insideCalls}`, name: request.action.name, arguments: request.action.kwargs, requestor: "assistant" };
    this.trajectory.push({ role: "assistant", content: null, tool_calls: [call], timestamp: this.kernel.clock.now(), cost: null, usage: null, raw_data: null });
    this.kernel.steps++;
    const result = await this.kernel.execute({ ...request, toolCallId: call.id }, "agent");
    this.kernel.steps++;
    this.environment.sync();
    this.from = "env";
    this.to = "agent";
    this.checkTermination();
    return { observation: result.observation, done: this.done, refused: false, error: result.error };
  }

  plan(request: StepRequest): StepOutcome {
    if (this.done) return { observation: EPISODE_ENDED_OUTPUT, done: true, refused: true };
    this.kernel.recordPlan(request);
    this.kernel.steps += 2; // as if the call and its result had gone through the environment
    this.from = "env";
    this.to = "agent";
    this.checkTermination();
    return { observation: "", done: this.done, refused: false };
  }

  private start(participant: Participant<Tau2Task>, side: "assistant" | "user", history: readonly Tau2SimulationMessage[]): Promise<ParticipantSession> | ParticipantSession {
    const role = side === "assistant" ? "agent" : "user";
    const maxSteps = this.parts.maxSteps ?? this.rules.defaultMaxSteps;
    const base = {
      task: this.parts.task,
      domain: side === "assistant" ? this.views.agent(this.solo, this.parts.task) : this.views.user(this.parts.task),
      history: historyView(history, side),
      seed: this.parts.seed,
      solo: this.solo,
      episode: { taskId: this.parts.task.id, taskIndex: 0, trial: this.parts.trial },
      maxSteps,
      ...(side === "assistant" ? { steps: this as StepTarget } : {}),
    };
    if (role === "agent" && !participant.trusted) return startGuarded(`the agent "${participant.name}"`, () => participant.start(this.kernel.participantContext(role, base)));
    return participant.start(this.kernel.participantContext(role, base));
  }

  /** τ²'s `initialize`: the task's initial state, the participants' states, and who speaks first. */
  async initialize(): Promise<void> {
    const state = this.parts.task.initial_state;
    const taskHistory = state?.message_history ?? [];
    const times = this.kernel.clock.history(taskHistory.length);
    const history = taskHistory.map((message, index) => fromTaskMessage(message, times[index]));
    this.environment.setState(state?.initialization_data, state?.initialization_actions, (state?.message_history ?? []).map(toReplayMessage));
    if (history.length > 0) await this.resume(history);
    else await this.fresh();
    this.checkCommunication();
    this.environment.sync();
  }

  private async fresh(): Promise<void> {
    this.user = await this.start(this.parts.user, "user", []);
    if (this.solo) {
      this.agent = await this.start(this.parts.agent, "assistant", []);
      const turn = await this.agentTurn(null);
      const first = this.message(turn, "assistant", "agent");
      this.trajectory.push(first);
      this.current = first;
      this.from = "agent";
      const stop = this.agent.isStop?.(turn) ?? false;
      if (turn.toolCalls.length === 0) {
        this.to = "user";
        this.kernel.end(stop ? "agent_stop" : "agent_error");
      } else {
        this.to = stop ? "user" : "env";
        if (stop) this.kernel.end("agent_stop");
      }
      return;
    }
    const greeting: Tau2ParticipantMessage = { role: "assistant", content: this.parts.firstAgentMessage, tool_calls: null, timestamp: this.kernel.clock.now(), cost: 0, usage: null, raw_data: null };
    this.agent = await this.start(this.parts.agent, "assistant", [greeting]);
    this.trajectory.push(greeting);
    this.current = greeting;
    this.from = "agent";
    this.to = "user";
  }

  private async resume(history: Tau2SimulationMessage[]): Promise<void> {
    validateHistory(history);
    const last = history[history.length - 1];
    const before = history.slice(0, -1);
    this.trajectory.push(...history);
    this.current = last;
    if (last.role === "assistant") {
      this.from = "agent";
      this.to = isToolCallMessage(last) ? "env" : "user";
      this.agent = await this.start(this.parts.agent, "assistant", history);
      this.user = await this.start(this.parts.user, "user", before);
    } else if (last.role === "user") {
      this.from = "user";
      this.to = isToolCallMessage(last) ? "env" : "agent";
      this.user = await this.start(this.parts.user, "user", history);
      this.agent = await this.start(this.parts.agent, "assistant", before);
      if (isUserStop(last, this.rules)) this.kernel.end("user_stop");
    } else if (last.role === "tool") {
      this.from = "env";
      this.to = last.requestor === "assistant" ? "agent" : "user";
      this.agent = await this.start(this.parts.agent, "assistant", this.to === "agent" ? before : history);
      this.user = await this.start(this.parts.user, "user", this.to === "agent" ? history : before);
      this.current = [last];
      this.answeredCalls = before.filter(isToolCallMessage).at(-1)?.tool_calls ?? [];
    } else {
      throw new Tau2ProtocolError("the last message of a task's history must be an assistant, user or tool message");
    }
  }

  private incoming(): Incoming {
    const current = this.current;
    if (Array.isArray(current)) {
      const names = new Map(this.answeredCalls.map((call) => [call.id, call.name]));
      return { type: "tool_results", results: current.map((message) => ({ id: message.id, name: names.get(message.id) ?? "", content: message.content, error: message.error })) };
    }
    return { type: "text", content: current && current.role !== "tool" ? current.content : null };
  }

  /**
   * The agent's turn; a step that failed inside it (a crashed tool) crashes the attempt. τ² checks
   * its timeout only between hops, so it waits for a turn and records it; an agent whose code the
   * harness can stop (`stopsAtTimeout`: a module agent in a worker) is stopped when the timeout
   * passes instead — waiting would be forever for an agent stuck in a loop — and the episode ends
   * as `timeout` all the same.
   */
  private async agentTurn(incoming: Incoming | null): Promise<Turn> {
    const timeout = this.agent.stopsAtTimeout ? this.parts.timeoutSeconds : undefined;
    const deadline = timeout != null ? setTimeout(() => this.kernel.end("timeout"), Math.max(0, timeout - this.kernel.elapsedSeconds()) * 1000) : undefined;
    try {
      const turn = await this.agent.next(incoming, this.kernel.turnSignal);
      if (this.kernel.fatalError !== undefined) throw this.kernel.fatalError;
      return turn;
    } finally {
      clearTimeout(deadline);
    }
  }

  /** A participant's turn as a trajectory message; a turn that does not say its cost is charged what its meter recorded. */
  private message(turn: Turn, side: "assistant" | "user", role: "agent" | "user"): Tau2ParticipantMessage {
    const spent = this.kernel.takeTurnSpend(role);
    return participantMessage(turn.cost === undefined ? { ...turn, ...spent } : turn, side, this.kernel.clock.now());
  }

  /** One hop (τ²'s `Orchestrator.step`). */
  async step_(): Promise<void> {
    if (this.to === "user") await this.toUser();
    else if (this.to === "agent") {
      if (!(await this.toAgent())) return;
    } else await this.toEnvironment();
    this.checkCommunication();
    this.kernel.steps++;
    this.environment.sync();
  }

  private async toUser(): Promise<void> {
    const turn = await this.user.next(this.incoming(), this.kernel.signal);
    validate(turn, "user");
    const message = this.message(turn, "user", "user");
    if (isUserStop(message, this.rules)) this.kernel.end("user_stop");
    this.trajectory.push(message);
    this.current = message;
    this.from = "user";
    this.to = message.tool_calls ? "env" : "agent";
  }

  /** False when the episode ended inside the agent's turn (its final words are not a hop). */
  private async toAgent(): Promise<boolean> {
    let turn: Turn;
    try {
      turn = await this.agentTurn(this.incoming());
    } catch (error) {
      if (this.kernel.fatalError !== undefined) throw this.kernel.fatalError;
      if (this.done && !this.kernel.signal.aborted) return false; // a step inside the turn ended the episode
      if (EpisodeEndingError.isInstance(error) && !this.kernel.signal.aborted) {
        // A failure that says how the episode ends (a remote agent's protocol error or timeout): data, not a crash to retry.
        this.agentFailure = error;
        this.kernel.end(error.termination);
        return false;
      }
      throw error;
    }
    if (this.done) return false;
    validate(turn, "assistant");
    if (this.agent.isStop?.(turn)) this.kernel.end("agent_stop");
    const message = this.message(turn, "assistant", "agent");
    this.trajectory.push(message);
    this.current = message;
    this.from = "agent";
    this.to = message.tool_calls ? "env" : "user";
    if (!message.tool_calls && this.solo && !this.agent.isStop?.(turn)) this.kernel.end("agent_error");
    return true;
  }

  private async toEnvironment(): Promise<void> {
    const message = this.current as Tau2ParticipantMessage;
    if (!message.tool_calls) throw new Tau2ProtocolError(orchestratorMessages.text("environmentNeedsToolCalls"));
    this.answeredCalls = message.tool_calls;
    const results: Tau2ToolMessage[] = [];
    for (const call of message.tool_calls) results.push(await this.execute(call));
    this.current = results;
    this.to = this.from;
    this.from = "env";
  }

  /** τ²'s `check_communication_error` (only with `enforceCommunicationProtocol`). */
  private checkCommunication(): void {
    if (!this.parts.enforceCommunicationProtocol || this.from === "env") return;
    const message = this.current as Tau2ParticipantMessage;
    const reason = this.from === "agent" ? "agent_error" : "user_error";
    const text = hasTextContent(message);
    const calls = (message.tool_calls?.length ?? 0) > 0;
    if ((!text && !calls) || (text && calls)) this.kernel.end(reason);
    else if (this.from === "agent" && this.solo && text && !this.agentStops(message)) this.kernel.end(reason);
  }

  /** What the agent's session reports about itself at the end (a framework agent: bridge counts, refused tools). */
  agentExtra(): Record<string, JsonValue> | undefined {
    return this.agent?.extra?.();
  }

  private agentStops(message: Tau2ParticipantMessage): boolean {
    return this.agent.isStop?.({ content: message.content, toolCalls: message.tool_calls ?? [] }) ?? false;
  }

  /** τ²'s `_check_termination`: skipped while the environment owes an answer; later checks override earlier ones. */
  checkTermination(): void {
    if (this.to === "env") return;
    const maxSteps = this.parts.maxSteps ?? this.rules.defaultMaxSteps;
    const maxErrors = this.parts.maxErrors ?? this.rules.defaultMaxErrors ?? Number.POSITIVE_INFINITY;
    if (this.kernel.steps >= maxSteps) this.kernel.end("max_steps");
    if (this.kernel.errors >= maxErrors) this.kernel.end("max_errors");
    const timeout = this.parts.timeoutSeconds;
    if (timeout != null && !this.done && this.kernel.elapsedSeconds() >= timeout) this.kernel.end("timeout");
  }

  /** The trajectory as τ² stores it: sorted by timestamp, `turn_idx` renumbered. */
  messages(): Tau2SimulationMessage[] {
    const { trajectory } = this;
    // Mostly in order already (each message is stamped as it joins): sorted (stably) only when not.
    let ordered: readonly Tau2SimulationMessage[] = trajectory;
    for (let index = 1; index < trajectory.length; index++) {
      if ((trajectory[index] as Tau2SimulationMessage).timestamp < (trajectory[index - 1] as Tau2SimulationMessage).timestamp) {
        ordered = [...trajectory].sort((left, right) => (left.timestamp < right.timestamp ? -1 : left.timestamp > right.timestamp ? 1 : 0));
        break;
      }
    }
    return ordered.map((message, turn) => ({ ...message, turn_idx: turn }));
  }
}

/**
 * Runs one τ² episode to its termination. Throws (for the batch layer's retry) when a participant
 * fails, a message breaks the protocol, or a tool crashes in our port.
 */
export async function runTau2Episode(parts: Tau2EpisodeParts): Promise<Tau2EpisodeOutcome> {
  const episode = new Tau2Episode(parts);
  const { kernel } = episode;
  const startTime = kernel.clock.wallNow();
  let failure: unknown;
  try {
    failure = await kernel.run(
      async () => {
        await episode.initialize();
        while (!episode.done) {
          kernel.signal.throwIfAborted();
          await episode.step_();
          episode.checkTermination();
        }
      },
      { sessions: () => [episode.agent, episode.user] },
    );
  } finally {
    await episode.environment.dispose(); // the episode is over: nothing runs in its environment any more (its hashes stay readable)
  }
  if (failure !== undefined) throw failure;
  return {
    termination: tau2Termination(kernel.termination as TerminationReason),
    messages: episode.messages(),
    startTime,
    endTime: kernel.clock.wallNow(),
    durationSeconds: kernel.elapsedSeconds(),
    steps: kernel.steps,
    errors: kernel.errors,
    environment: episode.environment,
    planned: kernel.planned.map((event) => ({ name: event.action.name, arguments: event.action.kwargs, toolCallId: event.toolCallId ?? null })),
    unmappedTools: unmappedToolsOf(episode.agentExtra()),
    ...protocolOf(episode.agentExtra()),
    ...(episode.agentFailure ? { agentFailure: { type: episode.agentFailure.name, message: episode.agentFailure.message } } : {}),
    decisions: kernel.events
      .filter((event) => event.origin === "harness")
      .map((event) => ({ name: event.action.name, arguments: event.action.kwargs, toolCallId: event.toolCallId ?? null, frameworkToolName: event.frameworkToolName ?? event.action.name })),
  };
}
