/**
 * The `run` flags, written once. The CLI builds its commander options and `--help` from this
 * table, `runBenchmark` validates its camel-cased options with it, and the run config takes its
 * defaults from it, so a flag's name, type, default and rules cannot drift between the three.
 *
 * Kept free of heavy imports: the CLI reads it at start-up.
 */
import { ConfigError } from "../core/errors.ts";
import { DEFAULT_MODEL_MAX_ATTEMPTS, DEFAULT_MODEL_TIMEOUT_SECONDS } from "../model/defaults.ts";
import type { RunConfigInput } from "./run-config.ts";

/** How a flag's value is read: the CLI gives strings, the API gives typed values (strings are parsed the CLI way). */
export type RunFlagType = "string" | "integer" | "number" | "boolean" | "integer-list" | "key-value";

/** The TypeScript type of a flag's value in the API. */
export interface RunFlagValueTypes {
  string: string;
  integer: number;
  number: number;
  boolean: boolean;
  "integer-list": number[];
  "key-value": Record<string, string>;
}

export interface RunFlag {
  /** `--num-trials`; the API option is its camel case (`numTrials`). */
  readonly flag: string;
  readonly type: RunFlagType;
  /** Commander's value placeholder (`<n>`); none for switches. */
  readonly placeholder?: string;
  readonly help: string;
  /** Applied when the flag is absent (CLI and API alike). */
  readonly default?: string | number | boolean;
  /** What happens when the flag is absent, for `--help`, when that is not one static value (per domain, per provider, off). */
  readonly defaultHelp?: string;
  /** Extra rule on the parsed value: returns what is wrong, or undefined. */
  readonly check?: (value: never) => string | undefined;
  /** Output-only flags (`--format`) exist on the CLI only. */
  readonly cliOnly?: boolean;
  /** A boolean switch that defaults to true also gets `--no-<name>` with this help. */
  readonly negatedHelp?: string;
}

const atLeast = (minimum: number) => (value: number) => (value >= minimum ? undefined : `must be ≥ ${minimum}, got ${value}`);
const between = (minimum: number, maximum: number) => (value: number) => (value >= minimum && value <= maximum ? undefined : `must be between ${minimum} and ${maximum}, got ${value}`);
const oneOf =
  (...allowed: string[]) =>
  (value: string) =>
    allowed.includes(value) ? undefined : `must be one of ${allowed.join(", ")}, got "${value}"`;
const url = (value: string) => {
  try {
    new URL(value);
    return undefined;
  } catch {
    return `must be a URL, got "${value}"`;
  }
};
const environmentVariableName = (value: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(value) ? undefined : "must be the NAME of an environment variable (never the key itself)");
const nonNegativeIds = (value: number[]) => (value.every((id) => id >= 0) ? undefined : `task ids must be ≥ 0, got ${value.join(",")}`);

/** Every `taubridge run` flag, in `--help` order. Names follow τ-bench's run.py where it has them. */
export const RUN_FLAGS = [
  { flag: "--env", type: "string", placeholder: "<domain>", help: "domain (`taubridge strategies` lists them)", defaultHelp: "the bundled library domain" },
  { flag: "--agent-strategy", type: "string", placeholder: "<name>", help: "agent under test (see `taubridge strategies`)", defaultHelp: "oracle, or tool-calling when --model is given" },
  { flag: "--user-strategy", type: "string", placeholder: "<name>", help: "user simulator", defaultHelp: "scripted, or llm when --user-model is given" },
  { flag: "--model", type: "string", placeholder: "<name>", help: "agent model", defaultHelp: "none: the offline oracle agent needs no model" },
  { flag: "--model-provider", type: "string", placeholder: "<name>", help: "agent model provider (openai, or an OpenAI-compatible server)", defaultHelp: "openai" },
  {
    flag: "--base-url",
    type: "string",
    placeholder: "<url>",
    help: "agent model base URL (any OpenAI-compatible server)",
    defaultHelp: "the provider's URL, https://api.openai.com/v1 for openai",
    check: url,
  },
  {
    flag: "--api-key-env",
    type: "string",
    placeholder: "<name>",
    help: "environment variable holding the agent model's API key",
    defaultHelp: "the provider's, OPENAI_API_KEY for openai; local servers need none",
    check: environmentVariableName,
  },
  { flag: "--user-model", type: "string", placeholder: "<name>", help: "user simulator model", defaultHelp: "none: the scripted user needs no model" },
  { flag: "--user-model-provider", type: "string", placeholder: "<name>", help: "user simulator model provider", defaultHelp: "openai" },
  { flag: "--user-base-url", type: "string", placeholder: "<url>", help: "user simulator model base URL", defaultHelp: "the user provider's URL", check: url },
  {
    flag: "--user-api-key-env",
    type: "string",
    placeholder: "<name>",
    help: "environment variable holding the user model's API key",
    defaultHelp: "the user provider's, OPENAI_API_KEY for openai",
    check: environmentVariableName,
  },
  { flag: "--temperature", type: "number", placeholder: "<t>", help: "agent sampling temperature", default: 0, check: between(0, 2) },
  { flag: "--task-split", type: "string", placeholder: "<split>", help: "task split (test, train, dev; airline has only test)", defaultHelp: "the domain's default split, test" },
  { flag: "--task-file", type: "string", placeholder: "<path>", help: "a task file in τ-bench JSON format instead of a split", defaultHelp: "none: the tasks of --task-split" },
  {
    flag: "--task-ids",
    type: "integer-list",
    placeholder: "<ids...>",
    help: "explicit task indices (overrides the range)",
    defaultHelp: "every task from --start-index to --end-index",
    check: nonNegativeIds,
  },
  { flag: "--start-index", type: "integer", placeholder: "<n>", help: "first task index", default: 0, check: atLeast(0) },
  { flag: "--end-index", type: "integer", placeholder: "<n>", help: "end task index, exclusive (-1 = all)", default: -1, check: atLeast(-1) },
  { flag: "--num-trials", type: "integer", placeholder: "<n>", help: "trials per task (pass^k needs k ≤ trials)", default: 1, check: atLeast(1) },
  { flag: "--max-concurrency", type: "integer", placeholder: "<n>", help: "episodes running at once", default: 1, check: atLeast(1) },
  { flag: "--max-steps", type: "integer", placeholder: "<n>", help: "agent turns before an episode is cut off", default: 30, check: atLeast(1) },
  { flag: "--episode-timeout", type: "number", placeholder: "<seconds>", help: "wall-clock limit per episode (0 = none)", default: 0, check: atLeast(0) },
  { flag: "--episode-retries", type: "integer", placeholder: "<n>", help: "re-run an episode that ended in an infrastructure error", default: 0, check: atLeast(0) },
  { flag: "--seed", type: "integer", placeholder: "<n>", help: "seed for shuffling and sampling", default: 10 },
  { flag: "--shuffle", type: "boolean", help: "shuffle the task order each trial", default: false },
  { flag: "--log-dir", type: "string", placeholder: "<dir>", help: "where the results file and checkpoint go", default: "results" },
  { flag: "--data-dir", type: "string", placeholder: "<dir>", help: "data directory", defaultHelp: "the cache `taubridge data pull` fills; our own domain ships its data" },
  {
    flag: "--resume",
    type: "boolean",
    help: "resume the checkpoint of the same run in --log-dir (spelled out for scripts)",
    default: true,
    negatedHelp: "start over instead of resuming the checkpoint of the same run",
  },
  {
    flag: "--accept-changes",
    type: "boolean",
    help: "resume even though the task set, data, agent module, mapping, prompts, options or taubridge version changed since the checkpoint (its finished episodes are kept)",
    default: false,
  },
  { flag: "--cache-dir", type: "string", placeholder: "<dir>", help: "on-disk model response cache", defaultHelp: "none, no cache" },
  { flag: "--price-file", type: "string", placeholder: "<path>", help: "JSON price table overriding or adding model prices", defaultHelp: "the bundled @pydantic/genai-prices table" },
  {
    flag: "--model-timeout",
    type: "number",
    placeholder: "<seconds>",
    help: "timeout of one model call",
    default: DEFAULT_MODEL_TIMEOUT_SECONDS,
    check: (value: number) => (value > 0 ? undefined : `must be > 0, got ${value}`),
  },
  { flag: "--model-max-attempts", type: "integer", placeholder: "<n>", help: "attempts per model call on 408/409/429/5xx/network errors", default: DEFAULT_MODEL_MAX_ATTEMPTS, check: between(1, 20) },
  { flag: "--agent-prompt-file", type: "string", placeholder: "<path>", help: "template for the agent's system prompt", defaultHelp: "the agent strategy's built-in template" },
  { flag: "--user-prompt-file", type: "string", placeholder: "<path>", help: "template for the user simulator's system prompt", defaultHelp: "the user strategy's built-in template" },
  { flag: "--few-shot-displays-path", type: "string", placeholder: "<path>", help: "JSONL of example conversations for --agent-strategy few-shot", defaultHelp: "none; few-shot needs it" },
  { flag: "--agent-module", type: "string", placeholder: "<path>", help: "framework adapters: the user's unmodified agent module (same as --agent-option module=<path>)", defaultHelp: "none" },
  { flag: "--workflow-path", type: "string", placeholder: "<dir>", help: "fastworkflow: the workflow directory (same as --agent-option workflowPath=<dir>)", defaultHelp: "none" },
  {
    flag: "--bridge-mode",
    type: "string",
    placeholder: "<mode>",
    help: "framework adapters: internal, decision-only (the harness steps each planned action) or dry-run",
    defaultHelp: "internal",
    check: oneOf("internal", "decision-only", "dry-run"),
  },
  { flag: "--dry-run", type: "boolean", help: "framework adapters: log the planned actions without stepping the environment (same as --bridge-mode dry-run)", default: false },
  { flag: "--agent-option", type: "key-value", placeholder: "<key=value...>", help: "strategy-specific option (repeatable; see the adapter READMEs)", defaultHelp: "none" },
  {
    flag: "--suite",
    type: "string",
    placeholder: "<suite>",
    help: "benchmark suite: tau (these flags, τ-bench's run.py) or tau2 (`taubridge tau2 run`'s flags; from code: runTau2Benchmark)",
    default: "tau",
    check: oneOf("tau", "tau2"),
    cliOnly: true,
  },
  { flag: "--format", type: "string", placeholder: "<format>", help: "output: text, json or markdown", default: "text", check: oneOf("text", "json", "markdown"), cliOnly: true },
  { flag: "--quiet", type: "boolean", help: "no progress output", default: false },
] as const satisfies readonly RunFlag[];

type Flags = (typeof RUN_FLAGS)[number];
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;
type OptionName<F extends string> = F extends `--${infer Name}` ? CamelCase<Name> : never;

/**
 * The `run` flags as library options: camel-cased names, typed values, all optional
 * (`{ env: "library", agentStrategy: "oracle", numTrials: 2 }`). Durations are seconds, as on the CLI.
 */
export type RunOptions = {
  [F in Flags as F extends { cliOnly: true } ? never : OptionName<F["flag"]>]?: RunFlagValueTypes[F["type"]];
};

/** `--num-trials` → `numTrials`. */
export function optionName(flag: string): string {
  return flag.replace(/^--/, "").replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

const byName = new Map<string, RunFlag>(RUN_FLAGS.map((flag) => [optionName(flag.flag), flag]));

/** The table entry of an option name (`numTrials`) or undefined. */
export function runFlag(name: string): RunFlag | undefined {
  return byName.get(name);
}

/** The table's default of a flag, by option name; throws on a name the table lacks (a programming error). */
export function runFlagDefault<T extends string | number | boolean>(name: string): T {
  const flag = byName.get(name);
  if (!flag || flag.default === undefined) throw new Error(`run flag ${name} has no default`);
  return flag.default as T;
}

function describe(value: unknown): string {
  return typeof value === "string" ? `"${value}"` : (JSON.stringify(value) ?? String(value));
}

function parseInteger(text: string): number | undefined {
  const parsed = Number(text);
  return text.trim() !== "" && Number.isInteger(parsed) ? parsed : undefined;
}

/** Reads one flag's value (a CLI string, or a typed API value); the error names the flag. */
export function parseFlagValue(flag: RunFlag, raw: unknown): unknown {
  const fail = (expected: string): never => {
    throw new ConfigError(`${flag.flag}: expected ${expected}, got ${describe(raw)}`);
  };
  let value: unknown;
  switch (flag.type) {
    case "string":
      if (typeof raw !== "string" || raw === "") fail("a non-empty string");
      value = raw;
      break;
    case "integer": {
      const parsed = typeof raw === "number" ? raw : typeof raw === "string" ? parseInteger(raw) : undefined;
      if (parsed === undefined || !Number.isInteger(parsed)) fail("an integer");
      value = parsed;
      break;
    }
    case "number": {
      const parsed = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : undefined;
      if (parsed === undefined || !Number.isFinite(parsed)) fail("a number");
      value = parsed;
      break;
    }
    case "boolean":
      if (typeof raw !== "boolean") fail("true or false");
      value = raw;
      break;
    case "integer-list": {
      const items = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw : fail("a list of integers");
      const ids: number[] = [];
      for (const item of items) {
        if (typeof item === "number") {
          if (!Number.isInteger(item)) fail("a list of integers");
          ids.push(item);
          continue;
        }
        if (typeof item !== "string") fail("a list of integers");
        for (const piece of item.split(/[ ,]+/).filter(Boolean)) {
          const parsed = parseInteger(piece);
          if (parsed === undefined) fail("a list of integers");
          ids.push(parsed as number);
        }
      }
      value = ids;
      break;
    }
    case "key-value": {
      const pairs: Record<string, string> = {};
      if (raw && typeof raw === "object" && !Array.isArray(raw)) {
        for (const [key, item] of Object.entries(raw)) {
          if (typeof item !== "string") fail(`string values (key ${key})`);
          pairs[key] = item as string;
        }
      } else {
        const items = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw : fail("key=value pairs");
        for (const item of items) {
          const index = typeof item === "string" ? item.indexOf("=") : -1;
          if (index <= 0) fail("key=value");
          pairs[(item as string).slice(0, index)] = (item as string).slice(index + 1);
        }
      }
      value = pairs;
      break;
    }
  }
  const problem = flag.check?.(value as never);
  if (problem) throw new ConfigError(`${flag.flag}: ${problem}`);
  return value;
}

/** Parsed flag values by option name, defaults applied. */
export type RunFlagValues = Record<string, unknown>;

/**
 * Validates raw flag values (from commander or from the API) with the table's rules and applies
 * its defaults. Unknown names are an error that lists the known ones; `surface` says whether
 * CLI-only flags (`--format`) are allowed.
 */
export function parseRunFlags(raw: Record<string, unknown>, surface: "cli" | "api"): RunFlagValues {
  const values: RunFlagValues = {};
  for (const [name, value] of Object.entries(raw)) {
    const flag = byName.get(name);
    if (!flag || (surface === "api" && "cliOnly" in flag && flag.cliOnly)) {
      const known = RUN_FLAGS.filter((entry) => surface === "cli" || !("cliOnly" in entry && entry.cliOnly)).map((entry) => optionName(entry.flag));
      throw new ConfigError(`unknown run option "${name}"; known: ${known.join(", ")}`);
    }
    if (value === undefined) continue;
    values[name] = parseFlagValue(flag, value);
  }
  for (const flag of RUN_FLAGS) {
    const name = optionName(flag.flag);
    if (values[name] === undefined && "default" in flag && (surface === "cli" || !("cliOnly" in flag && flag.cliOnly))) values[name] = flag.default;
  }
  return values;
}

/**
 * Turns parsed flag values into the runner's config: seconds become milliseconds, the adapter
 * shorthands (`--agent-module`, `--workflow-path`, `--bridge-mode`, `--dry-run`) join
 * `agentOptions`, and the strategies default as in τ-bench (a model means tool-calling / llm).
 */
export function runConfigFromFlags(values: RunFlagValues, defaultDomain: string): RunConfigInput {
  const text = (name: string) => values[name] as string | undefined;
  const agentOptions: Record<string, string> = {
    ...(text("agentModule") ? { module: text("agentModule")! } : {}),
    ...(text("workflowPath") ? { workflowPath: text("workflowPath")! } : {}),
    ...(text("bridgeMode") ? { bridgeMode: text("bridgeMode")! } : {}),
    ...(values.dryRun ? { dryRun: "true" } : {}),
    ...((values.agentOption as Record<string, string> | undefined) ?? {}),
  };
  return {
    env: text("env") ?? defaultDomain,
    agentStrategy: text("agentStrategy") ?? (text("model") ? "tool-calling" : "oracle"),
    userStrategy: text("userStrategy") ?? (text("userModel") ? "llm" : "scripted"),
    model: text("model"),
    modelProvider: text("modelProvider"),
    baseUrl: text("baseUrl"),
    apiKeyEnv: text("apiKeyEnv"),
    userModel: text("userModel"),
    userModelProvider: text("userModelProvider"),
    userBaseUrl: text("userBaseUrl"),
    userApiKeyEnv: text("userApiKeyEnv"),
    temperature: values.temperature as number,
    taskSplit: text("taskSplit"),
    taskFile: text("taskFile"),
    taskIds: values.taskIds as number[] | undefined,
    startIndex: values.startIndex as number,
    endIndex: values.endIndex as number,
    numTrials: values.numTrials as number,
    maxConcurrency: values.maxConcurrency as number,
    maxSteps: values.maxSteps as number,
    episodeTimeoutMs: Math.round((values.episodeTimeout as number) * 1000),
    episodeRetries: values.episodeRetries as number,
    seed: values.seed as number,
    shuffle: values.shuffle as boolean,
    logDir: text("logDir")!,
    dataDir: text("dataDir"),
    resume: values.resume as boolean,
    acceptChanges: values.acceptChanges as boolean,
    cacheDir: text("cacheDir"),
    priceFile: text("priceFile"),
    modelTimeoutMs: Math.round((values.modelTimeout as number) * 1000),
    modelMaxAttempts: values.modelMaxAttempts as number,
    agentPromptFile: text("agentPromptFile"),
    userPromptFile: text("userPromptFile"),
    fewShotDisplaysPath: text("fewShotDisplaysPath"),
    agentOptions,
    quiet: values.quiet as boolean,
  };
}

/** Which flag a run-config field comes from (for error messages naming the flag). */
export function flagForConfigField(field: string): string {
  const renamed: Record<string, string> = { episodeTimeoutMs: "--episode-timeout", modelTimeoutMs: "--model-timeout", agentOptions: "--agent-option" };
  if (renamed[field]) return renamed[field];
  const flag = byName.get(field);
  return flag ? flag.flag : field;
}
