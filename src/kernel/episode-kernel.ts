/**
 * The episode kernel: the one owner of an episode, for both suites. It holds what every episode
 * has whatever its suite — the one recorded step path every tool call takes (whoever makes it:
 * an agent's turn, a bridge inside a framework, the harness in decision-only mode, a user on their
 * own device), the step and error counters, the termination reason, the clock, the cancellation
 * and timeout signals, the participants' usage meters and the agent's transcript — and runs the
 * suite's loop policy over them. The policy (`src/suites/<suite>/loop.ts`) reads like the original
 * loop it reproduces and decides, through this kernel, when a step counts and when the episode ends.
 */
import type { ParticipantContext, ParticipantRole, ParticipantSession, StepRequest, Transcript, TurnUsage, UsageMeter } from "../core/contracts.ts";
import { EpisodeEndingError, InfraError, TaubridgeError, errorMarker } from "../errors/error-tree.ts";
import type { ChatMessage, RoleUsage, StepEvent, TerminationReason } from "../core/types.ts";
import { episodeUsage, UsageTotals } from "../model/usage.ts";
import { Clock } from "./clock.ts";

/** The episode's wall-clock limit passed. */
export class EpisodeTimeoutError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("EpisodeTimeoutError");

  constructor(readonly timeoutMs: number) {
    super(`episode timed out after ${timeoutMs} ms`);
  }
}

/** The kernel stopped a participant's turn because the episode ended inside it (not an error). */
export class EpisodeStop extends TaubridgeError {
  static readonly marker: symbol = errorMarker("EpisodeStop");

  constructor(readonly reason: TerminationReason) {
    super(`the episode ended (${reason})`);
  }
}

/** Classifies an exception into a termination reason: infra stays infra, never a zero-score agent failure; a failure that declares its termination (`EpisodeEndingError`) gets it. */
export function terminationForError(error: unknown): TerminationReason {
  if (EpisodeTimeoutError.isInstance(error)) return "timeout";
  if (EpisodeEndingError.isInstance(error)) return error.termination;
  if (InfraError.isInstance(error)) return "infra_error";
  if (error && typeof error === "object" && (error as { role?: string }).role === "user") return "user_error";
  return "agent_error";
}

/** What executing one step gave (the suite's environment adapter reports it). */
export interface StepExecution {
  observation: string;
  /** The step ends the episode (a terminate tool, the user's stop token). */
  done: boolean;
  /** The tool reported an error. */
  error: boolean;
}

/** How the suite carries out a step once it is admitted (τ-bench: `Env.step`; τ²: a call through the dual-control environment). */
export type StepExecutor = (request: StepRequest, requestor: ParticipantRole) => StepExecution | Promise<StepExecution>;

/** Which reason stands when the episode is ended twice: τ-bench keeps the first, τ² lets its later checks override. */
export type TerminationPrecedence = "first" | "last";

export interface EpisodeKernelOptions {
  execute: StepExecutor;
  precedence: TerminationPrecedence;
  /** Cancels the episode (the run was interrupted). */
  signal?: AbortSignal;
}

/** The tool result a call gets when it arrives after the episode ended (nothing is executed). */
export const EPISODE_ENDED_OUTPUT = "Error: the conversation has already ended; this tool call was not executed.";

/**
 * A participant's spend since its previous turn: the cost of the calls in between (null once one
 * was unpriced) and their tokens, summed call by call as they happen.
 */
class TurnSpend {
  private cost: number | null = 0;
  private promptTokens = 0;
  private completionTokens = 0;

  add(cost: number | null, promptTokens: number, completionTokens: number): void {
    this.promptTokens += promptTokens;
    this.completionTokens += completionTokens;
    this.cost = this.cost === null || cost === null ? null : this.cost + cost;
  }

  /** The spend since the last take, reset. */
  take(): { cost: number | null; usage: TurnUsage } {
    const taken = { cost: this.cost, usage: { prompt_tokens: this.promptTokens, completion_tokens: this.completionTokens } };
    this.cost = 0;
    this.promptTokens = 0;
    this.completionTokens = 0;
    return taken;
  }
}

/** A usage meter over a role's running totals and its spend since its last turn. */
function meter(totals: UsageTotals, spend: TurnSpend): UsageMeter {
  return {
    add: (result) => {
      totals.add(result);
      spend.add(result.cost, result.usage.promptTokens, result.usage.completionTokens);
    },
    addUnpriced: (calls, prompt, completion) => {
      totals.addUnpriced(calls, prompt, completion);
      spend.add(null, prompt, completion);
    },
  };
}

/** One episode's state and its one step path. Create one per episode. */
export class EpisodeKernel {
  /** Every executed step, in order (tool calls of both sides; τ-bench's responds too). */
  readonly events: StepEvent[] = [];
  /** Steps a participant planned but that were deliberately not executed (dry run). */
  readonly planned: StepEvent[] = [];
  /** The agent's own view of the conversation (τ-bench's `traj`). */
  readonly transcript: ChatMessage[] = [];
  readonly usage = { agent: new UsageTotals(), user: new UsageTotals() };
  private readonly spend = { agent: new TurnSpend(), user: new TurnSpend() };
  readonly clock = new Clock();
  readonly startedAt = performance.now();
  /** Steps in the suite's unit (τ-bench: agent actions; τ²: hops). */
  steps = 0;
  /** Executed steps whose tool reported an error. */
  errors = 0;
  /**
   * The first error that escaped a step (a crashed tool, τ-bench's None-return error). It ends the
   * episode; frameworks often turn a tool's exception into a tool result for the model, so the
   * loop rethrows it after the turn.
   */
  fatalError: unknown = undefined;
  /** Cancellation of the whole episode: the run was interrupted or the episode timed out. */
  readonly signal: AbortSignal;
  /** Aborted when the episode ends inside a participant's turn, so a framework's own loop stops. */
  readonly turnSignal: AbortSignal;
  private readonly cancel = new AbortController();
  private readonly stopper = new AbortController();
  private reason: TerminationReason | undefined;
  /** Removes the kernel's listener from the run's signal once the episode is over. */
  private detach: (() => void) | undefined;

  constructor(private readonly options: EpisodeKernelOptions) {
    const outer = options.signal;
    if (outer?.aborted) this.cancel.abort(outer.reason);
    else if (outer) {
      const onAbort = () => this.cancel.abort(outer.reason);
      outer.addEventListener("abort", onAbort, { once: true });
      this.detach = () => outer.removeEventListener("abort", onAbort);
    }
    this.signal = this.cancel.signal;
    this.turnSignal = AbortSignal.any([this.cancel.signal, this.stopper.signal]);
  }

  get ended(): boolean {
    return this.reason !== undefined;
  }

  get termination(): TerminationReason | undefined {
    return this.reason;
  }

  /** Ends the episode (the suite's precedence decides whether a second reason replaces the first); stops a turn in progress. */
  end(reason: TerminationReason): void {
    if (this.reason !== undefined && this.options.precedence === "first") return;
    const first = this.reason === undefined;
    this.reason = reason;
    if (first) this.stopper.abort(new EpisodeStop(reason));
  }

  /** Cancels the episode from inside (the hard timeout). */
  abort(reason: unknown): void {
    this.cancel.abort(reason);
  }

  /**
   * The one recorded step path: executes an admitted step through the suite's environment,
   * records it and counts its error. An exception escaping the step is the episode's fatal error:
   * it ends the episode and is rethrown to the caller.
   */
  async execute(request: StepRequest, requestor: ParticipantRole): Promise<StepExecution> {
    let execution: StepExecution;
    try {
      execution = await this.options.execute(request, requestor);
    } catch (error) {
      if (this.fatalError === undefined) this.fatalError = error;
      this.end("agent_error"); // stops a framework's turn; the loop classifies the error itself
      throw error;
    }
    if (execution.error) this.errors++;
    this.events.push(stepEvent(request, requestor, execution.observation, execution.done, execution.error));
    return execution;
  }

  /** Records a step that was planned but not executed (dry run). */
  recordPlan(request: StepRequest): void {
    this.planned.push(stepEvent({ ...request, origin: "dry-run" }, "agent", "", false, false));
  }

  /** The context a participant's session starts with: its side's meter and, for the agent, the transcript. */
  participantContext<Task>(role: ParticipantRole, base: Omit<ParticipantContext<Task>, "role" | "signal" | "transcript" | "usage">): ParticipantContext<Task> {
    const transcript: Transcript = role === "agent" ? { addMessage: (message) => this.transcript.push(message) } : { addMessage: () => undefined };
    return { ...base, role, signal: this.signal, transcript, usage: meter(this.usage[role], this.spend[role]) };
  }

  /** What a role spent since its previous turn (for suites that record a cost per message). */
  takeTurnSpend(role: ParticipantRole): { cost: number | null; usage: TurnUsage } {
    return this.spend[role].take();
  }

  /** Each role's spend in this episode (null for a role that made no model call). */
  roleUsage(): { agent: RoleUsage | null; user: RoleUsage | null } {
    return { agent: episodeUsage(this.usage.agent), user: episodeUsage(this.usage.user) };
  }

  /** Seconds since the episode started. */
  elapsedSeconds(): number {
    return (performance.now() - this.startedAt) / 1000;
  }

  /**
   * Runs the suite's loop with the episode's wall-clock limit (0 or undefined: none): when it
   * passes, the episode is cancelled and the run ends with an {@link EpisodeTimeoutError}. Resolves
   * with the loop's failure, if any (never rejects), after closing the sessions it is given.
   */
  async run(body: () => Promise<void>, options: { timeoutMs?: number; sessions: () => Array<ParticipantSession | undefined> }): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      if (!options.timeoutMs || options.timeoutMs <= 0) return;
      timer = setTimeout(() => {
        const error = new EpisodeTimeoutError(options.timeoutMs!);
        this.abort(error);
        reject(error);
      }, options.timeoutMs);
    });
    const started = performance.now();
    try {
      await Promise.race([body(), timeout]);
      // A participant that blocked the process (a synchronous busy loop) kept the timer from
      // firing: the limit still holds, whatever the episode did after it.
      if (options.timeoutMs && options.timeoutMs > 0 && performance.now() - started > options.timeoutMs) return new EpisodeTimeoutError(options.timeoutMs);
      return undefined;
    } catch (error) {
      return error;
    } finally {
      if (timer) clearTimeout(timer);
      this.detach?.();
      await Promise.allSettled(options.sessions().map((session) => session?.close?.()));
    }
  }
}

function stepEvent(request: StepRequest, requestor: ParticipantRole, observation: string, done: boolean, error: boolean): StepEvent {
  return {
    action: request.action,
    observation,
    reward: 0,
    done,
    origin: request.origin,
    requestor,
    error,
    ...(request.toolCallId ? { toolCallId: request.toolCallId } : {}),
    ...(request.frameworkToolName && request.frameworkToolName !== request.action.name ? { frameworkToolName: request.frameworkToolName } : {}),
  };
}
