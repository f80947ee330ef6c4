/**
 * `run --policy <file>`: the run's episodes are checked against the rule file (read before the run
 * starts), reported next to the reward in the table and in the JSON, and the rewards stay the run's.
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli.ts";

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

    const text = await runCli(["run", "--policy", join(root, "policy.yaml"), "--log-dir", join(root, "out"), "--quiet", "--no-resume", "--policy-strictness", "low"]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/│ Policy │/);
    expect(text.stdout).toContain("(strictness low)");
    expect(text.stdout).toContain("no-renewals");
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
