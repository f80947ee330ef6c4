/**
 * The script format of the scripted model server (JSON files for `taubridge testing serve`, or
 * objects in tests). Validated with zod so a typo in a test script fails loudly at load time
 * instead of producing a confusing model conversation. See `README.md` next to this file.
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { ConfigError } from "../errors/error-tree.ts";

/** A tool call the scripted model makes. `arguments` strings are sent verbatim (malformed JSON on purpose is fine). */
export const scriptedToolCallSchema = z.strictObject({
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
});

/** Usage to report, in OpenAI's field names. When omitted, a deterministic estimate (≈ characters / 4) is sent. */
export const scriptedUsageSchema = z.strictObject({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  cached_tokens: z.number().int().nonnegative().optional(),
});

/** Conditions a request must meet for a step to be used; all given conditions must hold. */
export const stepMatchSchema = z.strictObject({
  /** The last message's text contains this substring. */
  lastMessageContains: z.string().optional(),
  /** The last message has this role. */
  lastMessageRole: z.enum(["system", "developer", "user", "assistant", "tool"]).optional(),
  /** Some message's text contains this substring. */
  anyMessageContains: z.string().optional(),
  /** The system (or developer) message contains this substring. */
  systemContains: z.string().optional(),
  /** The request offers tools (true) or none (false). */
  hasTools: z.boolean().optional(),
  /** The request offers a tool with this name. */
  hasTool: z.string().optional(),
});

/** An HTTP error to answer with instead of a completion. */
export const scriptedErrorSchema = z.strictObject({
  status: z.number().int().min(400).max(599),
  /** Response body: an object is sent as JSON, a string verbatim. Default: an OpenAI-style error object. */
  body: z.unknown().optional(),
  /** `retry-after` header value (seconds, or an HTTP date string). */
  retryAfter: z.union([z.number().nonnegative(), z.string()]).optional(),
  /** `retry-after-ms` header value. */
  retryAfterMs: z.number().nonnegative().optional(),
  headers: z.record(z.string(), z.string()).optional(),
});

export const scriptStepSchema = z
  .strictObject({
    /** Shown in error messages and unconsumed-step reports. */
    label: z.string().optional(),
    match: stepMatchSchema.optional(),
    /** How many requests this step answers (default 1); `"unlimited"` never runs out. */
    times: z.union([z.number().int().positive(), z.literal("unlimited")]).optional(),
    /** Wait this long before answering (to test timeouts and concurrency). */
    delayMs: z.number().nonnegative().optional(),
    content: z.string().nullable().optional(),
    tool_calls: z.array(scriptedToolCallSchema).optional(),
    usage: scriptedUsageSchema.optional(),
    finish_reason: z.enum(["stop", "length", "tool_calls", "content_filter", "function_call"]).optional(),
    error: scriptedErrorSchema.optional(),
  })
  .refine((step) => !(step.error && (step.content !== undefined || step.tool_calls !== undefined || step.usage !== undefined)), {
    message: "a step is either an error or a response: `error` cannot be combined with content, tool_calls or usage",
  });

/** One scripted step (as written; defaults are applied when it is served). */
export type ScriptStep = z.input<typeof scriptStepSchema>;
export type ScriptedToolCall = z.input<typeof scriptedToolCallSchema>;
export type ScriptedUsage = z.input<typeof scriptedUsageSchema>;
export type StepMatch = z.input<typeof stepMatchSchema>;
export type ScriptedErrorSpec = z.input<typeof scriptedErrorSchema>;

/** The name of the script that answers requests for any model without a script of its own. */
export const DEFAULT_SCRIPT = "*";

/**
 * A script file: `scripts` maps a request's `model` to its steps (`"*"` = any other model);
 * `steps` is shorthand for `scripts["*"]`.
 */
export const scriptFileSchema = z
  .strictObject({
    scripts: z.record(z.string().min(1), z.array(scriptStepSchema)).optional(),
    steps: z.array(scriptStepSchema).optional(),
    /** Streamed responses end with a usage chunk when the client asks (`stream_options.include_usage`, default) or always. */
    streamUsage: z.enum(["requested", "always"]).optional(),
  })
  .refine((file) => file.scripts !== undefined || file.steps !== undefined, { message: "give `scripts` or `steps`" })
  .refine((file) => !(file.steps && file.scripts && Object.hasOwn(file.scripts, DEFAULT_SCRIPT)), {
    message: '`steps` is shorthand for scripts["*"]; give one or the other',
  });
export type ScriptFile = z.input<typeof scriptFileSchema>;

/** Validates a script object; throws {@link ConfigError} with zod's explanation. */
export function parseScriptFile(value: unknown, source = "script"): z.output<typeof scriptFileSchema> {
  const parsed = scriptFileSchema.safeParse(value);
  if (!parsed.success) throw new ConfigError(`Invalid ${source}:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Validates one step (used for steps returned by a responder function). */
export function parseScriptStep(value: unknown, source = "step"): z.output<typeof scriptStepSchema> {
  const parsed = scriptStepSchema.safeParse(value);
  if (!parsed.success) throw new ConfigError(`Invalid ${source}:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Reads and validates a JSON script file. */
export async function loadScriptFile(path: string): Promise<z.output<typeof scriptFileSchema>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(`Cannot read script file ${path}: ${(error as Error).message}`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`Script file ${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return parseScriptFile(value, `script file ${path}`);
}
