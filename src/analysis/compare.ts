/**
 * `taubridge compare`: a baseline and candidates, paired task by task, each with its statistics;
 * says whether each difference exceeds the noise, and when two runs differ in more than the agent
 * (their run manifests). Text, Markdown (a pull-request comment) or JSON.
 */
import type { SuiteResults } from "../core/suite.ts";
import { differencesText, manifestDifferences, type ManifestDifference } from "./manifest-diff.ts";
import { type Outcome, type PairedComparison, type RunStatistics, comparePaired, runStatistics } from "./statistics.ts";
import { formatNumber, renderTable } from "./tables.ts";

export interface ComparedRun {
  label: string;
  path: string;
  statistics: RunStatistics;
  passK: Record<number, number | null>;
}

export interface Comparison {
  baseline: ComparedRun;
  candidates: Array<ComparedRun & { comparison: PairedComparison; differences: ManifestDifference[] | null }>;
}

/** A results file's scored outcomes (task, trial, reward, termination, domain). */
export function outcomesOf(file: SuiteResults): Outcome[] {
  return file.summaries.map((summary) => ({ taskId: summary.taskId, trial: summary.trial, reward: summary.reward, termination: summary.termination, domain: file.domain }));
}

function compared(file: SuiteResults, label: string, options: { seed: number; resamples: number }): ComparedRun {
  const statistics = runStatistics(outcomesOf(file), { seed: options.seed, resamples: options.resamples });
  return { label, path: file.path, statistics, passK: Object.fromEntries(Object.entries(statistics.passK).map(([k, estimate]) => [k, estimate.value])) };
}

/** Pairs every candidate with the baseline (the first file). */
export function compareRuns(files: readonly SuiteResults[], labels: readonly string[], options: { alpha?: number; seed?: number; resamples?: number } = {}): Comparison {
  const settings = { seed: options.seed ?? 0, resamples: options.resamples ?? 2000 };
  const baseline = compared(files[0], labels[0], settings);
  const baselineOutcomes = outcomesOf(files[0]);
  return {
    baseline,
    candidates: files.slice(1).map((file, index) => ({
      ...compared(file, labels[index + 1], settings),
      comparison: comparePaired(baselineOutcomes, outcomesOf(file), { alpha: options.alpha, seed: settings.seed, resamples: settings.resamples }),
      differences: files[0].manifest && file.manifest ? manifestDifferences(files[0].manifest, file.manifest) : null,
    })),
  };
}

const signed = (value: number | null) => (value === null ? "n/a" : `${value >= 0 ? "+" : ""}${value.toFixed(3)}`);
const ci = (low: number | null, high: number | null) => (low === null || high === null ? "n/a" : `[${signed(low)}, ${signed(high)}]`);

/** The verdict line of one candidate. */
function verdictLine(baseline: string, candidate: Comparison["candidates"][number]): string {
  const c = candidate.comparison;
  const what = c.verdict === "within noise" ? "the difference is within the noise" : `${candidate.label} is ${c.verdict} than ${baseline} beyond the noise`;
  return `${what}: pass rate ${formatNumber(c.baselinePassRate)} → ${formatNumber(c.candidatePassRate)} (${signed(c.difference)}, ${Math.round((1 - c.alpha) * 100)}% CI ${ci(c.low, c.high)}, paired sign-flip p = ${c.pValue === null ? "n/a" : c.pValue.toPrecision(3)}) over ${c.pairedTasks} paired task(s)`;
}

/** The comparison as text or Markdown: a table of every run with intervals, a verdict per candidate, the tasks that moved. */
export function comparisonText(comparison: Comparison, format: "text" | "markdown"): string {
  const runs = [comparison.baseline, ...comparison.candidates];
  const maxK = Math.max(1, ...runs.map((run) => run.statistics.trials));
  const interval = (estimate: { value: number | null; low: number | null; high: number | null }) =>
    estimate.value === null ? "n/a" : `${estimate.value.toFixed(3)} [${formatNumber(estimate.low)}, ${formatNumber(estimate.high)}]`;
  const head = ["Run", ...Array.from({ length: maxK }, (_, index) => `Pass^${index + 1}`), "Avg reward", "Flip rate", "Episodes"];
  const rows = runs.map((run, index) => [
    `${index === 0 ? "baseline: " : ""}${run.label}`,
    ...Array.from({ length: maxK }, (_, k) => (run.statistics.passK[k + 1] ? interval(run.statistics.passK[k + 1]) : "n/a")),
    interval(run.statistics.averageReward),
    formatNumber(run.statistics.flipRate),
    String(run.statistics.episodes),
  ]);
  const parts = [
    renderTable(head, rows, format),
    `(${Math.round(comparison.baseline.statistics.confidence * 100)}% bootstrap intervals over tasks and trials, ${comparison.baseline.statistics.resamples} resamples, seed ${comparison.baseline.statistics.seed})`,
  ];
  for (const candidate of comparison.candidates) {
    const c = candidate.comparison;
    parts.push(`${format === "markdown" ? "**" : ""}${verdictLine(comparison.baseline.label, candidate)}${format === "markdown" ? "**" : ""}`);
    if (c.onlyBaseline.length + c.onlyCandidate.length > 0)
      parts.push(`not paired (left out): ${c.onlyBaseline.length} task(s) only in the baseline, ${c.onlyCandidate.length} only in ${candidate.label}`);
    if (candidate.differences && candidate.differences.length > 0) {
      parts.push(`⚠ the runs differ in more than the agent: ${differencesText(candidate.differences)}`);
    }
    const moved = c.perTask.filter((task) => task.difference !== 0).sort((a, b) => a.difference - b.difference);
    if (moved.length > 0) {
      parts.push(
        renderTable(
          ["Task", "Baseline", candidate.label, "Δ"],
          moved.map((task) => [
            `${task.domain ? `${task.domain}/` : ""}${task.taskId}`,
            `${task.baseline.toFixed(2)} (${task.baselineTrials})`,
            `${task.candidate.toFixed(2)} (${task.candidateTrials})`,
            signed(task.difference),
          ]),
          format,
        ),
      );
    } else parts.push("no task changed its pass rate");
  }
  return parts.join("\n\n");
}

/** `compare --format json`. */
export function comparisonJson(comparison: Comparison): Record<string, unknown> {
  return {
    baseline: { label: comparison.baseline.label, path: comparison.baseline.path, statistics: comparison.baseline.statistics },
    candidates: comparison.candidates.map((candidate) => ({
      label: candidate.label,
      path: candidate.path,
      statistics: candidate.statistics,
      comparison: candidate.comparison,
      manifestDifferences: candidate.differences,
    })),
  };
}
