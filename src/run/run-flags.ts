/**
 * The run flags, written once for both suites. `taubridge run` (τ-bench's `run.py` flag names),
 * `taubridge run --suite tau2` and `taubridge tau2 run` (τ²'s `tau2 run` names, kept as aliases)
 * build their commander options and `--help` from this table, `runBenchmark` validates its
 * camel-cased options with it, and each suite takes its defaults from it, so a flag's name, type,
 * default and rules cannot drift between the CLI, the API and the suites.
 *
 * Kept free of heavy imports: the CLI reads it at start-up.
 */
import { ConfigError } from "../errors/error-tree.ts";
import { DEFAULT_MODEL_MAX_ATTEMPTS, DEFAULT_MODEL_TIMEOUT_SECONDS } from "../model/defaults.ts";

/** The suites a run can name (`--suite`). */
export const SUITE_NAMES = ["tau-bench", "tau2"] as const;
export type SuiteName = (typeof SUITE_NAMES)[number];

/** How a flag's value is read: the CLI gives strings, the API gives typed values (strings are parsed the CLI way). */
export type RunFlagType = "string" | "integer" | "count" | "number" | "boolean" | "list" | "key-value" | "json-object";

/** The TypeScript type of a flag's value in the API. */
export interface RunFlagValueTypes {
  string: string;
  integer: number;
  /** An integer, or `"auto"` (the machine's cores). */
  count: number | "auto";
  number: number;
  boolean: boolean;
  list: Array<string | number>;
  "key-value": Record<string, string>;
  "json-object": Record<string, unknown>;
}

type FlagValue = string | number | boolean | Record<string, unknown>;

export interface RunFlag {
  /** `--num-trials`; the API option is its camel case (`numTrials`). */
  readonly flag: string;
  /** Other spellings (τ²'s: `--domain` for `--env`); the API also takes their camel case. */
  readonly aliases?: readonly string[];
  /** A one-letter form (`-d`). */
  readonly short?: string;
  readonly type: RunFlagType;
  /** Commander's value placeholder (`<n>`); none for switches. */
  readonly placeholder?: string;
  readonly help: string;
  /** The help `taubridge tau2 run` shows when it differs (τ²'s meaning alone). */
  readonly helpTau2?: string;
  /** The suites that take the flag (default: both); naming it for another suite is a one-line error. */
  readonly suites?: readonly SuiteName[];
  /** Applied when the flag is absent: one value, or one per suite. */
  readonly default?: FlagValue | Readonly<Partial<Record<SuiteName, FlagValue>>>;
  /** What happens when the flag is absent, for `--help`, when that is not one static value. */
  readonly defaultHelp?: string;
  /** Extra rule on the parsed value: returns what is wrong, or undefined. */
  readonly check?: (value: never) => string | undefined;
  /** Output-only flags (`--format`) exist on the CLI only. */
  readonly cliOnly?: boolean;
  /** A boolean switch that defaults to true also gets `--no-<name>` with this help. */
  readonly negatedHelp?: string;
  /**
   * The value is a path the run reads (`file`, `folder`) or writes a cache into (`cache-folder`):
   * `checkRunPaths` (`run-paths.ts`) checks it before the first episode, one line naming the flag.
   */
  readonly path?: RunPathKind;
}

/** What a path flag names: a file or folder the run reads, or a folder it keeps a cache in. */
export type RunPathKind = "file" | "folder" | "cache-folder";

/** More trials than this is a typo, not an evaluation (pass^k is reported for k up to the trials). */
export const MAX_TRIALS = 10_000;

/** More worker processes than this is a typo (each one loads the whole run). */
export const MAX_WORKERS = 256;

/** More episodes than this in one run is a typo too: it would not fit in memory, and would run for weeks. */
export const MAX_EPISODES = 1_000_000;

/** Refuses a run of more than {@link MAX_EPISODES} episodes before any work starts. */
export function checkRunSize(tasks: number, trials: number): void {
  if (tasks * trials > MAX_EPISODES) throw new ConfigError(`${tasks} tasks × ${trials} trials = ${tasks * trials} episodes; a run has at most ${MAX_EPISODES} (fewer --num-trials, or select tasks)`);
}

const atLeast = (minimum: number) => (value: number) => (value >= minimum ? undefined : `must be ≥ ${minimum}, got ${value}`);
const between = (minimum: number, maximum: number) => (value: number) => (value >= minimum && value <= maximum ? undefined : `must be between ${minimum} and ${maximum}, got ${value}`);
const oneOf =
  (...allowed: string[]) =>
  (value: string) =>
    allowed.includes(value) ? undefined : `must be one of ${allowed.join(", ")}, got "${value}"`;
/** A list without repeats: a task given twice would run twice as one trial and count twice in pass^k. */
const distinctTaskIds = (values: ReadonlyArray<string | number>) => {
  const repeated = values.find((value, index) => values.findIndex((other) => String(other) === String(value)) !== index);
  return repeated === undefined ? undefined : duplicateTaskIdProblem(repeated);
};
/** The one wording of a repeated `--task-ids` entry (both suites, also after τ-bench's ids become indices). */
export const duplicateTaskIdProblem = (id: string | number) => `task ${JSON.stringify(String(id))} is given twice; each task runs once per trial (use --num-trials to repeat it)`;
const url = (value: string) => {
  try {
    new URL(value);
    return undefined;
  } catch {
    return `must be a URL, got "${value}"`;
  }
};
/** τ²'s loguru level names, case-insensitive (`src/run/call-log.ts` maps them onto four). */
const logLevel = (value: string) =>
  ["TRACE", "DEBUG", "INFO", "SUCCESS", "WARNING", "WARN", "ERROR", "CRITICAL"].includes(value.trim().toUpperCase())
    ? undefined
    : `must be one of DEBUG, INFO, WARNING, ERROR (or TRACE, SUCCESS, CRITICAL), got "${value}"`;
const environmentVariableName = (value: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(value) ? undefined : "must be the NAME of an environment variable (never the key itself)");
const TAU = ["tau-bench"] as const;
const TAU2 = ["tau2"] as const;

/** The agent, user and model flags. */
const PARTICIPANT_FLAGS = [
  {
    flag: "--env",
    aliases: ["--domain"],
    short: "-d",
    type: "string",
    placeholder: "<domain>",
    help: "domain (`taubridge strategies` lists them)",
    defaultHelp: "τ-bench: the bundled library domain; τ²: required",
  },
  {
    flag: "--agent-strategy",
    aliases: ["--agent"],
    type: "string",
    placeholder: "<name>",
    help: "agent under test (`taubridge strategies` lists them)",
    defaultHelp: "τ-bench: oracle, or tool-calling when --model is given; τ²: llm_agent",
  },
  {
    flag: "--user-strategy",
    aliases: ["--user"],
    type: "string",
    placeholder: "<name>",
    help: "user simulator",
    defaultHelp: "τ-bench: scripted, or llm when --user-model is given; τ²: user_simulator",
  },
  { flag: "--model", aliases: ["--agent-llm"], type: "string", placeholder: "<name>", help: "agent model", defaultHelp: "τ-bench: none (the offline oracle needs no model); τ²: gpt-4.1-2025-04-14" },
  {
    flag: "--model-provider",
    aliases: ["--agent-provider"],
    type: "string",
    placeholder: "<name>",
    help: "agent model provider: openai, anthropic, gemini, azure, deepseek, mistral, groq, together_ai, fireworks_ai, xai, openrouter, bedrock, vllm, ollama, llamacpp, lmstudio, or openai-compatible (any server)",
    defaultHelp: "openai; τ²: from the litellm prefix or model name, openai-compatible with a base URL",
  },
  {
    flag: "--base-url",
    aliases: ["--agent-base-url"],
    type: "string",
    placeholder: "<url>",
    help: "agent model base URL (any OpenAI-compatible server)",
    defaultHelp: "the provider's URL",
    check: url,
  },
  {
    flag: "--api-key-env",
    aliases: ["--agent-api-key-env"],
    type: "string",
    placeholder: "<name>",
    help: "environment variable holding the agent model's API key",
    defaultHelp: "the provider's, OPENAI_API_KEY for openai; local servers need none",
    check: environmentVariableName,
  },
  {
    flag: "--user-model",
    aliases: ["--user-llm"],
    type: "string",
    placeholder: "<name>",
    help: "user simulator model",
    defaultHelp: "τ-bench: none (the scripted user needs no model); τ²: gpt-4.1-2025-04-14",
  },
  { flag: "--user-model-provider", aliases: ["--user-provider"], type: "string", placeholder: "<name>", help: "user simulator model provider", defaultHelp: "as for the agent" },
  { flag: "--user-base-url", type: "string", placeholder: "<url>", help: "user simulator model base URL", defaultHelp: "the user provider's URL", check: url },
  {
    flag: "--user-api-key-env",
    type: "string",
    placeholder: "<name>",
    help: "environment variable holding the user model's API key",
    defaultHelp: "the user provider's, OPENAI_API_KEY for openai",
    check: environmentVariableName,
  },
  { flag: "--temperature", type: "number", placeholder: "<t>", help: "agent sampling temperature", default: 0, suites: TAU, check: between(0, 2) },
  { flag: "--agent-llm-args", type: "json-object", placeholder: "<json>", help: "the agent's LLM arguments (τ²'s; `api_base` names an endpoint)", default: { temperature: 0.0 }, suites: TAU2 },
  { flag: "--user-llm-args", type: "json-object", placeholder: "<json>", help: "the user simulator's LLM arguments", default: { temperature: 0.0 }, suites: TAU2 },
  { flag: "--judge-model", type: "string", placeholder: "<model>", help: "model of τ²'s NL-assertion judge", defaultHelp: "τ²'s, read from its config.py", suites: TAU2 },
  {
    flag: "--judge-base-url",
    type: "string",
    placeholder: "<url>",
    help: "OpenAI-compatible endpoint of the judge (no key needed for a local one)",
    defaultHelp: "the judge provider's URL",
    suites: TAU2,
    check: url,
  },
  {
    flag: "--judge-provider",
    type: "string",
    placeholder: "<name>",
    help: "provider of the judge's model (pricing and API-key variable)",
    defaultHelp: "openai-compatible with --judge-base-url, else openai",
    suites: TAU2,
  },
  {
    flag: "--judge-api-key-env",
    type: "string",
    placeholder: "<name>",
    help: "environment variable holding the judge's API key",
    defaultHelp: "the judge provider's",
    suites: TAU2,
    check: environmentVariableName,
  },
  {
    flag: "--embedder-model",
    type: "string",
    placeholder: "<name>",
    help: "τ³ banking_knowledge embedding variants: the embeddings model",
    defaultHelp: "the variant's: text-embedding-3-large (openai_*), qwen3-embedding-8b (qwen_*)",
    suites: TAU2,
  },
  {
    flag: "--embedder-base-url",
    type: "string",
    placeholder: "<url>",
    help: "OpenAI-compatible embeddings endpoint (no key needed for a local one); giving it makes the embedder available",
    defaultHelp: "OpenAI's (openai_*) or OpenRouter's (qwen_*)",
    suites: TAU2,
    check: url,
  },
  {
    flag: "--embedder-api-key-env",
    type: "string",
    placeholder: "<name>",
    help: "environment variable holding the embedder's API key; the embedder is available when it is set",
    defaultHelp: "OPENAI_API_KEY (openai_*), OPENROUTER_API_KEY (qwen_*); none with --embedder-base-url",
    suites: TAU2,
    check: environmentVariableName,
  },
  {
    flag: "--reranker-model",
    type: "string",
    placeholder: "<name>",
    help: "τ³ banking_knowledge *_reranker* variants: the pointwise LLM reranker's model",
    defaultHelp: "gpt-5.2, the original's",
    suites: TAU2,
  },
  {
    flag: "--reranker-base-url",
    type: "string",
    placeholder: "<url>",
    help: "OpenAI-compatible endpoint of the reranker (no key needed for a local one); giving it makes the reranker available",
    defaultHelp: "OpenAI's",
    suites: TAU2,
    check: url,
  },
  {
    flag: "--reranker-api-key-env",
    type: "string",
    placeholder: "<name>",
    help: "environment variable holding the reranker's API key; the reranker is available when it is set",
    defaultHelp: "OPENAI_API_KEY; none with --reranker-base-url",
    suites: TAU2,
    check: environmentVariableName,
  },
] as const satisfies readonly RunFlag[];

/** Which tasks, how many times, and the budgets. */
const SELECTION_FLAGS = [
  {
    flag: "--task-split",
    aliases: ["--task-split-name"],
    type: "string",
    placeholder: "<split>",
    help: "task split (τ-bench: test, train, dev; airline has only test. τ²: base, train, test; telecom also small, full)",
    helpTau2: "task split (base, train, test; telecom also small, full)",
    defaultHelp: "τ-bench: the domain's default split, test; τ²: base",
  },
  { flag: "--task-set-name", type: "string", placeholder: "<name>", help: "τ² task set (telecom_full, telecom_small)", defaultHelp: "the domain's", suites: TAU2 },
  {
    flag: "--retrieval-config",
    type: "string",
    placeholder: "<variant>",
    help: "τ³ banking_knowledge retrieval variant (offline: bm25_grep, bm25, grep_only, no_knowledge, full_kb, golden_retrieval; the embedding and reranker ones need --embedder-* / --reranker-* or API keys; terminal_use, terminal_use_write and alltools run a shell in τ²'s srt sandbox, which needs bubblewrap, ripgrep and socat)",
    defaultHelp: "τ²'s, alltools (needs an embedder and the srt sandbox)",
    suites: TAU2,
  },
  {
    flag: "--retrieval-config-kwargs",
    type: "json-object",
    placeholder: "<json>",
    help: "overrides of the retrieval variant: top_k, grep_top_k, case_sensitive, reranker_min_score",
    defaultHelp: "none",
    suites: TAU2,
  },
  {
    flag: "--task-file",
    type: "string",
    path: "file",
    placeholder: "<path>",
    help: "a task file in τ-bench JSON format instead of a split",
    defaultHelp: "none: the tasks of --task-split",
    suites: TAU,
  },
  {
    flag: "--task-ids",
    type: "list",
    placeholder: "<ids...>",
    help: "only these tasks (τ-bench: indices; τ²: ids)",
    helpTau2: "only these task ids",
    defaultHelp: "every task of the selection",
    check: distinctTaskIds,
  },
  { flag: "--start-index", type: "integer", placeholder: "<n>", help: "first task index", default: 0, suites: TAU, check: atLeast(0) },
  { flag: "--end-index", type: "integer", placeholder: "<n>", help: "end task index, exclusive (-1 = all)", default: -1, suites: TAU, check: atLeast(-1) },
  { flag: "--num-tasks", type: "integer", placeholder: "<n>", help: "the first N tasks after split and id filtering", defaultHelp: "all", suites: TAU2, check: atLeast(1) },
  { flag: "--num-trials", type: "integer", placeholder: "<n>", help: "trials per task (pass^k needs k ≤ trials)", default: 1, check: between(1, MAX_TRIALS) },
  { flag: "--max-concurrency", type: "integer", placeholder: "<n>", help: "episodes running at once", default: { "tau-bench": 1, tau2: 3 }, check: atLeast(1) },
  {
    flag: "--workers",
    type: "count",
    placeholder: "<n|auto>",
    help: "run the episodes in N local worker processes (auto: one per core); --max-concurrency stays the number running at once, spread over them; results as with one process",
    default: 0,
    check: (value: number | "auto") => (value === "auto" || (value >= 0 && value <= MAX_WORKERS) ? undefined : `must be auto or between 0 and ${MAX_WORKERS}, got ${value}`),
  },
  {
    flag: "--queue",
    type: "string",
    placeholder: "<redis-url>",
    help: "run the episodes on the workers of a BullMQ queue in this Redis (redis://host:port/db; `taubridge worker --queue` on any machine); this process writes the results, checkpoint and report as a local run does",
    defaultHelp: "none: episodes run here",
    check: (value: string) => (/^rediss?:\/\//.test(value) ? undefined : "must be a redis:// or rediss:// URL"),
  },
  {
    flag: "--provider-limit",
    type: "key-value",
    placeholder: "<provider=n...>",
    help: "with --queue: at most n model requests in flight to that provider (--model-provider, τ²'s --agent-provider) across every worker (repeatable)",
    defaultHelp: "none",
    check: (value: Record<string, string>) =>
      Object.entries(value)
        .map(([name, n]) => (/^[1-9]\d*$/.test(n) ? undefined : `${name}=${n}: the limit must be a whole number ≥ 1`))
        .find(Boolean),
  },
  {
    flag: "--rate-limit",
    type: "key-value",
    placeholder: "<endpoint=n/s...>",
    help: "with --queue: at most that many model requests per window to an endpoint (a base URL's host, the base URL, or a provider) across every worker; a 429's retry-after pauses it for all (repeatable)",
    defaultHelp: "none",
    check: (value: Record<string, string>) =>
      Object.entries(value)
        .map(([name, rate]) => (/^[1-9]\d*\/(\d+(\.\d+)?)$/.test(rate) && Number(rate.split("/")[1]) > 0 ? undefined : `${name}=${rate}: give requests/seconds, e.g. ${name}=60/60`))
        .find(Boolean),
  },
  {
    flag: "--max-steps",
    type: "integer",
    placeholder: "<n>",
    help: "budget per episode (τ-bench: agent turns; τ²: hops)",
    helpTau2: "steps per simulation (hops between participants)",
    default: { "tau-bench": 30, tau2: 200 },
    check: atLeast(1),
  },
  { flag: "--max-errors", type: "integer", placeholder: "<n>", help: "tool errors (over the whole episode) before it ends as too_many_errors", default: 10, suites: TAU2, check: atLeast(1) },
  { flag: "--episode-timeout", aliases: ["--timeout"], type: "number", placeholder: "<seconds>", help: "wall-clock limit per episode (0 = none)", default: 0, check: atLeast(0) },
  {
    flag: "--episode-retries",
    aliases: ["--max-retries"],
    type: "integer",
    placeholder: "<n>",
    help: "re-runs of an episode that failed on infrastructure",
    default: { "tau-bench": 0, tau2: 3 },
    check: atLeast(0),
  },
  { flag: "--retry-delay", type: "number", placeholder: "<seconds>", help: "wait before such a re-run", default: { "tau-bench": 0, tau2: 1.0 }, check: atLeast(0) },
  {
    flag: "--seed",
    type: "integer",
    placeholder: "<n>",
    help: "seed (τ-bench: shuffling and few-shot sampling; τ²: the per-trial seeds)",
    helpTau2: "seed the per-trial seeds derive from",
    default: { "tau-bench": 10, tau2: 300 },
  },
  { flag: "--shuffle", type: "boolean", help: "shuffle the task order each trial", default: false, suites: TAU },
  {
    flag: "--enforce-communication-protocol",
    type: "boolean",
    help: "a message with both text and tool calls ends the episode as agent_error / user_error (off, as in τ²)",
    default: false,
    suites: TAU2,
  },
] as const satisfies readonly RunFlag[];

/** Where data and results live, resume, and the model layer. */
const RUN_LAYER_FLAGS = [
  { flag: "--log-dir", type: "string", placeholder: "<dir>", help: "where the results file and checkpoint go", default: "results", suites: TAU },
  {
    flag: "--save-to",
    type: "string",
    placeholder: "<name>",
    help: "results file: a path (…/x.json), or a name for ./simulations/<name>/results.json",
    defaultHelp: "a name from the domain, task selection, agent (and its module), models and user: the same command resumes it",
    suites: TAU2,
  },
  { flag: "--data-dir", type: "string", placeholder: "<dir>", help: "data directory", defaultHelp: "the cache `taubridge data pull` fills; our own domain ships its data" },
  {
    flag: "--resume",
    type: "boolean",
    help: "resume the results of the same run (spelled out for scripts)",
    default: true,
    negatedHelp: "start over instead of resuming the results of the same run (another run's results there are set aside, never overwritten)",
  },
  {
    flag: "--accept-changes",
    type: "boolean",
    help: "resume even though the task set, data, agent module, mapping, prompts, options or taubridge version changed since the stored run (its finished episodes are kept)",
    default: false,
  },
  { flag: "--auto-resume", type: "boolean", help: "accepted for compatibility with τ²: a results file of the same run is always resumed", default: false, suites: TAU2 },
  { flag: "--cache-dir", type: "string", path: "cache-folder", placeholder: "<dir>", help: "on-disk model response cache", defaultHelp: "none, no cache" },
  { flag: "--price-file", type: "string", path: "file", placeholder: "<path>", help: "JSON price table overriding or adding model prices", defaultHelp: "the bundled @pydantic/genai-prices table" },
  {
    flag: "--model-timeout",
    type: "number",
    placeholder: "<seconds>",
    help: "timeout of one model call",
    default: DEFAULT_MODEL_TIMEOUT_SECONDS,
    check: (value: number) => (value > 0 ? undefined : `must be > 0, got ${value}`),
  },
  { flag: "--model-max-attempts", type: "integer", placeholder: "<n>", help: "attempts per model call on 408/409/429/5xx/network errors", default: DEFAULT_MODEL_MAX_ATTEMPTS, check: between(1, 20) },
  {
    flag: "--log-level",
    type: "string",
    placeholder: "<level>",
    help: "console log on stderr: DEBUG (every model call), INFO (every episode), WARNING (model-call retries), ERROR (nothing more than the report)",
    default: "ERROR",
    check: logLevel,
  },
  {
    flag: "--verbose-logs",
    type: "boolean",
    help: "write every model request and response (secrets redacted) under the results: <artifacts>/task_<id>/trial_<n>/llm_debug/",
    default: false,
  },
  { flag: "--llm-log-mode", type: "string", placeholder: "<mode>", help: "with --verbose-logs: latest (each role's last call per episode) or all", default: "latest", check: oneOf("latest", "all") },
] as const satisfies readonly RunFlag[];

/** Prompts and agent modules. */
const STRATEGY_FLAGS = [
  {
    flag: "--agent-prompt-file",
    type: "string",
    path: "file",
    placeholder: "<path>",
    help: "template for the agent's system prompt",
    defaultHelp: "the agent strategy's built-in template",
    suites: TAU,
  },
  {
    flag: "--user-prompt-file",
    type: "string",
    path: "file",
    placeholder: "<path>",
    help: "template for the user simulator's system prompt",
    defaultHelp: "the user strategy's built-in template",
    suites: TAU,
  },
  {
    flag: "--few-shot-displays-path",
    type: "string",
    path: "file",
    placeholder: "<path>",
    help: "JSONL of example conversations for --agent-strategy few-shot",
    defaultHelp: "none; few-shot needs it",
    suites: TAU,
  },
  {
    flag: "--agent-module",
    type: "string",
    path: "file",
    placeholder: "<path>",
    help: "framework adapters and module: the user's unmodified agent module (same as --agent-option module=<path>)",
    defaultHelp: "none",
  },
  {
    flag: "--agent-isolation",
    type: "string",
    placeholder: "<mode>",
    help: "module: where respond() runs: worker (a thread per running episode; --episode-timeout stops an endless loop) or none (the harness's thread)",
    defaultHelp: "worker",
    check: oneOf("worker", "none"),
  },
  { flag: "--workflow-path", type: "string", path: "folder", placeholder: "<dir>", help: "fastworkflow: the workflow directory (same as --agent-option workflowPath=<dir>)", defaultHelp: "none" },
  {
    flag: "--bridge-mode",
    type: "string",
    placeholder: "<mode>",
    help: "framework adapters: internal, decision-only (the harness steps each planned action) or dry-run",
    defaultHelp: "internal",
    check: oneOf("internal", "decision-only", "dry-run"),
  },
  { flag: "--dry-run", type: "boolean", help: "framework adapters: log the planned actions without stepping the environment (same as --bridge-mode dry-run)", default: false },
  {
    flag: "--agent-endpoint",
    aliases: ["--agent-a2a-endpoint"],
    type: "string",
    placeholder: "<url>",
    help: "a2a: the remote agent's base URL or agent-card URL (same as --agent-option endpoint=<url>)",
    defaultHelp: "none",
    check: url,
  },
  {
    flag: "--agent-a2a-timeout",
    type: "number",
    placeholder: "<seconds>",
    help: "a2a: seconds the remote agent has for one turn (its reply, polls and stream included)",
    defaultHelp: "120",
    check: (value: number) => (value > 0 ? undefined : `must be > 0, got ${value}`),
  },
  {
    flag: "--agent-a2a-token-env",
    type: "string",
    placeholder: "<name>",
    help: "a2a: environment variable holding the remote agent's bearer token",
    defaultHelp: "none: no Authorization header",
    check: environmentVariableName,
  },
  { flag: "--a2a-debug", type: "boolean", help: "a2a: print every A2A exchange (method, status, time, bodies; no credentials) on stderr", default: false },
  { flag: "--agent-option", type: "key-value", placeholder: "<key=value...>", help: "strategy-specific option (repeatable; see the adapter READMEs)", defaultHelp: "none" },
] as const satisfies readonly RunFlag[];

/** Output. */
const OUTPUT_FLAGS = [
  {
    flag: "--suite",
    type: "string",
    placeholder: "<suite>",
    help: "benchmark suite: tau (τ-bench, run.py's flags) or tau2 (τ²-bench; also `taubridge tau2 run`)",
    default: "tau",
    check: oneOf("tau", "tau2", "tau-bench", "tau2-bench"),
    cliOnly: true,
  },
  { flag: "--format", type: "string", placeholder: "<format>", help: "output: text, json or markdown", default: "text", check: oneOf("text", "json", "markdown"), cliOnly: true },
  {
    flag: "--policy",
    type: "string",
    placeholder: "<file>",
    help: "check the run's episodes against a policy rule file (YAML or JSON; read before the run starts): a Policy (adherence) column, the hits, and `policy` in the JSON and in the results file (read back by `taubridge report`); never changes the reward (semantic and llm rules need models: `taubridge report --policy` with --embedder-model/--judge-model)",
    defaultHelp: "no policy check",
    cliOnly: true,
  },
  {
    flag: "--policy-strictness",
    type: "string",
    placeholder: "<level>",
    help: "with --policy: which severities the adherence score counts: low (critical only), medium (high and critical), high (all)",
    default: "medium",
    check: oneOf("low", "medium", "high"),
    cliOnly: true,
  },
  { flag: "--quiet", type: "boolean", help: "no progress output", default: false },
] as const satisfies readonly RunFlag[];

/** Every run flag, in `--help` order. */
export const RUN_FLAGS = [...PARTICIPANT_FLAGS, ...SELECTION_FLAGS, ...RUN_LAYER_FLAGS, ...STRATEGY_FLAGS, ...OUTPUT_FLAGS] as const satisfies readonly RunFlag[];

/** τ²'s flags for features taubridge does not have, refused by name with the reason (never silently ignored). */
export const REFUSED_TAU2_FLAGS: ReadonlyArray<readonly [string, string]> = [
  ["--user-persona <json>", "τ³ runtime personas are not implemented"],
  ["--auto-review", "LLM reviews of trajectories are not implemented"],
  ["--audio-native", "voice (full-duplex) mode is not implemented"],
];

type Flags = (typeof RUN_FLAGS)[number];
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;
type OptionName<F extends string> = F extends `--${infer Name}` ? CamelCase<Name> : never;
type AliasNames<F> = F extends { aliases: readonly (infer A extends string)[] } ? OptionName<A> : never;

/**
 * The run flags as library options: camel-cased names (τ²'s spellings too: `domain`, `agent`,
 * `user`, `agentLlm`, …), typed values, all optional, plus `suite`.
 * (`{ env: "library", agentStrategy: "oracle", numTrials: 2 }`, `{ suite: "tau2", domain: "mock", agent: "oracle", user: "scripted" }`).
 * Durations are seconds, as on the CLI.
 */
export type RunOptions = {
  [F in Flags as F extends { cliOnly: true } ? never : OptionName<F["flag"]>]?: RunFlagValueTypes[F["type"]];
} & {
  [F in Flags as F extends { cliOnly: true } ? never : AliasNames<F>]?: RunFlagValueTypes[F["type"]];
} & {
  /** `"tau-bench"` (default) or `"tau2"` (also `"tau"`, `"tau2-bench"`). */
  suite?: string;
};

/** `--num-trials` → `numTrials`. */
export function optionName(flag: string): string {
  return flag.replace(/^--/, "").replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

const byName = new Map<string, RunFlag>();
for (const flag of RUN_FLAGS as readonly RunFlag[]) {
  byName.set(optionName(flag.flag), flag);
  for (const alias of flag.aliases ?? []) byName.set(optionName(alias), flag);
}

/** The table entry of an option name or alias (`numTrials`, `domain`), or undefined. */
export function runFlag(name: string): RunFlag | undefined {
  return byName.get(name);
}

/** The canonical option name of a flag (`domain` → `env`). */
export function canonicalName(name: string): string | undefined {
  const flag = byName.get(name);
  return flag ? optionName(flag.flag) : undefined;
}

/** A flag's default for a suite (undefined: no static default). */
export function flagDefault(flag: RunFlag, suite: SuiteName): FlagValue | undefined {
  const value = flag.default;
  if (value !== null && typeof value === "object" && !Array.isArray(value) && SUITE_NAMES.some((name) => name in value)) return (value as Partial<Record<SuiteName, FlagValue>>)[suite];
  return value as FlagValue | undefined;
}

/** The table's default of an option for a suite; throws on a name the table lacks a default for (a programming error). */
export function runFlagDefault<T extends FlagValue>(name: string, suite: SuiteName = "tau-bench"): T {
  const flag = byName.get(name);
  const value = flag ? flagDefault(flag, suite) : undefined;
  if (value === undefined) throw new Error(`run flag ${name} has no default for ${suite}`);
  return value as T;
}

/** True when the flag applies to the suite. */
export function flagAppliesTo(flag: RunFlag, suite: SuiteName): boolean {
  return flag.suites === undefined || flag.suites.includes(suite);
}

/** `--suite`'s value as a suite name (`tau` → `tau-bench`). */
export function suiteNamed(value: string): SuiteName {
  return value === "tau2" || value === "tau2-bench" ? "tau2" : "tau-bench";
}
