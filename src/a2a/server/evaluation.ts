/**
 * One evaluation: an A2A agent run through the run layer (`runBenchmarkWith`) on τ-bench or τ², with
 * a result sink that turns each finished simulation into a progress report and a line of the store,
 * a heartbeat when nothing else was said for a while, and a result (the AgentBeats τ² green agent's
 * field names, plus pass^k, cost, terminations and the A2A measurements) at the end — also when it
 * was canceled or the server restarted in the middle (partial results are kept, never dropped).
 */
import { join } from "node:path";
import { runBenchmarkWith, type BenchmarkEpisode, type BenchmarkResult } from "../../api/run-benchmark.ts";
import type { ResultSink } from "../../core/run.ts";
import { TaubridgeError, describeError, errorMarker } from "../../errors/error-tree.ts";
import { protocolSummary, type ProtocolSummary } from "../../report/protocol-summary.ts";
import { suiteOf, type Registries } from "../../run/registries.ts";
import { taubridgeVersion } from "../../run/run-identity.ts";
import type { RunOptions } from "../../run/run-flags.ts";
import { appendJsonLine, readJsonLines } from "./store.ts";
import type { RunEvaluationArguments } from "./routing.ts";

/** What the server decides for every evaluation (from its command line). */
export interface EvaluationLimits {
  /** τ²'s data root (`--data-dir`) and τ-bench's (`--tau-bench-data-dir`). */
  tau2DataDir?: string;
  tauBenchDataDir?: string;
  /** Hosts the agent (and a caller-given user-LLM endpoint) may be on (`--allow-agent-host`). */
  allowAgentHosts: readonly string[];
  /** Simulations running at once in one evaluation, at most. */
  maxConcurrency: number;
  /** Tasks × trials of one evaluation, at most. */
  maxSimulations: number;
  /** Seconds between heartbeats at most (≤ 20 for AgentBeats' proxies). */
  heartbeatSeconds: number;
}

/** One finished simulation, as the store's log and the progress reports have it. */
export interface SimulationLine extends BenchmarkEpisode {
  /** Seconds since the evaluation started. */
  at: number;
}

/** Where an evaluation says what it is doing (the executor turns these into A2A events). */
export interface EvaluationReporter {
  /** A `working` status update; a heartbeat reuses one message id, so the task's history keeps one. */
  progress(text: string, metadata: Record<string, unknown>, heartbeat: boolean): void;
}

/** The end of an evaluation, for the final artifact and state. */
export interface EvaluationOutcome {
  state: "completed" | "canceled" | "failed";
  text: string;
  /** The result's data part (absent when the evaluation failed before its first simulation). */
  data?: Record<string, unknown>;
}

/** The name of a credential the server holds for agents (`agent_credential`). */
export const credentialVariable = (name: string) => `TAUBRIDGE_A2A_CREDENTIAL_${name.toUpperCase()}`;

/** `openai/gpt-4.1` → provider `openai`, model `gpt-4.1` (τ-bench's flags); a name without a known prefix is the model. */
function userModelOptions(args: RunEvaluationArguments): Record<string, unknown> {
  if (!args.user_llm) return {};
  const apiBase = typeof args.user_llm_args?.api_base === "string" ? args.user_llm_args.api_base : undefined;
  const [prefix, ...rest] = args.user_llm.split("/");
  const known = rest.length > 0 && ["openai", "openrouter", "anthropic", "vllm", "ollama"].includes(prefix);
  return {
    userModel: known ? rest.join("/") : args.user_llm,
    userModelProvider: apiBase ? "openai-compatible" : known ? prefix : "openai",
    ...(apiBase ? { userBaseUrl: apiBase } : {}),
  };
}

/** The agent options of the A2A client (the flags' folded form), the allow-list always included. */
function agentOptions(args: RunEvaluationArguments, limits: EvaluationLimits): Record<string, string> {
  const a2a = args.a2a ?? {};
  return {
    endpoint: args.agent_url,
    allowHosts: limits.allowAgentHosts.join(","),
    ...(a2a.profile ? { profile: a2a.profile } : {}),
    ...(a2a.version ? { version: a2a.version } : {}),
    ...(a2a.mode ? { mode: a2a.mode } : {}),
    ...(a2a.timeout_s ? { timeout: String(a2a.timeout_s) } : {}),
    ...(a2a.rpc_url ? { rpcUrl: a2a.rpc_url } : {}),
    ...(args.agent_credential ? { tokenEnv: credentialVariable(args.agent_credential) } : {}),
  };
}

/** The run options of an evaluation: the A2A agent strategy, the request's selection and budgets, the server's caps. */
export function runOptionsOf(args: RunEvaluationArguments, directory: string, limits: EvaluationLimits): RunOptions {
  const concurrency = Math.min(args.max_concurrency ?? limits.maxConcurrency, limits.maxConcurrency);
  const common = {
    agentOption: agentOptions(args, limits),
    numTrials: args.num_trials ?? 1,
    maxConcurrency: concurrency,
    ...(args.max_steps !== undefined ? { maxSteps: args.max_steps } : {}),
    ...(args.seed !== undefined ? { seed: args.seed } : {}),
    episodeRetries: 0,
    resume: true,
  };
  if ((args.suite ?? "tau2") === "tau-bench") {
    return {
      ...common,
      env: args.domain,
      agentStrategy: "a2a",
      ...(limits.tauBenchDataDir ? { dataDir: limits.tauBenchDataDir } : {}),
      userStrategy: args.user ?? (args.user_llm ? "llm" : "scripted"),
      ...userModelOptions(args),
      ...(args.task_split ? { taskSplit: args.task_split } : {}),
      ...(args.task_ids ? { taskIds: args.task_ids } : {}),
      ...(args.num_tasks !== undefined && !args.task_ids ? { endIndex: args.num_tasks } : {}),
      logDir: directory,
    } as RunOptions;
  }
  return {
    ...common,
    suite: "tau2",
    domain: args.domain,
    agent: "a2a_agent",
    ...(limits.tau2DataDir ? { dataDir: limits.tau2DataDir } : {}),
    user: args.user ?? "user_simulator",
    ...(args.user_llm ? { userLlm: args.user_llm } : {}),
    ...(args.user_llm_args ? { userLlmArgs: args.user_llm_args } : {}),
    ...(args.task_split ? { taskSplitName: args.task_split } : {}),
    ...(args.task_set_name ? { taskSetName: args.task_set_name } : {}),
    ...(args.task_ids ? { taskIds: args.task_ids.map(String) } : {}),
    ...(args.num_tasks !== undefined ? { numTasks: args.num_tasks } : {}),
    ...(args.max_errors !== undefined ? { maxErrors: args.max_errors } : {}),
    saveTo: join(directory, "results.json"),
  } as RunOptions;
}

/** Per-task rewards, pass rate and the rest of the result's data part. */
function resultData(
  evaluationId: string,
  args: RunEvaluationArguments,
  result: BenchmarkResult | null,
  episodes: readonly BenchmarkEpisode[],
  timing: { startedAt: string; seconds: number },
  protocol: ProtocolSummary | null,
  complete: boolean,
) {
  const byTask = new Map<string, number[]>();
  for (const episode of episodes) {
    const key = String(episode.taskId);
    byTask.set(key, [...(byTask.get(key) ?? []), episode.reward]);
  }
  const scored = episodes.filter((episode) => episode.termination !== "infra_error");
  const score = scored.reduce((sum, episode) => sum + episode.reward, 0);
  const terminations: Record<string, number> = {};
  for (const episode of episodes) terminations[episode.termination ?? "unknown"] = (terminations[episode.termination ?? "unknown"] ?? 0) + 1;
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  return {
    evaluation_id: evaluationId,
    harness: "taubridge",
    harness_version: taubridgeVersion(),
    suite: args.suite ?? "tau2",
    domain: args.domain,
    // AgentBeats' τ² green agent's fields:
    score,
    max_score: scored.length,
    pass_rate: scored.length > 0 ? (score / scored.length) * 100 : 0,
    task_rewards: Object.fromEntries([...byTask].map(([task, rewards]) => [task, mean(rewards)])),
    time_used: timing.seconds,
    // And the rest:
    complete,
    avg_reward: result ? result.metrics.avgReward : scored.length > 0 ? score / scored.length : null,
    pass_hat_k: result ? result.metrics.passK : {},
    num_tasks: byTask.size,
    num_trials: args.num_trials ?? 1,
    num_simulations: episodes.length,
    expected_simulations: result?.expectedEpisodes ?? null,
    success_count: episodes.filter((episode) => episode.reward >= 1 - 1e-6).length,
    infra_errors: episodes.length - scored.length,
    termination_reasons: terminations,
    cost: result ? result.metrics.cost : null,
    per_task: [...byTask].map(([task, rewards]) => ({ task_id: task, rewards })),
    agent: { url: args.agent_url, ...(protocol ? { protocol_versions: protocol.versions } : {}) },
    a2a_metrics: protocol,
    config: args,
    started_at: timing.startedAt,
    finished_at: new Date().toISOString(),
  };
}

function summaryText(data: ReturnType<typeof resultData>, state: string): string {
  const lines = [
    `taubridge evaluation ${data.evaluation_id} (${state})`,
    `Suite: ${data.suite}, domain: ${data.domain}, agent: ${data.agent.url}`,
    `Simulations: ${data.num_simulations}${data.expected_simulations !== null ? ` of ${data.expected_simulations}` : ""} over ${data.num_tasks} task(s); pass rate ${data.pass_rate.toFixed(1)}% (${data.score}/${data.max_score})`,
    `pass^k: ${
      Object.entries(data.pass_hat_k)
        .map(([k, value]) => `${k}=${value === null ? "n/a" : Number(value).toFixed(3)}`)
        .join(", ") || "n/a"
    }; time ${data.time_used.toFixed(1)} s`,
    ...data.per_task.map((task) => `  ${task.task_id}: ${task.rewards.map((reward) => (reward >= 1 - 1e-6 ? "✓" : "✗")).join("")} (${task.rewards.join(", ")})`),
  ];
  return lines.join("\n");
}

/** The sink the run layer appends each finished simulation to: a progress report and a line of the store. */
class EvaluationSink implements Pick<ResultSink<BenchmarkEpisode>, "append" | "flush"> {
  done: number;

  constructor(
    private readonly logPath: string,
    private readonly started: number,
    private readonly total: () => number | null,
    private readonly report: EvaluationReporter,
    already: number,
  ) {
    this.done = already;
  }

  append(episode: BenchmarkEpisode): void {
    this.done++;
    const line: SimulationLine = { ...episode, at: (performance.now() - this.started) / 1000 };
    try {
      appendJsonLine(this.logPath, line);
    } catch {
      // The store is written again at the end; a failed line must not stop the run.
    }
    const total = this.total();
    const text = `[${this.done}${total !== null ? `/${total}` : ""}] task ${episode.taskId} trial ${episode.trial}: reward ${episode.reward} (${episode.termination ?? "n/a"})${episode.error ? ` — ${episode.error.split("\n")[0]}` : ""}`;
    this.report.progress(
      text,
      { progress: { completed: this.done, total, last: { task_id: String(episode.taskId), trial: episode.trial, reward: episode.reward, termination: episode.termination } } },
      false,
    );
  }

  flush(): void {}
}

/**
 * Runs one evaluation to its end (completed, canceled or failed) and returns what the last event
 * says; never throws. `signal` cancels: running simulations stop, none starts, partial results stay.
 */
export async function runEvaluation(input: {
  evaluationId: string;
  args: RunEvaluationArguments;
  directory: string;
  registries: Registries;
  limits: EvaluationLimits;
  signal: AbortSignal;
  report: EvaluationReporter;
  log?: (line: string) => void;
}): Promise<EvaluationOutcome> {
  const { evaluationId, args, directory, registries, limits, signal, report } = input;
  const startedAt = new Date().toISOString();
  const started = performance.now();
  const logPath = join(directory, "episodes.jsonl");
  const earlier = readJsonLines<SimulationLine>(logPath);
  let expected: number | null = null;
  let lastSaid = performance.now();
  const say: EvaluationReporter = {
    progress: (text, metadata, heartbeat) => {
      lastSaid = performance.now();
      report.progress(text, metadata, heartbeat);
    },
  };
  const sink = new EvaluationSink(logPath, started, () => expected, say, earlier.length);
  const intervalMs = limits.heartbeatSeconds * 1000;
  // A heartbeat whenever nothing was said for half the interval, checked five times per interval:
  // the longest silence is about 0.6 of the interval, leaving the rest for a busy event loop.
  const heartbeat = setInterval(() => {
    if (performance.now() - lastSaid < intervalMs * 0.5) return;
    say.progress(`still evaluating: ${sink.done}${expected !== null ? `/${expected}` : ""} simulation(s) finished`, { heartbeat: true, progress: { completed: sink.done, total: expected } }, true);
  }, intervalMs / 5);
  heartbeat.unref();
  const warnings: string[] = [];
  say.progress(
    `evaluating ${args.agent_url} on ${args.suite ?? "tau2"} ${args.domain}${earlier.length > 0 ? ` (resumed: ${earlier.length} simulation(s) kept)` : ""}`,
    { progress: { completed: earlier.length, total: null } },
    false,
  );
  let result: BenchmarkResult | null = null;
  let failure: unknown;
  let tooLarge: EvaluationTooLargeError | undefined;
  try {
    result = await runBenchmarkWith(registries, runOptionsOf(args, directory, limits), {
      signal,
      sink,
      warn: (message) => {
        warnings.push(message);
        input.log?.(`[${evaluationId}] ${message}`);
      },
      taskSource: (pending) => {
        expected = pending.length + earlier.length;
        // Refused here, once the suite has counted the selection: nothing runs, the run closes as usual.
        if (expected > limits.maxSimulations) {
          tooLarge = new EvaluationTooLargeError(expected, limits.maxSimulations);
          return inOrder([]);
        }
        return inOrder(pending);
      },
    });
  } catch (error) {
    failure = error;
  }
  // The heartbeat goes on while the result is put together (reading the results file back takes a while).
  try {
    return await finishEvaluation();
  } finally {
    clearInterval(heartbeat);
  }

  async function finishEvaluation(): Promise<EvaluationOutcome> {
    if (tooLarge) return { state: "failed", text: tooLarge.message };
    const seconds = (performance.now() - started) / 1000;
    const episodes = result ? result.episodes : readJsonLines<SimulationLine>(logPath);
    let protocol: ProtocolSummary | null = null;
    if (result) {
      try {
        const suite = suiteOf(registries, result.suite);
        const dataDir = result.suite === "tau2" ? limits.tau2DataDir : limits.tauBenchDataDir;
        protocol = protocolSummary((await suite.readResults({ path: result.resultsPath, registries, env: args.domain, ...(dataDir ? { dataDir } : {}) })).records());
      } catch (error) {
        warnings.push(`the A2A measurements could not be read back: ${describeError(error)}`);
      }
    }
    if (failure !== undefined && episodes.length === 0) return { state: signal.aborted ? "canceled" : "failed", text: failureText(failure, signal) };
    const complete = failure === undefined && !signal.aborted && result !== null && !result.interrupted;
    const data = { ...resultData(evaluationId, args, result, episodes, { startedAt, seconds }, protocol, complete), ...(warnings.length > 0 ? { warnings } : {}) };
    const state = signal.aborted ? "canceled" : failure !== undefined ? "failed" : "completed";
    const text = failure !== undefined && !signal.aborted ? `${failureText(failure, signal)}\n${summaryText(data, state)}` : summaryText(data, state);
    return { state, text, data };
  }
}

/** An in-process task source over the pending units (the server only counts them first, to refuse an oversized evaluation). */
function inOrder(pending: readonly import("../../core/run.ts").WorkUnit[]) {
  const queue = [...pending];
  return { lease: async () => queue.shift() ?? null, complete: async () => undefined, fail: async () => undefined };
}

/** More simulations than the server allows in one evaluation. */
export class EvaluationTooLargeError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("EvaluationTooLargeError");

  constructor(
    readonly requested: number,
    readonly limit: number,
  ) {
    super(`the evaluation has ${requested} simulations; this server runs at most ${limit} in one evaluation (--max-simulations): select fewer tasks or trials`);
  }
}

function failureText(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return "canceled before any simulation finished";
  return `the evaluation failed: ${error instanceof Error ? error.message : String(error)}`;
}
