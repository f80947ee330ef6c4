/**
 * Issue 9 item 3: failures are visible where the user looks — the run summary's first-error lines,
 * the refused-tools warning, `report --per-task` errors, and a Ctrl-C'd run marked partial in the
 * table, the summary, the results file's `.meta.json` and `report`.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildReport, detailsText, leaderboardText, perTaskText, reportJson } from "../src/report/leaderboard.ts";
import type { EpisodeSummary } from "../src/core/run.ts";
import { readTauBenchCheckpoint as readCheckpoint, summaryFromResult } from "../src/suites/tau-bench/codec.ts";
import { CheckpointWriter } from "../src/run/checkpoint.ts";
import { resultEntry } from "../src/suites/tau-bench/codec.ts";
import type { EpisodeResult } from "../src/suites/tau-bench/loop.ts";
import { readRunStatus, runStatusPath } from "../src/run/run-status.ts";
import { startScriptedModelServer, type ScriptedModelServer } from "../src/testing/index.ts";
import { runCli } from "./support/cli.ts";

const taubridge = runCli;

const usage = { agent: null, user: null };
const summary = (taskId: number, termination: EpisodeSummary["termination"], extra: Partial<EpisodeSummary> = {}): EpisodeSummary => ({
  taskId,
  trial: 0,
  reward: termination === "user_stop" ? 1 : 0,
  termination,
  usage,
  ...extra,
});

describe("the run summary shows failures", () => {
  it("prints per failure reason the count and the first error, never for normal stops", () => {
    const report = buildReport("x", [
      summary(0, "user_stop"),
      summary(1, "agent_stop"),
      summary(2, "agent_error", { error: '404 No script for model "gpt-5.4-mini"' }),
      summary(3, "agent_error", { error: "a later, different error" }),
      summary(4, "max_steps"),
      summary(5, "user_error", { error: "first line of the user error\n  at traceback line" }),
    ]);
    const lines = detailsText(report).split("\n");
    expect(lines).toContain('  agent_error=2: 404 No script for model "gpt-5.4-mini"');
    expect(lines).toContain("  max_steps=1");
    expect(lines).toContain("  user_error=1: first line of the user error");
    expect(lines.join("\n")).not.toMatch(/user_stop=1:|agent_stop=1:|^ {2}user_stop/m);
    expect(reportJson(report).failures).toEqual([
      { reason: "agent_error", count: 2, firstError: '404 No script for model "gpt-5.4-mini"' },
      { reason: "max_steps", count: 1, firstError: null },
      { reason: "user_error", count: 1, firstError: "first line of the user error\n  at traceback line" },
    ]);
  });

  it("warns with the framework tools the bridge refused (Node adapters and FastWorkflow alike)", () => {
    const node = summaryFromResult({ ...episodeResult(0), extra: { framework: "vercel-ai", unmappedTools: ["lookup_order"] } });
    const fastWorkflow = summaryFromResult({ ...episodeResult(1), extra: { bridge: { unmappedTools: ["store_hours", "lookup_order"] } } });
    expect(node.unmappedTools).toEqual(["lookup_order"]);
    expect(fastWorkflow.unmappedTools).toEqual(["store_hours", "lookup_order"]);
    const text = detailsText(buildReport("x", [node, fastWorkflow]));
    expect(text).toContain('warning: 2 tool(s) of your agent are not part of the benchmark and were not executed: lookup_order, store_hours — map them in a mapping file, or list them under "native"');
    expect(detailsText(buildReport("x", [summary(0, "user_stop")]))).not.toContain("warning:");
  });

  it("keeps the error and the refused tools of resumed episodes (read back from the checkpoint)", () => {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-summary-"));
    const path = join(directory, "run.checkpoint.jsonl");
    const failed: EpisodeResult = {
      ...episodeResult(3),
      termination: "agent_error",
      error: { kind: "agent_error", message: '404 No script for model "gpt-5.4-mini"' },
      extra: { unmappedTools: ["lookup_order"] },
    };
    const writer = new CheckpointWriter(path);
    writer.open({ identity: {}, stem: "run" }, true);
    writer.append(resultEntry(failed));
    writer.close();
    const [entry] = readCheckpoint(path).entries;
    expect(entry.summary).toEqual(summaryFromResult(failed));
    expect(entry.summary).toMatchObject({ error: '404 No script for model "gpt-5.4-mini"', unmappedTools: ["lookup_order"] });
  });
});

/** A finished episode with the fields the serialiser needs. */
function episodeResult(taskId: number): EpisodeResult {
  return {
    taskId,
    trial: 0,
    reward: 0,
    rewardBreakdown: {},
    termination: "user_stop",
    info: {},
    traj: [],
    steps: [],
    plannedOnly: [],
    usage: { agent: null, user: null },
    durationMs: 1,
  };
}

describe("taubridge run and report show episode errors (CLI)", () => {
  let server: ScriptedModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("run prints the first error of each failure reason; report --per-task lists each failed episode", async () => {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-errors-"));
    const agentModule = join(directory, "failing-agent.mjs");
    writeFileSync(agentModule, `export async function respond() { throw new Error('404 No script for model "gpt-5.4-mini"'); }\n`);
    const run = await taubridge(["run", "--agent-strategy", "module", "--agent-module", agentModule, "--task-ids", "0", "1", "--log-dir", directory, "--quiet"]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('ended by: agent_error=2\n  agent_error=2: 404 No script for model "gpt-5.4-mini"\n');
    const resultsPath = /Results saved to (.+\.json)/.exec(run.stdout)![1];

    const report = await taubridge(["report", resultsPath, "--per-task"]);
    expect(report.exitCode).toBe(0);
    expect(report.stdout).toContain("Episodes that did not stop normally (2):");
    expect(report.stdout).toMatch(/│ 0 +│ 0 +│ agent_error +│ 404 No script for model "gpt-5.4-mini" +│/);
    expect(report.stdout).toMatch(/│ 1 +│ 0 +│ agent_error +│ 404 No script for model "gpt-5.4-mini" +│/);
    const markdown = await taubridge(["report", resultsPath, "--per-task", "--format", "markdown"]);
    expect(markdown.stdout).toContain('| 1 | 0 | agent_error | 404 No script for model "gpt-5.4-mini" |');
  });

  it("a model endpoint's error reaches the summary with its message (scripted server, unknown model)", async () => {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-errors-"));
    server = await startScriptedModelServer({ scripts: { "agent-model": [{ content: "hello", times: "unlimited" }] } });
    const run = await taubridge([
      "run",
      "--task-ids",
      "0",
      "--model",
      "gpt-5.4-mini",
      "--model-provider",
      "openai-compatible",
      "--base-url",
      server.baseURL,
      "--model-max-attempts",
      "1",
      "--log-dir",
      directory,
      "--quiet",
    ]);
    expect(run.stdout).toMatch(/^ {2}(agent_error|infra_error)=1: .*404 No script for model "gpt-5\.4-mini"/m);
  });
});

function checkpointEpisodes(logDir: string): number {
  const file = existsSync(logDir) ? readdirSync(logDir).find((name) => name.endsWith(".checkpoint.jsonl")) : undefined;
  return file
    ? readFileSync(join(logDir, file), "utf8")
        .split("\n")
        .filter((line) => line.includes('"type": "episode"')).length
    : 0;
}

describe("a run cut short by Ctrl-C is reported as partial", () => {
  let server: ScriptedModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("says so in the table, the summary, the results file's .meta.json and report; a finished rerun clears it", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-sigint-"));
    // Slow answers first (the run is still going when the signal arrives), fast ones for the rerun.
    server = await startScriptedModelServer({
      scripts: {
        "agent-model": [
          { content: "Happy to help.", delayMs: 400, times: 10 },
          { content: "Happy to help.", times: "unlimited" },
        ],
      },
    });
    const args = ["run", "--model", "agent-model", "--model-provider", "openai-compatible", "--base-url", server.baseURL, "--num-trials", "6", "--log-dir", logDir, "--quiet"];
    const first = taubridge(args);
    const deadline = Date.now() + 60_000;
    while (checkpointEpisodes(logDir) < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    first.kill("SIGINT");
    const interrupted = await first;
    expect(interrupted.exitCode).toBe(130);
    const done = Number(/⚠ partial: (\d+) of 66 episodes; interrupted — rerun to resume/.exec(interrupted.stdout)?.[1]);
    expect(done).toBeGreaterThanOrEqual(2);
    expect(done).toBeLessThan(66);
    expect(interrupted.stdout).toMatch(new RegExp(`│ Episodes +│[\\s\\S]*│ ${done} of 66 \\(partial\\) │`));
    const resultsPath = /Results saved to (.+\.json)/.exec(interrupted.stdout)![1];
    expect(readRunStatus(resultsPath)).toMatchObject({ status: "partial", episodes: done, expectedEpisodes: 66, interrupted: true });
    // The results file itself stays the original's plain list.
    expect(readFileSync(resultsPath, "utf8").trimStart().startsWith("[")).toBe(true);

    const report = await taubridge(["report", resultsPath]);
    expect(report.exitCode).toBe(0);
    expect(report.stdout).toContain(`⚠ partial: ${done} of 66 episodes; interrupted — rerun to resume`);
    expect(report.stdout).toContain(`${done} of 66 (partial)`);
    const reportJsonOutput = await taubridge(["report", resultsPath, "--format", "json"]);
    expect(JSON.parse(reportJsonOutput.stdout).partial).toEqual({ episodes: done, expectedEpisodes: 66, interrupted: true });
    // `report results/*.json` matches the sidecar too: it annotates, it is not a second row.
    const globbed = await taubridge(["report", resultsPath, runStatusPath(resultsPath), "--format", "json"]);
    expect(globbed.exitCode).toBe(0);
    expect(JSON.parse(globbed.stdout).episodes).toBe(done);

    const rerun = await taubridge([...args.filter((arg) => arg !== "--quiet"), "--format", "json"]);
    expect(rerun.exitCode).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ episodes: 66, partial: null, runStatusPath: runStatusPath(resultsPath) });
    expect(readRunStatus(resultsPath)).toMatchObject({ status: "complete", episodes: 66, expectedEpisodes: 66, interrupted: false });
    const after = await taubridge(["report", resultsPath]);
    expect(after.stdout).not.toContain("partial");
  }, 300_000);

  it("leaderboardText adds the Episodes column only when a run is partial", () => {
    const whole = buildReport("whole", [summary(0, "user_stop")], { expectedEpisodes: 1, interrupted: false });
    const cut = buildReport("cut", [summary(0, "user_stop")], { expectedEpisodes: 4, interrupted: true });
    expect(whole.partial).toBeNull();
    expect(leaderboardText([whole])).not.toContain("Episodes");
    const both = leaderboardText([whole, cut], "markdown");
    expect(both).toContain("| whole | 1.000 | 1.000 | $0.0000 | 1 |");
    expect(both).toContain("| cut | 1.000 | 1.000 | $0.0000 | 1 of 4 (partial) |");
    expect(perTaskText(cut)).not.toContain("did not stop normally");
  });
});
