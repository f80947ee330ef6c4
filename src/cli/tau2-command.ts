/**
 * `taubridge tau2 run …`: τ²-bench's `tau2 run` command line, so replacing `tau2` by
 * `taubridge tau2` in a script just works (spec §7.2). Flag names, meanings and defaults are τ²'s;
 * `--data-dir` and the judge's model flags are ours. τ²'s flags for features taubridge does not
 * have (voice, reviews, worker processes, log settings) are refused by name rather than ignored.
 */
import { type Command, Option } from "commander";
import { ConfigError } from "../core/errors.ts";
import type { Registries } from "../run/registries.ts";
import { EXIT_CODES } from "./exit-codes.ts";
import { withInterrupts } from "./interrupt.ts";
import type { Tau2Progress } from "../suites/tau2/batch.ts";

/** Loads the registries; `agent` is the `--agent` name (a taubridge strategy such as an adapter needs the full set). */
type LoadRegistries = (agent: string) => Promise<Registries>;

function integer(name: string, min: number) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min) throw new ConfigError(`${name} must be an integer ≥ ${min}, got "${value}"`);
    return parsed;
  };
}

function number(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < 0) throw new ConfigError(`${name} must be a non-negative number, got "${value}"`);
    return parsed;
  };
}

function jsonObject(name: string) {
  return (value: string): Record<string, unknown> => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new ConfigError(`${name} must be a JSON object, e.g. '{"temperature": 0.0}'; got ${value}`);
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new ConfigError(`${name} must be a JSON object; got ${value}`);
    return parsed as Record<string, unknown>;
  };
}

/** Repeatable `key=value` options. */
function collectOptions(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  const at = value.indexOf("=");
  if (at <= 0) throw new ConfigError(`--agent-option takes key=value, got "${value}"`);
  return { ...(previous ?? {}), [value.slice(0, at)]: value.slice(at + 1) };
}

/** τ² flags we do not support, with why (the README lists them too). */
const UNSUPPORTED: Array<[string, string]> = [
  ["--workers <n>", "worker processes: taubridge runs simulations concurrently in one process (--max-concurrency)"],
  ["--provider-limit <limits>", "per-provider caps: use --max-concurrency"],
  ["--log-level <level>", "taubridge prints progress on stderr (--quiet to silence)"],
  ["--verbose-logs", "no per-call log files"],
  ["--llm-log-mode <mode>", "no per-call log files"],
  ["--user-persona <json>", "τ³ runtime personas are not implemented"],
  ["--auto-review", "LLM reviews of trajectories are not implemented"],
  ["--audio-native", "voice (full-duplex) mode is not implemented"],
];

/** Adds `tau2 run` to the program. */
export function registerTau2Command(program: Command, loadRegistries: LoadRegistries): Command {
  const tau2 = program.command("tau2").description("τ²-bench: run with tau2's own command line (`taubridge tau2 run --domain airline …`)");
  const run = tau2
    .command("run")
    .description("Run τ²-bench simulations and write a τ² results file (resumes a file that exists). Offline: --agent oracle --user scripted")
    .requiredOption("-d, --domain <domain>", "mock, airline, retail, telecom, telecom-workflow")
    .option("--agent <name>", "agent implementation (oracle: replays the ground truth)", "llm_agent")
    .option("--user <name>", "user implementation (scripted: the oracle's counterpart)", "user_simulator")
    .option("--agent-llm <model>", "the agent's model", "gpt-4.1-2025-04-14")
    .option("--user-llm <model>", "the user simulator's model", "gpt-4.1-2025-04-14")
    .option("--agent-llm-args <json>", "the agent's LLM arguments", jsonObject("--agent-llm-args"), { temperature: 0.0 })
    .option("--user-llm-args <json>", "the user simulator's LLM arguments", jsonObject("--user-llm-args"), { temperature: 0.0 })
    .option("--num-trials <n>", "trials per task", integer("--num-trials", 1), 1)
    .option("--num-tasks <n>", "the first N tasks after split and id filtering", integer("--num-tasks", 1))
    .option("--task-ids <ids...>", "only these task ids")
    .option("--task-set-name <name>", "task set (default: the domain's; also telecom_full, telecom_small)")
    .option("--task-split-name <split>", "task split (split_tasks.json)", "base")
    .option("--max-steps <n>", "hops before the run ends as max_steps", integer("--max-steps", 1), 200)
    .option("--max-errors <n>", "tool errors (over the whole run) before it ends as too_many_errors", integer("--max-errors", 1), 10)
    .option("--max-concurrency <n>", "simulations run at once", integer("--max-concurrency", 1), 3)
    .option("--seed <n>", "seed the per-trial seeds derive from (Python's random, as tau2)", integer("--seed", 0), 300)
    .option("--save-to <name>", "results file: a path (…/x.json), or a name for ./simulations/<name>/results.json")
    .option("--timeout <seconds>", "per-simulation wall-clock limit, checked after each hop", number("--timeout"))
    .option("--max-retries <n>", "retries of a crashed simulation before it is saved as infrastructure_error", integer("--max-retries", 0), 3)
    .option("--retry-delay <seconds>", "wait before a retry", number("--retry-delay"), 1.0)
    .option("--enforce-communication-protocol", "a message with both text and tool calls ends the run as agent_error / user_error (off, as in tau2)", false)
    .option("--auto-resume", "accepted for compatibility: an existing results file with the same settings is always resumed")
    .option("--no-resume", "start over instead of resuming an existing results file")
    .option("--accept-changes", "resume even though what decides outcomes (options, task set, data, agent files, taubridge version) changed since the stored run", false)
    .option("--data-dir <dir>", "the τ² data root (default: $TAUBRIDGE_DATA_DIR, then the cache `taubridge data pull tau2-bench` fills)")
    .option("--agent-option <key=value...>", "for taubridge's own agent strategies on τ² (framework adapters, module): module=<path>, export=<name>, mapping=<file>, … (repeatable)", collectOptions)
    .option("--agent-base-url <url>", "OpenAI-compatible endpoint of the agent's model (wins over api_base in --agent-llm-args)")
    .option("--user-base-url <url>", "OpenAI-compatible endpoint of the user simulator's model")
    .option("--agent-provider <name>", "provider of the agent's model (default: from the litellm prefix, else openai; openai-compatible with a base URL)")
    .option("--user-provider <name>", "provider of the user simulator's model")
    .option("--judge-model <model>", "model of the NL-assertion judge (default: τ²'s, read from its config.py)")
    .option("--judge-base-url <url>", "OpenAI-compatible endpoint of the judge")
    .option("--judge-provider <name>", "provider of the judge's model (pricing and API-key variable)", "openai")
    .addOption(new Option("--format <format>", "final report: text or json").choices(["text", "json"]).default("text"))
    .option("--quiet", "no progress lines", false);
  for (const [flag, why] of UNSUPPORTED) run.addOption(new Option(flag, `not supported: ${why}`).hideHelp());
  run.action(async (options: Record<string, unknown>) => {
    for (const [flag, why] of UNSUPPORTED) {
      const key = flag
        .replace(/^--/, "")
        .split(" ")[0]
        .replace(/-([a-z])/g, (_, char: string) => char.toUpperCase());
      if (options[key] !== undefined) throw new ConfigError(`${flag.split(" ")[0]} is not supported by taubridge tau2 run: ${why}`);
    }
    await runTau2Command(options, loadRegistries);
  });
  return tau2;
}

async function runTau2Command(options: Record<string, unknown>, loadRegistries: LoadRegistries): Promise<void> {
  const registries = await loadRegistries(options.agent as string);
  if (!registries.tau2) throw new ConfigError("this installation has no τ²-bench domains registered");
  const [{ buildTau2Run }, { runTau2Batch }, { tau2DataRoot }, { tau2ReportText }, { rewardOf }] = await Promise.all([
    import("../suites/tau2/build.ts"),
    import("../suites/tau2/batch.ts"),
    import("../suites/tau2/data-root.ts"),
    import("../suites/tau2/report.ts"),
    import("../suites/tau2/codec.ts"),
  ]);
  const dataDir = tau2DataRoot(options.dataDir as string | undefined);
  const built = await buildTau2Run(
    {
      domain: options.domain as string,
      agent: options.agent as string,
      user: options.user as string,
      agentLlm: options.agentLlm as string,
      userLlm: options.userLlm as string,
      agentLlmArgs: options.agentLlmArgs as Record<string, unknown>,
      userLlmArgs: options.userLlmArgs as Record<string, unknown>,
      numTrials: options.numTrials as number,
      numTasks: options.numTasks as number | undefined,
      taskIds: options.taskIds as string[] | undefined,
      taskSetName: options.taskSetName as string | undefined,
      taskSplitName: options.taskSplitName as string,
      maxSteps: options.maxSteps as number,
      maxErrors: options.maxErrors as number,
      maxConcurrency: options.maxConcurrency as number,
      seed: options.seed as number,
      saveTo: options.saveTo as string | undefined,
      timeout: (options.timeout as number | undefined) ?? null,
      maxRetries: options.maxRetries as number,
      retryDelay: options.retryDelay as number,
      enforceCommunicationProtocol: options.enforceCommunicationProtocol === true,
      agentOptions: (options.agentOption as Record<string, string> | undefined) ?? {},
      agentBaseUrl: options.agentBaseUrl as string | undefined,
      resume: options.resume !== false,
      acceptChanges: options.acceptChanges === true,
      dataDir,
    },
    registries.tau2,
    { ...(await participantModels(options)), judge: () => judgeModel(options, dataDir) },
  );
  const quiet = options.quiet === true;
  for (const notice of built.notices) process.stderr.write(`[taubridge] warning: ${notice}\n`);
  const kept = [...built.resumed.values()].filter((simulation) => simulation.termination_reason !== "infrastructure_error").length;
  if (!quiet) process.stderr.write(`[taubridge] τ²-bench ${built.options.domain}: ${built.units.length - kept} simulation(s) to run${kept ? `, ${kept} resumed from ${built.outputPath}` : ""}\n`);
  const onProgress: Tau2Progress | undefined = quiet
    ? undefined
    : ({ done, total, record }) =>
        process.stderr.write(
          `[${done}/${total}] task ${record.task_id} trial ${record.trial}: ${record.termination_reason}, reward ${record.reward_info === null ? "-" : rewardOf(record.reward_info).toFixed(2)}\n`,
        );
  const { value: result } = await withInterrupts((signal) => runTau2Batch(built, { signal, onProgress }));
  if (options.format === "json")
    process.stdout.write(
      `${JSON.stringify({ resultsPath: result.outputPath, metrics: result.metrics, judgeUsage: result.judgeUsage, flaggedTasks: result.flags, interrupted: result.interrupted }, null, 2)}\n`,
    );
  else process.stdout.write(`${tau2ReportText(`${built.options.agent} on ${built.options.domain}`, result.metrics, result.flags, result.judgeUsage)}\n📄 Results saved to ${result.outputPath}\n`);
  if (result.interrupted) process.exitCode = EXIT_CODES.interrupted;
  else if (result.metrics.infraErrors > 0) {
    process.stderr.write(
      `taubridge: ${result.metrics.infraErrors} simulation(s) ended in infrastructure errors (not scored); run the same command again to retry them (exit code ${EXIT_CODES.infraErrors})\n`,
    );
    process.exitCode = EXIT_CODES.infraErrors;
  }
}

/** The agent's and user's model clients (made only when a model-driven participant asks). */
async function participantModels(options: Record<string, unknown>) {
  const { createTau2Models } = await import("../suites/tau2/models.ts");
  const role = (prefix: "agent" | "user") => ({
    llm: options[`${prefix}Llm`] as string,
    llmArgs: options[`${prefix}LlmArgs`] as Record<string, unknown>,
    baseUrl: options[`${prefix}BaseUrl`] as string | undefined,
    provider: options[`${prefix}Provider`] as string | undefined,
  });
  const { agent, user } = await createTau2Models({ agent: role("agent"), user: role("user"), judge: null });
  return { agent, user };
}

/** The judge's model client (made only when a selected task needs it): `--judge-model`, else τ²'s default from its config.py. */
async function judgeModel(options: Record<string, unknown>, dataDir: string) {
  const [{ createModelClient }, { readTau2JudgeTemplates }] = await Promise.all([import("../model/model-client.ts"), import("../suites/tau2/judge.ts")]);
  const model = (options.judgeModel as string | undefined) ?? readTau2JudgeTemplates(dataDir).defaultModel;
  return createModelClient({ role: "judge", model, provider: options.judgeProvider as string, baseURL: options.judgeBaseUrl as string | undefined });
}
