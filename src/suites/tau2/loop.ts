/**
 * The τ²-bench episode (spec §3): the half-duplex turn loop between an agent, a user simulator and
 * a dual-control environment, as τ²'s `Orchestrator` runs it.
 *
 * The orchestrator owns the episode: it alone counts hops and tool errors and decides the
 * termination reason; every tool call, whoever makes it, goes through {@link Tau2Stepper}, which
 * executes it, records the tool message and counts its error. Participants only produce messages.
 * A participant that throws or sends an empty message crashes the attempt (the batch layer retries
 * it and finally records an `infrastructure_error`), as in τ².
 */
import { orchestratorMessages } from "./engine/engine-messages.ts";
import type { StepOutcome, StepRequest, StepTarget, Tau2CallRequest, Tau2HistoryEntry, Tau2Incoming, Tau2Participant, Tau2ParticipantSession, Tau2Turn } from "../../core/contracts.ts";
import { TaubridgeError, errorMarker } from "../../core/errors.ts";
import type { LoadedTau2Domain } from "./engine/domain.ts";
import type { Tau2Environment, Tau2Requestor, Tau2ToolCall } from "./engine/environment.ts";
import { toolsOf } from "./engine/toolkit.ts";
import { toReplayMessage } from "./engine/task-state.ts";
import { type Tau2ParticipantMessage, type Tau2SimulationMessage, type Tau2TerminationReason, type Tau2ToolMessage, fromTaskMessage, hasTextContent, isToolCallMessage } from "./simulation.ts";
import type { Tau2Task } from "./tasks.ts";
import type { PyDict } from "../../value/index.ts";
import { EPISODE_ENDED_OUTPUT } from "../../kernel/step-path.ts";
import { TAU2_BENCH_RULES, type SuiteRules } from "../../kernel/suite-rules.ts";
import { Tau2Clock } from "../../kernel/clock.ts";

type Role = "agent" | "user" | "env";

/** Everything one τ² episode needs, already resolved. */
export interface Tau2EpisodeParts {
  domain: LoadedTau2Domain;
  task: Tau2Task;
  trial: number;
  seed: number | null;
  agent: Tau2Participant<Tau2Task>;
  user: Tau2Participant<Tau2Task>;
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
  /** The environment at the end (its hashes are the predicted state). */
  environment: Tau2Environment;
  /** Tool calls planned in dry-run mode (never executed). */
  planned: Array<{ name: string; arguments: PyDict; toolCallId: string | null }>;
}

/** A participant broke τ²'s message protocol (a message with neither text nor tool calls, or an inconsistent history). */
export class Tau2ProtocolError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("Tau2ProtocolError");
}

/**
 * The environment side of the episode: the one path every tool call takes. It executes the call,
 * records the tool message in the trajectory and counts tool errors toward `max_errors`.
 */
export class Tau2Stepper {
  errors = 0;

  constructor(
    private readonly environment: Tau2Environment,
    private readonly trajectory: Tau2SimulationMessage[],
    private readonly clock: Tau2Clock,
  ) {}

  /** Executes one tool call of a participant's message and records its result. */
  call(call: Tau2ToolCall): Tau2ToolMessage {
    const result = this.environment.getResponse(call);
    if (result.error) this.errors++;
    const message: Tau2ToolMessage = { role: "tool", ...result, timestamp: this.clock.now() };
    this.trajectory.push(message);
    return message;
  }
}

function validate(turn: Tau2Turn, role: "assistant" | "user"): void {
  if (!hasTextContent(turn) && turn.toolCalls.length === 0) {
    throw new Tau2ProtocolError(`${role === "assistant" ? "AssistantMessage" : "UserMessage"} must have either content or tool calls`);
  }
}

function participantMessage(turn: Tau2Turn, role: "assistant" | "user", timestamp: string): Tau2ParticipantMessage {
  const requestor: Tau2Requestor = role;
  return {
    role,
    content: turn.content,
    tool_calls: turn.toolCalls.length > 0 ? turn.toolCalls.map((call: Tau2CallRequest) => ({ id: call.id, name: call.name, arguments: call.arguments, requestor })) : null,
    timestamp,
    cost: turn.cost ?? null,
    usage: turn.usage ?? null,
    raw_data: turn.raw ?? null,
  };
}

/** The user's stop: a text message containing a stop token (tool-call messages never stop). */
function isUserStop(message: Tau2ParticipantMessage, rules: SuiteRules): boolean {
  return message.tool_calls === null && message.content !== null && rules.stopTokens.some((token) => (message.content as string).includes(token));
}

function historyView(messages: readonly Tau2SimulationMessage[], side: "assistant" | "user"): Tau2HistoryEntry[] {
  const view: Tau2HistoryEntry[] = [];
  for (const message of messages) {
    if (message.role === "system") continue;
    if (message.role === "tool") {
      if (message.requestor === side) view.push({ role: "tool", content: message.content, id: message.id, error: message.error });
      continue;
    }
    const mine = message.role === side;
    if (!mine && message.tool_calls !== null) continue; // the other side's tool calls are never shown
    view.push({ role: message.role, content: message.content, toolCalls: mine ? (message.tool_calls ?? []).map(({ id, name, arguments: args }) => ({ id, name, arguments: args })) : undefined });
  }
  return view;
}

/** τ²'s `validate_message_history`: n tool calls are followed by exactly n tool messages of that requestor. */
function validateHistory(messages: readonly Tau2SimulationMessage[]): void {
  let expected = 0;
  let requestor: string | null = null;
  for (const message of messages) {
    if (message.role === "tool") {
      if (expected === 0 || requestor === null) throw new Tau2ProtocolError(orchestratorMessages.text("noToolMessagesExpected"));
      if (requestor !== message.requestor) throw new Tau2ProtocolError(orchestratorMessages.format("toolMessageFromOtherSide", { "msg.requestor": String(message.requestor), requestor }));
      expected--;
    } else if (message.role !== "system") {
      if (!hasTextContent(message) && !isToolCallMessage(message)) throw new Tau2ProtocolError("a history message has neither content nor tool calls");
      if (isToolCallMessage(message)) {
        if (expected > 0) throw new Tau2ProtocolError(orchestratorMessages.format("toolMessagesMissing", { num_expected_tool_messages: String(expected), "msg.role": message.role }));
        expected = message.tool_calls.length;
        requestor = message.role;
      } else {
        requestor = null;
      }
    }
  }
}

class Tau2Episode {
  readonly rules: SuiteRules;
  readonly clock = new Tau2Clock();
  readonly trajectory: Tau2SimulationMessage[] = [];
  readonly environment: Tau2Environment;
  readonly stepper: Tau2Stepper;
  readonly solo: boolean;
  from: Role = "agent";
  to: Role = "user";
  current: Tau2SimulationMessage | Tau2ToolMessage[] | null = null;
  steps = 0;
  done = false;
  termination: Tau2TerminationReason | null = null;
  agent!: Tau2ParticipantSession;
  user!: Tau2ParticipantSession;
  readonly startPerf = performance.now();
  /** Aborted when a step inside the agent's turn ends the episode, so the framework's run stops. */
  readonly turnStop = new AbortController();
  private insideCalls = 0;
  /** The tool calls the current tool results answer (their names go to the participant). */
  private answeredCalls: readonly Tau2ToolCall[] = [];
  /** Calls a framework planned in dry-run mode (not executed, not in the trajectory). */
  readonly planned: Array<{ name: string; arguments: PyDict; toolCallId: string | null }> = [];

  constructor(readonly parts: Tau2EpisodeParts) {
    this.rules = parts.rules ?? TAU2_BENCH_RULES;
    this.solo = parts.solo ?? false;
    this.environment = parts.domain.createEnvironment({ solo: this.solo });
    this.stepper = new Tau2Stepper(this.environment, this.trajectory, this.clock);
  }

  private end(reason: Tau2TerminationReason): void {
    this.done = true;
    this.termination = reason;
  }

  /**
   * The step path for agents that run tools inside their turn (framework adapters through the
   * bridge): each step is an assistant tool-call message, one environment hop and the hop back —
   * recorded, counted and checked exactly as if the agent had sent the call as its message. A step
   * that ends the episode aborts the agent's turn; later steps are refused (nothing executed).
   */
  stepPath(): StepTarget {
    const episode = this;
    return {
      async step(request: StepRequest): Promise<StepOutcome> {
        if (episode.done) return { observation: EPISODE_ENDED_OUTPUT, done: true, refused: true };
        const call: Tau2ToolCall = { id: request.toolCallId ?? `bridge_${++episode.insideCalls}`, name: request.action.name, arguments: request.action.kwargs, requestor: "assistant" };
        episode.trajectory.push({ role: "assistant", content: null, tool_calls: [call], timestamp: episode.clock.now(), cost: null, usage: null, raw_data: null });
        episode.steps++;
        const result = episode.stepper.call(call);
        episode.steps++;
        episode.environment.sync();
        episode.from = "env";
        episode.to = "agent";
        episode.checkTermination();
        if (episode.done) episode.turnStop.abort();
        return { observation: result.content, done: episode.done, refused: false, error: result.error };
      },
      plan(request: StepRequest): StepOutcome {
        if (episode.done) return { observation: EPISODE_ENDED_OUTPUT, done: true, refused: true };
        episode.planned.push({ name: request.action.name, arguments: request.action.kwargs, toolCallId: request.toolCallId ?? null });
        episode.steps += 2; // as if the call and its result had gone through the environment
        episode.from = "env";
        episode.to = "agent";
        episode.checkTermination();
        if (episode.done) episode.turnStop.abort();
        return { observation: "", done: episode.done, refused: false };
      },
      get ended() {
        return episode.done;
      },
    };
  }

  private context(side: "assistant" | "user", history: readonly Tau2SimulationMessage[], signal: AbortSignal) {
    const { definition } = this.parts.domain;
    return {
      task: this.parts.task,
      domain: {
        name: definition.name,
        policy: this.parts.domain.policy(this.solo),
        agentToolNames: toolsOf(definition.agentToolkit).map((tool) => tool.name),
        userToolNames: definition.userToolkit ? toolsOf(definition.userToolkit).map((tool) => tool.name) : [],
      },
      history: historyView(history, side),
      seed: this.parts.seed,
      solo: this.solo,
      episode: { taskId: this.parts.task.id, trial: this.parts.trial },
      signal,
      ...(side === "assistant" ? { steps: this.stepPath(), maxSteps: this.parts.maxSteps ?? this.rules.defaultMaxSteps } : {}),
    };
  }

  /** τ²'s `initialize`: the task's initial state, the participants' states, and who speaks first. */
  async initialize(signal: AbortSignal): Promise<void> {
    const state = this.parts.task.initial_state;
    const taskHistory = state?.message_history ?? [];
    const times = this.clock.history(taskHistory.length);
    const history = taskHistory.map((message, index) => fromTaskMessage(message, times[index]));
    this.environment.setState(state?.initialization_data, state?.initialization_actions, (state?.message_history ?? []).map(toReplayMessage));
    if (history.length > 0) await this.resume(history, signal);
    else await this.fresh(signal);
    this.checkCommunication();
    this.environment.sync();
  }

  private async fresh(signal: AbortSignal): Promise<void> {
    this.user = await this.parts.user.start(this.context("user", [], signal));
    if (this.solo) {
      this.agent = await this.parts.agent.start(this.context("assistant", [], signal));
      const turn = await this.agent.next(null, signal);
      const first = participantMessage(turn, "assistant", this.clock.now());
      this.trajectory.push(first);
      this.current = first;
      this.from = "agent";
      const stop = this.agent.isStop?.(turn) ?? false;
      if (turn.toolCalls.length === 0) {
        this.to = "user";
        this.end(stop ? "agent_stop" : "agent_error");
      } else {
        this.to = stop ? "user" : "env";
        if (stop) this.end("agent_stop");
      }
      return;
    }
    const greeting: Tau2ParticipantMessage = { role: "assistant", content: this.parts.firstAgentMessage, tool_calls: null, timestamp: this.clock.now(), cost: 0, usage: null, raw_data: null };
    this.agent = await this.parts.agent.start(this.context("assistant", [greeting], signal));
    this.trajectory.push(greeting);
    this.current = greeting;
    this.from = "agent";
    this.to = "user";
  }

  private async resume(history: Tau2SimulationMessage[], signal: AbortSignal): Promise<void> {
    validateHistory(history);
    const last = history[history.length - 1];
    const before = history.slice(0, -1);
    this.trajectory.push(...history);
    this.current = last;
    if (last.role === "assistant") {
      this.from = "agent";
      this.to = isToolCallMessage(last) ? "env" : "user";
      this.agent = await this.parts.agent.start(this.context("assistant", history, signal));
      this.user = await this.parts.user.start(this.context("user", before, signal));
    } else if (last.role === "user") {
      this.from = "user";
      this.to = isToolCallMessage(last) ? "env" : "agent";
      this.user = await this.parts.user.start(this.context("user", history, signal));
      this.agent = await this.parts.agent.start(this.context("assistant", before, signal));
      if (isUserStop(last, this.rules)) this.end("user_stop");
    } else if (last.role === "tool") {
      this.from = "env";
      this.to = last.requestor === "assistant" ? "agent" : "user";
      this.agent = await this.parts.agent.start(this.context("assistant", this.to === "agent" ? before : history, signal));
      this.user = await this.parts.user.start(this.context("user", this.to === "agent" ? history : before, signal));
      this.current = [last];
      this.answeredCalls = before.filter(isToolCallMessage).at(-1)?.tool_calls ?? [];
    } else {
      throw new Tau2ProtocolError("the last message of a task's history must be an assistant, user or tool message");
    }
  }

  private incoming(): Tau2Incoming {
    const current = this.current;
    if (Array.isArray(current)) {
      const names = new Map(this.answeredCalls.map((call) => [call.id, call.name]));
      return { type: "tool_results", results: current.map((message) => ({ id: message.id, name: names.get(message.id) ?? "", content: message.content, error: message.error })) };
    }
    return { type: "text", content: current && current.role !== "tool" ? current.content : null };
  }

  /** One hop (τ²'s `Orchestrator.step`). */
  async step(signal: AbortSignal): Promise<void> {
    if (this.to === "user") {
      const turn = await this.user.next(this.incoming(), signal);
      validate(turn, "user");
      const message = participantMessage(turn, "user", this.clock.now());
      if (isUserStop(message, this.rules)) this.end("user_stop");
      this.trajectory.push(message);
      this.current = message;
      this.from = "user";
      this.to = message.tool_calls ? "env" : "agent";
    } else if (this.to === "agent") {
      let turn: Tau2Turn;
      try {
        turn = await this.agent.next(this.incoming(), AbortSignal.any([signal, this.turnStop.signal]));
      } catch (error) {
        if (this.done && !signal.aborted) return; // the episode ended inside the agent's turn (a step hit a budget)
        throw error;
      }
      if (this.done) return; // the turn's own steps ended the episode; its final words are not a hop
      validate(turn, "assistant");
      if (this.agent.isStop?.(turn)) this.end("agent_stop");
      const message = participantMessage(turn, "assistant", this.clock.now());
      this.trajectory.push(message);
      this.current = message;
      this.from = "agent";
      this.to = message.tool_calls ? "env" : "user";
      if (!message.tool_calls && this.solo && !this.agent.isStop?.(turn)) this.end("agent_error");
    } else {
      const message = this.current as Tau2ParticipantMessage;
      if (!message.tool_calls) throw new Tau2ProtocolError(orchestratorMessages.text("environmentNeedsToolCalls"));
      this.answeredCalls = message.tool_calls;
      this.current = message.tool_calls.map((call) => this.stepper.call(call));
      this.to = this.from;
      this.from = "env";
    }
    this.checkCommunication();
    this.steps++;
    this.environment.sync();
  }

  /** τ²'s `check_communication_error` (only with `enforceCommunicationProtocol`). */
  private checkCommunication(): void {
    if (!this.parts.enforceCommunicationProtocol || this.from === "env") return;
    const message = this.current as Tau2ParticipantMessage;
    const reason = this.from === "agent" ? "agent_error" : "user_error";
    const text = hasTextContent(message);
    const calls = (message.tool_calls?.length ?? 0) > 0;
    if ((!text && !calls) || (text && calls)) this.end(reason);
    else if (this.from === "agent" && this.solo && text && !this.agentStops(message)) this.end(reason);
  }

  private agentStops(message: Tau2ParticipantMessage): boolean {
    return this.agent.isStop?.({ content: message.content, toolCalls: message.tool_calls ?? [] }) ?? false;
  }

  /** τ²'s `_check_termination`: skipped while the environment owes an answer; later checks override earlier ones. */
  checkTermination(): void {
    if (this.to === "env") return;
    const maxSteps = this.parts.maxSteps ?? this.rules.defaultMaxSteps;
    const maxErrors = this.parts.maxErrors ?? this.rules.defaultMaxErrors ?? Number.POSITIVE_INFINITY;
    if (this.steps >= maxSteps) this.end("max_steps");
    if (this.stepper.errors >= maxErrors) this.end("too_many_errors");
    const timeout = this.parts.timeoutSeconds;
    if (timeout != null && !this.done && (performance.now() - this.startPerf) / 1000 >= timeout) this.end("timeout");
  }

  /** The trajectory as τ² stores it: sorted by timestamp, `turn_idx` renumbered. */
  messages(): Tau2SimulationMessage[] {
    return this.trajectory
      .map((message, index) => ({ message, index }))
      .sort((left, right) => (left.message.timestamp < right.message.timestamp ? -1 : left.message.timestamp > right.message.timestamp ? 1 : left.index - right.index))
      .map(({ message }, turn) => ({ ...message, turn_idx: turn }));
  }
}

/**
 * Runs one τ² episode to its termination. Throws (for the batch layer's retry) when a participant
 * fails, a message breaks the protocol, or a tool crashes in our port.
 */
export async function runTau2Episode(parts: Tau2EpisodeParts): Promise<Tau2EpisodeOutcome> {
  const signal = parts.signal ?? new AbortController().signal;
  const episode = new Tau2Episode(parts);
  const startTime = episode.clock.wallNow();
  try {
    await episode.initialize(signal);
    while (!episode.done) {
      signal.throwIfAborted();
      await episode.step(signal);
      episode.checkTermination();
    }
  } finally {
    await Promise.allSettled([episode.agent?.close?.(), episode.user?.close?.()]);
  }
  return {
    termination: episode.termination as Tau2TerminationReason,
    messages: episode.messages(),
    startTime,
    endTime: episode.clock.wallNow(),
    durationSeconds: (performance.now() - episode.startPerf) / 1000,
    steps: episode.steps,
    errors: episode.stepper.errors,
    environment: episode.environment,
    planned: episode.planned,
  };
}
