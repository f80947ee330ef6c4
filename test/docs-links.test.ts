/**
 * Every relative link in the repository's Markdown resolves: each `[text](path)` or
 * `[text](path#anchor)` (and each reference definition `[name]: path`) of every Markdown file git
 * knows (tracked, or new and not ignored) must name a file or folder that exists, relative to the
 * file that links, and an anchor into a Markdown file (or `#anchor` within the same file) must be
 * one GitHub makes for a heading of that file: its slug as `github-slugger` computes it (the
 * library GitHub's own renderer follows: lower case, punctuation dropped, spaces to `-`, a repeated
 * heading suffixed `-1`, `-2`, …) from the heading's text as rendered (code spans, links and
 * emphasis reduced to their text), or an explicit `<a name>`/`id`. Web links (`http:`, `https:`,
 * `mailto:` and other schemes) are not checked; neither are links inside code blocks or code spans.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import GithubSlugger from "github-slugger";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");

/** Targets that may be missing for now (none). */
const ALLOWED_MISSING = new Set<string>();

function markdownFiles(): string[] {
  const output = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "*.md"], { cwd: root, encoding: "utf8" });
  const files = output.split("\0").filter((file) => file !== "" && !/(^|\/)(node_modules|dist)\//.test(file));
  return [...new Set(files)].filter((file) => existsSync(join(root, file))).sort();
}

/** The text without fenced code blocks and code spans, so code that looks like a link is not read as one. */
function withoutCode(text: string, options: { keepCodeSpans?: boolean } = {}): string {
  const kept: string[] = [];
  let fence: string | null = null;
  for (const line of text.split("\n")) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) fence = marker;
    else if (fence !== null && marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
    else if (fence === null) kept.push(line);
  }
  const prose = kept.join("\n");
  return options.keepCodeSpans ? prose : prose.replace(/(`+)[\s\S]*?\1/g, "");
}

function linkTargets(text: string): string[] {
  const prose = withoutCode(text);
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)].map((match) => match[1]);
  const definitions = [...prose.matchAll(/^ {0,3}\[[^\]\n]+\]:\s*<?([^\s>]+)>?/gm)].map((match) => match[1]);
  return [...inline, ...definitions];
}

function isRelative(target: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(target);
}

/** A heading's text as GitHub renders it: code spans, links and images reduced to their text, emphasis markers and HTML tags dropped. */
export function headingText(source: string): string {
  const spans: string[] = [];
  const withoutSpans = source.replace(/\s+#+\s*$/, "").replace(/(`+)(.*?)\1/g, (_whole, _ticks, code: string) => `\uE000${spans.push(code) - 1}\uE000`);
  return withoutSpans
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/(\*{1,3})(\S(?:.*?\S)?)\1/g, "$2")
    .replace(/\uE000(\d+)\uE000/g, (_whole, index: string) => spans[Number(index)])
    .trim();
}

/** The anchors GitHub makes in a Markdown file: one per heading (outside code blocks), numbered when repeated, and explicit `<a name>` / `id` anchors. */
export function markdownAnchors(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const line of withoutCode(text, { keepCodeSpans: true }).split("\n")) {
    const heading = /^ {0,3}#{1,6}\s+(.*)$/.exec(line);
    if (heading) anchors.add(slugger.slug(headingText(heading[1])));
    for (const match of line.matchAll(/<a\s+[^>]*(?:name|id)="([^"]+)"/g)) anchors.add(match[1]);
  }
  return anchors;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a stray % is kept as written
  }
}

describe("documentation links", () => {
  it("every relative link in a Markdown file names a file or folder that exists, and an anchor GitHub makes there", () => {
    const files = markdownFiles();
    expect(files.length).toBeGreaterThan(0);
    const anchorsOf = new Map<string, Set<string>>();
    const anchors = (absolute: string) => {
      if (!anchorsOf.has(absolute)) anchorsOf.set(absolute, markdownAnchors(readFileSync(absolute, "utf8")));
      return anchorsOf.get(absolute) as Set<string>;
    };
    const broken: string[] = [];
    for (const file of files) {
      for (const target of linkTargets(readFileSync(join(root, file), "utf8"))) {
        if (!isRelative(target)) continue;
        const [pathAndQuery, anchor] = target.split("#", 2);
        const path = decoded(pathAndQuery.split("?")[0]);
        const absolute = path === "" ? join(root, file) : path.startsWith("/") ? join(root, path) : resolve(root, dirname(file), path);
        if (!existsSync(absolute)) {
          if (!ALLOWED_MISSING.has(relative(root, absolute))) broken.push(`${file} → ${target}`);
          continue;
        }
        if (anchor === undefined || !absolute.endsWith(".md") || statSync(absolute).isDirectory()) continue;
        if (!anchors(absolute).has(decoded(anchor))) broken.push(`${file} → ${target} (no such heading anchor in ${relative(root, absolute)})`);
      }
    }
    expect(broken, `broken relative links (file → link):\n${broken.join("\n")}`).toEqual([]);
  });
});

describe("anchors as GitHub makes them", () => {
  it("from the heading's rendered text, with repeats numbered (and ², not a decimal digit, dropped as GitHub drops it)", () => {
    const anchors = markdownAnchors(
      [
        "# Results files",
        "## τ²-bench: results.json",
        "## `taubridge run`",
        "## The run status: `<results>.meta.json`",
        "## [Linked](x.md) *heading*",
        "```",
        "## not a heading",
        "```",
        "## `taubridge run`",
      ].join("\n"),
    );
    expect([...anchors]).toEqual(["results-files", "τ-bench-resultsjson", "taubridge-run", "the-run-status-resultsmetajson", "linked-heading", "taubridge-run-1"]);
  });
});
