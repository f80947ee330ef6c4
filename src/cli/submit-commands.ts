/**
 * `taubridge tau2 submit prepare <results…> --output <dir>` and `taubridge tau2 submit validate
 * <dir>`: τ²'s leaderboard submission commands (`tau2 submit prepare|validate`) over the τ² suite's
 * leaderboard support (`Suite.leaderboard`) and `src/submit`. The metadata questions are asked on
 * the terminal, read one a line from stdin when it is piped, or given as flags.
 */
import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import type { LeaderboardSupport } from "../core/leaderboard.ts";
import { ConfigError } from "../errors/error-tree.ts";
import { EXIT_CODES } from "./exit-codes.ts";
import type { LoadRegistries } from "./registry-needs.ts";
import { collect, printJson } from "./usage.ts";

type Options = Record<string, string | boolean | string[] | undefined>;

/** τ²'s leaderboard support: from the caller's leaderboard loader when it has one (only the support's modules load), else from the τ² suite. */
async function leaderboardSupport(loadRegistries: LoadRegistries): Promise<LeaderboardSupport> {
  const support = loadRegistries.leaderboard ? await loadRegistries.leaderboard("tau2") : (await loadRegistries({ names: [], models: false, tau2: true })).suites.get("tau2").leaderboard;
  if (!support) throw new ConfigError("this installation's τ² suite has no leaderboard support");
  return support;
}

/** Reads all of stdin (piped answers, one a line). */
async function stdinLines(): Promise<string[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return [];
  return text.replace(/\r?\n$/, "").split(/\r?\n/);
}

/** The answer source: the terminal (a prompt per question, on stderr) or stdin's lines. */
async function answerSource() {
  const { lineAnswers } = await import("../submit/questions.ts");
  if (!process.stdin.isTTY) return lineAnswers(await stdinLines(), (line) => process.stderr.write(`${line}\n`));
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  return {
    async ask(question: string, fallback: string | null) {
      return terminal.question(`${question}${fallback !== null && fallback !== "" ? ` (${fallback})` : ""}: `);
    },
    close: () => terminal.close(),
  };
}

const yesNo = (value: string | boolean | string[] | undefined) => (value === undefined ? undefined : value === true || value === "yes" || value === "y" || value === "true");

async function prepareAction(loadRegistries: LoadRegistries, paths: string[], options: Options): Promise<void> {
  const [{ prepareSubmission, SubmissionDefectsError }, support] = await Promise.all([import("../submit/submit.ts"), leaderboardSupport(loadRegistries)]);
  const source = await answerSource();
  const text = (key: string) => options[key] as string | undefined;
  try {
    const outcome = await prepareSubmission(support, {
      paths,
      output: options.output as string,
      verify: options.verify !== false,
      dataDir: text("dataDir"),
      answers: source,
      today: (text("today") ?? new Date().toISOString().slice(0, 10)) as string,
      preset: {
        modelName: text("modelName"),
        userSimulator: text("userSimulator"),
        modelOrganization: text("modelOrganization"),
        submittingOrganization: text("submittingOrganization"),
        email: text("email"),
        contactName: text("contactName"),
        github: text("github"),
        isNew: yesNo(options.isNew),
        submissionType: text("submissionType"),
        reasoningEffort: text("reasoningEffort"),
        evaluationDate: text("evaluationDate"),
        benchmarkVersion: text("tau2Version"),
        notes: text("notes"),
        modifiedPrompts: yesNo(options.modifiedPrompts),
        omittedQuestions: yesNo(options.omittedQuestions),
        verificationDetails: text("verificationDetails"),
        references: options.reference as string[] | undefined,
        releaseDate: text("releaseDate"),
        announcementUrl: text("announcementUrl"),
        announcementTitle: text("announcementTitle"),
        retrievalConfig: text("retrievalConfig"),
      },
      log: (line) => process.stderr.write(`${line}\n`),
    });
    process.stdout.write(`${outcome.directory}\n`);
  } catch (error) {
    if (SubmissionDefectsError.isInstance(error)) {
      for (const line of (error as Error).message.split("\n")) process.stderr.write(`taubridge: ${line}\n`);
      process.exitCode = EXIT_CODES.config;
      return;
    }
    throw error;
  } finally {
    (source as { close?: () => void }).close?.();
  }
}

async function validateAction(loadRegistries: LoadRegistries, directory: string, options: Options): Promise<void> {
  const [{ validateSubmission }, { defectLine }, support] = await Promise.all([import("../submit/submit.ts"), import("../submit/checks.ts"), leaderboardSupport(loadRegistries)]);
  const outcome = validateSubmission(support, directory, { dataDir: options.dataDir as string | undefined, exact: options.exact === true });
  if (options.format === "json") printJson({ valid: outcome.defects.length === 0, ...outcome });
  else {
    for (const warning of outcome.warnings) process.stderr.write(`taubridge: warning: ${warning}\n`);
    for (const note of outcome.notes) process.stderr.write(`taubridge: note: ${note}\n`);
    for (const defect of outcome.defects) process.stderr.write(`taubridge: ${defectLine(defect)}\n`);
    if (outcome.defects.length === 0) process.stdout.write(`valid: ${outcome.domains.join(", ")} (tasks, trials, agent and user configuration, pass^1..4 and cost recomputed)\n`);
  }
  if (outcome.defects.length > 0) process.exitCode = EXIT_CODES.config;
}

/** Adds `submit prepare` and `submit validate` under `tau2`. */
export function registerSubmitCommands(program: Command, loadRegistries: LoadRegistries): void {
  const tau2 = program.commands.find((command) => command.name() === "tau2");
  if (!tau2) throw new Error("the tau2 command group must be registered before submit");
  const submit = tau2.command("submit").description("Leaderboard submissions, as `tau2 submit`: prepare a submission from results files, validate one");
  submit
    .command("prepare")
    .description(
      "Prepare a leaderboard submission: verify the results files (base split, current task definitions, num_trials each), check the set (each domain once, one agent and user), compute pass^1..4 and cost as the original does, ask the 17 metadata questions (or take flags; piped stdin answers one a line) and write <output>/<model>_<org>_<date>/ with submission.json and trajectories/",
    )
    .argument("<results...>", "τ² results files or directories holding them")
    .requiredOption("--output <dir>", "where the submission folder is written")
    .option("--no-verify", "skip the trajectory verification (base split, task definitions, trial counts)")
    .option("--data-dir <dir>", "the τ² data root the current tasks are read from")
    .option("--model-name <name>", "answer: model name (default: the agent's LLM)")
    .option("--user-simulator <model>", "answer: user simulator model (default: the user's LLM)")
    .option("--model-organization <org>", "answer: who developed the model")
    .option("--submitting-organization <org>", "answer: who ran the evaluation")
    .option("--email <address>", "answer: contact email")
    .option("--contact-name <name>", "answer: contact name")
    .option("--github <user>", "answer: GitHub username")
    .option("--is-new <yes|no>", "answer: highlight as new on the leaderboard")
    .option("--submission-type <type>", "answer: standard or custom")
    .option("--reasoning-effort <level>", "answer: reasoning effort")
    .option("--evaluation-date <YYYY-MM-DD>", "answer: evaluation date")
    .option("--tau2-version <version>", "answer: τ²-bench version")
    .option("--notes <text>", "answer: additional notes")
    .option("--modified-prompts <yes|no>", "answer: were prompts modified")
    .option("--omitted-questions <yes|no>", "answer: were tasks omitted")
    .option("--verification-details <text>", "answer: what was modified or omitted")
    .option("--reference <title|url|type>", "answer: a reference link (repeatable; type: paper, blog_post, documentation, model_card, github, huggingface, other)", collect)
    .option("--release-date <YYYY-MM-DD>", "answer: the model's public release date")
    .option("--announcement-url <url>", "answer: the release announcement")
    .option("--announcement-title <text>", "answer: the announcement's link text")
    .option("--retrieval-config <name>", "answer: banking_knowledge's retrieval config when the results do not name it")
    .option("--today <YYYY-MM-DD>", "the submission date (default: today, UTC)")
    .action((paths: string[], options) => prepareAction(loadRegistries, paths, options));
  submit
    .command("validate")
    .description(
      "Validate a submission folder as the original does — results load, base-split tasks with current definitions, num_trials simulations each, no domain twice, one agent and user, pass^1..4 and cost recomputed exactly — and exit 2 naming the domain and the defect",
    )
    .argument("<dir>", "the submission folder (holding submission.json and trajectories/)")
    .option("--data-dir <dir>", "the τ² data root the current tasks are read from")
    .option("--exact", "also refuse numbers that differ from the recomputed ones only in the last bits of the float (the original's pandas sums equal-action tasks in a CPU-dependent order)", false)
    .option("--format <format>", "output: text or json", "text")
    .action((directory: string, options) => validateAction(loadRegistries, directory, options));
}
