/**
 * Reading run flags: raw values from commander (strings) or from the API (typed values, or
 * strings parsed the CLI way), checked against the one flag table (`run-flags.ts`), τ²'s spellings
 * taken as aliases, each flag refused in one line when it does not apply to the run's suite, and
 * the suite's defaults applied. The result is the run's settings by canonical option name, which
 * each suite turns into its own configuration.
 */
import { ConfigError } from "../errors/error-tree.ts";
import { parsePythonJson, type PyDict } from "../value/index.ts";
import { canonicalName, flagAppliesTo, flagDefault, optionName, RUN_FLAGS, runFlag, suiteNamed, type RunFlag, type SuiteName } from "./run-flags.ts";

/** A run's settings: every flag's value by canonical option name (`env`, `agentStrategy`, …), defaults applied, plus the suite. */
export interface RunSettings {
  suite: SuiteName;
  values: Record<string, unknown>;
}

function describe(value: unknown): string {
  return typeof value === "string" ? `"${value}"` : (JSON.stringify(value) ?? String(value));
}

function parseInteger(text: string): number | undefined {
  const parsed = Number(text);
  return text.trim() !== "" && Number.isInteger(parsed) ? parsed : undefined;
}

function parseList(raw: unknown, fail: (expected: string) => never): Array<string | number> {
  const items = typeof raw === "string" || typeof raw === "number" ? [raw] : Array.isArray(raw) ? raw : fail("a list");
  const values: Array<string | number> = [];
  for (const item of items) {
    if (typeof item === "number") values.push(item);
    else if (typeof item === "string") values.push(...item.split(/[ ,]+/).filter(Boolean));
    else fail("a list of ids");
  }
  return values;
}

function parseKeyValues(raw: unknown, fail: (expected: string) => never): Record<string, string> {
  const pairs: Record<string, string> = {};
  if (raw && typeof raw === "object" && !Array.isArray(raw)) {
    for (const [key, item] of Object.entries(raw)) {
      if (typeof item !== "string") fail(`string values (key ${key})`);
      pairs[key] = item as string;
    }
    return pairs;
  }
  const items = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw : fail("key=value pairs");
  for (const item of items) {
    const index = typeof item === "string" ? item.indexOf("=") : -1;
    if (index <= 0) fail("key=value");
    pairs[(item as string).slice(0, index)] = (item as string).slice(index + 1);
  }
  return pairs;
}

/**
 * A JSON object flag. Text (the CLI's, or an API string) is read the way Python's `json.loads`
 * reads it, into the value model, so `0.0` stays a float where the run records it (τ² writes LLM
 * arguments back into its results, and the original spells floats `0.0`); an API object is kept.
 */
function parseJsonObject(raw: unknown, fail: (expected: string) => never): PyDict | Record<string, unknown> {
  if (typeof raw === "string") {
    let parsed: unknown;
    try {
      parsed = parsePythonJson(raw);
    } catch {
      fail(`a JSON object, e.g. '{"temperature": 0.0}'`);
    }
    if (!(parsed instanceof Map)) fail("a JSON object");
    return parsed as PyDict;
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw) || raw instanceof Map) fail("a JSON object");
  return raw as Record<string, unknown>;
}

/** Reads one flag's value (a CLI string, or a typed API value); the error names the flag. */
export function parseFlagValue(flag: RunFlag, raw: unknown): unknown {
  const fail = (expected: string): never => {
    throw new ConfigError(`${flag.flag}: expected ${expected}, got ${describe(raw)}`);
  };
  let value: unknown;
  switch (flag.type) {
    case "string":
      value = typeof raw === "string" && raw !== "" ? raw : fail("a non-empty string");
      break;
    case "integer": {
      const parsed = typeof raw === "number" ? raw : typeof raw === "string" ? parseInteger(raw) : undefined;
      value = parsed !== undefined && Number.isInteger(parsed) ? parsed : fail("an integer");
      break;
    }
    case "number": {
      const parsed = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : undefined;
      value = parsed !== undefined && Number.isFinite(parsed) ? parsed : fail("a number");
      break;
    }
    case "boolean":
      value = typeof raw === "boolean" ? raw : fail("true or false");
      break;
    case "list":
      value = parseList(raw, fail);
      break;
    case "key-value":
      value = parseKeyValues(raw, fail);
      break;
    case "json-object":
      value = parseJsonObject(raw, fail);
      break;
  }
  const problem = flag.check?.(value as never);
  if (problem) throw new ConfigError(`${flag.flag}: ${problem}`);
  return value;
}

/** The option names the surface takes, for the error that lists them. */
function knownNames(surface: "cli" | "api"): string[] {
  return (RUN_FLAGS as readonly RunFlag[]).filter((flag) => surface === "cli" || !flag.cliOnly).map((flag) => optionName(flag.flag));
}

/**
 * Validates raw flag values (by option name or alias) for a run of `suite` and applies the suite's
 * defaults. An unknown name lists the known ones; a flag of the other suite is refused in one line;
 * an option given twice (by its name and an alias) is refused.
 */
export function parseRunSettings(raw: Record<string, unknown>, surface: "cli" | "api", suiteOverride?: SuiteName): RunSettings {
  if (raw.suite !== undefined && !["tau", "tau2", "tau-bench", "tau2-bench"].includes(String(raw.suite))) {
    throw new ConfigError(`--suite: must be one of tau, tau2 (or tau-bench, tau2-bench), got ${describe(raw.suite)}`);
  }
  const suite = suiteOverride ?? suiteNamed(typeof raw.suite === "string" ? raw.suite : "tau");
  const values: Record<string, unknown> = {};
  const given = new Map<string, string>();
  for (const [name, value] of Object.entries(raw)) {
    if (name === "suite" || value === undefined) continue;
    const flag = runFlag(name);
    if (!flag || (surface === "api" && flag.cliOnly)) throw new ConfigError(`unknown run option "${name}"; known: ${knownNames(surface).join(", ")}`);
    const canonical = canonicalName(name) as string;
    if (given.has(canonical)) throw new ConfigError(`${flag.flag} is given twice (as ${given.get(canonical)} and ${name})`);
    given.set(canonical, name);
    if (!flagAppliesTo(flag, suite)) throw new ConfigError(`${flag.flag} applies to --suite ${flag.suites?.join(", ")} only, not to ${suite}`);
    values[canonical] = parseFlagValue(flag, value);
  }
  for (const flag of RUN_FLAGS as readonly RunFlag[]) {
    const name = optionName(flag.flag);
    if (values[name] !== undefined || !flagAppliesTo(flag, suite) || (surface === "api" && flag.cliOnly)) continue;
    const fallback = flagDefault(flag, suite);
    if (fallback !== undefined) values[name] = typeof fallback === "object" ? structuredClone(fallback) : fallback;
  }
  return { suite, values };
}

/** The `--agent-option` values with the shorthands (`--agent-module`, `--workflow-path`, `--agent-isolation`, `--bridge-mode`, `--dry-run`, `--agent-endpoint` and the other `--agent-a2a-*`) folded in. */
export function agentOptionsOf(values: Record<string, unknown>): Record<string, string> {
  const text = (name: string) => values[name] as string | undefined;
  return {
    ...(text("agentModule") ? { module: text("agentModule")! } : {}),
    ...(text("workflowPath") ? { workflowPath: text("workflowPath")! } : {}),
    ...(text("agentIsolation") ? { isolation: text("agentIsolation")! } : {}),
    ...(text("bridgeMode") ? { bridgeMode: text("bridgeMode")! } : {}),
    ...(values.dryRun ? { dryRun: "true" } : {}),
    ...(text("agentEndpoint") ? { endpoint: text("agentEndpoint")! } : {}),
    ...(values.agentA2aTimeout !== undefined ? { timeout: String(values.agentA2aTimeout) } : {}),
    ...(text("agentA2aTokenEnv") ? { tokenEnv: text("agentA2aTokenEnv")! } : {}),
    ...(values.a2aDebug ? { debug: "true" } : {}),
    ...((values.agentOption as Record<string, string> | undefined) ?? {}),
  };
}

/** Which flag a settings field comes from (for error messages naming the flag). */
export function flagForField(field: string): string {
  const renamed: Record<string, string> = { episodeTimeoutMs: "--episode-timeout", modelTimeoutMs: "--model-timeout", agentOptions: "--agent-option" };
  if (renamed[field]) return renamed[field];
  return runFlag(field)?.flag ?? field;
}
