/**
 * `run --policy <file>`: the run's episodes are checked against the rule file (read before the run
 * starts), reported next to the reward in the table and in the JSON, and the rewards stay the run's.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, runTau2 } from "../support/cli.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";

const POLICY = `rules:
  - id: no-renewals
    type: sequence
    severity: critical
    condition:
      maxCalls: { tool: renew_loan, count: 0 }
  - id: no-apology
    type: regex
    severity: low
    pattern: "\\\\bzebra\\\\b"
`;

describe("run --policy (library domain, oracle agent, scripted user)", () => {
  it("adds the Policy column and the hits, and leaves every reward as the run scored it", async () => {
    const root = mkdtempSync(join(tmpdir(), "taubridge-run-policy-"));
    writeFileSync(join(root, "policy.yaml"), POLICY);
    const result = await runCli(["run", "--policy", join(root, "policy.yaml"), "--log-dir", join(root, "out"), "--quiet", "--format", "json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.averageReward).toBe(1);
    const policy = report.policy;
    expect(policy.strictness).toBe("medium");
    expect(policy.hitsByRule).toEqual([{ ruleId: "no-renewals", severity: "critical", hits: 4, episodes: 4 }]);
    const hit = (policy.episodes as Array<{ taskId: string; reward: number; adherence: number; hits: Array<{ ruleId: string; messageIndex: number | null }> }>).filter(
      (episode) => episode.hits.length > 0,
    );
    expect(hit.map((episode) => episode.taskId).sort()).toEqual(["10", "2", "3", "8"]);
    for (const episode of hit) {
      expect(episode.reward).toBe(1);
      expect(episode.adherence).toBe(0);
      expect(typeof episode.hits[0].messageIndex).toBe("number");
    }
    expect(policy.adherence).toBeCloseTo(7 / 11, 12);

    // Stored in the results file: each entry's taubridge block has its episode's check and the run's score.
    const entries = JSON.parse(readFileSync(report.resultsPath, "utf8")) as Array<{ task_id: number; taubridge: { policy: Record<string, unknown> } }>;
    expect(entries).toHaveLength(11);
    for (const entry of entries) {
      const stored = entry.taubridge.policy as { file: string; sha256: string; strictness: string; adherence: number; hits: unknown[]; run: { adherence: number } };
      expect(stored.file).toBe("policy.yaml");
      expect(stored.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(stored.strictness).toBe("medium");
      expect(stored.adherence).toBe(["2", "3", "8", "10"].includes(String(entry.task_id)) ? 0 : 1);
      expect(stored.hits).toHaveLength(["2", "3", "8", "10"].includes(String(entry.task_id)) ? 1 : 0);
      expect(stored.run.adherence).toBeCloseTo(7 / 11, 12);
    }
    // `report` reads it back without --policy: the column, the hits and the JSON, as the run reported them.
    const reported = await runCli(["report", report.resultsPath, "--format", "json"]);
    expect(reported.exitCode, reported.stderr).toBe(0);
    const readBack = JSON.parse(reported.stdout).policy;
    expect(readBack).toMatchObject({ stored: true, file: "policy.yaml", strictness: "medium", hitsByRule: policy.hitsByRule });
    expect(readBack.adherence).toBeCloseTo(7 / 11, 12);
    expect(readBack.episodes.filter((episode: { hits: unknown[] }) => episode.hits.length > 0)).toHaveLength(4);
    const reportedText = await runCli(["report", report.resultsPath]);
    expect(reportedText.stdout).toMatch(/│ Policy │/);
    expect(reportedText.stdout).toContain("stored by the run");

    const text = await runCli(["run", "--policy", join(root, "policy.yaml"), "--log-dir", join(root, "out"), "--quiet", "--no-resume", "--policy-strictness", "low"]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/│ Policy │/);
    expect(text.stdout).toContain("(strictness low)");
    expect(text.stdout).toContain("no-renewals");
  });

  it("a run without --policy writes its results without a stored check (a resumed run's episodes changed)", async () => {
    const root = mkdtempSync(join(tmpdir(), "taubridge-run-policy-none-"));
    writeFileSync(join(root, "policy.yaml"), POLICY);
    const out = join(root, "out");
    const first = await runCli(["run", "--policy", join(root, "policy.yaml"), "--log-dir", out, "--quiet", "--task-ids", "2", "--format", "json"]);
    expect(first.exitCode, first.stderr).toBe(0);
    const path = JSON.parse(first.stdout).resultsPath as string;
    expect(readFileSync(path, "utf8")).toContain('"policy": {');
    const again = await runCli(["run", "--log-dir", out, "--quiet", "--task-ids", "2"]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(readFileSync(path, "utf8")).not.toContain('"policy": {');
  });

  it("refuses a bad rule file in one line before any episode runs (exit 2)", async () => {
    const root = mkdtempSync(join(tmpdir(), "taubridge-run-policy-bad-"));
    writeFileSync(join(root, "policy.json"), JSON.stringify({ rules: [{ id: "x", type: "regex", severity: "urgent", pattern: "a" }] }));
    const result = await runCli(["run", "--policy", join(root, "policy.json"), "--log-dir", join(root, "out"), "--quiet"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(join(root, "policy.json"));
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(existsSync(join(root, "out"))).toBe(false);
  });
});

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

describe.skipIf(!data)("tau2 run --policy (mock domain, oracle agent)", () => {
  it("stores the check in the results file's taubridge block, and report reads it back", async () => {
    const root = mkdtempSync(join(tmpdir(), "taubridge-run-policy-tau2-"));
    writeFileSync(
      join(root, "policy.yaml"),
      "builtins: none\nrules:\n  - id: no-new-tasks\n    type: sequence\n    severity: critical\n    condition:\n      maxCalls: { tool: create_task, count: 0 }\n",
    );
    const saveTo = join(root, "results.json");
    const result = await runTau2(["--agent", "oracle", "--user", "scripted", "--domain", "mock", "--task-ids", "create_task_1", "update_task_1", "--policy", join(root, "policy.yaml")], {
      data: data as string,
      saveTo,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const document = JSON.parse(readFileSync(saveTo, "utf8")) as Record<string, unknown> & {
      taubridge: { policy: { file: string; adherence: number; episodes: Array<{ taskId: string; trial: number; adherence: number; hits: unknown[] }> } };
    };
    // τ²'s own fields stay the original's; the check is only in taubridge's block.
    expect(Object.keys(document)).toEqual(["timestamp", "info", "tasks", "simulations", "simulation_index", "taubridge"]);
    const stored = document.taubridge.policy;
    expect(stored.file).toBe("policy.yaml");
    expect(stored.adherence).toBe(0.5);
    expect(stored.episodes.map((episode) => [episode.taskId, episode.trial, episode.adherence, episode.hits.length])).toEqual([
      ["create_task_1", 0, 0, 1],
      ["update_task_1", 0, 1, 0],
    ]);
    const reported = await runCli(["report", saveTo, "--format", "json"]);
    expect(reported.exitCode, reported.stderr).toBe(0);
    expect(JSON.parse(reported.stdout).policy).toMatchObject({ stored: true, adherence: 0.5, hitsByRule: [{ ruleId: "no-new-tasks", severity: "critical", hits: 1, episodes: 1 }] });
  }, 300_000);
});
