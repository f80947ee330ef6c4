/**
 * The sentences τ²'s framework code (environment, toolkit base, orchestrator, NL-assertion
 * evaluator) answers or fails with, read from its sources in the data directory like a domain's
 * (see upstream-messages.ts). `loadTau2Domain` loads them with every domain, so an environment, an
 * orchestrator or an evaluator over a loaded domain has them.
 */
import { UpstreamMessages } from "./upstream-messages.ts";

export const environmentMessages = new UpstreamMessages("environment/environment.py", {
  userToolsUnavailable: { in: "Environment.use_user_tool", at: 0 },
  userCallsInSolo: { in: "Environment.make_tool_call", at: 1 },
  assertionNotBool: { in: "Environment.run_env_assertion", at: 1 },
  toolMessageUnexpected: { in: "Environment.set_state", at: 2 },
  toolMessageAbsent: { in: "Environment.set_state", at: 3 },
  toolMessageOfOtherKind: { in: "Environment.set_state", at: 4 },
  toolCallIdMismatch: { in: "Environment.set_state", at: 5 },
  replayedResultDiffers: { in: "Environment.set_state", at: 7 },
  toolNamesOverlap: { in: "Environment.validate_solo_mode", at: 0 },
});

export const toolkitMessages = new UpstreamMessages("environment/toolkit.py", {
  toolNotFound: { in: "ToolKitBase.use_tool", at: 0 },
});

export const orchestratorMessages = new UpstreamMessages("orchestrator/orchestrator.py", {
  environmentNeedsToolCalls: { in: "Orchestrator.step", at: 3 },
  toolMessagesMissing: { in: "Orchestrator.validate_message_history", at: 0 },
  noToolMessagesExpected: { in: "Orchestrator.validate_message_history", at: 1 },
  toolMessageFromOtherSide: { in: "Orchestrator.validate_message_history", at: 2 },
});

export const evaluatorMessages = new UpstreamMessages("evaluator/evaluator_nl_assertions.py", {
  noCriteria: { in: "NLAssertionsEvaluator.calculate_reward", at: 1 },
  noNlAssertions: { in: "NLAssertionsEvaluator.calculate_reward", at: 3 },
});

/** Every framework table, in the order `loadTau2Domain` loads them. */
export const TAU2_ENGINE_MESSAGES = [environmentMessages, toolkitMessages, orchestratorMessages, evaluatorMessages] as const;
