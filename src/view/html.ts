/**
 * The viewer's page as one self-contained HTML document: the style, the data (JSON in a
 * non-executed script element) and the page's bundled script, all inline; nothing is fetched, so it
 * opens from `file://` and can be mailed or published as it is.
 */
import { pagePayload } from "./page-data.ts";
import type { PagePayload, ViewData } from "./view-model.ts";
import { PAGE_STYLE } from "./page-style.ts";

/** JSON safe inside a `<script>` element: `<` escaped, so no `</script>` or `<!--` in the data can end it. */
export function scriptSafeJson(value: unknown): string {
  return scriptSafe(JSON.stringify(value));
}

/** JSON text made safe inside a `<script>` element (see {@link scriptSafeJson}). */
export function scriptSafe(json: string): string {
  return json
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The page. `script` is the bundled page code ({@link pageScript}). */
export function viewHtml(data: ViewData, script: string): string {
  return pageHtml(pagePayload(data), script);
}

/** The page as it is: one string ({@link pageHtmlParts} joined). */
export function pageHtml(payload: PagePayload, script: string): string {
  return pageHtmlParts(payload, script).join("");
}

/**
 * The page from its parts ({@link pagePayload}). The light data and the script come first, so the
 * summary renders while the browser still parses the rest; then each run's search text and each
 * episode's details in an element of its own, read (and parsed) only when a search or the episode
 * needs it. Each part ends with its line break.
 */
export function pageHtmlParts(payload: PagePayload, script: string): string[] {
  const { data } = payload;
  const title = data.runs.length === 1 ? `taubridge view — ${data.runs[0].label}` : `taubridge view — ${data.runs.length} runs`;
  const parts = [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // No network: the page may only use what it carries (and, served, its own origin).
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; connect-src 'self'">`,
    `<title>${escapeText(title)}</title>`,
    `<style>${PAGE_STYLE}</style>`,
    "</head>",
    "<body>",
    '<div id="app">Loading…</div>',
    `<script id="taubridge-data" type="application/json">${scriptSafeJson(data)}</script>`,
    `<script>${script.replace(/<\/script/gi, "<\\/script")}</script>`,
  ];
  for (const [run, texts] of payload.search.entries()) parts.push(`<script id="taubridge-search-${run}" type="application/json">${scriptSafeJson(texts)}</script>`);
  for (const [run, details] of payload.details.entries())
    for (const [index, detail] of details.entries()) parts.push(`<script id="taubridge-episode-${run}-${index}" type="application/json">${scriptSafe(detail)}</script>`);
  parts.push("</body>", "</html>", "");
  // Written part after part (`writeFileAtomic`), a large run's page need not fit in one string.
  return parts.map((part, at) => (at === parts.length - 1 ? part : `${part}\n`));
}
