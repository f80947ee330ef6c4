/**
 * `taubridge view --serve`: the page on 127.0.0.1 only, rebuilt from the results files whenever
 * they change (a run writing its checkpoint or results file, a note saved), and the notes form
 * saving to each results file's sidecar. Routes: `GET /` the page, `GET /api/version` a fingerprint
 * of the sources the page polls, `GET /api/data` the current data, `POST /api/notes` one note.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { basename } from "node:path";
import { episodeNoteSchema, notesPathOf, parseNotes, withNote } from "../analysis/notes.ts";
import { writeFileAtomic } from "../run/atomic-file.ts";
import type { ViewData } from "./view-model.ts";
import { pageHtml } from "./html.ts";
import { pagePayload } from "./page-data.ts";

export interface ServeOptions {
  /** Builds the current data (the CLI: read every results file, then `buildViewData`). */
  load(): Promise<ViewData>;
  /** A fingerprint of the sources: the data is rebuilt when it changes. */
  version(): string;
  script: string;
  port: number;
  /** Where a problem reading the sources is reported (the page keeps the last good data). */
  warn(message: string): void;
}

export interface ViewServer {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY = 1 << 20;

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { "content-type": type, "cache-control": "no-store", "x-content-type-options": "nosniff" });
  response.end(body);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error("request body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Starts the server on 127.0.0.1 (`port` 0: any free port). */
export async function serveView(options: ServeOptions): Promise<ViewServer> {
  let data = await options.load();
  let version = options.version();
  /** The page and its payload for the current data, built once per rebuild (not per request). */
  let page: { html: string; json: string } | null = null;
  const rendered = () => {
    if (!page) {
      const payload = pagePayload(data);
      page = { html: pageHtml(payload, options.script), json: JSON.stringify(payload) };
    }
    return page;
  };
  let refreshing: Promise<void> | null = null;
  /** Rebuilds the data when the sources changed since the last build (one rebuild at a time). */
  const refresh = async () => {
    const current = options.version();
    if (current === version) return;
    refreshing ??= (async () => {
      try {
        data = await options.load();
        page = null;
        version = current;
      } catch (error) {
        options.warn(`view: could not read the results yet (${(error as Error).message}); showing the last good data`);
      } finally {
        refreshing = null;
      }
    })();
    await refreshing;
  };
  const saveNote = async (body: string): Promise<{ status: number; json: unknown }> => {
    const parsed = JSON.parse(body) as { run?: unknown; note?: unknown };
    const run = data.runs.find((candidate) => candidate.index === parsed.run);
    if (!run) return { status: 400, json: { error: `no run ${String(parsed.run)}` } };
    const note = episodeNoteSchema.safeParse(parsed.note);
    if (!note.success) return { status: 400, json: { error: `note: ${note.error.issues[0].path.join(".")}: ${note.error.issues[0].message}` } };
    if (!run.episodes.some((episode) => episode.record.taskId === note.data.taskId && episode.record.trial === note.data.trial))
      return { status: 400, json: { error: `no episode ${note.data.taskId}#${note.data.trial} in ${run.label}` } };
    const path = notesPathOf(run.path);
    const existing = existsSync(path) ? parseNotes(readFileSync(path, "utf8"), path) : null;
    writeFileAtomic(path, `${JSON.stringify(withNote(existing, basename(run.path), note.data), null, 2)}\n`);
    await refresh();
    return { status: 200, json: { saved: path } };
  };
  const server = createServer((request, response) => {
    void (async () => {
      try {
        const url = new URL(request.url ?? "/", "http://127.0.0.1");
        if (request.method === "GET" && url.pathname === "/") {
          await refresh();
          send(response, 200, "text/html; charset=utf-8", rendered().html);
        } else if (request.method === "GET" && url.pathname === "/api/version") {
          await refresh();
          send(response, 200, "application/json", JSON.stringify({ version }));
        } else if (request.method === "GET" && url.pathname === "/api/data") {
          await refresh();
          send(response, 200, "application/json", rendered().json);
        } else if (request.method === "POST" && url.pathname === "/api/notes") {
          const result = await saveNote(await readBody(request));
          send(response, result.status, "application/json", JSON.stringify(result.json));
        } else send(response, 404, "application/json", JSON.stringify({ error: "not found" }));
      } catch (error) {
        send(response, 500, "application/json", JSON.stringify({ error: (error as Error).message }));
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
