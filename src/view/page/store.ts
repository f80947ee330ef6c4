/**
 * What the page holds: the light data (one row per episode) and, on demand, an episode's details
 * and a run's search text. A static page reads those from their own script elements when first
 * needed (the browser keeps their text; nothing is parsed before it is used); a served page
 * receives them with the data (`/api/data`).
 */
import type { PageData, PageEpisode, PageEpisodeDetail, PagePayload, PageRun } from "../view-model.ts";
import { type EpisodeDetail, restoreDetail } from "./restore.ts";

export type { EpisodeDetail };

/** `SEARCH_SEPARATOR` of view-model.ts (the page imports only types from outside page/). */
const SEPARATOR = "\u001e";

let data: PageData;
/** Served: the parts came with the data. */
let held: Pick<PagePayload, "details" | "search"> | null = null;
const opened = new Map<string, EpisodeDetail>();
const searchIndexes = new Map<number, { text: string; starts: number[] }>();

function parseElement(id: string): unknown {
  const element = document.getElementById(id);
  if (!element?.textContent) throw new Error(`no element ${id} in this page`);
  return JSON.parse(element.textContent);
}

/** The data embedded in a static page. */
export function embeddedData(): PageData {
  return parseElement("taubridge-data") as PageData;
}

/** Sets what the page shows: the embedded data (static page) or a payload from the server. */
export function setData(next: PageData, parts: Pick<PagePayload, "details" | "search"> | null = null): void {
  data = next;
  held = parts;
  opened.clear();
  searchIndexes.clear();
}

export const pageData = (): PageData => data;

/** Whether a static page's parts are all parsed by the browser (the script runs before the episodes' elements). */
export const partsReady = (): boolean => held !== null || document.readyState !== "loading";

/** An episode's details, parsed on first use (the last few kept). */
export function episodeDetail(run: PageRun, episode: PageEpisode): EpisodeDetail {
  const key = `${run.index}:${episode.index}`;
  const cached = opened.get(key);
  if (cached) return cached;
  const raw = (held ? JSON.parse(held.details[run.index][episode.index]) : parseElement(`taubridge-episode-${run.index}-${episode.index}`)) as PageEpisodeDetail;
  const detail = restoreDetail(raw, data.strings);
  if (opened.size >= 16) opened.delete(opened.keys().next().value as string);
  opened.set(key, detail);
  return detail;
}

function searchIndex(run: PageRun): { text: string; starts: number[] } {
  let index = searchIndexes.get(run.index);
  if (!index) {
    const text = (held ? held.search[run.index] : parseElement(`taubridge-search-${run.index}`)) as string;
    const starts = [0];
    for (let at = text.indexOf(SEPARATOR); at >= 0; at = text.indexOf(SEPARATOR, at + 1)) starts.push(at + 1);
    index = { text, starts };
    searchIndexes.set(run.index, index);
  }
  return index;
}

/** Reads a run's search text ahead (when the reader goes to the search box), so the first search need not wait for it. */
export function warmSearch(run: PageRun): void {
  if (!partsReady() || searchIndexes.has(run.index)) return;
  setTimeout(() => searchIndex(run), 0);
}

/**
 * The episodes (by index) whose text holds `query` (case-insensitive): one pass of `indexOf` over the
 * run's search text, then the shared texts once each, then the notes (which can change on the page).
 */
export function searchRun(run: PageRun, query: string): Uint8Array {
  const needle = query.toLowerCase();
  const hits = new Uint8Array(run.episodes.length);
  const { text, starts } = searchIndex(run);
  let at = text.indexOf(needle);
  while (at >= 0) {
    // The episode holding `at`: the last start at or before it.
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle] <= at) low = middle;
      else high = middle - 1;
    }
    hits[low] = 1;
    if (low + 1 >= starts.length) break;
    at = text.indexOf(needle, starts[low + 1]);
  }
  const sharedHits = new Map<number, boolean>();
  const sharedHit = (string: number) => {
    let hit = sharedHits.get(string);
    if (hit === undefined) sharedHits.set(string, (hit = data.strings[string].toLowerCase().includes(needle)));
    return hit;
  };
  for (const episode of run.episodes) {
    if (hits[episode.index]) continue;
    if (episode.shared.some(sharedHit) || episode.note?.text.toLowerCase().includes(needle)) hits[episode.index] = 1;
  }
  return hits;
}
