/**
 * What the viewer's page embeds: the runs as the analysis layer computed them (statistics, facts,
 * policy hits, breakdown, the paired comparison) and each episode's canonical record without its
 * native entry. Types only: the page (a browser bundle) and the Node side both import them, so the
 * page never recomputes what `src/analysis` says.
 */
import type { EpisodeRecord } from "../core/episode-record.ts";
import type { EndStateDiff } from "../core/state-diff.ts";
import type { Breakdown } from "../analysis/breakdown.ts";
import type { Comparison } from "../analysis/compare.ts";
import type { EpisodeFacts } from "../analysis/facts.ts";
import type { EpisodeNote } from "../analysis/notes.ts";
import type { PolicyHit, PolicyReport } from "../analysis/policy/engine.ts";
import type { RunStatistics } from "../analysis/statistics.ts";

export const VIEW_SCHEMA_VERSION = 1;

/** Usage of one model role over a run: summed over the episodes that recorded it, or as the run recorded it (judge, reranker, embedder). */
export interface RoleRow {
  /** `agent`, `user`, `judge`; τ³'s `reranker` and `embedder` when the run used them. */
  role: string;
  /** Episodes whose record carries this role's usage (the judge: episodes whose score needed it; 0 for usage recorded per run only). */
  episodes: number;
  calls: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** Null when unknown (never 0 for "not recorded"). */
  cost: number | null;
  /** Mean wall-clock seconds per episode (the records carry one duration per episode, not per role). */
  meanEpisodeSeconds: number | null;
  /** What the file says instead, when it records the role only as text (τ²'s NL judge). */
  text: string | null;
}

/** One episode as the page shows it. */
export interface ViewEpisode {
  /** `taskId#trial`, unique in its run. */
  key: string;
  record: Omit<EpisodeRecord, "native">;
  /** The task as the results file records it (τ-bench `info.task`, τ²'s task of `tasks[]`), shown as context; null when absent. */
  task: unknown;
  /** The analysis layer's deterministic facts (`episodeFacts`). */
  facts: EpisodeFacts;
  policyHits: PolicyHit[];
  adherence: number | null;
  /** Tool calls whose result was an error (from the facts). */
  toolErrors: number;
  note: EpisodeNote | null;
  /** The end state against the gold end state, row by row (the suite's replay), or why it was not computed. */
  stateDiff: EndStateDiff;
}

export interface ViewRun {
  index: number;
  label: string;
  path: string;
  notesPath: string;
  suite: string;
  title: string;
  domain: string | null;
  /** A run still being written (its checkpoint read while the results file is not there yet). */
  partial: boolean;
  completeness: { expectedEpisodes: number; interrupted: boolean } | null;
  statistics: RunStatistics;
  roles: RoleRow[];
  terminations: Record<string, number>;
  infraErrors: Array<{ key: string; taskId: string; trial: number; message: string }>;
  policy: Pick<PolicyReport, "file" | "strictness" | "adherence" | "hitsByRule" | "skipped">;
  breakdown: Breakdown;
  /** Lines the suite adds under its report (τ²: the judge's usage, tasks that check less than they seem). */
  fileNotes: string[];
  episodes: ViewEpisode[];
}

export interface ViewData {
  schemaVersion: typeof VIEW_SCHEMA_VERSION;
  generatedAt: string;
  /** Served by `taubridge view --serve`: the page polls for changes and saves notes through the server. */
  live: boolean;
  runs: ViewRun[];
  /** The paired comparison of every run against the first (`compareRuns`), when there are several. */
  comparison: Comparison | null;
}

/**
 * What the page carries, light part: each run with one summary row per episode (what the summary,
 * the grid, the filters and the comparison need) and a table of the texts many episodes share
 * (system prompts, tasks as recorded), stored once. An episode's details (`PageEpisodeDetail`) are
 * parsed only when it is opened, so the first render and the page's heap do not grow with the
 * conversations.
 */
export interface PageEpisode {
  key: string;
  /** Its position in the run's `ViewRun.episodes` (the details element's index). */
  index: number;
  taskId: string;
  trial: number;
  domain: string | null;
  reward: number;
  termination: string | null;
  toolErrors: number;
  policyHits: number;
  /** One line of its failure facts ("2 missing action(s), DB differs"). */
  factsLine: string;
  note: EpisodeNote | null;
  /** Shared texts (`PageData.strings`) its messages carry: a text search looks in them too. */
  shared: number[];
}

export interface PageRun extends Omit<ViewRun, "episodes"> {
  episodes: PageEpisode[];
}

export interface PageData extends Omit<ViewData, "runs"> {
  runs: PageRun[];
  /** Texts stored once: system prompts and tasks as recorded (JSON text). */
  strings: string[];
}

/** One episode's details as embedded: a `ViewEpisode` without its key and note, shared texts replaced by their index in `PageData.strings`. */
export interface PageEpisodeDetail {
  record: Omit<EpisodeRecord, "native">;
  /** Null when `taskRef` points at it. */
  task: unknown;
  /** The task's JSON text in the string table, or null when it is inline (`task`). */
  taskRef: number | null;
  /** `[message index, string index]`: messages whose content (set to null here) is a shared text. */
  systemRefs: Array<[number, number]>;
  /** `[step index, message index]`: steps whose result (set to null here) is the content of that tool message. */
  resultRefs: Array<[number, number]>;
  facts: EpisodeFacts;
  policyHits: PolicyHit[];
  adherence: number | null;
  stateDiff: EndStateDiff;
}

/**
 * Everything the page receives (`--serve`'s `/api/data`; the HTML writes the same parts into script
 * elements): the light data, each episode's details as JSON text (parsed on opening) and, per run,
 * the lower-cased text a search looks in, one string per episode (a string apart per episode: the
 * many without characters beyond Latin-1 stay one byte a character in the browser).
 */
export interface PagePayload {
  data: PageData;
  details: string[][];
  search: string[][];
}
