/**
 * The page's state lives in the URL's hash (`#view=summary&run=0&reward=fail&q=refund`), so a view
 * can be shared as a link and works from `file://`; filters are applied here to the embedded
 * episodes (no statistic is recomputed: the numbers come from the analysis layer).
 */
import type { PageEpisode, PageRun } from "../view-model.ts";
import { partsReady, searchRun } from "./store.ts";

export const FILTER_KEYS = ["domain", "reward", "termination", "tools", "policy", "fault", "q"] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

export interface PageState {
  view: "summary" | "episode" | "compare";
  run: number;
  episode: string | null;
  filters: Partial<Record<FilterKey, string>>;
}

/** Reads the state from a hash. */
export function readState(hash: string): PageState {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const view = params.get("view");
  const filters: PageState["filters"] = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key);
    if (value) filters[key] = value;
  }
  return {
    view: view === "episode" || view === "compare" ? view : "summary",
    run: Math.max(0, Number(params.get("run") ?? 0) || 0),
    episode: params.get("episode"),
    filters,
  };
}

/** Writes a state as a hash. */
export function writeState(state: PageState): string {
  const params = new URLSearchParams();
  params.set("view", state.view);
  params.set("run", String(state.run));
  if (state.episode) params.set("episode", state.episode);
  for (const key of FILTER_KEYS) {
    const value = state.filters[key];
    if (value) params.set(key, value);
  }
  return `#${params.toString()}`;
}

const passed = (reward: number) => Math.abs(reward - 1) <= 1e-6;

/** Whether an episode passes the filters; `searchHits` (by episode index) answers the text search. */
export function matches(episode: PageEpisode, filters: PageState["filters"], searchHits: Uint8Array | null = null): boolean {
  if (filters.domain && (episode.domain ?? "") !== filters.domain) return false;
  if (filters.reward === "pass" && !passed(episode.reward)) return false;
  if (filters.reward === "fail" && passed(episode.reward)) return false;
  if (filters.reward === "partial" && (episode.reward <= 1e-6 || passed(episode.reward))) return false;
  if (filters.termination && (episode.termination ?? "unknown") !== filters.termination) return false;
  if (filters.tools === "errors" && episode.toolErrors === 0) return false;
  if (filters.tools === "none" && episode.toolErrors > 0) return false;
  if (filters.policy === "hits" && episode.policyHits === 0) return false;
  if (filters.policy === "none" && episode.policyHits > 0) return false;
  if (filters.fault) {
    const note = episode.note;
    if (filters.fault === "noted" && !note) return false;
    if (filters.fault === "unnoted" && note) return false;
    if (filters.fault !== "noted" && filters.fault !== "unnoted" && note?.type !== filters.fault && note?.source !== filters.fault) return false;
  }
  if (filters.q && searchHits && !searchHits[episode.index]) return false;
  return true;
}

/** The run's episodes that pass the filters, in the file's order (the text search: one pass over the run's search text). */
export function filtered(run: PageRun, filters: PageState["filters"]): PageEpisode[] {
  // Before a static page's search texts are parsed, a search shows every episode; main re-renders once they are.
  const hits = filters.q && partsReady() ? searchRun(run, filters.q) : null;
  return run.episodes.filter((episode) => matches(episode, filters, hits));
}
