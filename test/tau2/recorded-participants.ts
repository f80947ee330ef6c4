/**
 * τ² participants that replay the messages of a recorded simulation (the reference fixtures' real
 * orchestrator runs): the agent says the recorded assistant messages after the greeting, the user
 * the recorded user messages, in order. Driving our orchestrator with them must reproduce the
 * recording: same hops, same tool results, same termination.
 */
import type { Participant, Turn } from "../../src/core/contracts.ts";
import type { Tau2SimulationMessage } from "../../src/suites/tau2/simulation.ts";
import type { Tau2Task } from "../../src/suites/tau2/tasks.ts";

function turnsOf(messages: readonly Tau2SimulationMessage[], role: "assistant" | "user", skip: number): Turn[] {
  return messages
    .filter((message) => message.role === role)
    .slice(skip)
    .map((message) => {
      const participant = message as Extract<Tau2SimulationMessage, { role: "assistant" | "user" }>;
      return { content: participant.content, toolCalls: (participant.tool_calls ?? []).map(({ id, name, arguments: args }) => ({ id, name, arguments: args })), cost: participant.cost };
    });
}

/** Replays one side of a recording; `skip` drops leading messages that are not the participant's (the greeting, a task's history). */
export function recordedParticipant(messages: readonly Tau2SimulationMessage[], role: "assistant" | "user", skip = 0): Participant<Tau2Task> {
  return {
    name: `recorded-${role}`,
    start: () => {
      const turns = turnsOf(messages, role, skip);
      return {
        next: async () => {
          const turn = turns.shift();
          if (!turn) throw new Error(`the recording has no further ${role} message`);
          return turn;
        },
        isStop: role === "assistant" ? (turn) => turn.content?.includes("###STOP###") ?? false : undefined,
      };
    },
  };
}
