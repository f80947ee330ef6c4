/**
 * What `report` (and `run --policy`) add to the leaderboard beyond pass^k, computed by the analysis
 * layer from the canonical records: the policy-adherence column and hits (`--policy`), bootstrap
 * intervals, flip rate and per-trial spread (`--statistics`), the overall score (`--overall-score`),
 * τ²'s breakdowns (`--breakdown`), JUnit XML (`--junit`) and the `--min-pass` gate; and the run
 * manifests' differences when several runs are reported together.
 */
import { writeFileSync } from "node:fs";
import type { SuiteResults } from "../core/suite.ts";
import type { ExtraColumn } from "../report/leaderboard.ts";
import { ConfigError } from "../errors/error-tree.ts";

type Options = Record<string, string | boolean | string[] | undefined>;

/** The policy's model-backed helpers: an embeddings endpoint (`semantic` rules) and a judge (`llm` rules), when flags give them. */
export async function policyModels(options: Options) {
  const models: import("../analysis/policy/engine.ts").PolicyModels = {};
  if (options.embedderModel) {
    const { createEmbeddingClient } = await import("../model/embedding-client.ts");
    const baseURL = options.embedderBaseUrl as string | undefined;
    const client = createEmbeddingClient({
      model: options.embedderModel as string,
      provider: (options.embedderProvider as string | undefined) ?? (baseURL ? "openai-compatible" : "openai"),
      ...(baseURL ? { baseURL } : {}),
      ...(options.embedderApiKeyEnv ? { apiKeyEnv: options.embedderApiKeyEnv as string } : {}),
      encodingFormat: "float",
    });
    models.embed = (texts) => client.embed(texts);
  }
  if (options.judgeModel) {
    const { createRunModels } = await import("../run/model-clients.ts");
    const baseUrl = options.judgeBaseUrl as string | undefined;
    const run = createRunModels({
      judgeModel: options.judgeModel as string,
      judgeProvider: (options.judgeProvider as string | undefined) ?? (baseUrl ? "openai-compatible" : "openai"),
      judgeBaseUrl: baseUrl,
      judgeApiKeyEnv: options.judgeApiKeyEnv as string | undefined,
      modelTimeoutMs: 120_000,
      modelMaxAttempts: 6,
      priceFile: options.priceFile as string | undefined,
      cacheDir: options.cacheDir as string | undefined,
      maxConcurrency: 4,
    });
    models.judge = (run.judge as () => import("../core/frameworks.ts").ChatModel)();
  }
  return models;
}

export interface ReportExtras {
  columns: ExtraColumn[];
  /** Lines printed after each file's details. */
  sections: string[][];
  /** Added to each file's JSON. */
  json: Array<Record<string, unknown>>;
  /** Lines printed once after everything (manifest differences). */
  footer: string[];
  /** `--min-pass` failures. */
  gateFailures: string[];
}

/**
 * Whether any extra was asked for, or the files carry what a report shows unasked (a policy check a
 * run stored; run manifests, in the JSON and, with several files, their differences): the report of
 * a file without either stays exactly as before otherwise.
 */
export function wantsExtras(options: Options, files: readonly SuiteResults[] = []): boolean {
  return Boolean(
    options.policy ||
      options.statistics ||
      options.overallScore ||
      options.breakdown ||
      options.junit ||
      (options.minPass as string[] | undefined)?.length ||
      files.some((file) => file.manifest || file.policy),
  );
}

/** Computes the extras of every file, in file order. */
export async function reportExtras(files: readonly SuiteResults[], labels: readonly string[], options: Options): Promise<ReportExtras> {
  const format = options.format === "markdown" ? "markdown" : "text";
  const extras: ReportExtras = { columns: [], sections: files.map(() => []), json: files.map(() => ({})), footer: [], gateFailures: [] };
  const convention = (options.passKConvention as "combinatorial" | "power" | undefined) ?? "combinatorial";
  const needsStatistics = options.statistics || options.overallScore || options.junit || (options.minPass as string[] | undefined)?.length;
  if (needsStatistics) {
    const [{ runStatistics, PASS_K_CONVENTIONS }, { outcomesOf }, junit, { formatNumber }] = await Promise.all([
      import("../analysis/statistics.ts"),
      import("../analysis/compare.ts"),
      import("../analysis/junit.ts"),
      import("../analysis/tables.ts"),
    ]);
    const thresholds = junit.parseMinPass(options.minPass as string[] | undefined);
    const seed = Number(options.seed ?? 0);
    if (!Number.isInteger(seed)) throw new ConfigError(`--seed ${options.seed}: expected an integer`);
    const statistics = files.map((file) => runStatistics(outcomesOf(file), { seed, resamples: Number(options.resamples ?? 2000), convention }));
    if (options.overallScore) extras.columns.push({ head: "Overall (mean pass^1-4)", cells: statistics.map((stats) => formatNumber(stats.overallScore.value)) });
    statistics.forEach((stats, index) => {
      if (options.statistics) {
        const interval = (estimate: { value: number | null; low: number | null; high: number | null }) =>
          estimate.value === null ? "n/a" : `${estimate.value.toFixed(3)} [${formatNumber(estimate.low)}, ${formatNumber(estimate.high)}]`;
        extras.sections[index].push(
          `Statistics (${Math.round(stats.confidence * 100)}% bootstrap over tasks and trials, ${stats.resamples} resamples, seed ${stats.seed}; pass^k: ${PASS_K_CONVENTIONS[convention]}):`,
          `  avg reward ${interval(stats.averageReward)}; ${Object.entries(stats.passK)
            .map(([k, estimate]) => `pass^${k} ${interval(estimate)}`)
            .join("; ")}`,
          `  flip rate ${formatNumber(stats.flipRate)} (tasks whose trials disagree)${stats.trialSpread ? `; per-trial pass rate ${formatNumber(stats.trialSpread.min)}–${formatNumber(stats.trialSpread.max)} (sd ${formatNumber(stats.trialSpread.standardDeviation)})` : ""}`,
        );
      }
      extras.json[index].statistics = stats;
      const passK = Object.fromEntries(Object.entries(stats.passK).map(([k, estimate]) => [k, estimate.value]));
      extras.gateFailures.push(...junit.minPassFailures(labels[index], passK, thresholds));
    });
    if (options.junit) writeFileSync(options.junit as string, junit.junitXml(statistics.map((stats, index) => junit.runJUnitSuite(labels[index], stats))));
  }
  if (options.policy) {
    const [{ loadPolicyFile }, { checkPolicy }, { policyText, policyJson }, { formatNumber }] = await Promise.all([
      import("../analysis/policy/rules.ts"),
      import("../analysis/policy/engine.ts"),
      import("../analysis/policy/render.ts"),
      import("../analysis/tables.ts"),
    ]);
    const policy = loadPolicyFile(options.policy as string);
    const strictness = (options.policyStrictness as "low" | "medium" | "high" | undefined) ?? "medium";
    const models = await policyModels(options);
    const reports = [];
    for (const file of files) reports.push(await checkPolicy(file.records(), policy, { strictness, models }));
    extras.columns.push({ head: "Policy", cells: reports.map((report) => formatNumber(report.adherence)) });
    reports.forEach((report, index) => {
      extras.sections[index].push(policyText(report, format, { details: options.perTask === true }));
      extras.json[index].policy = policyJson(report);
    });
  }
  // The check a `run --policy` stored in the files (no --policy given here): shown as the run reported it.
  if (!options.policy && files.some((file) => file.policy)) {
    const [{ policyText, policyJson, policyReportOfStored }, { formatNumber }] = await Promise.all([import("../analysis/policy/render.ts"), import("../analysis/tables.ts")]);
    const reports = files.map((file) => (file.policy ? policyReportOfStored(file.policy, file) : null));
    extras.columns.push({ head: "Policy", cells: reports.map((report) => (report ? formatNumber(report.adherence) : "-")) });
    reports.forEach((report, index) => {
      if (!report) return;
      extras.sections[index].push(`${policyText(report, format, { details: options.perTask === true })}\n(stored by the run; --policy <file> checks again)`);
      extras.json[index].policy = { ...policyJson(report), sha256: files[index].policy?.sha256 ?? null, stored: true };
    });
  }
  if (options.breakdown) {
    const { breakdownOf, breakdownText } = await import("../analysis/breakdown.ts");
    files.forEach((file, index) => {
      const breakdown = breakdownOf(file.records());
      extras.sections[index].push(breakdownText(breakdown, format));
      extras.json[index].breakdown = breakdown;
    });
  }
  files.forEach((file, index) => {
    if (file.manifest) extras.json[index].manifest = file.manifest;
  });
  if (files.length > 1 && files.every((file) => file.manifest)) {
    const { manifestDifferences, differencesText } = await import("../analysis/manifest-diff.ts");
    for (let index = 1; index < files.length; index++) {
      const differences = manifestDifferences(files[0].manifest as NonNullable<SuiteResults["manifest"]>, files[index].manifest as NonNullable<SuiteResults["manifest"]>);
      if (differences.length > 0) extras.footer.push(`⚠ ${labels[index]} differs from ${labels[0]} in more than the agent: ${differencesText(differences)}`);
    }
  }
  return extras;
}
