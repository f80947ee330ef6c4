/**
 * Leaderboard submissions on our own runs of the four leaderboard domains (the oracle with the
 * scripted user, 4 trials of the base split, seeded failures and varied costs): `tau2 submit
 * prepare` writes the original's layout and numbers (pass^k recomputed independently here from the
 * rewards), `validate` accepts it, and refuses tampered copies (a flipped reward, a dropped
 * simulation, a changed task, a changed number, a domain twice). The exact floats: numpy's pairwise
 * sum and portable argsort against values numpy 1.24 / pandas 1.5 print.
 */
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { numpyArgsortQuicksort, numpySum, pandasMean } from "../../src/metrics/numpy-sum.ts";
import { runCli } from "../support/cli.ts";
import { LEADERBOARD_DOMAINS, leaderboardRuns } from "../support/leaderboard-runs.ts";
import { describeWithTau2Data } from "../support/shared-data.ts";

it("numpy's pairwise sum, pandas' mean and numpy's quicksort argsort give numpy's floats and order", () => {
  // Printed by numpy 1.24.2 / pandas 1.5.3: np.sum([0.1]*10) (a plain loop would give 0.9999999999999999),
  // np.sum of 130 sixths (two halves of 64 and 66), pd.Series([1/6, nan, 0.5]).mean().
  expect(numpySum(Array(10).fill(0.1))).toBe(1);
  let loop = 0;
  for (let index = 0; index < 10; index++) loop += 0.1;
  expect(loop).toBe(0.9999999999999999);
  expect(numpySum(Array(130).fill(1 / 6))).toBe(21.666666666666664);
  expect(pandasMean([1 / 6, null, 0.5])).toBe(0.3333333333333333);
  expect(Number.isNaN(pandasMean([null, null]))).toBe(true);
  // np.argsort(np.array([3,1,2,1,3,0,1,2,2,1,0,3,1,2,0,1,3,2], dtype=np.int64), kind="quicksort") with numpy 1.24.2.
  expect(numpyArgsortQuicksort([3, 1, 2, 1, 3, 0, 1, 2, 2, 1, 0, 3, 1, 2, 0, 1, 3, 2])).toEqual([14, 5, 10, 1, 15, 3, 6, 12, 9, 8, 13, 17, 7, 2, 16, 4, 11, 0]);
});

describeWithTau2Data("leaderboard submissions of our own runs of airline, retail, telecom and banking_knowledge", (data) => {
  const root = mkdtempSync(join(tmpdir(), "taubridge-submit-"));
  let runs: Record<string, string>;
  let submission: string;

  beforeAll(async () => {
    runs = await leaderboardRuns(data, join(root, "runs"));
    const answers = [
      "",
      "",
      "Taubridge Tests",
      "",
      "ci@example.com",
      "Test Bot",
      "",
      "n",
      "custom",
      "high",
      "2026-01-02",
      "",
      "made by a test",
      "n",
      "n",
      "y",
      "A paper",
      "https://example.com/p",
      "paper",
      "n",
      "2025-12-01",
      "https://example.com/a",
      "Launch",
    ];
    const result = await runCli(["tau2", "submit", "prepare", join(root, "runs"), "--output", join(root, "out"), "--data-dir", data, "--today", "2026-01-03"], { input: `${answers.join("\n")}\n` });
    expect(result.stderr).not.toMatch(/taubridge: (?!warning)/);
    expect(result.exitCode).toBe(0);
    submission = result.stdout.trim();
  }, 900_000);

  it("writes <model>_<org>_<date>/ with submission.json in the original's schema and the results files copied byte for byte", () => {
    expect(submission).toBe(join(root, "out", "gpt-4-1-2025-04-14_taubridge-tests_2026-01-03"));
    // Byte for byte (compared by digest: a deep equality of 18 MB buffers is slow).
    const digest = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");
    for (const domain of LEADERBOARD_DOMAINS) expect(digest(join(submission, "trajectories", `${domain}_results.json`)), domain).toBe(digest(runs[domain]));
    const json = JSON.parse(readFileSync(join(submission, "submission.json"), "utf8"));
    expect(Object.keys(json)).toEqual([
      "model_name",
      "model_organization",
      "submitting_organization",
      "submission_date",
      "submission_type",
      "modality",
      "contact_info",
      "results",
      "is_new",
      "trajectories_available",
      "trajectory_files",
      "references",
      "methodology",
      "model_release",
      "reasoning_effort",
    ]);
    expect(json).toMatchObject({
      model_name: "gpt-4.1-2025-04-14",
      model_organization: "Taubridge Tests",
      submitting_organization: "Taubridge Tests",
      submission_date: "2026-01-03",
      submission_type: "custom",
      contact_info: { email: "ci@example.com", name: "Test Bot" },
      is_new: false,
      references: [{ title: "A paper", url: "https://example.com/p", type: "paper" }],
      methodology: {
        evaluation_date: "2026-01-02",
        tau2_bench_version: "1.0.1",
        user_simulator: "gpt-4.1-2025-04-14",
        notes: "made by a test",
        verification: { modified_prompts: false, omitted_questions: false },
      },
      model_release: { release_date: "2025-12-01", announcement_url: "https://example.com/a", announcement_title: "Launch" },
      reasoning_effort: "high",
    });
    expect(Object.keys(json.results)).toEqual(["retail", "airline", "telecom", "banking_knowledge"]);
    expect(json.results.banking_knowledge.retrieval_config).toBe("bm25");
  });

  it("the numbers: pass^k from the rewards (checked here independently), failed trials and varied costs present", () => {
    const json = JSON.parse(readFileSync(join(submission, "submission.json"), "utf8"));
    for (const domain of LEADERBOARD_DOMAINS) {
      const results = JSON.parse(readFileSync(runs[domain], "utf8")) as { simulations: Array<{ task_id: string; reward_info: { reward: number }; agent_cost: number }> };
      const byTask = new Map<string, number[]>();
      for (const simulation of results.simulations) byTask.set(simulation.task_id, [...(byTask.get(simulation.task_id) ?? []), simulation.reward_info.reward]);
      const pass1 = [...byTask.values()].reduce((sum, rewards) => sum + rewards.filter((reward) => reward === 1).length / 4, 0) / byTask.size;
      expect(json.results[domain].pass_1).toBeCloseTo(pass1 * 100, 9);
      expect(json.results[domain].pass_1).toBeLessThan(100); // seeded failures
      expect(json.results[domain].pass_4).toBeLessThanOrEqual(json.results[domain].pass_1);
      expect(new Set(results.simulations.map((simulation) => simulation.agent_cost)).size).toBeGreaterThan(2); // varied costs
      expect(json.results[domain].cost).toBeCloseTo(results.simulations.reduce((sum, simulation) => sum + simulation.agent_cost, 0) / results.simulations.length, 12);
    }
  });

  it("validate accepts it (exit 0), recomputing every number exactly", async () => {
    const result = await runCli(["tau2", "submit", "validate", submission, "--data-dir", data, "--exact", "--format", "json"]);
    expect(result.exitCode).toBe(0);
    const outcome = JSON.parse(result.stdout);
    expect(outcome).toMatchObject({ valid: true, defects: [], notes: [] });
    expect(outcome.domains.sort()).toEqual([...LEADERBOARD_DOMAINS].sort());
  });

  /** A copy of the submission with one file changed. */
  const tampered = (name: string, change: (directory: string) => void) => {
    const directory = join(root, "tampered", name);
    rmSync(directory, { recursive: true, force: true });
    cpSync(submission, directory, { recursive: true });
    change(directory);
    return directory;
  };
  const editJson = (path: string, edit: (document: Record<string, any>) => void) => {
    const document = JSON.parse(readFileSync(path, "utf8"));
    edit(document);
    writeFileSync(path, JSON.stringify(document, null, 2));
  };
  const refusal = async (directory: string) => {
    const result = await runCli(["tau2", "submit", "validate", directory, "--data-dir", data]);
    expect(result.exitCode).toBe(2);
    return result.stderr;
  };

  it("refuses a flipped reward, naming the domain and the number", async () => {
    const directory = tampered("flipped", (dir) =>
      editJson(join(dir, "trajectories", "airline_results.json"), (document) => {
        const failed = document.simulations.find((simulation: { reward_info: { reward: number } }) => simulation.reward_info.reward === 0);
        failed.reward_info.reward = 1.0;
      }),
    );
    expect(await refusal(directory)).toMatch(/taubridge: airline: pass\^1 is [\d.]+ but the trajectories give [\d.]+/);
  });

  it("refuses a dropped simulation (trial count)", async () => {
    const directory = tampered("dropped", (dir) => editJson(join(dir, "trajectories", "retail_results.json"), (document) => document.simulations.pop()));
    expect(await refusal(directory)).toMatch(/taubridge: retail: 1 task\(s\) do not have exactly num_trials=4 simulations/);
  });

  it("refuses a changed task (definition hash) and a task left out of the base split", async () => {
    // Edited as text: rewriting the file through JSON.parse would also respell 0.0 as 0 everywhere.
    const changed = tampered("changed-task", (dir) => {
      const path = join(dir, "trajectories", "telecom_results.json");
      writeFileSync(path, readFileSync(path, "utf8").replace('"reason_for_call": "', '"reason_for_call": "(changed) '));
    });
    expect(await refusal(changed)).toMatch(/taubridge: telecom: 1 task\(s\) differ from the current task definitions/);
    const missing = tampered("missing-task", (dir) =>
      editJson(join(dir, "trajectories", "airline_results.json"), (document) => {
        const id = document.tasks.shift().id;
        document.simulations = document.simulations.filter((simulation: { task_id: string }) => simulation.task_id !== id);
      }),
    );
    expect(await refusal(missing)).toMatch(/taubridge: airline: missing tasks of the base split: /);
  });

  it("refuses a changed number in submission.json and a domain submitted twice", async () => {
    const number = tampered("number", (dir) =>
      editJson(join(dir, "submission.json"), (document) => {
        document.results.banking_knowledge.pass_2 += 1e-9;
      }),
    );
    expect(await refusal(number)).toMatch(/taubridge: banking_knowledge: pass\^2 is /);
    const twice = tampered("twice", (dir) => cpSync(join(dir, "trajectories", "retail_results.json"), join(dir, "trajectories", "retail_copy.json")));
    expect(await refusal(twice)).toMatch(/taubridge: retail: domain retail appears twice/);
  });

  it("prepare refuses a set that mixes agents, before writing anything", async () => {
    const other = join(root, "mixed");
    cpSync(join(root, "runs"), other, { recursive: true });
    editJson(join(other, "telecom", "results.json"), (document) => {
      document.info.agent_info.llm = "another-model";
    });
    const result = await runCli(["tau2", "submit", "prepare", other, "--output", join(root, "mixed-out"), "--data-dir", data, "--email", "x@example.com"], { input: "" });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/taubridge: telecom: agent and user simulator must be the same in every domain/);
  });
});
