/**
 * Reading-results benchmarks (issue 26's targets): `analyze`'s deterministic pass over 10,000
 * episodes (< 10 s), the policy engine's deterministic rules over 10,000 episodes (< 5 s), and
 * `submit validate` of a four-domain submission (< 2 s; in-process and as the whole CLI process). The episodes are the published gpt-4o
 * airline trajectories (200) read once as canonical records and repeated with other trial numbers;
 * the submission is made from our oracle runs of the four leaderboard domains (made once, kept in
 * the temporary directory).
 */
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { execa } from "execa";
import { analyzeRecords } from "../../src/analysis/analyze.ts";
import { checkPolicy } from "../../src/analysis/policy/engine.ts";
import { parsePolicy } from "../../src/analysis/policy/rules.ts";
import type { EpisodeRecord } from "../../src/core/episode-record.ts";
import { loadResultsFile } from "../../src/suites/tau-bench/codec.ts";
import { tauBenchRecords } from "../../src/suites/tau-bench/records.ts";
import { prepareSubmission, validateSubmission } from "../../src/submit/submit.ts";
import { lineAnswers } from "../../src/submit/questions.ts";
import { tau2Leaderboard } from "../../src/suites/tau2/leaderboard.ts";
import { loadedTau2Domains } from "../../domains/tau2.ts";
import { leaderboardRuns } from "../../test/support/leaderboard-runs.ts";

const shared = process.env.TAUBRIDGE_SHARED;
if (!shared || !existsSync(join(shared, "tau-bench", "historical_trajectories", "gpt-4o-airline.json"))) {
  console.log(JSON.stringify({ skipped: "TAUBRIDGE_SHARED with tau-bench/historical_trajectories is needed" }));
  process.exit(0);
}
const file = join(shared, "tau-bench", "historical_trajectories", "gpt-4o-airline.json");
const readStart = performance.now();
const base = tauBenchRecords(file, loadResultsFile(file), "airline");
const readMs = performance.now() - readStart;
const records: EpisodeRecord[] = [];
for (let copy = 0; records.length < 10_000; copy++) for (const record of base) records.push({ ...record, trial: record.trial + 4 * copy });
records.length = 10_000;

const analyzeStart = performance.now();
const analysis = await analyzeRecords(records);
const analyzeMs = performance.now() - analyzeStart;

const policy = parsePolicy(
  {
    rules: [
      { id: "promise", type: "regex", severity: "medium", pattern: "\\bI promise\\b" },
      { id: "details-first", type: "sequence", severity: "high", condition: { requireBefore: { tool: "get_reservation_details", before: "cancel_reservation" } } },
    ],
  },
  "bench",
);
const policyStart = performance.now();
const report = await checkPolicy(records, policy);
const policyMs = performance.now() - policyStart;

const result: Record<string, unknown> = {
  episodes: records.length,
  readPublishedFileMs: Math.round(readMs),
  analyzeMs: Math.round(analyzeMs),
  analyzeTargetMs: 10_000,
  failedEpisodes: analysis.summary.failed,
  policyMs: Math.round(policyMs),
  policyTargetMs: 5_000,
  policyHits: report.hitsByRule.reduce((sum, row) => sum + row.hits, 0),
};

const tau2Data = join(shared, "tau2-bench");
if (existsSync(join(tau2Data, "airline"))) {
  const root = join(tmpdir(), "taubridge-bench-submission");
  if (!existsSync(join(root, "runs", "banking_knowledge", "results.json"))) await leaderboardRuns(tau2Data, join(root, "runs"));
  const support = tau2Leaderboard(await loadedTau2Domains());
  const output = mkdtempSync(join(tmpdir(), "taubridge-bench-out-"));
  const prepared = await prepareSubmission(support, {
    paths: [join(root, "runs")],
    output,
    verify: false,
    dataDir: tau2Data,
    answers: lineAnswers([]),
    preset: { email: "bench@example.com" },
    today: "2026-01-01",
  });
  const validateStart = performance.now();
  const outcome = validateSubmission(support, prepared.directory, { dataDir: tau2Data });
  result.submitValidateMs = Math.round(performance.now() - validateStart);
  result.submitValidateTargetMs = 2_000;
  result.submitValid = outcome.defects.length === 0;
  result.submitDomains = readdirSync(join(prepared.directory, "trajectories")).length;
  // What a user waits for: the whole `taubridge tau2 submit validate` process (start-up included;
  // the build in dist/ when there is one, as bin/taubridge.js runs it).
  const cliStart = performance.now();
  const cli = await execa("node", [join(import.meta.dirname, "..", "..", "bin", "taubridge.js"), "tau2", "submit", "validate", prepared.directory, "--data-dir", tau2Data], { reject: false });
  result.submitValidateCliMs = Math.round(performance.now() - cliStart);
  result.submitValidateCliExitCode = cli.exitCode;
} else result.submitValidate = "skipped: no τ² data";
console.log(JSON.stringify(result, null, 2));
