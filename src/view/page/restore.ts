/**
 * An episode's details put back whole from what the page carries (the inverse of `pagePayload`'s
 * sharing). No DOM here: the Node tests check it against the data the page was made from.
 */
import type { EndStateDiff } from "../../core/state-diff.ts";
import type { EpisodeRecord } from "../../core/episode-record.ts";
import type { EpisodeFacts } from "../../analysis/facts.ts";
import type { PolicyHit } from "../../analysis/policy/engine.ts";
import type { PageEpisodeDetail } from "../view-model.ts";

/** An episode opened: its details with the shared texts put back. */
export interface EpisodeDetail {
  record: Omit<EpisodeRecord, "native">;
  task: unknown;
  facts: EpisodeFacts;
  policyHits: PolicyHit[];
  adherence: number | null;
  stateDiff: EndStateDiff;
}

/** An episode's details as the page shows them: the shared texts and the steps' results put back (the inverse of `pagePayload`'s sharing). */
export function restoreDetail(raw: PageEpisodeDetail, strings: readonly string[]): EpisodeDetail {
  const messages = raw.record.messages.slice();
  for (const [message, string] of raw.systemRefs) messages[message] = { ...messages[message], content: strings[string] };
  const steps = raw.record.steps.slice();
  for (const [step, message] of raw.resultRefs) steps[step] = { ...steps[step], result: messages[message].content };
  return {
    record: { ...raw.record, messages, steps },
    task: raw.taskRef === null ? raw.task : JSON.parse(strings[raw.taskRef]),
    facts: raw.facts,
    policyHits: raw.policyHits,
    adherence: raw.adherence,
    stateDiff: raw.stateDiff,
  };
}
