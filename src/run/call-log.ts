/**
 * A run's logs, for both suites (τ²'s `--log-level`, `--verbose-logs`, `--llm-log-mode`):
 *
 * - **console lines** on stderr at a level: `DEBUG` one line per model call (role, model, status,
 *   latency, tokens, cost), `INFO` one per episode started and ended, `WARNING` each model-call
 *   retry, `ERROR` (the default) nothing beyond what a run always prints;
 * - **per-call files** (`--verbose-logs`): every model request and its response (or error), one
 *   JSON file per call, in a folder per episode under the results:
 *   `<artifacts>/task_<id>/trial_<n>/llm_debug/<time>_<role>_<call id>.json`; `--llm-log-mode latest`
 *   (the default, as τ²'s) keeps only each role's most recent call per episode, `all` keeps every one.
 *
 * Nothing written holds a secret: the run's known secrets and credential shapes are redacted
 * (`src/secrets`), messages as content, parameters and endpoints as settings.
 *
 * How a call finds its episode: the suite runs each episode inside {@link inEpisodeLog}, an
 * `AsyncLocalStorage` scope that the run layer's model clients read when a call ends. A run that
 * logs nothing never enters a scope, so its model calls pay one boolean test.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../errors/error-tree.ts";
import { redactContent, redactText, redactValue } from "../secrets/redact.ts";

/** The console levels, most verbose first (τ²'s loguru names; `TRACE`, `SUCCESS`, `CRITICAL` are taken as their neighbours). */
export const LOG_LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const LEVEL_ALIASES: Readonly<Record<string, LogLevel>> = { TRACE: "DEBUG", SUCCESS: "INFO", WARN: "WARNING", CRITICAL: "ERROR" };

/** A `--log-level` value as a level (case-insensitive); a one-line error lists the known ones. */
export function parseLogLevel(text: string): LogLevel {
  const upper = text.trim().toUpperCase();
  if ((LOG_LEVELS as readonly string[]).includes(upper)) return upper as LogLevel;
  const alias = LEVEL_ALIASES[upper];
  if (alias) return alias;
  throw new ConfigError(`--log-level must be one of ${LOG_LEVELS.join(", ")} (or TRACE, SUCCESS, CRITICAL), got "${text}"`);
}

/** The `--llm-log-mode` values: every call, or each role's latest per episode. */
export const LLM_LOG_MODES = ["latest", "all"] as const;
export type LlmLogMode = (typeof LLM_LOG_MODES)[number];

export interface RunLogOptions {
  level: LogLevel;
  /** Per-call files under {@link RunLogOptions.artifactsDirectory}. */
  verbose: boolean;
  mode: LlmLogMode;
  /** Where episode folders go (τ²: `artifacts/` beside `results.json`; τ-bench: `<stem>.artifacts/` in the log dir). */
  artifactsDirectory: string;
  /** What the run knows to be secret. */
  secrets: readonly string[];
  /** Where console lines go (default: stderr). */
  write?: (line: string) => void;
}

/** One run's logging: its level, its per-call files, its secrets. */
export class RunLog {
  readonly level: LogLevel;
  readonly verbose: boolean;
  readonly mode: LlmLogMode;
  readonly artifactsDirectory: string;
  private readonly secrets: readonly string[];
  private readonly write: (line: string) => void;

  constructor(options: RunLogOptions) {
    this.level = options.level;
    this.verbose = options.verbose;
    this.mode = options.mode;
    this.artifactsDirectory = options.artifactsDirectory;
    this.secrets = options.secrets;
    this.write = options.write ?? ((line) => process.stderr.write(line));
  }

  /** Whether lines of this level are printed. */
  enabled(level: LogLevel): boolean {
    return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(this.level);
  }

  /** Prints one redacted line when the level is enabled. */
  log(level: LogLevel, text: string): void {
    if (this.enabled(level)) this.write(`[taubridge] ${level} ${redactText(text, this.secrets)}\n`);
  }

  /** Redacts a value written to a per-call file: messages and answers as content, the rest as settings. */
  redactRecord(record: CallRecord): CallRecord {
    return {
      ...record,
      endpoint: redactValue(record.endpoint, this.secrets),
      request: { ...redactValue({ ...record.request, messages: undefined }, this.secrets), messages: redactContent(record.request.messages, this.secrets) },
      response: redactContent(record.response, this.secrets),
      error: record.error ? { ...record.error, message: redactText(record.error.message, this.secrets) } : null,
    };
  }
}

/**
 * The run's log, or none when it would print and write nothing (`ERROR` and no `--verbose-logs`):
 * then no scope is ever entered and model calls skip logging entirely.
 */
export function createRunLog(options: RunLogOptions): RunLog | undefined {
  if (options.level === "ERROR" && !options.verbose) return undefined;
  return new RunLog(options);
}

/** A run's log settings, from its flags. */
export interface RunLogSettings {
  level: LogLevel;
  verbose: boolean;
  mode: LlmLogMode;
}

/** The log settings of a run's flag values (`logLevel`, `verboseLogs`, `llmLogMode`), both suites. */
export function runLogSettings(values: Readonly<Record<string, unknown>>): RunLogSettings {
  const level = parseLogLevel(typeof values.logLevel === "string" ? values.logLevel : "ERROR");
  const mode = values.llmLogMode === "all" ? "all" : "latest";
  return { level, verbose: values.verboseLogs === true, mode };
}

/** What one per-call file holds. */
export interface CallRecord {
  call_id: string;
  /** The role: `agent`, `user`, `judge`, `embedder`, `reranker`. */
  call_name: string;
  timestamp: string;
  task_id: string | null;
  trial: number | null;
  endpoint: { provider: string; model: string; base_url: string };
  request: { messages: unknown; tools?: unknown; tool_choice?: unknown; temperature?: unknown; params?: unknown };
  response: { message: unknown; usage: unknown; cost: number | null; finish_reason: unknown; latency_ms: number; attempts: number; cached: boolean } | null;
  error: { name: string; message: string; status: number | null } | null;
}

interface LogScope {
  log: RunLog;
  taskId: string | null;
  trial: number | null;
  /** `task 3 trial 0: ` (empty outside an episode). */
  label: string;
  /** The episode's `llm_debug` folder (made on its first call). */
  directory: string | undefined;
  made: boolean;
  /** `latest` mode: each role's last file. */
  latest: Map<string, string>;
}

const scopes = new AsyncLocalStorage<LogScope>();
/** Set once a scope was entered in this process: until then a model call does not even look for one. */
let anyScope = false;

/** Folder-safe spelling of a task id (τ²'s ids hold brackets, colons and spaces). */
function folderName(text: string): string {
  return text.replace(/[^A-Za-z0-9._\-[\]]+/g, "_").slice(0, 120);
}

/** Runs `body` with the run's log in scope (calls outside an episode: an index built before the first one). */
export function inRunLog<T>(log: RunLog | undefined, body: () => Promise<T>): Promise<T> {
  if (!log) return body();
  anyScope = true;
  const directory = log.verbose ? join(log.artifactsDirectory, "run", "llm_debug") : undefined;
  return scopes.run({ log, taskId: null, trial: null, label: "", directory, made: false, latest: new Map() }, body);
}

/**
 * Runs one episode inside its log scope: its model calls are logged under
 * `task_<id>/trial_<n>/llm_debug`, and at `INFO` its start and end are printed (`ended` says how).
 */
export async function inEpisodeLog<T>(log: RunLog | undefined, episode: { taskId: string | number; trial: number }, body: () => Promise<T>, ended?: (result: T) => string): Promise<T> {
  if (!log) return body();
  anyScope = true;
  const taskId = String(episode.taskId);
  const label = `task ${taskId} trial ${episode.trial}: `;
  const directory = log.verbose ? join(log.artifactsDirectory, `task_${folderName(taskId)}`, `trial_${episode.trial}`, "llm_debug") : undefined;
  const scope: LogScope = { log, taskId, trial: episode.trial, label, directory, made: false, latest: new Map() };
  return scopes.run(scope, async () => {
    const started = performance.now();
    log.log("INFO", `${label}started`);
    try {
      const result = await body();
      log.log("INFO", `${label}ended in ${Math.round(performance.now() - started)} ms${ended ? `: ${ended(result)}` : ""}`);
      return result;
    } catch (error) {
      log.log("WARNING", `${label}failed after ${Math.round(performance.now() - started)} ms: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
  });
}

/** The log scope of the code running now, if a run logs. */
function currentScope(): LogScope | undefined {
  return anyScope ? scopes.getStore() : undefined;
}

/** Whether a model call made now is logged (the run layer's clients ask before timing a call). */
export function callLogActive(): boolean {
  return currentScope() !== undefined;
}

/** What the run layer knows of one finished model call. */
export interface ModelCallOutcome {
  role: string;
  endpoint: { provider: string; model: string; baseURL: string };
  request: { messages: unknown; tools?: unknown; toolChoice?: unknown; temperature?: unknown; params?: unknown };
  result?: { message: unknown; usage: { promptTokens: number; completionTokens: number }; cost: number | null; finishReason?: unknown; latencyMs: number; attempts: number; cached: boolean };
  error?: unknown;
  /** When the call started (`Date.now()`). */
  startedAt: number;
}

/** Logs one finished model call in the current scope: a `DEBUG` line, and a file with `--verbose-logs`. */
export function recordModelCall(outcome: ModelCallOutcome): void {
  const scope = currentScope();
  if (!scope) return;
  const { log } = scope;
  const ms = Date.now() - outcome.startedAt;
  const what = `${scope.label}${outcome.role} model "${outcome.endpoint.model}"`;
  if (outcome.result) {
    const { usage, cost, cached } = outcome.result;
    log.log("DEBUG", `${what}: ${cached ? "cached" : "answered"} in ${ms} ms, ${usage.promptTokens}→${usage.completionTokens} tokens, cost ${cost === null ? "unknown" : `$${cost.toFixed(6)}`}`);
  } else {
    log.log("DEBUG", `${what}: failed after ${ms} ms: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`);
  }
  if (scope.directory) writeCallFile(scope, outcome);
}

/** Logs a model call about to be retried (`WARNING`). */
export function recordRetry(role: string, model: string, info: { attempt: number; error: unknown; delayMs: number }): void {
  const scope = currentScope();
  if (!scope) return;
  const reason = info.error instanceof Error ? info.error.message : String(info.error);
  scope.log.log("WARNING", `${scope.label}${role} model "${model}": attempt ${info.attempt} failed (${reason}); retrying in ${(info.delayMs / 1000).toFixed(1)} s`);
}

function writeCallFile(scope: LogScope, outcome: ModelCallOutcome): void {
  const directory = scope.directory as string;
  const callId = randomUUID().slice(0, 8);
  const stamp = new Date(outcome.startedAt).toISOString().replace(/[-:]/g, "").replace("T", "_").replace(/\..*$/, "");
  const file = join(directory, `${stamp}_${String(outcome.startedAt % 1000).padStart(3, "0")}_${outcome.role}_${callId}.json`);
  const { result, error } = outcome;
  const status = (error as { status?: unknown } | undefined)?.status;
  const record: CallRecord = {
    call_id: callId,
    call_name: outcome.role,
    timestamp: new Date(outcome.startedAt).toISOString(),
    task_id: scope.taskId,
    trial: scope.trial,
    endpoint: { provider: outcome.endpoint.provider, model: outcome.endpoint.model, base_url: outcome.endpoint.baseURL },
    request: {
      messages: outcome.request.messages,
      ...(outcome.request.tools !== undefined ? { tools: outcome.request.tools } : {}),
      ...(outcome.request.toolChoice !== undefined ? { tool_choice: outcome.request.toolChoice } : {}),
      ...(outcome.request.temperature !== undefined ? { temperature: outcome.request.temperature } : {}),
      ...(outcome.request.params !== undefined ? { params: outcome.request.params } : {}),
    },
    response: result
      ? {
          message: result.message,
          usage: result.usage,
          cost: result.cost,
          finish_reason: result.finishReason ?? null,
          latency_ms: Math.round(result.latencyMs),
          attempts: result.attempts,
          cached: result.cached,
        }
      : null,
    error: error ? { name: error instanceof Error ? error.name : "Error", message: error instanceof Error ? error.message : String(error), status: typeof status === "number" ? status : null } : null,
  };
  try {
    if (!scope.made) {
      mkdirSync(directory, { recursive: true });
      scope.made = true;
    }
    writeFileSync(file, `${JSON.stringify(scope.log.redactRecord(record), null, 2)}\n`);
    if (scope.log.mode === "latest") {
      const previous = scope.latest.get(outcome.role);
      if (previous) rmSync(previous, { force: true });
      scope.latest.set(outcome.role, file);
    }
  } catch (writeError) {
    // A log that cannot be written must not fail the evaluation; it says so once per episode, at any level.
    scope.log.log("ERROR", `${scope.label}cannot write the model call log ${file}: ${(writeError as Error).message}`);
    scope.directory = undefined;
  }
}
