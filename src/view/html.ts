/**
 * The viewer's page as one self-contained HTML document: the style, the data (JSON in a
 * non-executed script element) and the page's bundled script, all inline; nothing is fetched, so it
 * opens from `file://` and can be mailed or published as it is.
 */
import type { ViewData } from "./view-model.ts";
import { PAGE_STYLE } from "./page-style.ts";

/** JSON safe inside a `<script>` element: `<` escaped, so no `</script>` or `<!--` in the data can end it. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The page. `script` is the bundled page code ({@link pageScript}). */
export function viewHtml(data: ViewData, script: string): string {
  const title = data.runs.length === 1 ? `taubridge view — ${data.runs[0].label}` : `taubridge view — ${data.runs.length} runs`;
  return [
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
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
