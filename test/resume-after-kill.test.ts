import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePythonJson } from "../src/value/index.ts";
import { runCli } from "./support/cli.ts";

// The sources, not dist/ (which `npm run build` may not have refreshed).

function checkpointLines(logDir: string): number {
  const file = existsSync(logDir) ? readdirSync(logDir).find((name) => name.endsWith(".checkpoint.jsonl")) : undefined;
  return file ? readFileSync(join(logDir, file), "utf8").split("\n").filter(Boolean).length : 0;
}

describe("a run killed with SIGKILL and resumed", () => {
  it("ends with every (task, trial) exactly once", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-kill-"));
    const trials = 150; // 11 bundled tasks × 150 trials = 1650 episodes
    const args = ["run", "--log-dir", logDir, "--num-trials", String(trials), "--max-concurrency", "4", "--quiet", "--format", "json"];
    const first = runCli(args);
    const deadline = Date.now() + 60_000;
    while (checkpointLines(logDir) < 200 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    first.kill("SIGKILL");
    const killed = await first;
    expect(killed.signal).toBe("SIGKILL");
    const linesAtKill = checkpointLines(logDir);
    expect(linesAtKill).toBeGreaterThan(1);
    expect(linesAtKill).toBeLessThan(1 + 11 * trials); // it really died mid-run

    const second = await runCli([...args.filter((arg) => arg !== "--quiet")]);
    expect(second.exitCode).toBe(0);
    expect(second.stderr).toMatch(/resumed \d+ finished episodes, running \d+ /);
    const report = JSON.parse(second.stdout);
    const entries = parsePythonJson(readFileSync(report.resultsPath, "utf8")) as Map<string, unknown>[];
    const keys = entries.map((entry) => `${entry.get("task_id")}:${entry.get("trial")}`);
    expect(keys).toHaveLength(1650);
    expect(new Set(keys).size).toBe(1650);
    // (trial, task) order, as τ-bench writes it
    expect(keys.slice(0, 3)).toEqual(["0:0", "1:0", "2:0"]);
    expect(report.passK["1"]).toBe(1);
  });
});
