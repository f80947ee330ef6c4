/**
 * The contracts every part of taubridge plugs into, as one import point: participants (agents and
 * users of both suites), the kernel's step path, domains and environments, evaluators, framework
 * adapters and chat models. Like a provider specification, these modules import no framework and
 * nothing of ours but the core types and the value model, so an adapter, a domain, a participant or
 * an evaluator can be written against them alone.
 *
 * Ownership (the rule the rest follows): the episode kernel owns an episode — it starts the
 * participants' sessions, routes every tool call through its one step path, counts steps and
 * errors and, with the suite's loop policy, alone decides the termination reason; participants
 * produce turns; environments execute tools; evaluators score.
 */
export type * from "./steps.ts";
export type * from "./domain.ts";
export type * from "./evaluation.ts";
export type * from "./frameworks.ts";
export type {
  DomainView,
  HistoryEntry,
  Incoming,
  Participant,
  ParticipantContext,
  ParticipantRole,
  ParticipantSession,
  ToolCall,
  ToolResult,
  Transcript,
  Turn,
  TurnUsage,
  UsageMeter,
} from "./participant.ts";
export { incomingText } from "./participant.ts";
