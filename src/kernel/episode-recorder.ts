import type { MessageRecorder } from "../core/contracts.ts";
import type { ChatMessage, StepEvent } from "../core/types.ts";
import { UsageTotals } from "../model/usage.ts";

/**
 * One episode's record: the chat messages in the strategy's `traj` shape (written by the agent),
 * and every environment step (written only by the orchestrator's step path, whoever asked for the
 * step: the agent's turn, a bridge inside a framework, or the harness in decision-only mode).
 * `rescore` and the evaluators read the steps; results files carry both.
 */
export class EpisodeRecorder implements MessageRecorder {
  readonly messages: ChatMessage[] = [];
  readonly steps: StepEvent[] = [];
  /** Actions an agent planned but that were not stepped (dry run). */
  readonly plannedOnly: StepEvent[] = [];
  /**
   * The agent's model calls in this episode. Agents add to it as they go (rather than only
   * returning a total at the end) so an episode that throws midway still reports its spend.
   */
  readonly agentUsage = new UsageTotals();

  addMessage(message: ChatMessage): void {
    this.messages.push(message);
  }

  /** For the orchestrator's step path only. */
  addStep(event: StepEvent): void {
    this.steps.push(event);
  }

  /** For the orchestrator's step path only. */
  addPlanned(event: StepEvent): void {
    this.plannedOnly.push(event);
  }
}
