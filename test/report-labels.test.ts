/**
 * `taubridge report` with several results files: rows are numbered and unique (two runs with the
 * same file name in different folders get their folder), and each footer says which row and file it
 * belongs to.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resultsLabels } from "../src/report/labels.ts";
import { runCli } from "./support/cli.ts";

/** tsx's loader by URL, so the CLI runs from any working directory. */

describe("report labels", () => {
  it("one file keeps its name; several are numbered and told apart by their folders", () => {
    expect(resultsLabels(["/x/run.json"])).toEqual(["run"]);
    expect(resultsLabels(["/x/a/run.json", "/x/b/run.json", "/x/other.json"])).toEqual(["[1] a/run", "[2] b/run", "[3] other"]);
  });

  it("the CLI labels rows and footers", async () => {
    const root = mkdtempSync(join(tmpdir(), "taubridge-report-"));
    const run = await runCli(["run", "--log-dir", join(root, "first"), "--quiet", "--task-ids", "0", "1"]);
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    const file = readdirSync(join(root, "first")).find((name) => name.endsWith(".json"))!;
    mkdirSync(join(root, "second"));
    copyFileSync(join(root, "first", file), join(root, "second", file));
    const report = await runCli(["report", join("first", file), join("second", file)], { cwd: root });
    expect(report.stderr).toBe("");
    expect(report.exitCode).toBe(0);
    const stem = file.replace(/\.json$/, "");
    expect(report.stdout).toContain(`[1] first/${stem}`);
    expect(report.stdout).toContain(`[2] second/${stem}`);
    expect(report.stdout).toMatch(new RegExp(`^\\[2\\] second/${stem.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} — second/${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\nEpisodes: 2 over 2 tasks`, "m"));
  });
});
