import { existsSync, statSync } from "node:fs";
import { delimiter, resolve } from "node:path";
import { BRIDGE_MODES, type BridgeMode } from "../../bridge/session.ts";
import { ConfigError } from "../../src/errors/error-tree.ts";

/**
 * Everything the FastWorkflow strategy can be told with `--agent-option key=value` (the CLI's
 * `--workflow-path <dir>` is the same as `--agent-option workflowPath=<dir>`). Parsed once when the
 * strategy is built, so a typo fails the run before any episode starts.
 */
export interface FastWorkflowAgentOptions {
  /** `fastworkflow` (default) drives a FastWorkflow workflow; `entry` any Python agent callable. */
  driver: "fastworkflow" | "entry";
  /** The FastWorkflow workflow directory (`_commands/`, trained `___command_info/`). */
  workflowPath?: string;
  /** `module:callable` for `driver=entry`. */
  entry?: string;
  /** Generic patch targets `module:qualname[=benchmark_tool]` (any Python agent's tool functions). */
  patchTargets: string[];
  /** FastWorkflow interception point (see README): `invoke_command` (default) or `execute_workflow_query`. */
  patchTarget: "invoke_command" | "execute_workflow_query";
  /** FastWorkflow agent mode (default) or assistant/deterministic mode (`runAsAgent=false`). */
  runAsAgent: boolean;
  bridgeMode: BridgeMode;
  /** Python interpreter (default `$TAUBRIDGE_PYTHON` or `python3`). */
  python?: string;
  launch: "module" | "sitecustomize";
  /** For `launch=sitecustomize`: the command line after the interpreter (JSON array or words). */
  program?: string[];
  channel: "stdio" | "fd";
  /** Extra `PYTHONPATH` entries (where FastWorkflow or the user's agent lives). */
  pythonPath: string[];
  cwd?: string;
  /** Dotenv files for `fastworkflow.init` (e.g. `fastworkflow.env,fastworkflow.passwords.env`). */
  envFiles: string[];
  /** Extra `fastworkflow.init` variables (`fwEnv.LLM_AGENT=litellm_proxy/...`). */
  fwEnv: Record<string, string>;
  /** Extra child-process environment variables (`env.LITELLM_PROXY_API_BASE=...`). */
  env: Record<string, string>;
  readyTimeoutMs: number;
  /** One user turn (the agent may make many LLM and tool calls in it). */
  turnTimeoutMs: number;
  closeTimeoutMs: number;
  /** Framework tool name → benchmark tool name, for workflows whose commands are named differently. */
  renames: Record<string, string>;
  /** App commands that may run their own code; every other command that is not a benchmark tool is not executed. */
  native: string[];
  /** Prepended to every observation returned as a tool result (e.g. `Response: `, as the example retail workflow's commands do). */
  responsePrefix: string;
}

/** Option keys, for error messages and `--help` texts. */
export const FASTWORKFLOW_OPTION_KEYS = [
  "workflowPath",
  "driver",
  "entry",
  "patchTargets",
  "patchTarget",
  "runAsAgent",
  "bridgeMode",
  "python",
  "launch",
  "program",
  "channel",
  "pythonPath",
  "cwd",
  "envFile",
  "fwEnv.<NAME>",
  "env.<NAME>",
  "readyTimeoutMs",
  "turnTimeoutMs",
  "closeTimeoutMs",
  "renames",
  "native",
  "responsePrefix",
] as const;

function text(key: string, value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new ConfigError(`--agent-option ${key}: expected a string, got ${JSON.stringify(value)}`);
}

function oneOf<T extends string>(key: string, value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  const chosen = text(key, value);
  if (!(allowed as readonly string[]).includes(chosen)) throw new ConfigError(`--agent-option ${key}=${chosen}: expected one of ${allowed.join(", ")}`);
  return chosen as T;
}

function flag(key: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  const chosen = text(key, value).toLowerCase();
  if (["1", "true", "yes", "on"].includes(chosen)) return true;
  if (["0", "false", "no", "off"].includes(chosen)) return false;
  throw new ConfigError(`--agent-option ${key}=${chosen}: expected true or false`);
}

function milliseconds(key: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(text(key, value));
  if (!Number.isInteger(parsed) || parsed <= 0) throw new ConfigError(`--agent-option ${key}: expected a positive integer (milliseconds)`);
  return parsed;
}

function list(value: unknown, separator: string | RegExp = ","): string[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.map(String);
  return String(value)
    .split(separator)
    .map((item) => item.trim())
    .filter(Boolean);
}

function words(key: string, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.map(String);
  const raw = text(key, value).trim();
  if (raw.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (Array.isArray(parsed)) return parsed.map(String);
    } catch {
      // fall through to the error
    }
    throw new ConfigError(`--agent-option ${key}: not a JSON array of strings`);
  }
  return raw.split(/\s+/).filter(Boolean);
}

/** Parses and checks `agentOptions` (`--agent-option` pairs). Throws ConfigError with the offending key. */
export function parseFastWorkflowOptions(raw: Readonly<Record<string, unknown>>): FastWorkflowAgentOptions {
  const fwEnv: Record<string, string> = {};
  const env: Record<string, string> = {};
  const plain: Record<string, unknown> = {};
  const known = new Set<string>(FASTWORKFLOW_OPTION_KEYS);
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (key.startsWith("fwEnv.") && key.length > 6) fwEnv[key.slice(6)] = text(key, value);
    else if (key.startsWith("env.") && key.length > 4) env[key.slice(4)] = text(key, value);
    else if (known.has(key)) plain[key] = value;
    else throw new ConfigError(`unknown --agent-option ${key} for the fastworkflow strategy; known: ${FASTWORKFLOW_OPTION_KEYS.join(", ")}`);
  }
  const driver = oneOf("driver", plain.driver, ["fastworkflow", "entry"] as const, "fastworkflow");
  const workflowPath = plain.workflowPath === undefined ? undefined : resolve(text("workflowPath", plain.workflowPath));
  if (driver === "fastworkflow") {
    if (!workflowPath) throw new ConfigError("the fastworkflow strategy needs a workflow: --workflow-path <dir> (or --agent-option workflowPath=<dir>)");
    if (!existsSync(workflowPath) || !statSync(workflowPath).isDirectory()) throw new ConfigError(`workflow directory not found: ${workflowPath}`);
  }
  const entry = plain.entry === undefined ? undefined : text("entry", plain.entry);
  if (driver === "entry" && (!entry || !entry.includes(":"))) throw new ConfigError("driver=entry needs --agent-option entry=<module>:<callable>");
  const patchTargets = list(plain.patchTargets);
  for (const target of patchTargets) {
    if (!/^[\w.]+:[\w.]+(=[\w.-]+)?$/.test(target)) throw new ConfigError(`--agent-option patchTargets: ${target} is not module:function[=tool]`);
  }
  const renames: Record<string, string> = {};
  for (const pair of list(plain.renames)) {
    const [from, to] = pair.split(":");
    if (!from || !to) throw new ConfigError(`--agent-option renames: ${pair} is not frameworkName:benchmarkName`);
    renames[from.trim()] = to.trim();
  }
  const options: FastWorkflowAgentOptions = {
    driver,
    patchTargets,
    patchTarget: oneOf("patchTarget", plain.patchTarget, ["invoke_command", "execute_workflow_query"] as const, "invoke_command"),
    runAsAgent: flag("runAsAgent", plain.runAsAgent, true),
    bridgeMode: oneOf("bridgeMode", plain.bridgeMode, BRIDGE_MODES, "internal"),
    launch: oneOf("launch", plain.launch, ["module", "sitecustomize"] as const, "module"),
    channel: oneOf("channel", plain.channel, ["stdio", "fd"] as const, "stdio"),
    pythonPath: list(plain.pythonPath, delimiter).map((entry) => resolve(entry)),
    envFiles: list(plain.envFile).map((file) => resolve(file)),
    fwEnv,
    env,
    readyTimeoutMs: milliseconds("readyTimeoutMs", plain.readyTimeoutMs, 20_000),
    turnTimeoutMs: milliseconds("turnTimeoutMs", plain.turnTimeoutMs, 600_000),
    closeTimeoutMs: milliseconds("closeTimeoutMs", plain.closeTimeoutMs, 5_000),
    renames,
    native: list(plain.native),
    responsePrefix: plain.responsePrefix === undefined ? "" : text("responsePrefix", plain.responsePrefix),
  };
  if (workflowPath) options.workflowPath = workflowPath;
  if (entry) options.entry = entry;
  if (plain.python !== undefined) options.python = text("python", plain.python);
  const program = words("program", plain.program);
  if (program) options.program = program;
  if (plain.cwd !== undefined) options.cwd = resolve(text("cwd", plain.cwd));
  for (const file of options.envFiles) if (!existsSync(file)) throw new ConfigError(`--agent-option envFile: ${file} not found`);
  return options;
}
