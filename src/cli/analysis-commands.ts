/**
 * `analyze` and `compare`: reading results beyond the leaderboard table, for files of either
 * suite, ours or the originals'. Both read the canonical episode records (`SuiteResults.records`)
 * and the analysis layer (`src/analysis`); the judge is the run layer's `judge` model role.
 */
import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import type { EpisodeRecord } from "../core/episode-record.ts";
import type { SuiteResults } from "../core/suite.ts";
import { ConfigError } from "../errors/error-tree.ts";
import type { LoadRegistries } from "./registry-needs.ts";
import { allSuites, checkOptionsFitSuite, suiteOfFile } from "./results-commands.ts";
import { EXIT_CODES } from "./exit-codes.ts";
import { collect, formatOption, printJson } from "./usage.ts";

type Options = Record<string, string | boolean | string[] | undefined>;

/** Reads results files of either suite (each by the suite that wrote it). */
export async function readResultsFiles(loadRegistries: LoadRegistries, paths: readonly string[], options: Options): Promise<SuiteResults[]> {
  const [{ isRunStatusPath }] = await Promise.all([import("../run/run-status.ts")]);
  const files = paths.filter((path) => !isRunStatusPath(path));
  if (files.length === 0) throw new ConfigError(`no results file among ${paths.join(", ")} (a .meta.json file is a run's status; pass its results .json)`);
  const registries = await allSuites(loadRegistries);
  const out: SuiteResults[] = [];
  for (const path of files) {
    const suite = suiteOfFile(registries, path);
    const env = options.env as string | undefined;
    const dataDir = options.dataDir as string | undefined;
    checkOptionsFitSuite(registries, suite, path, { env, dataDir });
    out.push(await suite.readResults({ path, registries, env, dataDir }));
  }
  return out;
}

/** The judge client: the run layer's `judge` role (cache, prices, per-endpoint queue, usage). */
async function judgeClient(options: Options) {
  const { createRunModels } = await import("../run/model-clients.ts");
  const { DEFAULT_MODEL_MAX_ATTEMPTS, DEFAULT_MODEL_TIMEOUT_SECONDS } = await import("../model/defaults.ts");
  const baseUrl = options.judgeBaseUrl as string | undefined;
  const models = createRunModels({
    judgeModel: options.judgeModel as string,
    judgeProvider: (options.judgeProvider as string | undefined) ?? (baseUrl ? "openai-compatible" : "openai"),
    judgeBaseUrl: baseUrl,
    judgeApiKeyEnv: options.judgeApiKeyEnv as string | undefined,
    modelTimeoutMs: DEFAULT_MODEL_TIMEOUT_SECONDS * 1000,
    modelMaxAttempts: DEFAULT_MODEL_MAX_ATTEMPTS,
    priceFile: options.priceFile as string | undefined,
    cacheDir: options.cacheDir as string | undefined,
    maxConcurrency: Number(options.maxConcurrency ?? 4),
  });
  return (models.judge as () => import("../core/frameworks.ts").ChatModel)();
}

async function analyzeAction(loadRegistries: LoadRegistries, paths: string[], options: Options): Promise<void> {
  const [{ analyzeRecords, analysisJson, analysisText }, { FailureJudge }] = await Promise.all([import("../analysis/analyze.ts"), import("../analysis/judge.ts")]);
  const files = await readResultsFiles(loadRegistries, paths, options);
  const records: EpisodeRecord[] = files.flatMap((file) => file.records());
  const maxFailed = options.maxFailed !== undefined ? Number(options.maxFailed) : undefined;
  if (maxFailed !== undefined && (!Number.isInteger(maxFailed) || maxFailed < 0)) throw new ConfigError(`--max-failed ${options.maxFailed}: expected a whole number ≥ 0`);
  if (options.review && !options.judgeModel) throw new ConfigError("--review needs a judge model (--judge-model)");
  const judge = options.judgeModel ? new FailureJudge(await judgeClient(options), { review: options.review === true }) : undefined;
  const analysis = await analyzeRecords(records, {
    judge,
    judgeModel: (options.judgeModel as string | undefined) ?? null,
    concurrency: Number(options.maxConcurrency ?? 4),
    maxFailed,
    onJudged: judge && process.stderr.isTTY ? (done, total) => process.stderr.write(`\rjudged ${done}/${total}`) : undefined,
  });
  if (judge && process.stderr.isTTY) process.stderr.write("\n");
  if (options.format === "json") printJson(analysisJson(analysis));
  else process.stdout.write(`${analysisText(analysis, options.format === "markdown" ? "markdown" : "text")}\n`);
}

async function compareAction(loadRegistries: LoadRegistries, paths: string[], options: Options): Promise<void> {
  if (paths.length < 2) throw new ConfigError("compare needs a baseline and at least one candidate results file");
  const [{ compareRuns, comparisonText, comparisonJson }, { junitXml, compareJUnitSuite, parseMinPass, minPassFailures }, { resultsLabels }] = await Promise.all([
    import("../analysis/compare.ts"),
    import("../analysis/junit.ts"),
    import("../report/labels.ts"),
  ]);
  const thresholds = parseMinPass(options.minPass as string[] | undefined);
  const files = await readResultsFiles(loadRegistries, paths, options);
  const labels = resultsLabels(paths).map((label, index) => (files[index].title !== files[index].path ? `${label} (${files[index].title})` : label));
  const comparisons = compareRuns(files, labels, {
    alpha: Number(options.alpha ?? 0.05),
    seed: Number(options.seed ?? 0),
    resamples: Number(options.resamples ?? 2000),
  });
  if (options.format === "json") printJson(comparisonJson(comparisons));
  else process.stdout.write(`${comparisonText(comparisons, options.format === "markdown" ? "markdown" : "text")}\n`);
  if (options.junit) writeFileSync(options.junit as string, junitXml(comparisons.candidates.map((candidate) => compareJUnitSuite(candidate.label, candidate.comparison))));
  const failures: string[] = [];
  if (options.failIfWorse)
    for (const candidate of comparisons.candidates) if (candidate.comparison.verdict === "worse") failures.push(`${candidate.label} is worse than ${comparisons.baseline.label} beyond the noise`);
  for (const run of [comparisons.baseline, ...comparisons.candidates]) failures.push(...minPassFailures(run.label, run.passK, thresholds));
  if (failures.length > 0) {
    for (const failure of failures) process.stderr.write(`taubridge: gate failed: ${failure}\n`);
    process.exitCode = EXIT_CODES.gate;
  }
}

/** Adds `analyze` and `compare`. */
export function registerAnalysisCommands(program: Command, loadRegistries: LoadRegistries): void {
  program
    .command("analyze")
    .description(
      "Failure analysis of results files (either suite, ours or the originals'): for each failed episode the ground-truth actions it missed, calls with other arguments, outputs not said, unmet assertions, the first divergence, tool errors; with --judge-model also who is at fault and the kind of fault",
    )
    .argument("<results...>", "results JSON files (a shell glob works)")
    .addOption(formatOption(["text", "json", "markdown"], "text"))
    .option("--judge-model <model>", "judge model for fault assignment and fault type (without it no model is called)")
    .option("--judge-base-url <url>", "the judge's OpenAI-compatible endpoint (no key needed for a local one)")
    .option("--judge-provider <name>", "the judge's provider (default: openai-compatible with --judge-base-url, else openai)")
    .option("--judge-api-key-env <var>", "environment variable holding the judge's API key")
    .option("--review", "with a judge: also review each failed conversation for agent and user errors (τ²'s review: source, severity, tags)", false)
    .option("--max-failed <n>", "analyse only the first n failed episodes")
    .option("--max-concurrency <n>", "judge calls in flight at once", "4")
    .option("--price-file <path>", "prices for the judge's model (JSON), when the catalogue has none")
    .option("--cache-dir <dir>", "cache the judge's answers here (a rerun replays them)")
    .option("--env <domain>", "check the files were recorded on this domain")
    .option("--data-dir <dir>", "data directory (with --env)")
    .action((paths: string[], options) => analyzeAction(loadRegistries, paths, options));

  program
    .command("compare")
    .description("Compare runs task by task: the first file is the baseline, each other file a candidate; a paired test says whether a difference exceeds the noise. A CI gate with --fail-if-worse")
    .argument("<results...>", "a baseline and one or more candidate results files (either suite)")
    .addOption(formatOption(["text", "json", "markdown"], "text"))
    .option("--fail-if-worse", `exit ${EXIT_CODES.gate} when a candidate is worse than the baseline beyond the noise (paired bootstrap interval below 0 and sign-flip p < --alpha)`, false)
    .option("--alpha <p>", "significance level of the paired test", "0.05")
    .option("--seed <n>", "seed of the bootstrap and of the sign-flip draws", "0")
    .option("--resamples <n>", "bootstrap resamples", "2000")
    .option("--min-pass <k=value...>", `exit ${EXIT_CODES.gate} when a run's pass^k is below value (e.g. --min-pass 1=0.8)`, collect)
    .option("--junit <file>", "write JUnit XML: one test case per task, failing where the candidate passes it less often")
    .option("--env <domain>", "check the files were recorded on this domain")
    .option("--data-dir <dir>", "data directory (with --env)")
    .action((paths: string[], options) => compareAction(loadRegistries, paths, options));
}
