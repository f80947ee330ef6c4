/**
 * τ-bench's episode, as its agents' `solve` loop and `Env` run it, over the episode kernel
 * (τ-bench: tau_bench/agents/tool_calling_agent.py, ToolCallingAgent.solve, whose default
 * `max_num_steps=30` is the step budget, since `run.py` passes none; tau_bench/envs/base.py,
 * Env.reset and Env.step).
 *
 *   obs = env.reset()                       the user's first words
 *   for _ in range(max_num_steps):          every agent action is one step of the budget
 *       action = agent(messages)            a tool call, or `respond` with words for the user
 *       obs, reward, done = env.step(action)  respond → the user answers; a tool → its observation
 *       if done: break                      the user's ###STOP###, or a terminate tool
 *
 * The kernel owns the step path (a framework's calls inside its turn take the same path, and count
 * as actions), the counters and the termination; this module decides what a step is and when the
 * episode ends, and builds τ-bench's `info` (`task`, `source`, `user_cost`, `reward_info`).
 */
import type { Evaluation, Evaluator, Incoming, Participant, ParticipantSession, StepOutcome, StepRequest, StepTarget, ToolResult, Turn } from "../../core/contracts.ts";
import { TaubridgeError, errorMarker } from "../../errors/error-tree.ts";
import type { SuiteRules } from "../../core/suite-rules.ts";
import type { Action, ChatMessage, JsonValue, RoleUsage, StepEvent, Task, TerminationReason } from "../../core/types.ts";
import { startGuarded } from "../../kernel/agent-guard.ts";
import { EPISODE_ENDED_OUTPUT, EpisodeKernel, type StepExecution, terminationForError } from "../../kernel/episode-kernel.ts";
import { pyKeyError, pyStr } from "../../value/index.ts";
import type { LoadedDomain } from "./engine/domain.ts";
import { Environment } from "./engine/environment.ts";
import { evaluatorFor } from "./evaluator.ts";
import { TAU_BENCH_RULES } from "./rules.ts";

export { EPISODE_ENDED_OUTPUT, EpisodeStop, EpisodeTimeoutError, terminationForError } from "../../kernel/episode-kernel.ts";

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

/** Everything one episode needs, already resolved (the build layer turns names into these). */
export interface EpisodeParts {
  domain: LoadedDomain;
  task: Task;
  taskIndex: number;
  trial: number;
  agent: Participant<Task>;
  user: Participant<Task>;
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

/**
 * τ-bench's `Env` for one episode: tools over the episode's own database, and `respond`, which the
 * user answers. `source` and the user's cost follow the original's `EnvInfo`.
 */
class TauBenchEnv {
  readonly environment: Environment;
  /** The source of the last stepped action (`user` for a respond, else the tool name), τ-bench's `info.source`. */
  source = "user";
  /** The cost the user reports for its last turn (τ-bench's `user.get_total_cost()`). */
  userCost: number | null = 0;
  user!: ParticipantSession;

  constructor(
    domain: LoadedDomain,
    private readonly rules: SuiteRules,
    private readonly signal: AbortSignal,
  ) {
    this.environment = new Environment(domain);
  }

  /** `env.reset()`: the user's first words. */
  async reset(): Promise<string> {
    return this.hear(await this.user.next(null, this.signal));
  }

  /** `env.step(action)`. */
  async step(action: Action): Promise<StepExecution> {
    if (action.name === this.rules.respondAction) {
      const observation = await this.respond(action);
      this.source = "user";
      return { observation, done: this.rules.stopTokens.some((token) => observation.includes(token)), error: false };
    }
    this.source = action.name;
    return this.environment.step(action);
  }

  private async respond(action: Action): Promise<string> {
    const content = action.kwargs.get("content");
    if (content === undefined) throw new MissingRespondContentError();
    const text = content === null ? "" : typeof content === "string" ? content : pyStr(content);
    return this.hear(await this.user.next({ type: "text", content: text }, this.signal));
  }

  private hear(turn: Turn): string {
    this.userCost = turn.cost ?? null;
    return turn.content ?? "";
  }
}

/**
 * The loop policy: what counts as a step (every agent action, a malformed one included) and when
 * the episode ends (the user's stop, a terminate tool, the budget). It is also the step path the
 * agent is handed, so a framework's calls inside its turn are admitted, counted and may end the
 * episode exactly like the agent's own actions.
 */
class TauBenchLoop implements StepTarget {
  /** The user's reported cost when the episode ended (τ-bench's `user_cost`). */
  userCostAtEnd: number | null = null;

  constructor(
    readonly kernel: EpisodeKernel,
    readonly env: TauBenchEnv,
    private readonly rules: SuiteRules,
    private readonly maxSteps: number,
  ) {}

  get ended(): boolean {
    return this.kernel.ended;
  }

  /** True when the budget allows no further agent action; ends the episode as `max_steps` then. */
  budgetSpent(): boolean {
    if (this.kernel.steps < this.maxSteps) return false;
    this.kernel.end("max_steps");
    return true;
  }

  async step(request: StepRequest): Promise<StepOutcome> {
    const refusal = this.admit();
    if (refusal) return refusal;
    const { observation, done, error } = await this.kernel.execute(request, "agent");
    if (done) {
      this.userCostAtEnd = this.env.userCost;
      this.kernel.end(request.action.name === this.rules.respondAction ? "user_stop" : "agent_stop");
    }
    return { observation, done, refused: false, error };
  }

  plan(request: StepRequest): StepOutcome {
    const refusal = this.admit();
    if (refusal) return refusal;
    this.kernel.recordPlan(request);
    return { observation: "", done: false, refused: false };
  }

  /** Refuses a step after the end or past the budget; otherwise takes one unit of the budget. */
  private admit(): StepOutcome | undefined {
    if (this.kernel.ended) return { observation: EPISODE_ENDED_OUTPUT, done: false, refused: true };
    if (this.budgetSpent()) return { observation: STEP_LIMIT_OUTPUT, done: false, refused: true };
    this.kernel.steps++;
    return undefined;
  }

  /** The agent's turn as actions: its words become `respond`; each tool call is one action, in order. */
  async act(turn: Turn): Promise<Incoming> {
    if (turn.toolCalls.length === 0) {
      const outcome = await this.step({ action: { name: this.rules.respondAction, kwargs: new Map([["content", turn.content]]) }, origin: "agent" });
      return { type: "text", content: outcome.observation };
    }
    const results: ToolResult[] = [];
    for (const [index, call] of turn.toolCalls.entries()) {
      if (index > 0 && (this.kernel.ended || this.budgetSpent())) break;
      if (call.invalid !== undefined) {
        this.kernel.steps++; // a malformed call steps nothing but uses the turn (one `solve` iteration)
        results.push({ id: call.id, name: call.name, content: call.invalid, error: true });
        continue;
      }
      const outcome = await this.step({ action: { name: call.name, kwargs: call.arguments }, origin: "agent", ...(call.id ? { toolCallId: call.id } : {}) });
      if (call.name === this.rules.respondAction) return { type: "text", content: outcome.observation };
      results.push({ id: call.id, name: call.name, content: outcome.observation, error: outcome.error ?? false });
    }
    return { type: "tool_results", results };
  }
}

/**
 * Runs one episode. The kernel owns it: the agent's and user's sessions start, the user speaks
 * first, each agent turn's actions go through the one step path, and the episode ends only as the
 * loop policy decides; then the suite's evaluator scores the end state. It has no I/O of its own,
 * and every failure ends as data (a termination reason and τ-bench's `{error, traceback}`), never
 * as a thrown exception, so the batch layer can record it and continue.
 */
export async function runEpisode(parts: EpisodeParts): Promise<EpisodeResult> {
  const rules = parts.rules ?? TAU_BENCH_RULES;
  let env: TauBenchEnv | undefined;
  const kernel = new EpisodeKernel({ execute: (request) => env!.step(request.action), precedence: "first", ...(parts.signal ? { signal: parts.signal } : {}) });
  env = new TauBenchEnv(parts.domain, rules, kernel.signal);
  const loop = new TauBenchLoop(kernel, env, rules, parts.maxSteps);
  let agent: ParticipantSession | undefined;
  const failure = await kernel.run(
    async () => {
      agent = await startGuarded(`the agent "${parts.agent.name}"`, () => parts.agent.start(kernel.participantContext("agent", contextBase(parts, loop))));
      env!.user = await startUser(parts, kernel);
      await converse(agent, loop);
    },
    { timeoutMs: parts.timeoutMs, sessions: () => [agent] },
  );
  const extra = agent?.extra?.();
  const base = { taskId: parts.taskIndex, trial: parts.trial, steps: kernel.events, plannedOnly: kernel.planned, usage: kernel.roleUsage(), ...(extra ? { extra } : {}) };
  const durationMs = () => performance.now() - kernel.startedAt;
  if (failure !== undefined) return { ...base, ...failed(failure), durationMs: durationMs() };
  const termination = kernel.termination ?? "max_steps";
  const evaluation: Evaluation | null = rules.scoredTerminations.includes(termination)
    ? (parts.evaluator ?? evaluatorFor(parts.domain)).evaluate({ task: parts.task, termination, steps: kernel.events, environment: env.environment })
    : null;
  const last = kernel.events[kernel.events.length - 1];
  if (evaluation && last) last.reward = evaluation.reward;
  const info =
    agent?.infoStartsEmpty && kernel.events.length === 0
      ? {}
      : { task: parts.task, source: env.source, user_cost: evaluation ? loop.userCostAtEnd : null, reward_info: evaluation?.rewardInfo ?? null };
  return { ...base, reward: evaluation?.reward ?? 0, rewardBreakdown: evaluation?.breakdown ?? {}, termination, info, traj: kernel.transcript, durationMs: durationMs() };
}

/** What both participants of the episode are told (the agent also gets the step path). */
function contextBase(parts: EpisodeParts, steps?: StepTarget) {
  return {
    task: parts.task,
    domain: parts.domain,
    history: [],
    seed: null,
    solo: false,
    episode: { taskId: String(parts.taskIndex), taskIndex: parts.taskIndex, trial: parts.trial },
    ...(steps ? { steps } : {}),
    maxSteps: parts.maxSteps,
  };
}

/** The user's session; a user that cannot start fails the episode as the user's error. */
async function startUser(parts: EpisodeParts, kernel: EpisodeKernel): Promise<ParticipantSession> {
  try {
    return await parts.user.start(kernel.participantContext("user", contextBase(parts)));
  } catch (error) {
    throw Object.assign(error instanceof Error ? error : new Error(String(error)), { role: "user" });
  }
}

/**
 * An episode that failed before it could start where it was sent (the worker process running it
 * was lost): what `runEpisode` returns for a failure thrown before the first step.
 */
export function failedEpisode(taskIndex: number, trial: number, failure: unknown): EpisodeResult {
  return { taskId: taskIndex, trial, steps: [], plannedOnly: [], usage: { agent: null, user: null }, ...failed(failure), durationMs: 0 };
}

/** A failed episode: reward 0, τ-bench's `{error, traceback}` info, the failure's termination. */
function failed(failure: unknown): Pick<EpisodeResult, "reward" | "rewardBreakdown" | "termination" | "info" | "traj" | "error"> {
  const kind = terminationForError(failure);
  const message = failure instanceof Error ? failure.message : String(failure);
  const info = { error: message, traceback: failure instanceof Error ? (failure.stack ?? message) : message };
  return { reward: 0, rewardBreakdown: {}, termination: kind, info, traj: [], error: { kind, message } };
}

/**
 * The turn loop (the agents' `solve`, e.g. τ-bench's ToolCallingAgent.solve): the user speaks
 * first; each agent turn's actions are stepped (a framework's turn may already have stepped many
 * times through the step path); a respond's answer goes back to the agent as words, tool
 * observations as results; the loop ends when a step ends the episode or the budget is spent before
 * a turn.
 */
async function converse(agent: ParticipantSession, loop: TauBenchLoop): Promise<void> {
  const { kernel } = loop;
  let incoming: Incoming = { type: "text", content: await loop.env.reset() };
  while (!kernel.ended && !loop.budgetSpent()) {
    kernel.signal.throwIfAborted();
    let turn: Turn;
    try {
      turn = await agent.next(incoming, kernel.turnSignal);
    } catch (error) {
      if (kernel.fatalError !== undefined) throw kernel.fatalError;
      if (kernel.ended && !kernel.signal.aborted) return; // the episode ended inside a framework's turn
      throw error;
    }
    // A step that failed ends the episode with its error, even when a framework showed it to the model as a tool result.
    if (kernel.fatalError !== undefined) throw kernel.fatalError;
    if (kernel.ended) return;
    incoming = await loop.act(turn);
  }
  // The answer to the last action was not delivered by a further turn: it still belongs to the transcript.
  agent.finish?.(incoming);
}

/**
 * A step path outside a full episode, for benchmarks, bridge tests and user-owned entrypoints that
 * drive a bridge session directly: a fresh environment of the domain and a user that answers every
 * respond with τ-bench's stop token. No step budget by default.
 */
export function standaloneStepPath(domain: LoadedDomain, options: { maxSteps?: number; rules?: SuiteRules } = {}): StepTarget & { kernel: EpisodeKernel; environment: Environment } {
  const rules = options.rules ?? TAU_BENCH_RULES;
  let env: TauBenchEnv | undefined;
  const kernel = new EpisodeKernel({ execute: (request) => env!.step(request.action), precedence: "first" });
  env = new TauBenchEnv(domain, rules, kernel.signal);
  env.user = { next: async () => ({ content: rules.stopTokens[0] ?? "", toolCalls: [], cost: null }) };
  const loop = new TauBenchLoop(kernel, env, rules, options.maxSteps ?? Number.POSITIVE_INFINITY);
  return Object.assign(loop, { environment: env.environment });
}
