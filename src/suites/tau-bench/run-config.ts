import type * as Zod from "zod";
import { ConfigError } from "../../errors/error-tree.ts";
import { lazySchema } from "../../data/lazy-zod.ts";
import { type QuickCheck, UNSURE, quick } from "../../data/quick-shapes.ts";
import { runFlagDefault } from "../../run/run-flags.ts";
import { agentOptionsOf, flagForField, type RunSettings } from "../../run/run-settings.ts";
import { agentName } from "../../run/run-name.ts";

const flagDefault = <T extends string | number | boolean>(name: string): T => runFlagDefault<T>(name, "tau-bench");

/**
 * Everything a run needs, validated once at the boundary. Flag names follow τ-bench's run.py
 * (camel-cased); options the original lacks are ours and documented in `taubridge run --help`.
 * Defaults come from the flag table (`run-flags.ts`), the one place each flag is written. The zod
 * schema is built on first use; a valid configuration is checked by {@link quickRunConfig} (the
 * same shape, see `data/quick-shapes.ts`), so a run does not load zod.
 */
function buildRunConfigSchema(z: typeof Zod.z) {
  return z.object({
    env: z.string().min(1),
    agentStrategy: z.string().min(1),
    userStrategy: z.string().min(1),
    model: z.string().optional(),
    modelProvider: z.string().optional(),
    baseUrl: z.string().url().optional(),
    apiKeyEnv: z.string().optional(),
    userModel: z.string().optional(),
    userModelProvider: z.string().optional(),
    userBaseUrl: z.string().url().optional(),
    userApiKeyEnv: z.string().optional(),
    temperature: z.number().min(0).max(2).default(flagDefault("temperature")),
    taskSplit: z.string().optional(),
    taskFile: z.string().optional(),
    taskIds: z.array(z.number().int().nonnegative()).optional(),
    startIndex: z.number().int().nonnegative().default(flagDefault("startIndex")),
    endIndex: z.number().int().min(-1).default(flagDefault("endIndex")),
    numTrials: z.number().int().positive().default(flagDefault("numTrials")),
    maxConcurrency: z.number().int().positive().default(flagDefault("maxConcurrency")),
    maxSteps: z.number().int().positive().default(flagDefault("maxSteps")),
    episodeTimeoutMs: z
      .number()
      .int()
      .nonnegative()
      .default(flagDefault<number>("episodeTimeout") * 1000),
    episodeRetries: z.number().int().nonnegative().default(flagDefault("episodeRetries")),
    seed: z.number().int().default(flagDefault("seed")),
    shuffle: z.boolean().default(flagDefault("shuffle")),
    logDir: z.string().default(flagDefault("logDir")),
    dataDir: z.string().optional(),
    resume: z.boolean().default(flagDefault("resume")),
    acceptChanges: z.boolean().default(flagDefault("acceptChanges")),
    cacheDir: z.string().optional(),
    priceFile: z.string().optional(),
    modelTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(flagDefault<number>("modelTimeout") * 1000),
    modelMaxAttempts: z.number().int().min(1).max(20).default(flagDefault("modelMaxAttempts")),
    agentPromptFile: z.string().optional(),
    userPromptFile: z.string().optional(),
    fewShotDisplaysPath: z.string().optional(),
    /** Strategy-specific options (bridge mode, agent module, workflow path, ...). */
    agentOptions: z.record(z.string(), z.unknown()).default({}),
    quiet: z.boolean().default(flagDefault("quiet")),
  });
}

export const runConfigSchema = lazySchema(buildRunConfigSchema);

export type RunConfig = Zod.infer<ReturnType<typeof buildRunConfigSchema>>;
export type RunConfigInput = Zod.input<ReturnType<typeof buildRunConfigSchema>>;

/** The schema's shape as a quick check; URLs are left to zod (its URL rules are its own). */
function buildQuickRunConfig(): QuickCheck {
  const q = quick;
  const text = q.optional(q.string());
  const int = (limits: { min?: number; max?: number; above?: number }) => q.number({ int: true, ...limits });
  const defaulted = (check: QuickCheck, flag: string, scale = 1) => q.withDefault(check, () => (scale === 1 ? flagDefault(flag) : flagDefault<number>(flag) * scale));
  const url = q.optional(() => UNSURE);
  return q.object({
    env: q.string(1),
    agentStrategy: q.string(1),
    userStrategy: q.string(1),
    model: text,
    modelProvider: text,
    baseUrl: url,
    apiKeyEnv: text,
    userModel: text,
    userModelProvider: text,
    userBaseUrl: url,
    userApiKeyEnv: text,
    temperature: defaulted(q.number({ min: 0, max: 2 }), "temperature"),
    taskSplit: text,
    taskFile: text,
    taskIds: q.optional(q.array(int({ min: 0 }))),
    startIndex: defaulted(int({ min: 0 }), "startIndex"),
    endIndex: defaulted(int({ min: -1 }), "endIndex"),
    numTrials: defaulted(int({ above: 0 }), "numTrials"),
    maxConcurrency: defaulted(int({ above: 0 }), "maxConcurrency"),
    maxSteps: defaulted(int({ above: 0 }), "maxSteps"),
    episodeTimeoutMs: defaulted(int({ min: 0 }), "episodeTimeout", 1000),
    episodeRetries: defaulted(int({ min: 0 }), "episodeRetries"),
    seed: defaulted(int({}), "seed"),
    shuffle: defaulted(q.boolean(), "shuffle"),
    logDir: defaulted(q.string(), "logDir"),
    dataDir: text,
    resume: defaulted(q.boolean(), "resume"),
    acceptChanges: defaulted(q.boolean(), "acceptChanges"),
    cacheDir: text,
    priceFile: text,
    modelTimeoutMs: defaulted(int({ above: 0 }), "modelTimeout", 1000),
    modelMaxAttempts: defaulted(int({ min: 1, max: 20 }), "modelMaxAttempts"),
    agentPromptFile: text,
    userPromptFile: text,
    fewShotDisplaysPath: text,
    agentOptions: q.withDefault(q.record(), () => ({})),
    quiet: defaulted(q.boolean(), "quiet"),
  });
}

let quickRunConfig: QuickCheck | undefined;

/** The quick check of a run configuration (built once). */
export function quickRunConfigCheck(): QuickCheck {
  quickRunConfig ??= buildQuickRunConfig();
  return quickRunConfig;
}

/** Validates a run configuration; the error names the flag of the first bad field in one line. */
export function parseRunConfig(input: RunConfigInput): RunConfig {
  const quickConfig = quickRunConfigCheck()(input);
  if (quickConfig !== UNSURE) return quickConfig as RunConfig;
  const result = runConfigSchema().safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    const [field, ...rest] = issue.path.map(String);
    throw new ConfigError(`invalid option ${[flagForField(field ?? ""), ...rest].join(".")}: ${issue.message}`);
  }
  return result.data;
}

/** The run's file stem, after τ-bench's checkpoint name but without the timestamp so a rerun finds it. */
export function runFileStem(config: RunConfig, split: string): string {
  const model = (config.model ?? "none").split("/").pop();
  const temperature = Number.isInteger(config.temperature) ? `${config.temperature}.0` : String(config.temperature);
  const range = config.taskIds?.length ? `ids_${config.taskIds.join("-")}`.slice(0, 80) : `range_${config.startIndex}-${config.endIndex}`;
  const userModel = (config.userModel ?? "none").split("/").pop();
  // The agent's module (or workflow, or Python entry) is part of the name: two agents' runs with the same flags keep apart.
  const agent = agentName(config.agentStrategy, config.agentOptions);
  return `${config.env}-${split}-${agent}-${model}-${temperature}_${range}_user-${userModel}-${config.userStrategy}`.replace(/[^A-Za-z0-9._+-]/g, "_");
}

/** A task id given on the command line as a τ-bench task index; the error names the flag. */
function taskIndex(value: string | number): number {
  const parsed = typeof value === "number" ? value : Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new ConfigError(`--task-ids: τ-bench task ids are indices (integers ≥ 0), got ${JSON.stringify(value)}`);
  return parsed;
}

/**
 * A τ-bench run's configuration from its settings: seconds become milliseconds, the adapter
 * shorthands join `agentOptions`, task ids become indices, and the strategies default as in
 * τ-bench (a model means tool-calling / llm; none, the offline oracle and scripted user).
 */
export function runConfigFromSettings(settings: RunSettings, defaultDomain: string): RunConfigInput {
  const values = settings.values;
  const text = (name: string) => values[name] as string | undefined;
  const ids = values.taskIds as Array<string | number> | undefined;
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
    taskIds: ids?.map(taskIndex),
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
    agentOptions: agentOptionsOf(values),
    quiet: values.quiet as boolean,
  };
}
