import type { Action, StepEvent, StepOrigin, StepResult } from "../src/core/types.ts";
import type { Environment } from "../src/engine/environment.ts";
import type { EpisodeRecorder } from "../src/runner/episode-recorder.ts";
import { parsePythonJson, fromJs, pyJsonDumps, type PyDict, type PyValue } from "../src/value/index.ts";

/**
 * How a bridged tool call reaches the environment:
 * - `internal`: the bridge steps the environment itself and returns the observation (default);
 * - `decision-only`: the bridge hands the planned action to the harness, which logs it, steps the
 *   environment and resolves the tool result (debugging what the agent decided);
 * - `dry-run`: nothing is stepped; the tool result says so and the plan is recorded.
 */
export type BridgeMode = "internal" | "decision-only" | "dry-run";
export const BRIDGE_MODES: readonly BridgeMode[] = ["internal", "decision-only", "dry-run"];

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

/**
 * Maps framework tool calls to benchmark actions. `null` means "not a benchmark tool": the
 * framework runs it natively (handoffs, agent-as-tool, navigation commands).
 */
export interface ToolMapping {
  toAction(call: PlannedToolCall): Action | null;
}

/** The outcome the adapter returns to the framework. */
export type BridgeOutcome = { kind: "passthrough" } | { kind: "result"; output: string; action: Action; stepped: boolean };

/** Raised by {@link ToolMapping} when parameters cannot be turned into an action; becomes a tool error text. */
export class ParameterResolutionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
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

/**
 * The default mapping: a framework tool whose name is a benchmark tool maps 1:1; an optional
 * rename table (framework name → benchmark name) and a per-tool argument transform can override.
 */
export class NameMapping implements ToolMapping {
  constructor(
    private readonly benchmarkTools: ReadonlySet<string>,
    private readonly renames: Readonly<Record<string, string>> = {},
    private readonly transforms: Readonly<Record<string, (kwargs: PyDict) => PyDict>> = {},
  ) {}

  toAction(call: PlannedToolCall): Action | null {
    const name = this.renames[call.toolName] ?? call.toolName;
    if (!this.benchmarkTools.has(name)) return null;
    const kwargs = kwargsFromCall(call);
    const transform = this.transforms[call.toolName] ?? this.transforms[name];
    return { name, kwargs: transform ? transform(kwargs) : kwargs };
  }
}

/** Options of one bridge session (one per episode; nothing is shared between episodes). */
export interface BridgeSessionOptions {
  env: Environment;
  recorder: EpisodeRecorder;
  mapping: ToolMapping;
  mode?: BridgeMode;
  /** decision-only: the harness steps the environment and returns the observation. */
  decide?: (action: Action, call: PlannedToolCall) => Promise<StepResult>;
  /** Renders an observation into the tool result text (default: unchanged). */
  render?: (observation: string, action: Action) => string;
  /**
   * Asked before a mapped call is stepped (or handed to the harness, or dry-run planned). A string
   * refuses the call with that tool result and nothing is stepped or recorded: the driver uses it
   * for the episode's step limit and for calls arriving after the episode has ended.
   */
  admit?: (action: Action, call: PlannedToolCall) => string | undefined;
}

/**
 * One episode's bridge: the contract every adapter calls from its interception point.
 * (a) plans only (tool name + validated params, the tool's own code never runs), (b) maps to an
 * action, (c) steps the environment (or hands it to the harness), (d) renders the observation as
 * the tool result, (e) records a step event. Framework retries with the same tool-call id return
 * the first result without stepping again.
 */
export class BridgeSession {
  readonly mode: BridgeMode;
  private readonly byCallId = new Map<string, Promise<BridgeOutcome>>();
  /** Parameter-resolution failures, for the results file. */
  readonly resolutionErrors: Array<{ toolName: string; message: string; toolCallId?: string }> = [];

  constructor(private readonly options: BridgeSessionOptions) {
    this.mode = options.mode ?? "internal";
  }

  get env(): Environment {
    return this.options.env;
  }

  /** Handles one intercepted tool call. Never throws for bad parameters: they become an error text. */
  handle(call: PlannedToolCall): Promise<BridgeOutcome> {
    if (call.toolCallId) {
      const previous = this.byCallId.get(call.toolCallId);
      if (previous) return previous;
    }
    const outcome = this.execute(call);
    if (call.toolCallId) this.byCallId.set(call.toolCallId, outcome);
    return outcome;
  }

  private async execute(call: PlannedToolCall): Promise<BridgeOutcome> {
    let action: Action | null;
    try {
      action = this.options.mapping.toAction(call);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.resolutionErrors.push({ toolName: call.toolName, message, ...(call.toolCallId ? { toolCallId: call.toolCallId } : {}) });
      const failed: Action = { name: call.toolName, kwargs: new Map() };
      return { kind: "result", output: `Error: could not resolve the parameters of ${call.toolName}: ${message}`, action: failed, stepped: false };
    }
    if (!action) return { kind: "passthrough" };
    const refusal = this.options.admit?.(action, call);
    if (refusal !== undefined) return { kind: "result", output: refusal, action, stepped: false };
    const event = (result: StepResult | null, origin: StepOrigin): StepEvent => ({
      action: action!,
      observation: result?.observation ?? "",
      reward: result?.reward ?? 0,
      done: result?.done ?? false,
      origin,
      ...(call.toolCallId ? { toolCallId: call.toolCallId } : {}),
      ...(call.toolName !== action!.name ? { frameworkToolName: call.toolName } : {}),
    });
    const render = this.options.render ?? ((observation: string) => observation);
    if (this.mode === "dry-run") {
      this.options.recorder.addPlanned(event(null, "dry-run"));
      return { kind: "result", output: `[dry run] planned ${action.name}(${pyJsonDumps(action.kwargs)}); nothing was executed`, action, stepped: false };
    }
    let result: StepResult;
    let origin: StepOrigin;
    if (this.mode === "decision-only") {
      if (!this.options.decide) throw new Error("decision-only mode needs a decide() callback from the harness");
      result = await this.options.decide(action, call);
      origin = "harness";
    } else {
      result = await this.options.env.step(action);
      origin = "bridge";
    }
    this.options.recorder.addStep(event(result, origin), result);
    return { kind: "result", output: render(result.observation, action), action, stepped: true };
  }
}
