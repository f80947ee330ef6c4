/**
 * Every relative link in the repository's Markdown resolves: each `[text](path)` or
 * `[text](path#anchor)` (and each reference definition `[name]: path`) of every Markdown file git
 * knows (tracked, or new and not ignored) must name a file or folder that exists, relative to the
 * file that links. Web links (`http:`, `https:`, `mailto:` and other schemes) and pure `#anchor`
 * links are not checked; neither are links inside code blocks or code spans.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
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
function withoutCode(text: string): string {
  const kept: string[] = [];
  let fence: string | null = null;
  for (const line of text.split("\n")) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) fence = marker;
    else if (fence !== null && marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
    else if (fence === null) kept.push(line);
  }
  return kept.join("\n").replace(/(`+)[\s\S]*?\1/g, "");
}

function linkTargets(text: string): string[] {
  const prose = withoutCode(text);
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)].map((match) => match[1]);
  const definitions = [...prose.matchAll(/^ {0,3}\[[^\]\n]+\]:\s*<?([^\s>]+)>?/gm)].map((match) => match[1]);
  return [...inline, ...definitions];
}

function isRelative(target: string): boolean {
  return !target.startsWith("#") && !/^[a-z][a-z0-9+.-]*:/i.test(target);
}

describe("documentation links", () => {
  it("every relative link in a Markdown file names a file or folder that exists", () => {
    const files = markdownFiles();
    expect(files.length).toBeGreaterThan(0);
    const broken: string[] = [];
    for (const file of files) {
      for (const target of linkTargets(readFileSync(join(root, file), "utf8"))) {
        if (!isRelative(target)) continue;
        const path = target.split("#")[0].split("?")[0];
        let decoded = path;
        try {
          decoded = decodeURIComponent(path);
        } catch {
          // a stray % is kept as written
        }
        const absolute = decoded.startsWith("/") ? join(root, decoded) : resolve(root, dirname(file), decoded);
        if (existsSync(absolute) || ALLOWED_MISSING.has(relative(root, absolute))) continue;
        broken.push(`${file} → ${target}`);
      }
    }
    expect(broken, `broken relative links (file → link):\n${broken.join("\n")}`).toEqual([]);
  });
});
