/**
 * `report`, `rescore`, `replay` and `strategies`, the same for both suites: each results file is
 * read by the suite that wrote it (told apart by its shape), every command takes several files (a
 * shell glob), `--format text|markdown|json`, and tables carry no colour codes.
 */
import { type Command, Option } from "commander";
import { ConfigError, DataError } from "../errors/error-tree.ts";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { RescoreOutcome, Suite, SuiteResults } from "../core/suite.ts";
import type { Registries } from "../run/registries.ts";
import type { LoadRegistries } from "./registry-needs.ts";
import { collect, formatOption, printJson } from "./usage.ts";
import { readUtf8File } from "../data/data-files.ts";
import { datasetOfDirectory } from "../data/locations.ts";
import { pickEpisode, recordsIn } from "./replay-input.ts";

/** The suite whose results file `path` is; an unreadable file or one of no suite's shape is a one-line error. */
export function suiteOfFile(registries: Registries, path: string): Suite<Registries> {
  const head = readUtf8File(path).slice(0, 4096);
  for (const name of registries.suites.names()) {
    const suite = registries.suites.get(name);
    if (suite.recognizes(head)) return suite;
  }
  throw new DataError(`${path}: not a results file of any suite (${registries.suites.names().join(", ")})`);
}

/**
 * Refuses options of the other suite for a results file before its suite reads them: a τ² file
 * given τ-bench's data directory (or a τ-bench domain), and the reverse, would otherwise fail on a
 * data file the other layout does not have. The line names the file's suite.
 */
export function checkOptionsFitSuite(registries: Registries, suite: Suite<Registries>, path: string, options: { env?: string; dataDir?: string }): void {
  const others = registries.suites
    .names()
    .filter((name) => name !== suite.name)
    .map((name) => registries.suites.get(name));
  const hint = `(pass ${suite.title}'s --env and --data-dir)`;
  if (options.dataDir && suite.dataset) {
    const dataset = datasetOfDirectory(options.dataDir);
    const other = others.find((candidate) => candidate.dataset === dataset);
    if (other) throw new ConfigError(`${path} is a ${suite.title} results file, but --data-dir ${options.dataDir} holds ${other.title} data ${hint}`);
  }
  if (options.env && !suite.describe(registries).domains.some(([name]) => name === options.env)) {
    const other = others.find((candidate) => candidate.describe(registries).domains.some(([name]) => name === options.env));
    if (other) throw new ConfigError(`${path} is a ${suite.title} results file, but --env ${options.env} is a ${other.title} domain ${hint}`);
  }
}

/** Loads every registry (report and rescore may meet files of either suite). */
export const allSuites = (loadRegistries: LoadRegistries) => loadRegistries({ names: [], models: false, tau2: true });

async function reportAction(loadRegistries: LoadRegistries, givenPaths: string[], options: Record<string, string | boolean | string[] | undefined>): Promise<void> {
  const [{ buildReport, detailsText, leaderboardText, perTaskText, reportJson }, { isRunStatusPath }, { reportRowLabels }, { protocolSummary, protocolSummaryText }] = await Promise.all([
    import("../report/leaderboard.ts"),
    import("../run/run-status.ts"),
    import("../report/labels.ts"),
    import("../report/protocol-summary.ts"),
  ]);
  // `report results/*.json` also matches the runs' status sidecars: they annotate their results file's row.
  const paths = givenPaths.filter((path) => !isRunStatusPath(path));
  if (paths.length === 0) throw new ConfigError(`no results file among ${givenPaths.join(", ")} (a .meta.json file is a run's status; pass its results .json)`);
  const registries = await allSuites(loadRegistries);
  const files: SuiteResults[] = [];
  for (const path of paths) {
    const suite = suiteOfFile(registries, path);
    checkOptionsFitSuite(registries, suite, path, { env: options.env as string | undefined, dataDir: options.dataDir as string | undefined });
    files.push(
      await suite.readResults({
        path,
        registries,
        env: options.env as string | undefined,
        dataDir: options.dataDir as string | undefined,
        taskSplit: options.taskSplit as string | undefined,
        taskFile: options.taskFile as string | undefined,
      }),
    );
  }
  if (new Set(files.map((file) => file.suite)).size > 1) throw new ConfigError("report takes τ-bench or τ²-bench results files, not both at once (their metrics are defined differently)");
  // Rows are named by what differs between the files; what they share is said once, above the table.
  const { labels, shared } = reportRowLabels(files);
  const reports = files.map((file, index) => buildReport(labels[index], file.summaries, file.completeness ?? undefined, { metrics: file.metrics, notes: file.notes }));
  // A remote agent's exchanges (A2A), when the episodes kept them: latency percentiles and errors by code.
  const protocols = files.map((file) => protocolSummary(file.records()));
  // Policy adherence, intervals, breakdowns, JUnit, --min-pass (src/analysis): only when asked for.
  const { reportExtras, wantsExtras } = await import("./report-extras.ts");
  const extras = wantsExtras(options, files) ? await reportExtras(files, labels, options) : null;
  if (options.format === "json") {
    const json = reports.map((report, index) => ({ ...reportJson(report), ...(protocols[index] ? { protocol: protocols[index] } : {}), ...(extras?.json[index] ?? {}) }));
    printJson(json.length === 1 ? json[0] : json);
  } else {
    const format = options.format === "markdown" ? "markdown" : "text";
    if (shared) process.stdout.write(`Every row: ${shared}\n${format === "markdown" ? "\n" : ""}`);
    process.stdout.write(`${leaderboardText(reports, format, { columns: extras?.columns })}\n`);
    for (const [index, report] of reports.entries()) {
      // With several files, each footer names the row and the file it belongs to.
      if (reports.length > 1) process.stdout.write(`${labels[index]} — ${paths[index]}\n`);
      process.stdout.write(`${detailsText(report)}\n`);
      const protocol = protocols[index];
      if (protocol) process.stdout.write(`${protocolSummaryText(protocol)}\n`);
      if (options.perTask) process.stdout.write(`${perTaskText(report, format)}\n`);
      for (const section of extras?.sections[index] ?? []) process.stdout.write(`${section}\n`);
    }
    for (const line of extras?.footer ?? []) process.stdout.write(`${line}\n`);
  }
  if (extras && extras.gateFailures.length > 0) {
    const { EXIT_CODES } = await import("./exit-codes.ts");
    for (const failure of extras.gateFailures) process.stderr.write(`taubridge: gate failed: ${failure}\n`);
    process.exitCode = EXIT_CODES.gate;
  }
}

async function rescoreAction(loadRegistries: LoadRegistries, givenPaths: string[], options: Record<string, string | boolean | undefined>): Promise<void> {
  // A directory stands for the results files under it (as `tau2 submit prepare` reads them); any other path goes to its suite as given (a missing file is refused there).
  const { expandResultsPaths } = await import("../submit/submit.ts");
  const paths = givenPaths.flatMap((path) => (existsSync(path) && statSync(path).isDirectory() ? expandResultsPaths([path]) : [path]));
  if (paths.length === 0) throw new ConfigError(`no results file under ${givenPaths.join(", ")}`);
  const output = options.output as string | undefined;
  if (output !== undefined) checkRescoreOutput(paths, output);
  const registries = await allSuites(loadRegistries);
  const outcomes = [];
  for (const path of paths) {
    const suite = suiteOfFile(registries, path);
    checkOptionsFitSuite(registries, suite, path, { env: options.env as string | undefined, dataDir: options.dataDir as string | undefined });
    const judge = options.judgeModel ? { model: options.judgeModel as string, baseUrl: options.judgeBaseUrl as string | undefined, provider: options.judgeProvider as string | undefined } : undefined;
    outcomes.push(
      await suite.rescore({
        path,
        registries,
        env: options.env as string | undefined,
        dataDir: options.dataDir as string | undefined,
        taskSplit: options.taskSplit as string | undefined,
        taskFile: options.taskFile as string | undefined,
        judge,
        freshTasks: options.freshTasks === true,
      }),
    );
  }
  const written = output !== undefined ? await writeRescored(outcomes, output) : [];
  if (options.format === "json") {
    const withOutput = (outcome: RescoreOutcome, index: number) => (output !== undefined ? { ...outcome.json, output: written[index] } : outcome.json);
    printJson(outcomes.length === 1 ? withOutput(outcomes[0], 0) : outcomes.map((outcome, index) => ({ path: outcome.path, ...withOutput(outcome, index) })));
    return;
  }
  for (const outcome of outcomes) {
    if (outcomes.length > 1) process.stdout.write(`${outcome.path}\n`);
    process.stdout.write(`Rewards: ${outcome.agree}/${outcome.total} agree with the recorded rewards${outcome.qualifier ? ` (${outcome.qualifier})` : ""}\n`);
    for (const line of outcome.lines) process.stdout.write(`${line}\n`);
    const disagreements = outcome.disagreements;
    if (disagreements.length > 0) {
      process.stdout.write(`Disagreements (${disagreements.length}):\n`);
      for (const item of options.details ? disagreements : disagreements.slice(0, 20)) {
        process.stdout.write(`  task ${item.taskId} trial ${item.trial}: recorded ${item.recordedReward}, ours ${item.reward ?? "-"}${item.note ? ` (${item.note})` : ""}\n`);
      }
    }
  }
}

/**
 * `rescore -o <dir>`: each re-scored file goes to `<dir>/<its name>` (two inputs of one name would
 * overwrite each other, and an input must not be overwritten: both refused before anything runs).
 */
function checkRescoreOutput(paths: readonly string[], output: string): void {
  const names = new Map<string, string>();
  for (const path of paths) {
    const name = basename(path);
    const earlier = names.get(name);
    if (earlier !== undefined) throw new ConfigError(`rescore -o: ${earlier} and ${path} would both be written to ${join(output, name)}; re-score them with separate -o directories`);
    if (resolve(output, name) === resolve(path)) throw new ConfigError(`rescore -o: ${path} would be overwritten; choose another output directory`);
    names.set(name, path);
  }
}

/** Writes each outcome's re-scored file atomically into `output` (created); returns the paths written. */
async function writeRescored(outcomes: readonly RescoreOutcome[], output: string): Promise<string[]> {
  const { writeFileAtomic } = await import("../run/atomic-file.ts");
  mkdirSync(output, { recursive: true });
  return outcomes.map((outcome) => {
    if (!outcome.rescoredText) throw new ConfigError(`rescore -o: the suite of ${outcome.path} cannot write re-scored files`);
    const target = join(output, basename(outcome.path));
    writeFileAtomic(target, outcome.rescoredText());
    process.stderr.write(`taubridge: wrote ${target}\n`);
    return target;
  });
}

/** An action file of the other suite's shape gets a hint instead of a field error. */
function checkActionShape(registries: Registries, suite: Suite<Registries>, text: string, file: string): void {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return; // the suite's parser names the syntax error
  }
  if (suite.recognizesActions(document)) return;
  for (const name of registries.suites.names()) {
    const other = registries.suites.get(name);
    if (other !== suite && other.recognizesActions(document)) {
      throw new ConfigError(`${file} is ${other.actionFileShape}, but --suite ${suite.name} replays ${suite.actionFileShape}; pass --suite ${other.name === "tau2" ? "tau2" : "tau"}`);
    }
  }
}

/** The suite `--suite` names (tau, tau2, or their long names), or undefined when it was not given. */
function suiteFlag(registries: Registries, value: string | undefined): Suite<Registries> | undefined {
  if (value === undefined) return undefined;
  return registries.suites.get(value === "tau2" || value === "tau2-bench" ? "tau2" : "tau-bench");
}

/** A `--suite` that contradicts what the file says it is: one line. */
function checkSuiteFlag(named: Suite<Registries> | undefined, suite: Suite<Registries>, source: string): void {
  if (named && named !== suite) throw new ConfigError(`${source} holds ${suite.title} episodes, but --suite says ${named.title}; leave --suite out`);
}

function trialOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new ConfigError(`--trial: a trial number (an integer ≥ 0), got ${JSON.stringify(value)}`);
  return Number(value);
}

/** What a replay runs: the suite, the domain, the action file's text, and the task whose initial state comes first (τ²). */
interface ReplayInput {
  suite: Suite<Registries>;
  env: string | undefined;
  text: string;
  file: string;
  taskId: string | undefined;
  /** Replay options the results file recorded (τ³'s retrieval variant), used when no such flag is given. */
  recorded?: Record<string, string>;
}

/** One episode of a results file (`--from`), as its suite's action file. */
async function replayFromResults(registries: Registries, options: Record<string, string | undefined>, named: Suite<Registries> | undefined): Promise<ReplayInput> {
  const path = options.from as string;
  const suite = suiteOfFile(registries, path);
  checkSuiteFlag(named, suite, path);
  checkOptionsFitSuite(registries, suite, path, options);
  const { domain, episodes, options: recorded } = await suite.episodeActions({ path, registries, env: options.env, dataDir: options.dataDir });
  const episode = pickEpisode(episodes, path, options.taskId, trialOption(options.trial));
  const file = `${path} (task ${episode.taskId}, trial ${episode.trial})`;
  return { suite, env: options.env ?? domain ?? undefined, text: episode.text, file, taskId: suite.replayStartsFromTask ? episode.taskId : undefined, recorded };
}

/** An action file: `taubridge records` output (an episode of it), or a suite's own action list. */
function replayFromActions(registries: Registries, options: Record<string, string | undefined>, named: Suite<Registries> | undefined): ReplayInput {
  const path = options.actions as string;
  const text = readUtf8File(path, "actions file");
  const records = recordsIn(text);
  if (records) {
    const record = pickEpisode(records, path, options.taskId, trialOption(options.trial));
    const suite = registries.suites.get(record.suite);
    checkSuiteFlag(named, suite, path);
    const file = `${path} (task ${record.taskId}, trial ${record.trial})`;
    return { suite, env: options.env ?? record.domain ?? undefined, text: JSON.stringify(record.steps), file, taskId: suite.replayStartsFromTask ? record.taskId : undefined };
  }
  if (options.trial !== undefined) throw new ConfigError("--trial picks an episode of `taubridge records` output or of --from <results>; an action list is one episode");
  const suite = named ?? registries.suites.get("tau-bench");
  checkActionShape(registries, suite, text, path);
  return { suite, env: options.env, text, file: path, taskId: options.taskId };
}

async function replayAction(loadRegistries: LoadRegistries, options: Record<string, string | undefined>): Promise<void> {
  if (Boolean(options.actions) === Boolean(options.from)) throw new ConfigError("replay needs one of --actions <file> (an action list, or `taubridge records` output) and --from <results>");
  const registries = await loadRegistries({ names: [], models: false, tau2: true });
  const named = suiteFlag(registries, options.suite);
  const input = options.from ? await replayFromResults(registries, options, named) : replayFromActions(registries, options, named);
  if (!input.env) throw new ConfigError(`replay needs --env <domain>: ${input.file} does not say which domain it was recorded on`);
  const flags = {
    ...(options.retrievalConfig ? { retrievalConfig: options.retrievalConfig } : {}),
    ...(options.retrievalConfigKwargs ? { retrievalConfigKwargs: options.retrievalConfigKwargs } : {}),
  };
  // The variant a results file recorded, unless the flags name one.
  const retrieval = Object.keys(flags).length > 0 ? flags : { ...input.recorded };
  const outcome = await input.suite.replay({ registries, env: input.env, text: input.text, file: input.file, dataDir: options.dataDir, taskId: input.taskId, options: retrieval });
  process.stdout.write(options.format === "json" ? `${JSON.stringify(outcome.json)}\n` : outcome.text);
}

/**
 * The canonical episode records of results files (ours or the originals', either suite), one JSON
 * object per line: what failure analysis, a viewer or another tool reads without knowing the suite.
 */
async function recordsAction(loadRegistries: LoadRegistries, paths: string[], options: Record<string, string | undefined>): Promise<void> {
  const registries = await allSuites(loadRegistries);
  const records = [];
  for (const path of paths) {
    const suite = suiteOfFile(registries, path);
    checkOptionsFitSuite(registries, suite, path, options);
    const results = await suite.readResults({ path, registries, env: options.env, dataDir: options.dataDir });
    records.push(...results.records().map((record) => (options.native ? record : { ...record, native: undefined })));
  }
  if (options.format === "json") printJson(records);
  else for (const record of records) process.stdout.write(`${JSON.stringify(record)}\n`);
}

async function strategiesAction(loadRegistries: LoadRegistries): Promise<void> {
  const registries = await loadRegistries();
  for (const name of registries.suites.names()) {
    const suite = registries.suites.get(name);
    const { domains, agents, users } = suite.describe(registries);
    process.stdout.write(`${suite.title} (--suite ${name === "tau2" ? "tau2" : "tau"}):\n  Domains:\n`);
    for (const [entry, description] of domains) process.stdout.write(`    ${entry.padEnd(16)} ${description}\n`);
    process.stdout.write("  Agent strategies:\n");
    for (const [entry, description] of agents) process.stdout.write(`    ${entry.padEnd(16)} ${description}\n`);
    process.stdout.write("  User strategies:\n");
    for (const [entry, description] of users) process.stdout.write(`    ${entry.padEnd(16)} ${description}\n`);
  }
}

/** Adds `replay`, `rescore`, `report` and `strategies`. */
export function registerResultsCommands(program: Command, loadRegistries: LoadRegistries): void {
  program
    .command("replay")
    .description("Replay a recorded action sequence on fresh data; print every observation and the hash(es) of the end state")
    .option("--env <domain>", "domain (`taubridge strategies` lists them; with --suite tau2 a τ² domain) (default: the one a record or τ² results file names)")
    .option(
      "--actions <file>",
      "JSON array of {name, kwargs} (τ-bench) or {requestor, name, arguments} (--suite tau2), or `taubridge records` output (a record's steps, a record, or the records file: its suite, domain and task come with it)",
    )
    .option("--from <results>", "replay an episode of this results file (either suite, ours or the original's); pick it with --task-id and --trial")
    .option("--data-dir <dir>", "data directory (for --suite tau2 the τ² data root, e.g. ../shared/tau2-bench)")
    .addOption(new Option("--suite <suite>", "benchmark suite of an action list (default: tau; a record or results file says its own)").choices(["tau", "tau2", "tau-bench", "tau2-bench"]))
    .option("--task-id <id>", "the episode's task, with --from or records output; --suite tau2 also applies its initial state first")
    .option("--trial <n>", "with --from or records output: the episode's trial (default: the task's first)")
    .option(
      "--retrieval-config <variant>",
      "--suite tau2, τ³ banking_knowledge: the retrieval variant (offline: bm25_grep, bm25, grep_only, no_knowledge, full_kb, golden_retrieval; shell: terminal_use, terminal_use_write, with τ²'s srt sandbox)",
    )
    .option("--retrieval-config-kwargs <json>", "--suite tau2, τ³ banking_knowledge: the variant's overrides (top_k, grep_top_k, case_sensitive, reranker_min_score)")
    .addOption(formatOption(["json", "text"], "json"))
    .action((options) => replayAction(loadRegistries, options));

  program
    .command("rescore")
    .description("Re-score each trajectory of one or more results files (ours, τ-bench's or τ²-bench's) with our environment and evaluator, and compare with the recorded rewards")
    .argument("<results...>", "results JSON files or directories of them (a shell glob works)")
    .option("-o, --output <dir>", "write each re-scored results file (rewards and reward info replaced, the rest as recorded) to <dir>/<its name>, as τ²'s evaluate-trajs -o")
    .option("--env <domain>", "check the files were recorded on this domain (τ-bench files: required); τ² files: default, the file's domain")
    .option("--judge-model <model>", "τ² files: judge NL assertions again with this model (default: reuse the recorded verdicts)")
    .option("--judge-base-url <url>", "τ² files: the judge's OpenAI-compatible endpoint (no key needed for a local one)")
    .option("--judge-provider <name>", "τ² files: the judge's provider (default: openai-compatible with --judge-base-url, else openai)")
    .option("--data-dir <dir>", "data directory")
    .option("--task-split <split>", "split the task ids refer to (default: the domain's default split)")
    .option("--task-file <path>", "the task file the run used instead of a split (runs with --task-file)")
    .option(
      "--fresh-tasks",
      "τ² files: score against the domain's current task files instead of the tasks recorded in the file (τ²'s evaluate-trajs --fresh-tasks, e.g. after τ³'s 1.0.1 task fixes)",
      false,
    )
    .addOption(formatOption(["text", "json"], "text"))
    .option("--details", "list every disagreement", false)
    .action((paths: string[], options) => rescoreAction(loadRegistries, paths, options));

  program
    .command("report")
    .description("Print the leaderboard table for one or more results files (ours, τ-bench's or τ²-bench's)")
    .argument("<results...>", "results JSON files (a run's <stem>.meta.json beside them is read, not listed)")
    .addOption(formatOption(["text", "json", "markdown"], "text"))
    .option("--per-task", "also print the per-task table and each episode that did not stop normally, with its error", false)
    .option("--env <domain>", "check the files were recorded on this domain: tool names, task ids (default: check each file on its own)")
    .option("--data-dir <dir>", "data directory (with --env)")
    .option("--task-split <split>", "split the task ids refer to, with --env (default: the domain's default split)")
    .option("--task-file <path>", "the task file the runs used instead of a split, with --env")
    .option("--breakdown", "also print τ²'s breakdowns: reward by component, ground-truth actions by tool, read/write action correctness, DB matches, terminations", false)
    .option("--statistics", "also print bootstrap confidence intervals of the average reward and pass^k (over tasks and trials), the flip rate and the per-trial spread", false)
    .option("--overall-score", "add the overall score column (mean of pass^1…pass^4)", false)
    .addOption(
      new Option("--pass-k-convention <name>", "pass^k estimator of --statistics and --overall-score: per task C(c,k)/C(n,k) averaged (combinatorial), or (c/n)^k (power)")
        .choices(["combinatorial", "power"])
        .default("combinatorial"),
    )
    .option("--seed <n>", "seed of the bootstrap", "0")
    .option("--resamples <n>", "bootstrap resamples", "2000")
    .option("--policy <file>", "check every trajectory against a policy rule file (YAML or JSON) and add a Policy (adherence) column; --per-task lists each hit")
    .addOption(
      new Option("--policy-strictness <level>", "which severities the adherence score counts: low (critical only), medium (high and critical), high (all)")
        .choices(["low", "medium", "high"])
        .default("medium"),
    )
    .option("--embedder-model <model>", "--policy: embeddings model for semantic rules")
    .option("--embedder-base-url <url>", "--policy: the embeddings endpoint (OpenAI-compatible)")
    .option("--embedder-provider <name>", "--policy: the embedder's provider (default: openai-compatible with --embedder-base-url, else openai)")
    .option("--embedder-api-key-env <var>", "--policy: environment variable holding the embedder's API key")
    .option("--judge-model <model>", "--policy: judge model for llm rules")
    .option("--judge-base-url <url>", "--policy: the judge's OpenAI-compatible endpoint")
    .option("--judge-provider <name>", "--policy: the judge's provider (default: openai-compatible with --judge-base-url, else openai)")
    .option("--judge-api-key-env <var>", "--policy: environment variable holding the judge's API key")
    .option("--junit <file>", "write JUnit XML: one test case per task (failing when a trial failed)")
    .option("--min-pass <k=value...>", "exit 4 when a run's pass^k is below value (e.g. --min-pass 1=0.8)", collect)
    .action((paths: string[], options) => reportAction(loadRegistries, paths, options));

  program
    .command("records")
    .description(
      "Print the canonical episode records of one or more results files (either suite, ours or the originals'): messages, tool calls with their requestor and result, plans, termination, reward breakdown, usage",
    )
    .argument("<results...>", "results JSON files (a shell glob works)")
    .option("--env <domain>", "check the files were recorded on this domain (and name it in each record)")
    .option("--data-dir <dir>", "data directory (with --env)")
    .option("--native", "include each episode's entry as its file holds it", false)
    .addOption(formatOption(["jsonl", "json"], "jsonl"))
    .action((paths: string[], options) => recordsAction(loadRegistries, paths, options));

  program
    .command("strategies")
    .description("List each suite's domains, agent strategies and user strategies this installation knows")
    .action(() => strategiesAction(loadRegistries));
}
