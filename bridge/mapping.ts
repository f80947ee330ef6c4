/**
 * How a framework's tool calls map onto a benchmark domain's tools: 1:1 by name by default, with
 * optional renames of tools and of their arguments, and an explicit list of tools that may run
 * their own code. Everything else is **not executed** (fail closed): an agent built for production
 * may have tools that reach a real backend, and a benchmark run must never call them by accident.
 *
 * The mapping file (`--agent-option mapping=<file.json>`):
 *
 * ```json
 * {
 *   "renames":   { "lookup_order": "get_order_details" },
 *   "arguments": { "return_items": { "refund_to": "payment_method_id" } },
 *   "native":    ["current_time"]
 * }
 * ```
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError, TaubridgeError, errorMarker } from "../src/errors/error-tree.ts";
import type { Action } from "../src/core/types.ts";
import { parsePythonJson } from "../src/value/index.ts";
import { fromJs, pyJsonDumps, type PyDict, type PyValue } from "../src/value/index.ts";

/** A tool call as the framework is about to execute it: already validated by the framework. */
export interface PlannedToolCall {
  /** The framework's tool name. */
  toolName: string;
  /** The framework-validated parameters (plain JS). */
  params: unknown;
  /**
   * The model's raw JSON argument text, when the framework exposes it. Preferred over `params`
   * because it keeps Python number types (`100.0` stays a float), which τ-bench hashes.
   */
  rawArguments?: string;
  /** The framework's tool-call id; a retry with the same id never steps twice. */
  toolCallId?: string;
}

/** Raised by a {@link ToolMapping} when parameters cannot be turned into an action; becomes a tool error text. */
export class ParameterResolutionError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("ParameterResolutionError");
}

/** What a framework tool call is, for the benchmark. */
export type MappedCall =
  | { kind: "action"; action: Action }
  /** Explicitly allowed to run the framework tool's own code (the mapping's `native` list). */
  | { kind: "native" }
  /** Not a benchmark tool and not allowed to run: the model gets an error observation. */
  | { kind: "unmapped" };

/** Maps framework tool calls to benchmark actions. */
export interface ToolMapping {
  resolve(call: PlannedToolCall): MappedCall;
}

/** A mapping as data (what a mapping file holds). */
export interface MappingSpec {
  /** Framework tool name → benchmark tool name. */
  renames?: Readonly<Record<string, string>>;
  /** Tool (framework or benchmark name) → { framework argument name → benchmark argument name }. */
  arguments?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Framework tools that may run their own code (never benchmark tools). */
  native?: readonly string[];
}

/** The text the model gets for a tool that is neither mapped nor allowed to run natively. */
export function unmappedToolOutput(toolName: string): string {
  return `Error: tool "${toolName}" is not part of the benchmark domain; it was not executed`;
}

/** Turns framework params (or raw JSON) into Python-faithful kwargs. */
export function kwargsFromCall(call: PlannedToolCall): PyDict {
  if (call.rawArguments !== undefined) {
    try {
      const parsed = parsePythonJson(call.rawArguments.trim() === "" ? "{}" : call.rawArguments);
      if (parsed instanceof Map) return parsed;
    } catch {
      // fall back to the framework's parsed params
    }
  }
  const value = fromJs(call.params ?? {});
  if (!(value instanceof Map)) throw new ParameterResolutionError(`tool ${call.toolName} expects an object of named parameters, got ${pyJsonDumps(value as PyValue)}`);
  return value;
}

function renameArguments(kwargs: PyDict, renames: Readonly<Record<string, string>> | undefined): PyDict {
  if (!renames) return kwargs;
  const renamed: PyDict = new Map();
  for (const [key, value] of kwargs) renamed.set(renames[key] ?? key, value);
  return renamed;
}

/**
 * The mapping every adapter uses: a framework tool whose name (after renames) is a benchmark tool
 * becomes that action, with its arguments renamed as the spec says; a tool on the `native` list
 * runs its own code; anything else is unmapped.
 */
export class NameMapping implements ToolMapping {
  private readonly native: ReadonlySet<string>;

  constructor(
    private readonly benchmarkTools: ReadonlySet<string>,
    private readonly spec: MappingSpec = {},
  ) {
    this.native = new Set(spec.native ?? []);
  }

  resolve(call: PlannedToolCall): MappedCall {
    const name = this.spec.renames?.[call.toolName] ?? call.toolName;
    if (!this.benchmarkTools.has(name)) return this.native.has(call.toolName) ? { kind: "native" } : { kind: "unmapped" };
    const argumentRenames = this.spec.arguments?.[call.toolName] ?? this.spec.arguments?.[name];
    return { kind: "action", action: { name, kwargs: renameArguments(kwargsFromCall(call), argumentRenames) } };
  }
}

const mappingFileSchema = z.strictObject({
  renames: z.record(z.string(), z.string()).optional(),
  arguments: z.record(z.string(), z.record(z.string(), z.string())).optional(),
  native: z.array(z.string()).optional(),
});

function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  return (
    path
      .map((part) => (typeof part === "number" ? `[${part}]` : String(part)))
      .join(".")
      .replaceAll(".[", "[") || "(top level)"
  );
}

/**
 * Reads and checks a mapping file against the domain's tools: its shape (errors name the file and
 * the field), rename targets and argument keys that are benchmark tools, native tools that are not.
 */
export function readMappingFile(path: string, domain: { name: string; toolNames: readonly string[] }): MappingSpec {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ConfigError(`cannot read the mapping file ${path}: ${(error as Error).message}`, { cause: error });
  }
  const parsed = mappingFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(
      `mapping file ${path}: field ${fieldPath(issue.path)}: ${issue.message} (expected {"renames": {framework: benchmark}, "arguments": {tool: {frameworkArg: benchmarkArg}}, "native": [tool, …]})`,
    );
  }
  const spec = parsed.data;
  const tools = new Set(domain.toolNames);
  const known = `known: ${domain.toolNames.join(", ")}`;
  for (const [from, to] of Object.entries(spec.renames ?? {})) {
    if (!tools.has(to)) throw new ConfigError(`mapping file ${path}: field renames.${from}: "${to}" is not a tool of ${domain.name} (${known})`);
  }
  const renamedFrom = new Set(Object.keys(spec.renames ?? {}));
  for (const tool of Object.keys(spec.arguments ?? {})) {
    if (!tools.has(tool) && !renamedFrom.has(tool)) throw new ConfigError(`mapping file ${path}: field arguments.${tool}: not a tool of ${domain.name} nor a renamed framework tool (${known})`);
  }
  (spec.native ?? []).forEach((tool, index) => {
    if (tools.has(tool) || renamedFrom.has(tool)) throw new ConfigError(`mapping file ${path}: field native[${index}]: "${tool}" maps to a benchmark tool, so it cannot also run natively`);
  });
  return spec;
}
