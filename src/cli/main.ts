import { readFileSync } from "node:fs";
import { Command, Option } from "commander";
import { ConfigError, DataError } from "../core/errors.ts";
import { taubridgeVersion } from "../runner/run-identity.ts";
import { EXIT_CODES, exitCodeForCommander, exitCodeForError, exitCodesHelp } from "./exit-codes.ts";
import type { Registries } from "../runner/registries.ts";
import { optionName, parseRunFlags, RUN_FLAGS, runConfigFromFlags, type RunFlag } from "../runner/run-flags.ts";
import { registerCliExtensions } from "./extensions.ts";

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
}

/** Supplies the registries a command resolves names in. */
export type LoadRegistries = (needs?: RegistryNeeds) => Promise<Registries>;

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

async function resolveDomain(registries: Registries, name: string, dataDir: string | undefined) {
  const [{ loadDomain }, { defaultDataRoot }] = await Promise.all([import("../engine/domain.ts"), import("../runner/data-root.ts")]);
  const definition = registries.domains.get(name);
  return loadDomain(definition, dataDir ?? defaultDataRoot(definition));
}

/** The tasks a results file's ids refer to: a task file, or a split (default: the domain's), and how to name them in errors. */
function taskSet(domain: Awaited<ReturnType<typeof resolveDomain>>, split: string | undefined, taskFile: string | undefined) {
  if (taskFile) return { tasks: domain.tasksFromFile(taskFile), taskSetName: taskFile };
  const name = split ?? domain.definition.defaultSplit;
  return { tasks: domain.tasks(name), taskSetName: `${domain.name}'s ${name} split` };
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
    const [{ buildRun, runBatch }, { buildReport, detailsText, leaderboardText, reportJson }, { createProgressObserver }, { ensureTypeScriptModules }, { runStatusPath }] = await Promise.all([
      import("../runner/batch.ts"),
      import("../report/leaderboard.ts"),
      import("./progress.ts"),
      import("../runner/typescript-modules.ts"),
      import("../runner/run-status.ts"),
    ]);
    await ensureTypeScriptModules(input.agentOptions);
    const built = buildRun(input, { registries });
    const controller = new AbortController();
    const onSignal = () => {
      if (controller.signal.aborted) process.exit(EXIT_CODES.interrupted);
      process.stderr.write("\n[taubridge] interrupted: finishing nothing new; rerun the same command to resume (Ctrl-C again to quit now)\n");
      controller.abort();
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    const progress = createProgressObserver({ quiet: values.quiet as boolean });
    let outcome;
    try {
      outcome = await runBatch(built, progress, controller.signal);
    } finally {
      progress.stop();
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
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
    if (controller.signal.aborted) process.exitCode = EXIT_CODES.interrupted;
    else if (report.infraErrors > 0) {
      process.stderr.write(`taubridge: ${report.infraErrors} episode(s) ended in infrastructure errors (not scored); run the same command again to retry them (exit code ${EXIT_CODES.infraErrors})\n`);
      process.exitCode = EXIT_CODES.infraErrors;
    }
  });

  program
    .command("replay")
    .description("Replay a recorded action sequence on fresh data; print every observation and the τ-bench hash of the end state")
    .requiredOption("--env <domain>", "domain (`taubridge strategies` lists them)")
    .requiredOption("--actions <file>", "JSON array of {name, kwargs}")
    .option("--data-dir <dir>", "data directory")
    .addOption(formatOption(["json", "text"], "json"))
    .action(async (options) => {
      const domain = await resolveDomain(await loadRegistries({ agentStrategies: [], userStrategies: [] }), options.env, options.dataDir);
      const { parseActionsFile, replayActions } = await import("../runner/replay.ts");
      let text: string;
      try {
        text = readFileSync(options.actions, "utf8");
      } catch (error) {
        throw new DataError(`cannot read actions file ${options.actions}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      }
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
    .description("Replay each trajectory of a results file (ours or τ-bench's) through our environment and compare rewards and hashes")
    .argument("<results>", "results JSON file")
    .requiredOption("--env <domain>", "domain (`taubridge strategies` lists them)")
    .option("--data-dir <dir>", "data directory")
    .option("--task-split <split>", "split the task ids refer to (default: the domain's default split)")
    .option("--task-file <path>", "the task file the run used instead of a split (runs with --task-file)")
    .addOption(formatOption(["text", "json"], "text"))
    .option("--details", "list every disagreement", false)
    .action(async (path: string, options) => {
      const domain = await resolveDomain(await loadRegistries({ agentStrategies: [], userStrategies: [] }), options.env, options.dataDir);
      const [{ loadResultsFile }, { rescoreResults }, { checkResultsMatchDomain }] = await Promise.all([
        import("../runner/results-file.ts"),
        import("../runner/replay.ts"),
        import("../runner/results-check.ts"),
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
        import("../runner/results-file.ts"),
        import("../report/leaderboard.ts"),
        import("../runner/results-check.ts"),
        import("../runner/run-status.ts"),
        import("../report/labels.ts"),
      ]);
      // `report results/*.json` also matches the runs' status sidecars: they annotate their results file's row.
      const paths = givenPaths.filter((path) => !isRunStatusPath(path));
      if (paths.length === 0) throw new ConfigError(`no results file among ${givenPaths.join(", ")} (a .meta.json file is a run's status; pass its results .json)`);
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
      const { domains: domainRegistry, agentStrategies, userStrategies } = await loadRegistries();
      process.stdout.write("Domains:\n");
      for (const name of domainRegistry.names()) process.stdout.write(`  ${name.padEnd(16)} ${domainRegistry.get(name).description}\n`);
      process.stdout.write("Agent strategies:\n");
      for (const name of agentStrategies.names()) process.stdout.write(`  ${name.padEnd(16)} ${agentStrategies.get(name).description}\n`);
      process.stdout.write("User strategies:\n");
      for (const name of userStrategies.names()) process.stdout.write(`  ${name.padEnd(16)} ${userStrategies.get(name).description}\n`);
    });

  registerCliExtensions(program);
  oneLineUsageErrors(program);
  return program;
}

/**
 * Runs the CLI with the registries `loadRegistries` supplies, with the exit codes of
 * {@link EXIT_CODES}: config, usage and data errors exit 2 with one line; a run left with infra
 * errors exits 3; interrupted 130; anything else exits 1.
 */
export async function main(loadRegistries: LoadRegistries, argv: string[] = process.argv): Promise<void> {
  const program = createProgram(loadRegistries);
  try {
    await program.parseAsync(argv);
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
