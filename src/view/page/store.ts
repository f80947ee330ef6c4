/**
 * What the page holds: the light data (one row per episode) and, on demand, an episode's details
 * and a run's search text. A static page reads those from their own script elements when first
 * needed (the browser keeps their text; nothing is parsed before it is used); a served page
 * receives them with the data (`/api/data`).
 */
import type { PageData, PageEpisode, PageEpisodeDetail, PagePayload, PageRun } from "../view-model.ts";
import { type EpisodeDetail, restoreDetail } from "./restore.ts";

export type { EpisodeDetail };

let data: PageData;
/** Served: the parts came with the data. */
let held: Pick<PagePayload, "details" | "search"> | null = null;
const opened = new Map<string, EpisodeDetail>();
const searchIndexes = new Map<number, string[]>();

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

function searchIndex(run: PageRun): string[] {
  let texts = searchIndexes.get(run.index);
  if (!texts) {
    texts = (held ? held.search[run.index] : parseElement(`taubridge-search-${run.index}`)) as string[];
    searchIndexes.set(run.index, texts);
  }
  return texts;
}

/** Reads a run's search text ahead (when the reader goes to the search box), so the first search need not wait for it. */
export function warmSearch(run: PageRun): void {
  if (!partsReady() || searchIndexes.has(run.index)) return;
  setTimeout(() => searchIndex(run), 0);
}

/**
 * Reads every run's search text ahead once the browser is idle after loading the page, one run per
 * idle period, so a search typed later does not pay for reading it (at 10,000 episodes that read
 * is ~0.35 s of one JSON text). A search asked for before then reads it itself. When every run's
 * text is read, the document element gets `data-search-ready`.
 */
export function warmSearchWhenIdle(): void {
  const idle = (work: () => void) => (typeof requestIdleCallback === "function" ? requestIdleCallback(work, { timeout: 2_000 }) : setTimeout(work, 50));
  const next = (index: number) => {
    const run = data.runs[index];
    if (!run) return;
    idle(() => {
      if (data.runs[index] !== run) return; // a served page got new data meanwhile: its texts came parsed
      searchIndex(run);
      if (index === data.runs.length - 1) document.documentElement.setAttribute("data-search-ready", "");
      next(index + 1);
    });
  };
  next(0);
}

/**
 * The episodes (by index) whose text holds `query` (case-insensitive): each episode's search text,
 * then the shared texts once each, then the notes (which can change on the page).
 */
export function searchRun(run: PageRun, query: string): Uint8Array {
  const needle = query.toLowerCase();
  const hits = new Uint8Array(run.episodes.length);
  const texts = searchIndex(run);
  for (const [index, text] of texts.entries()) if (text.includes(needle)) hits[index] = 1;
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
