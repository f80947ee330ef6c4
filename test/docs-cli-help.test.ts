/**
 * The CLI reference cannot drift from the CLI: every ```console block of docs/cli.md that starts
 * with `$ taubridge … --help` must be exactly what that command prints (a block may end with a line
 * `…` to show only its beginning). `TAUBRIDGE_DOCS_UPDATE=1` rewrites the blocks from the CLI.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./support/cli.ts";

const DOC = join(import.meta.dirname, "..", "docs", "cli.md");
const UPDATE = process.env.TAUBRIDGE_DOCS_UPDATE === "1";
const BLOCK = /```console\n\$ taubridge ([^\n]*--help)\n([\s\S]*?)```/g;

describe("docs/cli.md", () => {
  it("shows every command's --help as the CLI prints it", { timeout: 120_000 }, async () => {
    const text = readFileSync(DOC, "utf8");
    const blocks = [...text.matchAll(BLOCK)];
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    let updated = text;
    const stale: string[] = [];
    for (const [whole, command, shown] of blocks) {
      const actual = `${(await runCli(command.split(" "))).stdout}\n`;
      const elided = shown.endsWith("…\n");
      const expected = elided ? shown.slice(0, -"…\n".length) : shown;
      const matches = elided ? actual.startsWith(expected) : actual === expected;
      if (matches) continue;
      stale.push(command);
      updated = updated.replace(whole, () => `\`\`\`console\n$ taubridge ${command}\n${actual}\`\`\``);
    }
    if (UPDATE && updated !== text) writeFileSync(DOC, updated);
    expect(stale, `docs/cli.md shows an old --help of: ${stale.join("; ")} (TAUBRIDGE_DOCS_UPDATE=1 rewrites them)`).toEqual(UPDATE ? stale : []);
  });
});
