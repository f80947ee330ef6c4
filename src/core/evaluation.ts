/**
 * Scoring: an evaluator reads a finished episode (its task, termination, steps and end state) and
 * gives the reward with its breakdown by component. Evaluators score; environments do not.
 */
import type { EpisodeEnvironment, DomainSuite } from "./domain.ts";
import type { StepEvent, Task, TerminationReason } from "./types.ts";

/** A finished episode as an evaluator sees it. */
export interface FinishedEpisode {
  task: Task;
  termination: TerminationReason;
  /** Every stepped action in order (responds included), as recorded by the episode kernel's step path. */
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
  readonly suite: DomainSuite;
  evaluate(episode: FinishedEpisode): Evaluation;
}
