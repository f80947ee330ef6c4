import type { EpisodeEnvironment, StepOutcome, StepRequest, StepTarget, UserSimulator } from "../core/contracts.ts";
import { TaubridgeError, errorMarker } from "../core/errors.ts";
import type { StepEvent, TerminationReason } from "../core/types.ts";
import { pyKeyError, pyStr } from "../value/index.ts";
import type { EpisodeRecorder } from "./episode-recorder.ts";
import type { SuiteRules } from "./suite-rules.ts";

/** The tool result a call gets when it arrives after the episode ended (nothing is executed). */
export const EPISODE_ENDED_OUTPUT = "Error: the conversation has already ended; this tool call was not executed.";
/** The tool result a call gets when the step budget is spent (nothing is executed; the episode ends). */
export const STEP_LIMIT_OUTPUT = "Error: the step limit of this episode was reached; this tool call was not executed.";

/** A `respond` action without `content`: in the original a KeyError escapes `step` and the task errors. */
export class MissingRespondContentError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("MissingRespondContentError");
  /** The Python exception the original raised (printed by `replay`). */
  readonly pythonType = "KeyError";

  constructor() {
    super(pyKeyError("content").message);
  }
}

/** What the stepper needs from its orchestrator. */
export interface EpisodeStepperOptions {
  environment: EpisodeEnvironment;
  user: UserSimulator;
  recorder: EpisodeRecorder;
  rules: SuiteRules;
  maxSteps: number;
  /** Passed to the user simulator's calls (timeout, interrupted run). */
  signal: AbortSignal;
  /** Called once when the stepper ends the episode (the orchestrator stops a framework's turn). */
  onEnd?: (reason: TerminationReason) => void;
}

/**
 * The orchestrator's one step path. Every environment step of an episode — the agent's own turn, a
 * bridge inside a framework, the harness in decision-only mode, a respond routed to the user —
 * passes through {@link step}, which checks the budget, executes, records and counts it, and ends
 * the episode when a step says so. Nothing else records steps or decides a stop.
 */
export class EpisodeStepper implements StepTarget {
  /** Agent actions taken so far (the unit of τ-bench's step budget). */
  actionsTaken = 0;
  /** Tool steps whose observation reported an error. */
  errors = 0;
  /** The source of the last stepped action (`user` for a respond, else the tool name), for τ-bench's `info.source`. */
  lastSource = "user";
  /** The user's reported cost at the moment the episode ended (τ-bench's `user_cost`). */
  userCostAtEnd: number | null = null;
  /**
   * The first error that escaped a step (a crashed tool, τ-bench's None-return error). It is
   * rethrown to the caller, and it ends the episode: frameworks often turn a tool's exception into a
   * tool result for the model, so the orchestrator ends the episode with this error after the turn.
   */
  fatalError: unknown = undefined;
  private endReason: TerminationReason | undefined;

  constructor(private readonly options: EpisodeStepperOptions) {}

  get ended(): boolean {
    return this.endReason !== undefined;
  }

  /** Why the stepper ended the episode, if it did. */
  get termination(): TerminationReason | undefined {
    return this.endReason;
  }

  /** Ends the episode (first reason wins). */
  end(reason: TerminationReason): void {
    if (this.endReason !== undefined) return;
    this.endReason = reason;
    this.options.onEnd?.(reason);
  }

  /** True when the budget allows no further agent action; ends the episode as `max_steps` then. */
  budgetSpent(): boolean {
    if (this.actionsTaken < this.options.maxSteps) return false;
    this.end("max_steps");
    return true;
  }

  /** Counts a malformed agent action (nothing is stepped, the turn is used). */
  countInvalid(): void {
    this.actionsTaken++;
  }

  async step(request: StepRequest): Promise<StepOutcome> {
    const refusal = this.admit();
    if (refusal) return refusal;
    try {
      return await this.execute(request);
    } catch (error) {
      if (this.fatalError === undefined) this.fatalError = error;
      this.end("agent_error"); // stops a framework's turn; the orchestrator classifies the error itself
      throw error;
    }
  }

  private async execute(request: StepRequest): Promise<StepOutcome> {
    const { action } = request;
    const { rules, environment, recorder } = this.options;
    let observation: string;
    let done: boolean;
    let error = false;
    if (action.name === rules.respondAction) {
      observation = await this.askUser(request);
      done = rules.stopTokens.some((token) => observation.includes(token));
      this.lastSource = "user";
      if (done) this.finish("user_stop");
    } else {
      ({ observation, done, error } = environment.step(action));
      this.lastSource = action.name;
      if (error) this.errors++;
      if (done) this.finish("agent_stop");
    }
    recorder.addStep(this.event(request, observation, done));
    return { observation, done, refused: false, error };
  }

  plan(request: StepRequest): StepOutcome {
    const refusal = this.admit();
    if (refusal) return refusal;
    this.options.recorder.addPlanned(this.event(request, "", false, "dry-run"));
    return { observation: "", done: false, refused: false };
  }

  /** Refuses a step after the end or past the budget; otherwise takes one unit of the budget. */
  private admit(): StepOutcome | undefined {
    if (this.ended) return { observation: EPISODE_ENDED_OUTPUT, done: false, refused: true };
    if (this.budgetSpent()) return { observation: STEP_LIMIT_OUTPUT, done: false, refused: true };
    this.actionsTaken++;
    return undefined;
  }

  private async askUser(request: StepRequest): Promise<string> {
    const content = request.action.kwargs.get("content");
    if (content === undefined) throw new MissingRespondContentError();
    const text = content === null ? "" : typeof content === "string" ? content : pyStr(content);
    return this.options.user.step(text, { signal: this.options.signal });
  }

  private finish(reason: TerminationReason): void {
    this.userCostAtEnd = this.options.user.reportedCost();
    this.end(reason);
  }

  private event(request: StepRequest, observation: string, done: boolean, origin = request.origin): StepEvent {
    return {
      action: request.action,
      observation,
      reward: 0,
      done,
      origin,
      ...(request.toolCallId ? { toolCallId: request.toolCallId } : {}),
      ...(request.frameworkToolName && request.frameworkToolName !== request.action.name ? { frameworkToolName: request.frameworkToolName } : {}),
    };
  }
}

/**
 * A step path outside a full episode, for benchmarks, bridge tests and user-owned entrypoints that
 * drive a bridge session directly: a fresh environment of the domain, a recorder, and a user that
 * answers every respond with τ-bench's stop token unless one is given. No step budget by default.
 */
export function standaloneStepper(environment: EpisodeEnvironment, options: { user?: UserSimulator; rules: SuiteRules; maxSteps?: number; recorder: EpisodeRecorder }): EpisodeStepper {
  const user: UserSimulator = options.user ?? { reset: async (instruction) => instruction, step: async () => options.rules.stopTokens[0] ?? "", reportedCost: () => null };
  return new EpisodeStepper({ environment, user, recorder: options.recorder, rules: options.rules, maxSteps: options.maxSteps ?? Number.POSITIVE_INFINITY, signal: new AbortController().signal });
}
