/**
 * `taubridge run` and `taubridge tau2 run`: one command line for both suites, built from the one
 * flag table (`src/run/run-flags.ts`). `run` takes τ-bench's `run.py` names and `--suite`; `tau2
 * run` is `run --suite tau2` and takes τ²'s `tau2 run` names (the table's aliases), so replacing
 * `tau2` by `taubridge tau2` in a script works. τ²'s flags for features taubridge does not have are
 * refused by name with the reason.
 */
import { type Command, Option } from "commander";
import { A2A_STRATEGY_NAMES } from "../a2a/client/register.ts";
import { ConfigError } from "../errors/error-tree.ts";
import type { Suite, SuiteRunOutcome } from "../core/suite.ts";
import { flagAppliesTo, flagDefault, optionName, REFUSED_TAU2_FLAGS, RUN_FLAGS, type RunFlag, type SuiteName } from "../run/run-flags.ts";
import { parseRunSettings, type RunSettings } from "../run/run-settings.ts";
import { checkRunPaths } from "../run/run-paths.ts";
import { redact, runSecrets } from "../secrets/redact.ts";
import { EXIT_CODES } from "./exit-codes.ts";
import { withInterrupts } from "./interrupt.ts";
import type { LoadRegistries } from "./registry-needs.ts";
import { collect, printJson } from "./usage.ts";

/** τ²'s part of a help text written for both suites ("τ-bench: …; τ²: …"), or the whole text. */
function tau2Part(text: string): string {
  const at = text.indexOf("τ²: ");
  return at >= 0 ? text.slice(at + "τ²: ".length) : text;
}

/** What the help says a flag defaults to: for both suites under `run`, τ²'s alone under `tau2 run`. */
function defaultText(flag: RunFlag, suite: SuiteName | undefined): string {
  if (flag.defaultHelp) return ` (default: ${suite === "tau2" ? tau2Part(flag.defaultHelp) : flag.defaultHelp})`;
  const value = suite === "tau2" ? flagDefault(flag, "tau2") : flag.default;
  if (value === undefined) return "";
  if (typeof value === "object" && value !== null && ("tau-bench" in value || "tau2" in value)) {
    const bySuite = value as Record<string, unknown>;
    return ` (default: τ-bench ${JSON.stringify(bySuite["tau-bench"])}, τ² ${JSON.stringify(bySuite.tau2)})`;
  }
  if (flag.type === "boolean") return ` (default: ${value ? "on" : "off"})`;
  return ` (default: ${JSON.stringify(value)})`;
}

/**
 * Adds the table's flags to a command, each with its default in the help. `run` shows the table's
 * names (τ-bench's `run.py` spellings) and takes τ²'s as hidden aliases; `tau2 run` shows τ²'s own
 * names (`--domain`, `--agent`, `--agent-llm`, …) and hides the rest, including the τ-bench-only
 * flags it refuses by name. No commander defaults: the table applies them after parsing, per suite.
 */
function addRunFlags(command: Command, suite: SuiteName | undefined): void {
  for (const flag of RUN_FLAGS as readonly RunFlag[]) {
    if (suite === "tau2" && flag.flag === "--suite") continue;
    const names = [flag.flag, ...(flag.aliases ?? [])];
    const shown = suite === "tau2" ? (flag.aliases?.[0] ?? flag.flag) : flag.flag;
    const applies = suite === undefined || flagAppliesTo(flag, suite);
    const only = suite === undefined && flag.suites ? ` [${flag.suites.map((name) => (name === "tau2" ? "τ²" : "τ-bench")).join(", ")} only]` : "";
    for (const name of names) {
      const visible = name === shown && applies;
      const label = visible && flag.short ? `${flag.short}, ${name}` : name;
      const option = new Option(
        flag.placeholder ? `${label} ${flag.placeholder}` : label,
        visible ? `${(suite === "tau2" && flag.helpTau2) || flag.help}${only}${defaultText(flag, suite)}` : `same as ${shown}`,
      );
      if (flag.type === "list" || flag.type === "key-value") option.argParser(collect);
      if (!visible) option.hideHelp();
      command.addOption(option);
    }
    if (flag.negatedHelp) command.addOption(new Option(flag.flag.replace(/^--/, "--no-"), flag.negatedHelp));
  }
  for (const [flag, why] of REFUSED_TAU2_FLAGS) command.addOption(new Option(flag, `not supported: ${why}`).hideHelp());
}

/** The raw values commander parsed, by option name (aliases kept: the settings parser folds them). */
function rawValues(options: Record<string, unknown>): Record<string, unknown> {
  for (const [flag, why] of REFUSED_TAU2_FLAGS) {
    if (options[optionName(flag.split(" ")[0])] !== undefined) throw new ConfigError(`${flag.split(" ")[0]} is not supported by taubridge: ${why}`);
  }
  const raw: Record<string, unknown> = {};
  const wanted = new Set((RUN_FLAGS as readonly RunFlag[]).flatMap((flag) => [flag.flag, ...(flag.aliases ?? [])].map(optionName)));
  for (const [name, value] of Object.entries(options)) if (wanted.has(name) && value !== undefined) raw[name] = value;
  return raw;
}

/** Whether the run is a dry run (nothing the agent planned was executed): its report says so. */
function isDryRun(settings: RunSettings): boolean {
  const options = (settings.values.agentOption ?? {}) as Record<string, string>;
  return settings.values.dryRun === true || settings.values.bridgeMode === "dry-run" || options.bridgeMode === "dry-run" || /^(1|true|yes|on)$/i.test(options.dryRun ?? "");
}

/** Prints the run's report and sets the exit code (130 interrupted, 3 episodes left in infra errors). Nothing secret is printed (`src/secrets`). */
async function report(outcome: SuiteRunOutcome, settings: RunSettings, interrupted: boolean, secrets: readonly string[], policy: LivePolicy | null, suite: Suite): Promise<void> {
  const [{ buildReport, detailsText, leaderboardText, reportJson }, { protocolSummary, protocolSummaryText }] = await Promise.all([
    import("../report/leaderboard.ts"),
    import("../report/protocol-summary.ts"),
  ]);
  const checked = policy ? await policyOfRun(outcome, policy, settings.values.format === "markdown" ? "markdown" : "text") : null;
  // The check goes into the results file too (where the suite keeps its own block), for `report` to read back.
  if (checked) suite.storePolicy?.(outcome.path, checked.stored);
  const dryRun = isDryRun(settings);
  const notes = dryRun ? ["⚠ dry run: the agent's tool calls were planned, not executed; these numbers do not score the agent", ...outcome.notes] : outcome.notes;
  const title = dryRun ? `${outcome.title} [dry run]` : outcome.title;
  const runReport = buildReport(title, outcome.summaries, outcome.completeness ?? undefined, { metrics: outcome.metrics, notes });
  const format = settings.values.format as string;
  const printed = <T>(value: T): T => redact(value, { secrets, content: true });
  // A remote agent (A2A) kept its exchanges with each episode: their summary goes under the details.
  // Only such an agent keeps them, so other runs do not build every episode's record to look.
  const remote = (A2A_STRATEGY_NAMES as readonly unknown[]).includes(settings.values.agentStrategy);
  const protocol = remote ? protocolSummary(outcome.records()) : null;
  if (format === "json")
    printJson(
      printed({
        ...reportJson(runReport),
        ...(protocol ? { protocol } : {}),
        ...(dryRun ? { dryRun: true } : {}),
        ...(checked ? { policy: checked.json } : {}),
        resultsPath: outcome.path,
        checkpointPath: outcome.checkpointPath,
        runStatusPath: outcome.statusPath,
      }),
    );
  else {
    const details = protocol ? `${detailsText(runReport)}\n${protocolSummaryText(protocol)}` : detailsText(runReport);
    const table = leaderboardText([runReport], format === "markdown" ? "markdown" : "text", checked ? { columns: [checked.column] } : {});
    process.stdout.write(printed(`${table}\n${details}\n${checked ? `${checked.text}\n` : ""}\n📄 Results saved to ${outcome.path}\n`));
  }
  if (interrupted) process.exitCode = EXIT_CODES.interrupted;
  else if (runReport.infraErrors > 0) {
    process.stderr.write(
      `taubridge: ${runReport.infraErrors} episode(s) ended in infrastructure errors (not scored); run the same command again to retry them (exit code ${EXIT_CODES.infraErrors})\n`,
    );
    process.exitCode = EXIT_CODES.infraErrors;
  }
}

/** `run --policy`: the rule file (read and validated before the run) and the strictness of its score. */
interface LivePolicy {
  policy: import("../analysis/policy/rules.ts").Policy;
  strictness: "low" | "medium" | "high";
}

/** Reads `--policy` before anything runs: a bad rule file is a one-line error (exit 2) that costs no episode. */
async function livePolicy(values: RunSettings["values"]): Promise<LivePolicy | null> {
  if (typeof values.policy !== "string") return null;
  const { loadPolicyFile } = await import("../analysis/policy/rules.ts");
  return { policy: loadPolicyFile(values.policy), strictness: (values.policyStrictness as LivePolicy["strictness"] | undefined) ?? "medium" };
}

/**
 * The run's episodes checked against the policy, from the run's canonical records (the same check
 * as `report --policy`; the deterministic rules only: the run has no embeddings or judge client for
 * them): the Policy column, the hits section and the JSON. The rewards are the run's, untouched.
 */
async function policyOfRun(outcome: SuiteRunOutcome, live: LivePolicy, format: "text" | "markdown") {
  const [{ checkPolicy }, { policyText, policyJson, storedPolicyOf }, { formatNumber }] = await Promise.all([
    import("../analysis/policy/engine.ts"),
    import("../analysis/policy/render.ts"),
    import("../analysis/tables.ts"),
  ]);
  const checked = await checkPolicy(outcome.records(), live.policy, { strictness: live.strictness });
  return {
    column: { head: "Policy", cells: [formatNumber(checked.adherence)] },
    text: policyText(checked, format),
    json: policyJson(checked),
    stored: storedPolicyOf(checked, live.policy.sha256 ?? ""),
  };
}

/** Runs a suite with the parsed settings: loads what the names need, runs with progress and Ctrl-C, reports. */
async function runAction(options: Record<string, unknown>, suite: SuiteName | undefined, loadRegistries: LoadRegistries): Promise<void> {
  const raw = rawValues(options);
  const settings = parseRunSettings({ ...raw, ...(suite ? {} : { suite: options.suite ?? "tau" }) }, "cli", suite);
  const values = settings.values;
  const policy = await livePolicy(values);
  const names = [values.agentStrategy, values.userStrategy].filter((name): name is string => typeof name === "string");
  const registries = await loadRegistries({ names, models: Boolean(values.model || values.userModel), tau2: settings.suite === "tau2", tauBench: settings.suite !== "tau2" });
  const plugin = registries.suites.get(settings.suite);
  const { createProgressObserver } = await import("./progress.ts");
  // Everything the settings hold that is secret (endpoints' credentials, LLM arguments' keys and headers, the key variables' values): never printed.
  const secrets = runSecrets(values);
  // Log lines (--log-level below ERROR) would tear a redrawn bar: the progress is then status lines too.
  const logging = typeof values.logLevel === "string" && values.logLevel.trim().toUpperCase() !== "ERROR" && values.logLevel.trim().toUpperCase() !== "CRITICAL";
  const progress = createProgressObserver({ quiet: values.quiet as boolean, secrets, lines: logging });
  // Every path the run is given, before the first episode (one line naming the flag, exit 2).
  checkRunPaths(settings, progress.warn);
  // --workers: the worker processes start now and build the run while this process builds its own.
  // --queue: the jobs go to the workers of a queue in Redis (checked and probed before anything runs).
  const queue =
    values.queue || values.providerLimit || values.rateLimit
      ? await (await import("../queue/queue-run.ts")).startQueueRun({ settings, raw, surface: "cli", registries, warn: progress.warn })
      : undefined;
  // A queued run's replies come back in the suite's wire form, checked with zod (its CommonJS build,
  // loaded on first use: `data/lazy-zod.ts`): loaded now, before the run is announced, rather than at the
  // first reply, inside the run's window, when the workers want the cores (≈ 0.1 s of CPU, more under load).
  if (queue) (await import("../data/lazy-zod.ts")).zod();
  // (--queue and --workers are refused together, so at most one of them is started.)
  const workers = values.workers ? (await import("../local-workers/local-workers.ts")).startLocalWorkers({ settings, raw, surface: "cli", registries, warn: progress.warn }) : undefined;
  let ran: Awaited<ReturnType<typeof withInterrupts<SuiteRunOutcome>>>;
  try {
    ran = await withInterrupts((signal) =>
      plugin.run({ settings, registries, signal: queue ? AbortSignal.any([signal, queue.cancelled]) : signal, progress, warn: progress.warn, taskSource: workers?.source ?? queue?.source }),
    ).finally(() => progress.stop());
  } finally {
    await workers?.close();
    await queue?.close();
  }
  await report(ran.value, settings, ran.interrupted || queue?.cancelled.aborted === true, secrets, policy, plugin);
}

/** Adds `run` and `tau2 run` to the program. */
export function registerRunCommands(program: Command, loadRegistries: LoadRegistries): void {
  const run = program
    .command("run")
    .description("Run episodes and print the leaderboard table. With no options it runs our bundled library domain offline (oracle agent, scripted user); --suite tau2 runs τ²-bench.");
  addRunFlags(run, undefined);
  run.action((options: Record<string, unknown>) => runAction(options, undefined, loadRegistries));

  const tau2 = program.command("tau2").description("τ²-bench with tau2's own command line (`taubridge tau2 run --domain airline …`): the same as `taubridge run --suite tau2`");
  const tau2Run = tau2.command("run").description("Run τ²-bench simulations and write a τ² results file (resumes a file of the same run). Offline: --agent oracle --user scripted");
  addRunFlags(tau2Run, "tau2");
  tau2Run.action((options: Record<string, unknown>) => runAction(options, "tau2", loadRegistries));
}
