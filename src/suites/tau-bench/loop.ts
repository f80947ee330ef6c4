import type { Agent, AgentInput, AgentSession, AgentTurn, Evaluation, Evaluator, UserSimulator } from "../../core/contracts.ts";
import { InfraError, TaubridgeError, errorMarker } from "../../core/errors.ts";
import type { Action, ChatMessage, JsonValue, RoleUsage, StepEvent, Task, TerminationReason } from "../../core/types.ts";
import { Environment } from "./engine/environment.ts";
import type { LoadedDomain } from "./engine/domain.ts";
import { episodeUsage } from "../../model/usage.ts";
import { evaluatorFor } from "./evaluator.ts";
import { EpisodeRecorder } from "../../kernel/episode-recorder.ts";
import { EpisodeStepper } from "../../kernel/step-path.ts";
import { TAU_BENCH_RULES, type SuiteRules } from "../../kernel/suite-rules.ts";

/** Everything one episode needs, already resolved (the build layer turns names into these). */
export interface EpisodeParts {
  domain: LoadedDomain;
  task: Task;
  taskIndex: number;
  trial: number;
  agent: Agent;
  user: UserSimulator;
  /** Scores the finished episode (default: the domain suite's evaluator). */
  evaluator?: Evaluator;
  /** The suite's episode rules (default: τ-bench's). */
  rules?: SuiteRules;
  maxSteps: number;
  /** Per-episode wall-clock limit; 0 or undefined for none. */
  timeoutMs?: number;
  /** Cancels the episode (the run was interrupted). */
  signal?: AbortSignal;
}

/** The outcome of one episode, in a suite-neutral shape (serialisers write results files from it). */
export interface EpisodeResult {
  taskId: number;
  trial: number;
  reward: number;
  /** Reward by component (τ¹: `actions`, `outputs`); empty when the episode was not scored. */
  rewardBreakdown: Record<string, number>;
  termination: TerminationReason;
  /** τ-bench `info`: task/source/user_cost/reward_info, or `{error, traceback}` when the episode failed. */
  info: Record<string, unknown>;
  traj: ChatMessage[];
  steps: StepEvent[];
  plannedOnly: StepEvent[];
  usage: { agent: RoleUsage | null; user: RoleUsage | null };
  durationMs: number;
  error?: { kind: TerminationReason; message: string };
  extra?: Record<string, JsonValue>;
}

/** The episode's wall-clock limit passed. */
export class EpisodeTimeoutError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("EpisodeTimeoutError");

  constructor(readonly timeoutMs: number) {
    super(`episode timed out after ${timeoutMs} ms`);
  }
}

/** The orchestrator stopped the agent's turn because the episode ended inside it (not an error). */
export class EpisodeStop extends TaubridgeError {
  static readonly marker: symbol = errorMarker("EpisodeStop");

  constructor(readonly reason: TerminationReason) {
    super(`the episode ended (${reason})`);
  }
}

/** Classifies an exception into a termination reason: infra stays infra, never a zero-score agent failure. */
export function terminationForError(error: unknown): TerminationReason {
  if (EpisodeTimeoutError.isInstance(error)) return "timeout";
  if (InfraError.isInstance(error)) return "infra_error";
  if (error && typeof error === "object" && (error as { role?: string }).role === "user") return "user_error";
  return "agent_error";
}

/**
 * Runs one episode. The orchestrator owns it: it starts the agent's session, gets the user's first
 * words, asks the agent for turns, routes each action through the one step path, and alone decides
 * the termination reason; then the suite's evaluator scores the end state. It has no I/O of its
 * own, and every failure ends as data (a termination reason and τ-bench's `{error, traceback}`),
 * never as a thrown exception, so the batch layer can record it and continue.
 */
export async function runEpisode(parts: EpisodeParts): Promise<EpisodeResult> {
  const started = performance.now();
  const rules = parts.rules ?? TAU_BENCH_RULES;
  const recorder = new EpisodeRecorder();
  const controller = new AbortController();
  const onAbort = () => controller.abort(parts.signal?.reason);
  if (parts.signal?.aborted) onAbort();
  else parts.signal?.addEventListener("abort", onAbort, { once: true });
  const stopper = new AbortController();
  const environment = new Environment(parts.domain);
  const stepper = new EpisodeStepper({
    environment,
    user: parts.user,
    recorder,
    rules,
    maxSteps: parts.maxSteps,
    signal: controller.signal,
    onEnd: (reason) => stopper.abort(new EpisodeStop(reason)),
  });
  const turnSignal = AbortSignal.any([controller.signal, stopper.signal]);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    if (!parts.timeoutMs || parts.timeoutMs <= 0) return;
    timer = setTimeout(() => {
      const error = new EpisodeTimeoutError(parts.timeoutMs!);
      controller.abort(error);
      reject(error);
    }, parts.timeoutMs);
  });
  let session: AgentSession | undefined;
  let failure: unknown;
  try {
    await Promise.race([
      (async () => {
        session = await parts.agent.start({
          domain: parts.domain,
          task: parts.task,
          episode: { taskIndex: parts.taskIndex, trial: parts.trial },
          steps: stepper,
          recorder,
          maxSteps: parts.maxSteps,
          signal: controller.signal,
        });
        await converse(session, parts, stepper, turnSignal, controller.signal);
      })(),
      timeout,
    ]);
  } catch (error) {
    failure = error;
  } finally {
    if (timer) clearTimeout(timer);
    parts.signal?.removeEventListener("abort", onAbort);
    await closeQuietly(session);
  }
  const usage = { agent: episodeUsage(recorder.agentUsage), user: parts.user.usage?.() ?? null };
  const extra = session?.extra?.();
  const base = { taskId: parts.taskIndex, trial: parts.trial, steps: recorder.steps, plannedOnly: recorder.plannedOnly, usage, ...(extra ? { extra } : {}) };
  if (failure !== undefined) {
    const kind = terminationForError(failure);
    const message = failure instanceof Error ? failure.message : String(failure);
    return {
      ...base,
      reward: 0,
      rewardBreakdown: {},
      termination: kind,
      info: { error: message, traceback: failure instanceof Error ? (failure.stack ?? message) : message },
      traj: [],
      durationMs: performance.now() - started,
      error: { kind, message },
    };
  }
  const termination = stepper.termination ?? "max_steps";
  const evaluation: Evaluation | null = rules.scoredTerminations.includes(termination)
    ? (parts.evaluator ?? evaluatorFor(parts.domain)).evaluate({ task: parts.task, termination, steps: recorder.steps, environment })
    : null;
  const last = recorder.steps[recorder.steps.length - 1];
  if (evaluation && last) last.reward = evaluation.reward;
  const info =
    session?.infoStartsEmpty && recorder.steps.length === 0
      ? {}
      : { task: parts.task, source: stepper.lastSource, user_cost: evaluation ? stepper.userCostAtEnd : null, reward_info: evaluation?.rewardInfo ?? null };
  return {
    ...base,
    reward: evaluation?.reward ?? 0,
    rewardBreakdown: evaluation?.breakdown ?? {},
    termination,
    info,
    traj: recorder.messages,
    durationMs: performance.now() - started,
  };
}

/**
 * The turn loop (τ-bench rules): the user speaks first; each agent turn is one action (a framework
 * turn may step many times through the bridge before it answers); a respond goes to the user, a
 * tool call to the environment; the loop ends when the step path ends the episode or the budget is
 * spent before a turn.
 */
async function converse(session: AgentSession, parts: EpisodeParts, stepper: EpisodeStepper, turnSignal: AbortSignal, runSignal: AbortSignal): Promise<void> {
  let input: AgentInput = { type: "user", content: await parts.user.reset(parts.task.instruction, { signal: runSignal }) };
  while (!stepper.ended && !stepper.budgetSpent()) {
    runSignal.throwIfAborted();
    let turn: AgentTurn;
    try {
      turn = await session.turn(input, turnSignal);
    } catch (error) {
      if (stepper.fatalError !== undefined) throw stepper.fatalError;
      if (stepper.ended && !runSignal.aborted) return; // the episode ended inside a framework's turn
      throw error;
    }
    // A step that failed ends the episode with its error, even when a framework showed it to the model as a tool result.
    if (stepper.fatalError !== undefined) throw stepper.fatalError;
    if (stepper.ended) return;
    input = await applyTurn(turn, stepper, parts.rules ?? TAU_BENCH_RULES);
  }
  // The answer to the last action was not delivered by a further turn: it still belongs to the trajectory.
  session.finish?.(input);
}

async function applyTurn(turn: AgentTurn, stepper: EpisodeStepper, rules: SuiteRules): Promise<AgentInput> {
  if (turn.type === "invalid") {
    stepper.countInvalid();
    return { type: "tool_result", name: turn.name, content: turn.error, ...(turn.toolCallId ? { toolCallId: turn.toolCallId } : {}) };
  }
  if (turn.type === "respond") {
    const respond: Action = { name: rules.respondAction, kwargs: new Map([["content", turn.content]]) };
    const outcome = await stepper.step({ action: respond, origin: "agent" });
    return { type: "user", content: outcome.observation };
  }
  const outcome = await stepper.step({ action: turn.action, origin: "agent", ...(turn.toolCallId ? { toolCallId: turn.toolCallId } : {}) });
  if (turn.action.name === rules.respondAction) return { type: "user", content: outcome.observation };
  return { type: "tool_result", name: turn.action.name, content: outcome.observation, ...(turn.toolCallId ? { toolCallId: turn.toolCallId } : {}) };
}

async function closeQuietly(session: AgentSession | undefined): Promise<void> {
  try {
    await session?.close?.();
  } catch {
    // a failure to release the episode's resources must not replace its outcome
  }
}
