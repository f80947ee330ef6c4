import type { ChatMessage, StepEvent, StepResult } from "../core/types.ts";
import type { Action } from "../core/types.ts";

/**
 * Collects one episode's trajectory: the chat messages in τ-bench's `traj` shape and every
 * environment step, whoever made it (the agent's loop, a bridge inside a framework, or the harness
 * in decision-only mode). Termination and results are built from it, never from exceptions.
 */
export class EpisodeRecorder {
  readonly messages: ChatMessage[] = [];
  readonly steps: StepEvent[] = [];
  /** Actions an agent planned but that were not stepped (dry run). */
  readonly plannedOnly: StepEvent[] = [];
  lastStep: StepResult | undefined;

  addMessage(message: ChatMessage): void {
    this.messages.push(message);
  }

  addStep(event: StepEvent, result?: StepResult): void {
    this.steps.push(event);
    if (result) this.lastStep = result;
  }

  addPlanned(event: StepEvent): void {
    this.plannedOnly.push(event);
  }

  /** The environment actions in order (what `rescore` replays). */
  actions(): Action[] {
    return this.steps.map((step) => step.action);
  }
}
