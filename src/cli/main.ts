import { readFileSync } from "node:fs";
import { Command, Option } from "commander";
import { ConfigError, DataError } from "../core/errors.ts";
import { taubridgeVersion } from "../run/run-identity.ts";
import { EXIT_CODES, exitCodeForCommander, exitCodeForError, exitCodesHelp } from "./exit-codes.ts";
import type { Registries } from "../run/registries.ts";
import { optionName, parseRunFlags, RUN_FLAGS, runConfigFromFlags, type RunFlag } from "../run/run-flags.ts";
import { registerCliExtensions } from "./extensions.ts";
import { registerTau2Command } from "./tau2-command.ts";
import { withInterrupts } from "./interrupt.ts";

/*
 * Start-up: this module imports only commander, the flag table and the small command modules;
 * every action imports what it runs when it runs, and the registries (domains, strategies,
 * adapters) are loaded by the caller's `loadRegistries` only for the commands that resolve names.
 * `taubridge --version` therefore loads almost nothing.
 */

/**
 * The strategy names a command will resolve, so the caller may load only what they need
 * (undefined: everything, e.g. for `taubridge strategies`).
 */
export interface RegistryNeeds {
  agentStrategies: string[];
  userStrategies: string[];
  /** τ²'s domains and participants are needed too. */
  tau2?: boolean;
}

/** Supplies the registries a command resolves names in. */
export type LoadRegistries = (needs?: RegistryNeeds) => Promise<Registries>;

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

async function resolveDomain(registries: Registries, name: string, dataDir: string | undefined) {
  const [{ loadDomain }, { defaultDataRoot }] = await Promise.all([import("../suites/tau-bench/engine/domain.ts"), import("../run/data-root.ts")]);
  const definition = registries.domains.get(name);
  return loadDomain(definition, dataDir ?? defaultDataRoot(definition));
}

/** The tasks a results file's ids refer to: a task file, or a split (default: the domain's), and how to name them in errors. */
function taskSet(domain: Awaited<ReturnType<typeof resolveDomain>>, split: string | undefined, taskFile: string | undefined) {
  if (taskFile) return { tasks: domain.tasksFromFile(taskFile), taskSetName: taskFile };
  const name = split ?? domain.definition.defaultSplit;
  return { tasks: domain.tasks(name), taskSetName: `${domain.name}'s ${name} split` };
}

/** A τ² results file is one JSON object (`{"timestamp", "info", "tasks", "simulations", …}`); τ-bench's are lists. */
function isTau2ResultsFile(path: string): boolean {
  let head = "";
  try {
    head = readFileSync(path, "utf8").slice(0, 4096);
  } catch {
    return false;
  }
  return head.trimStart().startsWith("{");
}

/** `report` for τ² results files: τ²'s metrics per file and the flagged tasks. */
async function reportTau2Command(paths: string[], format: string): Promise<void> {
  const [{ readTau2Results, simulationMetrics }, { tau2ReportText }, { flagTau2Tasks }, { validateTau2Tasks }, { toJs }] = await Promise.all([
    import("../suites/tau2/codec.ts"),
    import("../suites/tau2/report.ts"),
    import("../suites/tau2/task-flags.ts"),
    import("../suites/tau2/tasks.ts"),
    import("../value/index.ts"),
  ]);
  const reports = paths.map((path) => {
    const results = readTau2Results(path);
    const metrics = simulationMetrics(results.simulations);
    const flags = flagTau2Tasks(validateTau2Tasks(results.tasks, path));
    const info = results.info;
    const agent = info.get("agent_info") instanceof Map ? (info.get("agent_info") as Map<string, unknown>).get("implementation") : "agent";
    const domain = info.get("environment_info") instanceof Map ? (info.get("environment_info") as Map<string, unknown>).get("domain_name") : "?";
    const judge = results.taubridge?.get("judgeUsage");
    const judgeUsage = judge instanceof Map ? (toJs(judge) as { calls: number; promptTokens: number; completionTokens: number; cost: number | null }) : null;
    return { path, label: `${String(agent)} on ${String(domain)}`, metrics, flags, judgeUsage };
  });
  if (format === "json") {
    printJson(reports.map(({ path, metrics, flags, judgeUsage }) => ({ path, metrics, judgeUsage, flaggedTasks: flags })));
    return;
  }
  for (const report of reports) process.stdout.write(`${report.path}\n${tau2ReportText(report.label, report.metrics, report.flags, report.judgeUsage)}\n\n`);
}

/** `rescore` for a τ² results file. */
async function rescoreTau2Command(
  registries: Registries,
  path: string,
  options: { env?: string; dataDir?: string; format: string; details?: boolean; judgeModel?: string; judgeBaseUrl?: string; judgeProvider: string },
): Promise<void> {
  if (!registries.tau2) throw new ConfigError("this installation has no τ²-bench domains registered");
  const [{ readTau2Results }, { rescoreTau2Results }, { loadTau2Domain }, { tau2DataRoot }, { validateTau2Tasks }] = await Promise.all([
    import("../suites/tau2/codec.ts"),
    import("../suites/tau2/rescore.ts"),
    import("../suites/tau2/engine/domain.ts"),
    import("../suites/tau2/data-root.ts"),
    import("../suites/tau2/tasks.ts"),
  ]);
  const results = readTau2Results(path);
  const environmentInfo = results.info.get("environment_info");
  const domainName = options.env ?? (environmentInfo instanceof Map ? String(environmentInfo.get("domain_name")) : undefined);
  if (!domainName) throw new ConfigError(`${path}: no info.environment_info.domain_name; pass --env`);
  const dataRoot = tau2DataRoot(options.dataDir);
  const domain = loadTau2Domain(registries.tau2.domains.get(domainName), dataRoot);
  const tasks = new Map(validateTau2Tasks(results.tasks, path).map((task) => [task.id, task]));
  let judge;
  if (options.judgeModel) {
    const [{ createModelClient }, { createTau2NlJudge, readTau2JudgeTemplates }] = await Promise.all([import("../model/model-client.ts"), import("../suites/tau2/judge.ts")]);
    judge = createTau2NlJudge(createModelClient({ role: "judge", model: options.judgeModel, provider: options.judgeProvider, baseURL: options.judgeBaseUrl }), readTau2JudgeTemplates(dataRoot));
  }
  const report = await rescoreTau2Results(domain, results, tasks, judge);
  const disagreements = report.items.filter((item) => !item.agree);
  if (options.format === "json") {
    printJson({ total: report.total, agree: report.agree, judge: report.judge, metrics: report.metrics, disagreements });
    return;
  }
  process.stdout.write(`Rewards: ${report.agree}/${report.total} agree with the recorded rewards (NL verdicts: ${report.judge === "model" ? "judged again" : "recorded ones reused"})\n`);
  const passK = Object.entries(report.metrics.passK)
    .map(([k, value]) => `pass^${k}=${value.toFixed(3)}`)
    .join("  ");
  process.stdout.write(`Recomputed: average reward ${report.metrics.averageReward === null ? "n/a" : report.metrics.averageReward.toFixed(3)}  ${passK}\n`);
  if (report.metrics.infraErrors > 0) process.stdout.write(`Infra errors: ${report.metrics.infraErrors} recorded simulation(s), left out of the metrics\n`);
  if (disagreements.length > 0) {
    process.stdout.write(`Disagreements (${disagreements.length}):\n`);
    for (const item of options.details ? disagreements : disagreements.slice(0, 20))
      process.stdout.write(`  task ${item.taskId} trial ${item.trial}: recorded ${item.recordedReward}, ours ${item.reward ?? "-"}${item.note ? ` (${item.note})` : ""}\n`);
  }
}

/** `replay --suite tau2`: the τ² environment, the `{steps, dbHash}` JSON users compare with the reference. */
async function replayTau2Command(registries: Registries, options: { env: string; actions: string; dataDir?: string; taskId?: string; format: string }, text: string): Promise<void> {
  if (!registries.tau2) throw new ConfigError("this installation has no τ²-bench domains registered");
  const [{ loadTau2Domain }, { tau2DataRoot }, { parseTau2ActionsFile, replayTau2 }, { readTau2Tasks }, { join }] = await Promise.all([
    import("../suites/tau2/engine/domain.ts"),
    import("../suites/tau2/data-root.ts"),
    import("../suites/tau2/replay.ts"),
    import("../suites/tau2/tasks.ts"),
    import("node:path"),
  ]);
  const definition = registries.tau2.domains.get(options.env);
  const dataRoot = tau2DataRoot(options.dataDir);
  const domain = loadTau2Domain(definition, dataRoot);
  const calls = parseTau2ActionsFile(text, options.actions);
  let task;
  if (options.taskId !== undefined) {
    const tasks = readTau2Tasks(join(dataRoot, definition.folder, "tasks.json"));
    task = tasks.find((candidate) => candidate.id === options.taskId);
    if (!task) throw new ConfigError(`task "${options.taskId}" is not in ${join(dataRoot, definition.folder, "tasks.json")}`);
  }
  const result = replayTau2(domain, calls, task);
  if (options.format === "json") {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  result.steps.forEach((step, index) => process.stdout.write(`#${index} ${step.requestor} ${step.name}${step.error ? " (error)" : ""}\n${step.content}\n\n`));
  process.stdout.write(`db hash: agent ${result.dbHash.agent}, user ${result.dbHash.user ?? "none"}\n`);
}

/** `--format` with its allowed values: commander refuses anything else (exit 2) instead of falling back silently. */
function formatOption(choices: string[], fallback: string): Option {
  return new Option("--format <format>", `output: ${choices.join(", ")}`).choices(choices).default(fallback);
}

/**
 * Makes commander's usage errors (unknown option, missing argument, invalid choice, unknown
 * command) one line like every other configuration error: `taubridge: unknown option '--nope'
 * (did you mean --num-trials?); see taubridge run --help`. Exit code 2 comes from `main`.
 */
function oneLineUsageErrors(command: Command): void {
  const names: string[] = [];
  for (let current: Command | null = command; current; current = current.parent) names.unshift(current.name());
  command.showHelpAfterError(false);
  command.configureOutput({
    outputError: (text, write) => {
      const line = text
        .replace(/^error: /, "")
        .replace(/\n\(Did you mean (.+)\?\)/, " (did you mean $1?)")
        .replace(/\s*\n\s*/g, " ")
        .trim()
        .replace(/\.$/, "");
      write(`taubridge: ${line}; see ${names.join(" ")} --help\n`);
    },
  });
  for (const subcommand of command.commands) oneLineUsageErrors(subcommand);
}

/** Collects repeated and variadic values as the raw strings; the flag table parses them. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * Adds every `run` flag of the table to `command`, each with its default in the help (the table's
 * value, or its `defaultHelp` where the default depends on the domain or provider). No commander
 * defaults: the table applies them after parsing.
 */
function addRunFlags(command: Command): void {
  for (const flag of RUN_FLAGS as readonly RunFlag[]) {
    const shown = flag.defaultHelp
      ? ` (default: ${flag.defaultHelp})`
      : flag.default === undefined
        ? ""
        : flag.type === "boolean"
          ? ` (default: ${flag.default ? "on" : "off"})`
          : ` (default: ${JSON.stringify(flag.default)})`;
    const option = new Option(flag.placeholder ? `${flag.flag} ${flag.placeholder}` : flag.flag, `${flag.help}${shown}`);
    if (flag.type === "integer-list" || flag.type === "key-value") option.argParser(collect);
    command.addOption(option);
    if (flag.negatedHelp) command.addOption(new Option(flag.flag.replace(/^--/, "--no-"), flag.negatedHelp));
  }
}

/**
 * Builds the command tree. `loadRegistries` supplies the domains and strategies (the app's bundled
 * set); it is called only by commands that resolve names. Exported for tests, which run commands
 * in-process.
 */
export function createProgram(loadRegistries: LoadRegistries): Command {
  const program = new Command("taubridge")
    .description("Evaluate conversational tool-using agents the τ-bench way: a simulated user, domain tools over an in-memory database, a scored end state.")
    .version(taubridgeVersion())
    .addHelpText("after", exitCodesHelp())
    // Usage errors reach `main` (subcommands inherit this), which exits 2 for them like other config errors.
    .exitOverride();

  const run = program.command("run").description("Run episodes and print the leaderboard table. With no options it runs our bundled library domain offline (oracle agent, scripted user).");
  addRunFlags(run);
  run.action(async (options: Record<string, unknown>) => {
    const raw: Record<string, unknown> = {};
    for (const flag of RUN_FLAGS) {
      const name = optionName(flag.flag);
      if (options[name] !== undefined) raw[name] = options[name];
    }
    const values = parseRunFlags(raw, "cli");
    const strategies = runConfigFromFlags(values, "");
    const registries = await loadRegistries({ agentStrategies: [strategies.agentStrategy], userStrategies: [strategies.userStrategy] });
    const input = runConfigFromFlags(values, registries.defaultDomain);
    const [{ buildRun }, { runBatch }, { buildReport, detailsText, leaderboardText, reportJson }, { createProgressObserver }, { ensureTypeScriptModules }, { runStatusPath }] = await Promise.all([
      import("../suites/tau-bench/build.ts"),
      import("../suites/tau-bench/batch.ts"),
      import("../report/leaderboard.ts"),
      import("./progress.ts"),
      import("../participants/typescript-modules.ts"),
      import("../run/run-status.ts"),
    ]);
    await ensureTypeScriptModules(input.agentOptions);
    const built = buildRun(input, { registries });
    const progress = createProgressObserver({ quiet: values.quiet as boolean });
    const { value: outcome, interrupted } = await withInterrupts((signal) => runBatch(built, progress, signal)).finally(() => progress.stop());
    const report = buildReport(`${built.config.agentStrategy} (${built.config.model ?? "no model"}) on ${built.config.env}/${built.split}`, outcome.summaries, {
      expectedEpisodes: outcome.expectedEpisodes,
      interrupted: outcome.interrupted,
    });
    if (values.format === "json") {
      printJson({ ...reportJson(report), resultsPath: outcome.resultsPath, checkpointPath: outcome.checkpointPath, runStatusPath: runStatusPath(outcome.resultsPath) });
    } else {
      const format = values.format === "markdown" ? "markdown" : "text";
      process.stdout.write(`${leaderboardText([report], format)}\n${detailsText(report)}\n\n📄 Results saved to ${outcome.resultsPath}\n`);
    }
    if (interrupted) process.exitCode = EXIT_CODES.interrupted;
    else if (report.infraErrors > 0) {
      process.stderr.write(`taubridge: ${report.infraErrors} episode(s) ended in infrastructure errors (not scored); run the same command again to retry them (exit code ${EXIT_CODES.infraErrors})\n`);
      process.exitCode = EXIT_CODES.infraErrors;
    }
  });

  program
    .command("replay")
    .description("Replay a recorded action sequence on fresh data; print every observation and the hash(es) of the end state")
    .requiredOption("--env <domain>", "domain (`taubridge strategies` lists them; with --suite tau2 a τ² domain: mock, airline, retail, telecom)")
    .requiredOption("--actions <file>", "JSON array of {name, kwargs} (τ-bench) or {requestor, name, arguments} (--suite tau2)")
    .option("--data-dir <dir>", "data directory (for --suite tau2 the τ² data root, e.g. ../shared/tau2-bench)")
    .addOption(new Option("--suite <suite>", "benchmark suite").choices(["tau", "tau2"]).default("tau"))
    .option("--task-id <id>", "--suite tau2: apply this task's initial state first")
    .addOption(formatOption(["json", "text"], "json"))
    .action(async (options) => {
      let text: string;
      try {
        text = readFileSync(options.actions, "utf8");
      } catch (error) {
        throw new DataError(`cannot read actions file ${options.actions}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      }
      if (options.suite === "tau2") {
        await replayTau2Command(await loadRegistries({ agentStrategies: [], userStrategies: [], tau2: true }), options, text);
        return;
      }
      if (options.taskId !== undefined) throw new ConfigError("--task-id applies to --suite tau2 only");
      const domain = await resolveDomain(await loadRegistries({ agentStrategies: [], userStrategies: [] }), options.env, options.dataDir);
      const { parseActionsFile, replayActions } = await import("../suites/tau-bench/replay.ts");
      const result = await replayActions(domain, parseActionsFile(text, options.actions));
      if (options.format === "json") {
        process.stdout.write(`${JSON.stringify({ steps: result.steps, dataHash: result.dataHash })}\n`);
      } else {
        result.steps.forEach((step, index) => process.stdout.write(`#${index} ${step.name}\n${step.observation ?? `(exception) ${step.exception}`}\n\n`));
        process.stdout.write(`data hash: ${result.dataHash}\n`);
      }
    });

  program
    .command("rescore")
    .description("Re-score each trajectory of a results file (ours, τ-bench's or τ²-bench's) with our environment and evaluator, and compare with the recorded rewards")
    .argument("<results>", "results JSON file")
    .option("--env <domain>", "domain (`taubridge strategies` lists them); for a τ² file, default: the file's domain")
    .option("--judge-model <model>", "τ² files: judge NL assertions again with this model (default: reuse the recorded verdicts)")
    .option("--judge-base-url <url>", "τ² files: the judge's OpenAI-compatible endpoint")
    .option("--judge-provider <name>", "τ² files: the judge's provider", "openai")
    .option("--data-dir <dir>", "data directory")
    .option("--task-split <split>", "split the task ids refer to (default: the domain's default split)")
    .option("--task-file <path>", "the task file the run used instead of a split (runs with --task-file)")
    .addOption(formatOption(["text", "json"], "text"))
    .option("--details", "list every disagreement", false)
    .action(async (path: string, options) => {
      if (isTau2ResultsFile(path)) {
        await rescoreTau2Command(await loadRegistries({ agentStrategies: [], userStrategies: [], tau2: true }), path, options);
        return;
      }
      if (!options.env) throw new ConfigError("rescore needs --env <domain> for a τ-bench results file");
      const domain = await resolveDomain(await loadRegistries({ agentStrategies: [], userStrategies: [] }), options.env, options.dataDir);
      const [{ loadResultsFile }, { rescoreResults }, { checkResultsMatchDomain }] = await Promise.all([
        import("../suites/tau-bench/codec.ts"),
        import("../suites/tau-bench/replay.ts"),
        import("../suites/tau-bench/results-check.ts"),
      ]);
      const entries = loadResultsFile(path);
      const { tasks, taskSetName } = taskSet(domain, options.taskSplit, options.taskFile);
      checkResultsMatchDomain(path, entries, domain, tasks, taskSetName);
      const report = await rescoreResults(domain, entries, tasks);
      if (options.format === "json") {
        printJson({
          total: report.total,
          agree: report.agree,
          passK: report.passK,
          averageReward: report.averageReward,
          infraErrors: report.infraErrors,
          hashCompared: report.hashCompared,
          hashMatches: report.hashMatches,
          legacyHashMatches: report.legacyHashMatches,
          hashExplanation: report.hashExplanation,
          disagreements: report.items.filter((item) => !item.agree),
        });
        return;
      }
      const passK = Object.entries(report.passK)
        .map(([k, value]) => `pass^${k}=${value === null ? "n/a" : Number(value.toFixed(3))}`)
        .join("  ");
      process.stdout.write(`Rewards: ${report.agree}/${report.total} agree with the recorded rewards\n`);
      process.stdout.write(`Recomputed: average reward ${report.averageReward.toFixed(3)}  ${passK}\n`);
      if (report.infraErrors > 0) process.stdout.write(`Infra errors: ${report.infraErrors} recorded episode(s), left out of pass^k and the average reward\n`);
      process.stdout.write(`Ground-truth hashes: ${report.hashMatches}/${report.hashCompared} recorded hashes equal ours\n`);
      if (report.hashExplanation) process.stdout.write(`  why not: ${report.hashExplanation}\n`);
      const disagreements = report.items.filter((item) => !item.agree);
      if (disagreements.length > 0) {
        process.stdout.write(`Disagreements (${disagreements.length}):\n`);
        for (const item of options.details ? disagreements : disagreements.slice(0, 20)) {
          process.stdout.write(`  task ${item.taskId} trial ${item.trial}: recorded ${item.recordedReward}, ours ${item.reward}${item.note ? ` (${item.note})` : ""}\n`);
        }
      }
    });

  program
    .command("report")
    .description("Print the leaderboard table for one or more results files (ours or τ-bench's)")
    .argument("<results...>", "results JSON files (a run's <stem>.meta.json beside them is read, not listed)")
    .addOption(formatOption(["text", "json", "markdown"], "text"))
    .option("--per-task", "also print the per-task table and each episode that did not stop normally, with its error", false)
    .option("--env <domain>", "check the files were recorded on this domain: tool names, task ids (default: check each file on its own)")
    .option("--data-dir <dir>", "data directory (with --env)")
    .option("--task-split <split>", "split the task ids refer to, with --env (default: the domain's default split)")
    .option("--task-file <path>", "the task file the runs used instead of a split, with --env")
    .action(async (givenPaths: string[], options) => {
      const [
        { loadResultsFile },
        { buildReport, detailsText, leaderboardText, perTaskText, reportJson },
        { checkResultsConsistent, checkResultsMatchDomain },
        { isRunStatusPath, readRunStatus },
        { resultsLabels },
      ] = await Promise.all([
        import("../suites/tau-bench/codec.ts"),
        import("../report/leaderboard.ts"),
        import("../suites/tau-bench/results-check.ts"),
        import("../run/run-status.ts"),
        import("../report/labels.ts"),
      ]);
      // `report results/*.json` also matches the runs' status sidecars: they annotate their results file's row.
      const paths = givenPaths.filter((path) => !isRunStatusPath(path));
      if (paths.length === 0) throw new ConfigError(`no results file among ${givenPaths.join(", ")} (a .meta.json file is a run's status; pass its results .json)`);
      const tau2Paths = paths.filter(isTau2ResultsFile);
      if (tau2Paths.length > 0) {
        if (tau2Paths.length !== paths.length) throw new ConfigError("report takes τ-bench or τ²-bench results files, not both at once");
        await reportTau2Command(tau2Paths, options.format);
        return;
      }
      const domain = options.env ? await resolveDomain(await loadRegistries({ agentStrategies: [], userStrategies: [] }), options.env, options.dataDir) : undefined;
      const labels = resultsLabels(paths);
      const reports = paths.map((path, index) => {
        const entries = loadResultsFile(path);
        checkResultsConsistent(path, entries);
        if (domain) {
          const { tasks, taskSetName } = taskSet(domain, options.taskSplit, options.taskFile);
          checkResultsMatchDomain(path, entries, domain, tasks, taskSetName);
        }
        const status = readRunStatus(path);
        return buildReport(labels[index], entries, status ? { expectedEpisodes: status.expectedEpisodes, interrupted: status.interrupted } : undefined);
      });
      if (options.format === "json") {
        printJson(reports.length === 1 ? reportJson(reports[0]) : reports.map(reportJson));
        return;
      }
      const format = options.format === "markdown" ? "markdown" : "text";
      process.stdout.write(`${leaderboardText(reports, format)}\n`);
      for (const [index, report] of reports.entries()) {
        // With several files, each footer names the row and the file it belongs to.
        if (reports.length > 1) process.stdout.write(`${labels[index]} — ${paths[index]}\n`);
        process.stdout.write(`${detailsText(report)}\n`);
        if (options.perTask) process.stdout.write(`${perTaskText(report, format)}\n`);
      }
    });

  program
    .command("strategies")
    .description("List the domains, agent strategies and user strategies this installation knows")
    .action(async () => {
      const { domains: domainRegistry, agentStrategies, userStrategies, tau2 } = await loadRegistries();
      process.stdout.write("Domains:\n");
      for (const name of domainRegistry.names()) process.stdout.write(`  ${name.padEnd(16)} ${domainRegistry.get(name).description}\n`);
      process.stdout.write("Agent strategies:\n");
      for (const name of agentStrategies.names()) process.stdout.write(`  ${name.padEnd(16)} ${agentStrategies.get(name).description}\n`);
      process.stdout.write("User strategies:\n");
      for (const name of userStrategies.names()) process.stdout.write(`  ${name.padEnd(16)} ${userStrategies.get(name).description}\n`);
      if (tau2) {
        process.stdout.write(`τ²-bench (taubridge tau2 run): domains ${tau2.domains.names().join(", ")}; agents ${tau2.agents.names().join(", ")}; users ${tau2.users.names().join(", ")}\n`);
      }
    });

  // τ²'s own participants are in the offline set; a taubridge strategy (an adapter, `module`) needs the full one.
  registerTau2Command(program, (agent) => loadRegistries({ agentStrategies: TAU2_OFFLINE_AGENTS.has(agent) ? [] : [agent], userStrategies: [], tau2: true }));
  registerCliExtensions(program);
  oneLineUsageErrors(program);
  return program;
}

/** τ² agents the offline registries hold (no model SDK or adapter is loaded for them at start). */
const TAU2_OFFLINE_AGENTS = new Set(["oracle", "llm_agent", "llm_agent_gt", "llm_agent_solo"]);

/**
 * `taubridge run --suite tau2 …` is `taubridge tau2 run …`: a run names its suite, and τ²'s runs take
 * τ²'s command line. (`--suite tau`, the default, changes nothing.)
 */
export function suiteRouted(argv: string[]): string[] {
  const [node, script, command, ...rest] = argv;
  if (command !== "run") return argv;
  const at = rest.findIndex((arg) => arg === "--suite" || arg.startsWith("--suite="));
  if (at === -1) return argv;
  const value = rest[at].includes("=") ? rest[at].split("=")[1] : rest[at + 1];
  if (value !== "tau2") return argv;
  const without = [...rest.slice(0, at), ...rest.slice(at + (rest[at].includes("=") ? 1 : 2))];
  return [node, script, "tau2", "run", ...without];
}

/**
 * Runs the CLI with the registries `loadRegistries` supplies, with the exit codes of
 * {@link EXIT_CODES}: config, usage and data errors exit 2 with one line; a run left with infra
 * errors exits 3; interrupted 130; anything else exits 1.
 */
export async function main(loadRegistries: LoadRegistries, argv: string[] = process.argv): Promise<void> {
  const program = createProgram(loadRegistries);
  try {
    await program.parseAsync(suiteRouted(argv));
  } catch (error) {
    const commanderCode = exitCodeForCommander(error);
    if (commanderCode !== undefined) {
      process.exitCode = commanderCode; // commander has printed the message (or the help) already
      return;
    }
    const code = exitCodeForError(error);
    if (code === EXIT_CODES.config) process.stderr.write(`taubridge: ${(error as Error).message}\n`);
    else process.stderr.write(`taubridge: ${error instanceof Error ? (process.env.TAUBRIDGE_DEBUG ? error.stack : error.message) : String(error)}\n`);
    process.exitCode = code;
  }
}
