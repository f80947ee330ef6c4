import type { ChatMessage, StepEvent, StepResult } from "../core/types.ts";
import type { Action } from "../core/types.ts";
import { UsageTotals } from "../model/usage.ts";

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
  /**
   * The agent's model calls in this episode. Agents add to it as they go (rather than only
   * returning a total at the end) so an episode that throws midway still reports its spend.
   */
  readonly agentUsage = new UsageTotals();

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
