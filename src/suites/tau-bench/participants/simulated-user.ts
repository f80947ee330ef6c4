/**
 * τ-bench's user simulators are written the way the original writes them (`BaseUserSimulationEnv`:
 * `reset(instruction)` gives the first words, `step(content)` answers the agent, `get_total_cost()`
 * reports the cost), and enter the episode as participants through {@link simulatedUser}: the
 * session's first turn is `reset` with the task's instruction, every later one `step` with what the
 * agent said, and each turn carries the cost the simulator reports (τ-bench's `user_cost`).
 */
import type { Incoming, Participant, ParticipantContext, ParticipantSession, Turn } from "../../../core/contracts.ts";
import type { Task } from "../../../core/types.ts";

/** Per-call options of a simulator (its model calls pass the signal on). */
export interface SimulatorCallOptions {
  signal?: AbortSignal;
}

/** A τ-bench user simulator for one episode. */
export interface UserSimulator {
  /** Starts the conversation for an instruction; returns the user's first utterance. */
  reset(instruction: string, options?: SimulatorCallOptions): Promise<string>;
  /** Answers the agent's message. */
  step(content: string, options?: SimulatorCallOptions): Promise<string>;
  /** τ-bench's `user_cost` (the original reports the last call's cost); null when unknown. */
  reportedCost(): number | null;
}

/** A participant whose sessions are τ-bench user simulators made by `create` (one per episode). */
export function simulatedUser(name: string, create: (context: ParticipantContext<Task>) => UserSimulator): Participant<Task> {
  return {
    name,
    start(context) {
      const simulator = create(context);
      return new SimulatedUserSession(simulator, context.task.instruction);
    },
  };
}

class SimulatedUserSession implements ParticipantSession {
  constructor(
    private readonly simulator: UserSimulator,
    private readonly instruction: string,
  ) {}

  async next(incoming: Incoming | null, signal: AbortSignal): Promise<Turn> {
    const words = incoming === null ? await this.simulator.reset(this.instruction, { signal }) : await this.simulator.step(incoming.type === "text" ? (incoming.content ?? "") : "", { signal });
    return { content: words, toolCalls: [], cost: this.simulator.reportedCost() };
  }
}
