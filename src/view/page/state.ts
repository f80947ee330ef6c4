/**
 * The page's state lives in the URL's hash (`#view=summary&run=0&reward=fail&q=refund`), so a view
 * can be shared as a link and works from `file://`; filters are applied here to the embedded
 * episodes (no statistic is recomputed: the numbers come from the analysis layer).
 */
import type { ViewEpisode } from "../view-model.ts";

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

/** Whether an episode passes the filters. */
export function matches(episode: ViewEpisode, filters: PageState["filters"]): boolean {
  const record = episode.record;
  if (filters.domain && (record.domain ?? "") !== filters.domain) return false;
  if (filters.reward === "pass" && !passed(record.reward)) return false;
  if (filters.reward === "fail" && passed(record.reward)) return false;
  if (filters.reward === "partial" && (record.reward <= 1e-6 || passed(record.reward))) return false;
  if (filters.termination && (record.termination ?? "unknown") !== filters.termination) return false;
  if (filters.tools === "errors" && episode.toolErrors === 0) return false;
  if (filters.tools === "none" && episode.toolErrors > 0) return false;
  if (filters.policy === "hits" && episode.policyHits.length === 0) return false;
  if (filters.policy === "none" && episode.policyHits.length > 0) return false;
  if (filters.fault) {
    const note = episode.note;
    if (filters.fault === "noted" && !note) return false;
    if (filters.fault === "unnoted" && note) return false;
    if (filters.fault !== "noted" && filters.fault !== "unnoted" && note?.type !== filters.fault && note?.source !== filters.fault) return false;
  }
  if (filters.q) {
    const needle = filters.q.toLowerCase();
    if (!searchText(episode).includes(needle)) return false;
  }
  return true;
}

const searchCache = new WeakMap<ViewEpisode, string>();

/** The text a search looks in: task id, messages, tool calls and the note (lower case, cached). */
function searchText(episode: ViewEpisode): string {
  let text = searchCache.get(episode);
  if (text === undefined) {
    const parts: string[] = [episode.record.taskId, episode.record.expected?.instruction ?? ""];
    for (const message of episode.record.messages) {
      if (message.content) parts.push(message.content);
      for (const call of message.toolCalls ?? []) parts.push(call.name, JSON.stringify(call.arguments));
    }
    if (episode.note) parts.push(episode.note.text);
    text = parts.join("\n").toLowerCase();
    searchCache.set(episode, text);
  }
  return text;
}
