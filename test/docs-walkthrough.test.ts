/**
 * The walkthrough files in the docs are real files that `npm test` type-checks: every fenced `ts`
 * block whose first line names a file (`// agent.ts`) is a file a reader copies into a project as
 * it stands, so it is kept, byte for byte, as `docs/examples/<page>/<file>`, which tsconfig.json
 * includes (`taubridge` resolving to this checkout's sources through its `paths`) and biome lints.
 * A block that shows only a shape (`// my-agent.ts (or …)`, with a placeholder call) is not a file.
 * The own-agent walkthrough's agent is also run, for the scores its page prints.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./support/cli.ts";

const root = join(import.meta.dirname, "..");
const docs = join(root, "docs");
const examples = join(docs, "examples");

/** The walkthrough files of one Markdown page: `{ name, source }` for each `ts` block headed by `// <file name>`. */
function walkthroughFiles(markdown: string): Array<{ name: string; source: string }> {
  const files: Array<{ name: string; source: string }> = [];
  for (const match of markdown.matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```$/gm)) {
    const name = /^\/\/ ([\w.-]+\.(?:ts|mts|cts))\n/.exec(match[1])?.[1];
    if (name) files.push({ name, source: match[1] });
  }
  return files;
}

const blocks = readdirSync(docs)
  .filter((name) => name.endsWith(".md"))
  .flatMap((page) => walkthroughFiles(readFileSync(join(docs, page), "utf8")).map((file) => ({ path: join(page.replace(/\.md$/, ""), file.name), source: file.source })));

describe("walkthrough files in docs/", () => {
  it("finds the walkthroughs (own-agent.md's agent.ts, framework-agents.md's my-agent.ts)", () => {
    expect(blocks.map((block) => block.path)).toEqual(expect.arrayContaining([join("own-agent", "agent.ts"), join("framework-agents", "my-agent.ts")]));
  });

  it("each is docs/examples/<page>/<file>, byte for byte, so the type-check of npm test covers what the page shows", () => {
    const differing = blocks.filter((block) => !existsSync(join(examples, block.path)) || readFileSync(join(examples, block.path), "utf8") !== block.source).map((block) => block.path);
    expect(differing, "copy the page's block to docs/examples/<page>/<file> (or the file back into the page)").toEqual([]);
  });

  it("docs/examples holds no file that no page shows or links to", () => {
    // A page shows a walkthrough file as a block, or links a whole example it runs (docs/a2a.md's Python agent, run by test/a2a).
    const linked = readdirSync(docs)
      .filter((name) => name.endsWith(".md"))
      .flatMap((page) => [...readFileSync(join(docs, page), "utf8").matchAll(/\]\(examples\/([^)#\s]+)\)/g)].map((match) => match[1]));
    const shown = new Set([...blocks.map((block) => block.path), ...linked]);
    const files = readdirSync(examples, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath.slice(examples.length + 1), entry.name));
    expect(files.filter((file) => !shown.has(file))).toEqual([]);
  });

  it("own-agent.md's agent scores what the page says: library task 2 Pass^1 1.000, all 11 tasks 0.273", async () => {
    const agent = join(examples, "own-agent", "agent.ts");
    // Its own results folder: the page's command writes under ./results, which the same test on another Node version (CI runs them side by side) may hold.
    const logDir = ["--log-dir", mkdtempSync(join(tmpdir(), "taubridge-walkthrough-"))];
    const one = await runCli(["run", "--agent-strategy", "module", "--agent-module", agent, "--task-ids", "2", "--quiet", ...logDir]);
    expect(one.exitCode, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/│ module \(no model\) on library\/test\s+│ 1\.000\s+│/);
    const all = await runCli(["run", "--agent-strategy", "module", "--agent-module", agent, "--quiet", ...logDir]);
    expect(all.exitCode, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/│ module \(no model\) on library\/test\s+│ 0\.273\s+│/);
  }, 300_000);
});
