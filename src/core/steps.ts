/**
 * The episode kernel's step path as the participants see it. Every tool call of an episode —
 * a model's call handed back in its turn, a framework's call intercepted by the bridge inside the
 * agent's turn, a call the harness steps in decision-only mode, a user's call on its own device —
 * goes through one `step`, which admits it against the budget, executes it, records it and may end
 * the episode. Nothing else records a step.
 */
import type { Action, StepOrigin } from "./types.ts";

/** One step asked of the kernel. */
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
  /** The step ended the episode (a terminate tool, the user's stop, a budget). */
  done: boolean;
  refused: boolean;
  /** The tool reported an error (counts toward a suite's error budget). */
  error?: boolean;
}

/**
 * The step path as an agent sees it. Bridges and framework adapters step the environment only
 * through this, so every step is recorded and counted in one place.
 */
export interface StepTarget {
  step(request: StepRequest): Promise<StepOutcome>;
  /** Records an action that was planned but deliberately not stepped (dry run); counts toward the budget. */
  plan(request: StepRequest): StepOutcome;
  /** True once the kernel has decided the episode is over (no further steps are accepted). */
  readonly ended: boolean;
}
