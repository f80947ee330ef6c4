import type { DomainView, ParticipantContext } from "../../src/core/contracts.ts";

/** A domain view for unit tests of participants: a name and a policy, no tools unless given. */
export function testDomainView(name: string, policy = "", tools: DomainView["toolSchemas"]["json"] = []): DomainView {
  return { name, policy, toolNames: tools.map((tool) => String((tool.function as { name?: unknown } | undefined)?.name ?? "")), toolSchemas: { json: tools, pythonJson: JSON.stringify(tools) } };
}

/**
 * The context a participant's session starts with, for unit tests that drive a participant without
 * a whole episode: an agent on a fresh conversation, no budget worth mentioning, and a transcript
 * and usage meter that keep nothing (pass your own to look at them).
 */
export function testParticipantContext<Task>(task: Task, overrides: Partial<ParticipantContext<Task>> = {}): ParticipantContext<Task> {
  return {
    role: "agent",
    task,
    domain: testDomainView("test"),
    history: [],
    seed: null,
    solo: false,
    episode: { taskId: "t", taskIndex: 0, trial: 0 },
    signal: new AbortController().signal,
    maxSteps: 30,
    transcript: { addMessage: () => undefined },
    usage: { add: () => undefined, addUnpriced: () => undefined },
    ...overrides,
  };
}
