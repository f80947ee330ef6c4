import { InfraError, TaubridgeError, errorMarker } from "../core/errors.ts";
import type { ChatMessage, RoleUsage, StepEvent, TerminationReason } from "../core/types.ts";
import type { Agent } from "../agents/agent.ts";
import { Environment, type UserSimulator } from "../engine/environment.ts";
import type { LoadedDomain } from "../engine/domain.ts";
import type { Task } from "../core/types.ts";
import { EpisodeRecorder } from "./episode-recorder.ts";
import { episodeUsage } from "../model/usage.ts";

/** Everything one episode needs, already resolved (the build layer turns names into these). */
export interface EpisodeParts {
  domain: LoadedDomain;
  task: Task;
  taskIndex: number;
  trial: number;
  agent: Agent;
  user: UserSimulator & { usage?(): RoleUsage | null };
  maxSteps: number;
  /** Per-episode wall-clock limit; 0 or undefined for none. */
  timeoutMs?: number;
  /** Cancels the episode (the run was interrupted). */
  signal?: AbortSignal;
}

/** The outcome of one episode, in a suite-neutral shape (serialisers write τ-bench files from it). */
export interface EpisodeResult {
  taskId: number;
  trial: number;
  reward: number;
  termination: TerminationReason;
  /** τ-bench `info`: task/source/user_cost/reward_info, or `{error, traceback}` on failure. */
  info: Record<string, unknown>;
  traj: ChatMessage[];
  steps: StepEvent[];
  plannedOnly: StepEvent[];
  usage: { agent: RoleUsage | null; user: RoleUsage | null };
  durationMs: number;
  error?: { kind: TerminationReason; message: string };
  extra?: Record<string, unknown>;
}

class EpisodeTimeoutError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("EpisodeTimeoutError");

  constructor(readonly timeoutMs: number) {
    super(`episode timed out after ${timeoutMs} ms`);
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
 * Runs one episode: the agent's loop against a fresh environment. It has no I/O of its own; every
 * failure ends as data (a termination reason and τ-bench's `{error, traceback}` info), never as
 * a thrown exception, so the batch layer can record it and continue.
 */
export async function runEpisode(parts: EpisodeParts): Promise<EpisodeResult> {
  const started = performance.now();
  const recorder = new EpisodeRecorder();
  const controller = new AbortController();
  const onAbort = () => controller.abort(parts.signal?.reason);
  parts.signal?.addEventListener("abort", onAbort, { once: true });
  // The signal reaches the user simulator too: a timeout or interrupt cancels its model call.
  const env = new Environment(parts.domain, parts.task, parts.taskIndex, parts.user, { signal: controller.signal });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    if (parts.timeoutMs && parts.timeoutMs > 0) {
      timer = setTimeout(() => {
        const error = new EpisodeTimeoutError(parts.timeoutMs!);
        controller.abort(error);
        reject(error);
      }, parts.timeoutMs);
    }
  });
  const base = {
    taskId: parts.taskIndex,
    trial: parts.trial,
    steps: recorder.steps,
    plannedOnly: recorder.plannedOnly,
  };
  try {
    const outcome = await Promise.race([
      parts.agent.solve({ env, maxSteps: parts.maxSteps, signal: controller.signal, recorder, episode: { taskIndex: parts.taskIndex, trial: parts.trial } }),
      timeout,
    ]);
    return {
      ...base,
      reward: outcome.reward,
      termination: outcome.termination,
      info: outcome.info,
      traj: recorder.messages,
      usage: { agent: outcome.usage, user: parts.user.usage?.() ?? null },
      durationMs: performance.now() - started,
      ...(outcome.extra ? { extra: outcome.extra } : {}),
    };
  } catch (error) {
    const kind = terminationForError(error);
    const message = error instanceof Error ? error.message : String(error);
    return {
      ...base,
      reward: 0.0,
      termination: kind,
      info: { error: message, traceback: error instanceof Error ? (error.stack ?? message) : message },
      traj: [],
      usage: { agent: episodeUsage(recorder.agentUsage), user: parts.user.usage?.() ?? null },
      durationMs: performance.now() - started,
      error: { kind, message },
    };
  } finally {
    if (timer) clearTimeout(timer);
    parts.signal?.removeEventListener("abort", onAbort);
  }
}
