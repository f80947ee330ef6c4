/**
 * Turns the viewer's data (`ViewData`, what `buildViewData` gathers) into what the page carries
 * (`PagePayload`): a light row per episode for the summary, the grid, the filters and the
 * comparison; each episode's details as its own JSON text, parsed only when the episode is opened;
 * texts many episodes repeat (system prompts, tasks as recorded) stored once; and per run the
 * lower-cased text a search looks in. A 10,000-episode run then renders from a few megabytes of
 * JSON instead of parsing every conversation first.
 */
import type { EpisodeFacts } from "../analysis/facts.ts";
import type { PageData, PageEpisode, PageEpisodeDetail, PagePayload, PageRun, ViewData, ViewEpisode } from "./view-model.ts";

/** One line of an episode's facts, for the list. */
export function factsLine(facts: EpisodeFacts): string {
  const parts: string[] = [];
  if (facts.missingActions.length) parts.push(`${facts.missingActions.length} missing action(s)`);
  if (facts.argumentDiffs.length) parts.push(`${facts.argumentDiffs.length} argument diff(s)`);
  if (facts.missingOutputs.length) parts.push(`${facts.missingOutputs.length} not said`);
  if (facts.unmetAssertions.length) parts.push(`${facts.unmetAssertions.length} unmet assertion(s)`);
  if (facts.databaseMatch === false) parts.push("DB differs");
  return parts.join(", ");
}

/** Texts stored once, by content. */
class StringTable {
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();
  add(text: string): number {
    let at = this.index.get(text);
    if (at === undefined) {
      at = this.strings.length;
      this.strings.push(text);
      this.index.set(text, at);
    }
    return at;
  }
}

/**
 * What a search looks in (lower case): task id, instruction, every message's text except the shared
 * ones (searched once in the string table), tool call names and arguments. The note is searched on
 * the page, where it can change.
 */
function searchTextOf(episode: ViewEpisode, sharedMessages: ReadonlySet<number>): string {
  const record = episode.record;
  const parts: string[] = [record.taskId, record.expected?.instruction ?? ""];
  for (const [index, message] of record.messages.entries()) {
    if (message.content && !sharedMessages.has(index)) parts.push(message.content);
    for (const call of message.toolCalls ?? []) parts.push(call.name, JSON.stringify(call.arguments));
  }
  return parts.join("\n").toLowerCase();
}

function pageEpisode(episode: ViewEpisode, index: number, table: StringTable): { row: PageEpisode; detail: string; search: string } {
  const record = episode.record;
  const systemRefs: Array<[number, number]> = [];
  const messages = record.messages.map((message, at) => {
    if (message.role !== "system" || !message.content) return message;
    systemRefs.push([at, table.add(message.content)]);
    return { ...message, content: null };
  });
  // A step's result is the text of the tool message answering its call: kept once, in the message.
  const answers = new Map<string, number>();
  for (const [at, message] of record.messages.entries()) if (message.role === "tool" && message.toolCallId && !answers.has(message.toolCallId)) answers.set(message.toolCallId, at);
  const resultRefs: Array<[number, number]> = [];
  const steps = record.steps.map((step, at) => {
    const answer = step.toolCallId === null ? undefined : answers.get(step.toolCallId);
    if (answer === undefined || step.result === null || record.messages[answer].content !== step.result) return step;
    resultRefs.push([at, answer]);
    return { ...step, result: null };
  });
  const taskRef = episode.task === null || episode.task === undefined ? null : table.add(JSON.stringify(episode.task));
  const detail: PageEpisodeDetail = {
    record: { ...record, messages, steps },
    task: taskRef === null ? (episode.task ?? null) : null,
    taskRef,
    systemRefs,
    resultRefs,
    facts: episode.facts,
    policyHits: episode.policyHits,
    adherence: episode.adherence,
    stateDiff: episode.stateDiff,
  };
  const row: PageEpisode = {
    key: episode.key,
    index,
    taskId: record.taskId,
    trial: record.trial,
    domain: record.domain ?? null,
    reward: record.reward,
    termination: record.termination ?? null,
    toolErrors: episode.toolErrors,
    policyHits: episode.policyHits.length,
    factsLine: factsLine(episode.facts),
    note: episode.note,
    shared: [...new Set(systemRefs.map(([, string]) => string))],
  };
  return { row, detail: JSON.stringify(detail), search: searchTextOf(episode, new Set(systemRefs.map(([message]) => message))) };
}

/** The page's parts for a `ViewData`. */
export function pagePayload(data: ViewData): PagePayload {
  const table = new StringTable();
  const details: string[][] = [];
  const search: string[][] = [];
  const runs = data.runs.map((run): PageRun => {
    const rows: PageEpisode[] = [];
    const runDetails: string[] = [];
    const runSearch: string[] = [];
    for (const [index, episode] of run.episodes.entries()) {
      const { row, detail, search: text } = pageEpisode(episode, index, table);
      rows.push(row);
      runDetails.push(detail);
      runSearch.push(text);
    }
    details.push(runDetails);
    search.push(runSearch);
    return { ...run, episodes: rows };
  });
  const page: PageData = { ...data, runs, strings: table.strings };
  return { data: page, details, search };
}
