import { readFileSync } from "node:fs";
import { Command, InvalidArgumentError, Option } from "commander";
import { DataError } from "../core/errors.ts";
import { domainRegistry, DEFAULT_DOMAIN } from "../../domains/index.ts";
import { loadDomain } from "../engine/domain.ts";
import { buildRun, runBatch } from "../runner/batch.ts";
import { defaultDataRoot } from "../runner/data-root.ts";
import { loadResultsFile } from "../runner/results-file.ts";
import { parseActionsFile, replayActions, rescoreResults } from "../runner/replay.ts";
import { buildReport, detailsText, leaderboardText, perTaskText, reportJson } from "../report/leaderboard.ts";
import { agentStrategies, userStrategies } from "../runner/strategies.ts";
import { registerOfflineStrategies } from "../runner/builtin-strategies.ts";
import { createProgressObserver } from "./progress.ts";
import { registerCliExtensions } from "./extensions.ts";
import { EXIT_CODES, exitCodeForCommander, exitCodeForError, exitCodesHelp } from "./exit-codes.ts";
import { registerModelStrategies } from "../agents/register.ts";
import { registerAdapterStrategies } from "../../adapters/index.ts";
import { registerFastWorkflowStrategy } from "../../adapters/fastworkflow/index.ts";

function integer(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed)) throw new InvalidArgumentError(`expected an integer, got "${value}"`);
  return parsed;
}

function number(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new InvalidArgumentError(`expected a number, got "${value}"`);
  return parsed;
}

function integerList(value: string, previous: number[] = []): number[] {
  return [...previous, ...value.split(/[ ,]+/).filter(Boolean).map(integer)];
}

/** `key=value` pairs collected into an object (`--agent-option bridgeMode=decision-only`). */
function keyValue(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const index = value.indexOf("=");
  if (index <= 0) throw new InvalidArgumentError(`expected key=value, got "${value}"`);
  return { ...previous, [value.slice(0, index)]: value.slice(index + 1) };
}

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function resolveDomain(name: string, dataDir: string | undefined) {
  const definition = domainRegistry.get(name);
  return loadDomain(definition, dataDir ?? defaultDataRoot(definition));
}

/** Builds the command tree. Exported for tests, which run commands in-process. */
export function createProgram(): Command {
  registerOfflineStrategies();
  registerModelStrategies();
  registerAdapterStrategies();
  registerFastWorkflowStrategy();
  const program = new Command("taubridge")
    .description(
      "Evaluate conversational tool-using agents the τ-bench way: a simulated user, domain tools over an in-memory database, a scored end state.",
    )
    .version(JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version)
    .showHelpAfterError("(add --help for usage)")
    .addHelpText("after", exitCodesHelp())
    // Usage errors reach `main` (subcommands inherit this), which exits 2 for them like other config errors.
    .exitOverride();

  program
    .command("run")
    .description(
      "Run episodes and print the leaderboard table. With no options it runs our bundled library domain offline (oracle agent, scripted user).",
    )
    .addOption(new Option("--env <domain>", `domain: ${domainRegistry.names().join(", ")}`).default(DEFAULT_DOMAIN))
    .option("--agent-strategy <name>", "agent under test (see `taubridge strategies`); default oracle, or tool-calling when --model is given")
    .option("--user-strategy <name>", "user simulator; default scripted, or llm when --user-model is given")
    .option("--model <name>", "agent model")
    .option("--model-provider <name>", "agent model provider (openai, or an OpenAI-compatible server)")
    .option("--base-url <url>", "agent model base URL (any OpenAI-compatible server)")
    .option("--api-key-env <name>", "environment variable holding the agent model's API key")
    .option("--user-model <name>", "user simulator model")
    .option("--user-model-provider <name>", "user simulator model provider")
    .option("--user-base-url <url>", "user simulator model base URL")
    .option("--user-api-key-env <name>", "environment variable holding the user model's API key")
    .option("--temperature <t>", "agent sampling temperature", number, 0)
    .option("--task-split <split>", "task split (test, train, dev; airline has only test)")
    .option("--task-file <path>", "a task file in τ-bench JSON format instead of a split")
    .option("--task-ids <ids...>", "explicit task indices (overrides the range)", integerList)
    .option("--start-index <n>", "first task index", integer, 0)
    .option("--end-index <n>", "end task index, exclusive (-1 = all)", integer, -1)
    .option("--num-trials <n>", "trials per task (pass^k needs k ≤ trials)", integer, 1)
    .option("--max-concurrency <n>", "episodes running at once", integer, 1)
    .option("--max-steps <n>", "agent turns before an episode is cut off", integer, 30)
    .option("--episode-timeout <seconds>", "wall-clock limit per episode (0 = none)", number, 0)
    .option("--episode-retries <n>", "re-run an episode that ended in an infrastructure error", integer, 0)
    .option("--seed <n>", "seed for shuffling and sampling", integer, 10)
    .option("--shuffle", "shuffle the task order each trial", false)
    .option("--log-dir <dir>", "where the results file and checkpoint go", "results")
    .option("--data-dir <dir>", "data directory (default: the cache `taubridge data pull` fills; our own domain ships its data)")
    .option("--resume", "resume the checkpoint of the same run in --log-dir (the default; spelled out for scripts)", true)
    .option("--no-resume", "start over instead of resuming the checkpoint of the same run")
    .option("--cache-dir <dir>", "on-disk model response cache (off by default)")
    .option("--price-file <path>", "JSON price table overriding or adding model prices")
    .option("--model-timeout <seconds>", "timeout of one model call", number, 120)
    .option("--model-max-attempts <n>", "attempts per model call on 408/409/429/5xx/network errors", integer, 6)
    .option("--agent-prompt-file <path>", "template for the agent's system prompt")
    .option("--user-prompt-file <path>", "template for the user simulator's system prompt")
    .option("--few-shot-displays-path <path>", "JSONL of example conversations for --agent-strategy few-shot")
    .option("--agent-module <path>", "framework adapters: the user's unmodified agent module (same as --agent-option module=<path>)")
    .option("--workflow-path <dir>", "fastworkflow: the workflow directory (same as --agent-option workflowPath=<dir>)")
    .option("--bridge-mode <mode>", "framework adapters: internal (default), decision-only (the harness steps each planned action) or dry-run")
    .option("--dry-run", "framework adapters: log the planned actions without stepping the environment (same as --bridge-mode dry-run)")
    .option("--agent-option <key=value...>", "strategy-specific option (repeatable; see the adapter READMEs)", keyValue)
    .option("--format <format>", "output: text, json or markdown", "text")
    .option("--quiet", "no progress output", false)
    .action(async (options) => {
      const agentStrategy = options.agentStrategy ?? (options.model ? "tool-calling" : "oracle");
      const userStrategy = options.userStrategy ?? (options.userModel ? "llm" : "scripted");
      const built = buildRun({
        env: options.env,
        agentStrategy,
        userStrategy,
        model: options.model,
        modelProvider: options.modelProvider,
        baseUrl: options.baseUrl,
        apiKeyEnv: options.apiKeyEnv,
        userModel: options.userModel,
        userModelProvider: options.userModelProvider,
        userBaseUrl: options.userBaseUrl,
        userApiKeyEnv: options.userApiKeyEnv,
        temperature: options.temperature,
        taskSplit: options.taskSplit,
        taskFile: options.taskFile,
        taskIds: options.taskIds,
        startIndex: options.startIndex,
        endIndex: options.endIndex,
        numTrials: options.numTrials,
        maxConcurrency: options.maxConcurrency,
        maxSteps: options.maxSteps,
        episodeTimeoutMs: Math.round(options.episodeTimeout * 1000),
        episodeRetries: options.episodeRetries,
        seed: options.seed,
        shuffle: options.shuffle,
        logDir: options.logDir,
        dataDir: options.dataDir,
        resume: options.resume,
        cacheDir: options.cacheDir,
        priceFile: options.priceFile,
        modelTimeoutMs: Math.round(options.modelTimeout * 1000),
        modelMaxAttempts: options.modelMaxAttempts,
        agentPromptFile: options.agentPromptFile,
        userPromptFile: options.userPromptFile,
        fewShotDisplaysPath: options.fewShotDisplaysPath,
        agentOptions: {
          ...(options.agentModule ? { module: options.agentModule } : {}),
          ...(options.workflowPath ? { workflowPath: options.workflowPath } : {}),
          ...(options.bridgeMode ? { bridgeMode: options.bridgeMode } : {}),
          ...(options.dryRun ? { dryRun: "true" } : {}),
          ...(options.agentOption ?? {}),
        },
        quiet: options.quiet,
      });
      const controller = new AbortController();
      const onSignal = () => {
        if (controller.signal.aborted) process.exit(EXIT_CODES.interrupted);
        process.stderr.write("\n[taubridge] interrupted: finishing nothing new; rerun the same command to resume (Ctrl-C again to quit now)\n");
        controller.abort();
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      const progress = createProgressObserver({ quiet: options.quiet });
      let outcome;
      try {
        outcome = await runBatch(built, progress, controller.signal);
      } finally {
        progress.stop();
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
      }
      const report = buildReport(`${agentStrategy} (${built.config.model ?? "no model"}) on ${built.config.env}/${built.split}`, outcome.summaries);
      if (options.format === "json") {
        printJson({ ...reportJson(report), resultsPath: outcome.resultsPath, checkpointPath: outcome.checkpointPath });
      } else {
        const format = options.format === "markdown" ? "markdown" : "text";
        process.stdout.write(`${leaderboardText([report], format)}\n${detailsText(report)}\n\n📄 Results saved to ${outcome.resultsPath}\n`);
      }
      if (controller.signal.aborted) process.exitCode = EXIT_CODES.interrupted;
      else if (report.infraErrors > 0) {
        process.stderr.write(
          `taubridge: ${report.infraErrors} episode(s) ended in infrastructure errors (not scored); run the same command again to retry them (exit code ${EXIT_CODES.infraErrors})\n`,
        );
        process.exitCode = EXIT_CODES.infraErrors;
      }
    });

  program
    .command("replay")
    .description("Replay a recorded action sequence on fresh data; print every observation and the τ-bench hash of the end state")
    .requiredOption("--env <domain>", `domain: ${domainRegistry.names().join(", ")}`)
    .requiredOption("--actions <file>", "JSON array of {name, kwargs}")
    .option("--data-dir <dir>", "data directory")
    .option("--format <format>", "json or text", "json")
    .action(async (options) => {
      const domain = resolveDomain(options.env, options.dataDir);
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
    .requiredOption("--env <domain>", `domain: ${domainRegistry.names().join(", ")}`)
    .option("--data-dir <dir>", "data directory")
    .option("--task-split <split>", "split the task ids refer to (default: the domain's default)")
    .option("--format <format>", "json or text", "text")
    .option("--details", "list every disagreement", false)
    .action(async (path: string, options) => {
      const domain = resolveDomain(options.env, options.dataDir);
      const entries = loadResultsFile(path);
      const report = await rescoreResults(domain, entries, domain.tasks(options.taskSplit));
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
    .argument("<results...>", "results JSON files")
    .option("--format <format>", "text, json or markdown", "text")
    .option("--per-task", "also print the per-task table", false)
    .action(async (paths: string[], options) => {
      const reports = paths.map((path) => {
        const entries = loadResultsFile(path);
        return buildReport(
          path.split("/").pop()!.replace(/\.json$/, ""),
          entries.map((entry) => ({ taskId: entry.taskId, trial: entry.trial, reward: entry.reward, termination: entry.termination, usage: entry.usage })),
        );
      });
      if (options.format === "json") {
        printJson(reports.length === 1 ? reportJson(reports[0]) : reports.map(reportJson));
        return;
      }
      const format = options.format === "markdown" ? "markdown" : "text";
      process.stdout.write(`${leaderboardText(reports, format)}\n`);
      for (const report of reports) {
        process.stdout.write(`${detailsText(report)}\n`);
        if (options.perTask) process.stdout.write(`${perTaskText(report, format)}\n`);
      }
    });

  program
    .command("strategies")
    .description("List the domains, agent strategies and user strategies this installation knows")
    .action(() => {
      process.stdout.write("Domains:\n");
      for (const name of domainRegistry.names()) process.stdout.write(`  ${name.padEnd(16)} ${domainRegistry.get(name).description}\n`);
      process.stdout.write("Agent strategies:\n");
      for (const name of agentStrategies.names()) process.stdout.write(`  ${name.padEnd(16)} ${agentStrategies.get(name).description}\n`);
      process.stdout.write("User strategies:\n");
      for (const name of userStrategies.names()) process.stdout.write(`  ${name.padEnd(16)} ${userStrategies.get(name).description}\n`);
    });

  registerCliExtensions(program);
  return program;
}

/**
 * Runs the CLI with the exit codes of {@link EXIT_CODES}: config, usage and data errors exit 2
 * with one line; a run left with infra errors exits 3; anything else exits 1.
 */
export async function main(argv: string[] = process.argv): Promise<void> {
  const program = createProgram();
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
