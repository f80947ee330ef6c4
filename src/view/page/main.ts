/**
 * The viewer page's entry: reads the embedded data, renders the view the URL's hash names, and
 * re-renders on navigation. Served (`--serve`), it polls the server for a changed results file or
 * checkpoint and saves notes through it; opened from a file, it keeps notes in the browser and
 * offers them as the sidecar file to download.
 */
import type { EpisodeNote, NotesFile } from "../../analysis/notes.ts";
import type { PageData, PagePayload, PageRun } from "../view-model.ts";
import { compareView } from "./compare.ts";
import { h } from "./dom.ts";
import { episodeView } from "./episode.ts";
import { type PageState, readState, writeState } from "./state.ts";
import { embeddedData, pageData, partsReady, setData, warmSearchWhenIdle } from "./store.ts";
import { summaryView } from "./summary.ts";

const POLL_MS = 1500;

setData(embeddedData());
let data: PageData = pageData();
let version: string | null = null;
let lastUpdate: Date | null = null;

const storageKey = (run: PageRun) => `taubridge-notes:${run.path}`;

/** Static page: notes saved in this browser, applied over the embedded ones. */
function applyStoredNotes(): void {
  if (data.live) return;
  for (const run of data.runs) {
    let stored: Record<string, EpisodeNote> = {};
    try {
      stored = JSON.parse(localStorage.getItem(storageKey(run)) ?? "{}") as Record<string, EpisodeNote>;
    } catch {
      stored = {};
    }
    for (const episode of run.episodes) if (stored[episode.key]) episode.note = stored[episode.key];
  }
}

async function saveNote(run: PageRun, note: EpisodeNote): Promise<string> {
  if (data.live) {
    const response = await fetch("/api/notes", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ run: run.index, note }) });
    const body = (await response.json()) as { saved?: string; error?: string };
    if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
    return `saved to ${body.saved}`;
  }
  const stored = JSON.parse(localStorage.getItem(storageKey(run)) ?? "{}") as Record<string, EpisodeNote>;
  stored[`${note.taskId}#${note.trial}`] = note;
  localStorage.setItem(storageKey(run), JSON.stringify(stored));
  return "saved in this browser (Download notes on the summary writes the sidecar)";
}

/** The sidecar of a run's notes (embedded and stored), for a static page. */
function downloadNotes(run: PageRun): void {
  const notes = run.episodes
    .map((episode) => episode.note)
    .filter((note): note is EpisodeNote => note !== null)
    .sort((a, b) => (a.taskId === b.taskId ? a.trial - b.trial : a.taskId < b.taskId ? -1 : 1));
  const file: NotesFile = { schemaVersion: 1, results: run.path.split(/[\\/]/).pop() ?? run.path, notes };
  const link = h("a", { href: URL.createObjectURL(new Blob([`${JSON.stringify(file, null, 2)}\n`], { type: "application/json" })), download: run.notesPath.split(/[\\/]/).pop() ?? "notes.json" });
  document.body.appendChild(link);
  link.click();
  link.remove();
}

function navigate(change: Partial<PageState>): void {
  const state = { ...readState(location.hash), ...change };
  const hash = writeState(state);
  if (hash === location.hash) render();
  else location.hash = hash;
}

function header(state: PageState): HTMLElement {
  const run = data.runs[Math.min(state.run, data.runs.length - 1)];
  return h(
    "header",
    {},
    h("h1", {}, "taubridge view"),
    h(
      "nav",
      { "data-testid": "run-tabs" },
      ...data.runs.map((candidate) =>
        h(
          "button",
          {
            type: "button",
            class: candidate.index === state.run && state.view !== "compare" ? "active" : "",
            "data-testid": "run-tab",
            onclick: () => navigate({ view: "summary", run: candidate.index, episode: null }),
          },
          candidate.label,
        ),
      ),
      data.runs.length > 1
        ? h("button", { type: "button", class: state.view === "compare" ? "active" : "", "data-testid": "compare-tab", onclick: () => navigate({ view: "compare", episode: null }) }, "Compare")
        : null,
      data.live ? null : h("button", { type: "button", "data-testid": "download-notes", onclick: () => downloadNotes(run) }, "Download notes"),
    ),
    h(
      "span",
      { class: "muted", "data-testid": "live-status" },
      data.live ? `live: refreshes while the run writes${lastUpdate ? ` — updated ${lastUpdate.toLocaleTimeString()}` : ""}` : `written ${data.generatedAt}`,
    ),
  );
}

function render(): void {
  const state = readState(location.hash);
  if (state.run >= data.runs.length) state.run = 0;
  const root = document.getElementById("app") as HTMLElement;
  const body =
    data.runs.length === 0
      ? h("p", {}, "No results yet.")
      : state.view === "episode"
        ? episodeView(data, state, navigate, saveNote)
        : state.view === "compare"
          ? compareView(data, state, navigate)
          : summaryView(data, state, navigate);
  root.replaceChildren(header(state), body);
  root.setAttribute("data-rendered", String(Date.now()));
  // When the first view was on screen (the benchmark reads it; the rest of a static page may still be parsing).
  if (!root.hasAttribute("data-first-render-ms")) root.setAttribute("data-first-render-ms", String(Math.round(performance.now())));
}

/** Whether the reader is typing (a note, a search): a refresh then waits, so nothing typed is lost. */
const editing = () => {
  const active = document.activeElement;
  return active instanceof HTMLTextAreaElement || (active instanceof HTMLInputElement && active.type !== "checkbox");
};
let stale = false;

async function poll(): Promise<void> {
  try {
    const response = await fetch("/api/version", { cache: "no-store" });
    const current = ((await response.json()) as { version: string }).version;
    if (version !== null && current !== version) {
      const fresh = await fetch("/api/data", { cache: "no-store" });
      const payload = (await fresh.json()) as PagePayload;
      setData(payload.data, payload);
      data = payload.data;
      lastUpdate = new Date();
      stale = true;
    }
    version = current;
    if (stale && !editing()) {
      stale = false;
      render();
    }
  } catch {
    // The server went away (the command was stopped): keep showing what we have.
  }
  setTimeout(poll, POLL_MS);
}

applyStoredNotes();
window.addEventListener("hashchange", render);
render();
// A static page's episodes and search texts follow its script: an episode asked for before they are parsed renders once they are.
if (!partsReady())
  document.addEventListener("DOMContentLoaded", () => {
    const state = readState(location.hash);
    if (state.view === "episode" || state.filters.q) render();
    warmSearchWhenIdle();
  });
else warmSearchWhenIdle();
if (data.live) void poll();
