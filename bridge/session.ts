import type { StepOutcome, StepRequest, StepTarget } from "../src/core/contracts.ts";
import type { Action } from "../src/core/types.ts";
import { pyJsonDumps } from "../src/value/index.ts";
import { unmappedToolOutput, type MappedCall, type PlannedToolCall, type ToolMapping } from "./mapping.ts";

/**
 * How a bridged tool call reaches the environment:
 * - `internal`: the bridge steps the environment itself and returns the observation (default);
 * - `decision-only`: the bridge hands the planned action to the harness, which logs it, steps the
 *   environment and resolves the tool result (debugging what the agent decided);
 * - `dry-run`: nothing is stepped; the tool result says so and the plan is recorded.
 */
export type BridgeMode = "internal" | "decision-only" | "dry-run";
export const BRIDGE_MODES: readonly BridgeMode[] = ["internal", "decision-only", "dry-run"];

export { kwargsFromCall, NameMapping, ParameterResolutionError, readMappingFile, unmappedToolOutput, type MappedCall, type MappingSpec, type PlannedToolCall, type ToolMapping } from "./mapping.ts";

/** The outcome the adapter returns to the framework. */
export type BridgeOutcome =
  /** Run the framework tool's own code (the mapping lists it as `native`). */
  | { kind: "passthrough" }
  /**
   * The tool result to hand back. `refused`: the episode kernel did not accept the step (the episode
   * had ended or its budget was spent); `unmapped`: not a benchmark tool and not allowed to run.
   */
  | { kind: "result"; output: string; action: Action; stepped: boolean; refused?: boolean; unmapped?: boolean };

/** Options of one bridge session (one per episode; nothing is shared between episodes). */
export interface BridgeSessionOptions {
  /** The episode kernel's step path: every bridged step goes through it (recorded, counted, may end the episode). */
  steps: StepTarget;
  mapping: ToolMapping;
  mode?: BridgeMode;
  /**
   * decision-only: the harness receives the planned action and resolves the tool result; by
   * default it steps the action through {@link steps} with origin `harness`.
   */
  decide?: (action: Action, call: PlannedToolCall) => Promise<StepOutcome>;
  /** Renders an observation into the tool result text (default: unchanged). */
  render?: (observation: string, action: Action) => string;
}

/**
 * One episode's bridge: the contract every adapter calls from its interception point.
 * (a) plans only (tool name + validated params, the tool's own code never runs), (b) maps to an
 * action, (c) hands it to the episode kernel's step path (or to the harness, or only plans it),
 * (d) renders the observation as the tool result. Recording, counting and the end of the episode
 * belong to the step path. Framework retries with the same tool-call id return the first result
 * without stepping again.
 */
export class BridgeSession {
  readonly mode: BridgeMode;
  private readonly byCallId = new Map<string, Promise<BridgeOutcome>>();
  /** Parameter-resolution failures, for the results file. */
  readonly resolutionErrors: Array<{ toolName: string; message: string; toolCallId?: string }> = [];
  /** Framework tools the agent called that are not mapped (not executed), for the run summary. */
  readonly unmappedTools = new Set<string>();

  constructor(private readonly options: BridgeSessionOptions) {
    this.mode = options.mode ?? "internal";
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
    let mapped: MappedCall;
    try {
      mapped = this.options.mapping.resolve(call);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.resolutionErrors.push({ toolName: call.toolName, message, ...(call.toolCallId ? { toolCallId: call.toolCallId } : {}) });
      const failed: Action = { name: call.toolName, kwargs: new Map() };
      return { kind: "result", output: `Error: could not resolve the parameters of ${call.toolName}: ${message}`, action: failed, stepped: false };
    }
    if (mapped.kind === "native") return { kind: "passthrough" };
    if (mapped.kind === "unmapped") {
      this.unmappedTools.add(call.toolName);
      return { kind: "result", output: unmappedToolOutput(call.toolName), action: { name: call.toolName, kwargs: new Map() }, stepped: false, unmapped: true };
    }
    const action = mapped.action;
    const request: StepRequest = {
      action,
      origin: "bridge",
      ...(call.toolCallId ? { toolCallId: call.toolCallId } : {}),
      ...(call.toolName !== action.name ? { frameworkToolName: call.toolName } : {}),
    };
    const render = this.options.render ?? ((observation: string) => observation);
    if (this.mode === "dry-run") {
      const planned = this.options.steps.plan({ ...request, origin: "dry-run" });
      if (planned.refused) return { kind: "result", output: planned.observation, action, stepped: false, refused: true };
      return { kind: "result", output: `[dry run] planned ${action.name}(${pyJsonDumps(action.kwargs)}); nothing was executed`, action, stepped: false };
    }
    const outcome =
      this.mode === "decision-only"
        ? await (this.options.decide ?? ((decided: Action) => this.options.steps.step({ ...request, action: decided, origin: "harness" })))(action, call)
        : await this.options.steps.step(request);
    if (outcome.refused) return { kind: "result", output: outcome.observation, action, stepped: false, refused: true };
    return { kind: "result", output: render(outcome.observation, action), action, stepped: true };
  }
}
