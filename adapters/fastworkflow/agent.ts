import { BridgeSession, NameMapping, type PlannedToolCall } from "../../bridge/session.ts";
import { endpointFailure, EndpointWatch } from "../../bridge/endpoint-failure.ts";
import { InfraError } from "../../src/errors/error-tree.ts";
import {
  PythonAgentError,
  PythonBridgeChild,
  PythonBridgeError,
  PythonBridgeSetupError,
  type SessionStartParams,
  type SessionStartResult,
  type ToolExecuteResult,
  type UserTurnResult,
} from "../../bridge/transport/index.ts";
import type { Action, JsonValue } from "../../src/core/types.ts";
import { type Incoming, incomingText, type Participant, type ParticipantContext, type ParticipantSession, type Turn } from "../../src/core/contracts.ts";
import { stepTarget } from "../common/driver.ts";
import { pyJsonDumps } from "../../src/value/index.ts";
import { redactUrl } from "../../src/secrets/redact.ts";
import type { FastWorkflowAgentOptions } from "./options.ts";

/** The text a tool call gets once the episode has ended or its step budget is spent (nothing is executed). */
export const EPISODE_OVER_OUTPUT = "Error: the episode has ended; this action was not executed.";

const INVOKE_COMMAND = "fastworkflow.command_executor:CommandExecutor.invoke_command";
const EXECUTE_WORKFLOW_QUERY = "fastworkflow.workflow_agent:_execute_workflow_query";

function parseToolExecute(params: unknown): PlannedToolCall {
  if (!params || typeof params !== "object") throw new Error("tool.execute needs {toolName, rawArguments, toolCallId}");
  const { toolName, rawArguments, toolCallId } = params as Record<string, unknown>;
  if (typeof toolName !== "string" || !toolName) throw new Error("tool.execute: toolName must be a non-empty string");
  if (typeof rawArguments !== "string") throw new Error("tool.execute: rawArguments must be the JSON text of the parameters");
  let parsed: unknown = {};
  try {
    parsed = JSON.parse(rawArguments === "" ? "{}" : rawArguments);
  } catch {
    parsed = {}; // kwargsFromCall reads rawArguments itself and reports what is wrong with it
  }
  return { toolName, rawArguments, params: parsed, ...(typeof toolCallId === "string" && toolCallId ? { toolCallId } : {}) };
}

/**
 * A FastWorkflow agent (or any Python agent, `driver=entry`) evaluated without changing its code.
 *
 * Per episode: one Python child (`python -m taubridge_bridge`, or the user's command line with our
 * `sitecustomize`), `session.start` with the workflow, then per user message one `session.user_turn`
 * that runs FastWorkflow's own agent. Inside the turn every app command FastWorkflow resolves is
 * intercepted after planning (name + validated parameters), sent back here as `tool.execute`, and
 * handled by the {@link BridgeSession}: mapped to a benchmark action, stepped in our environment (or
 * handed to the harness, or only planned), recorded, and its observation returned as the command's
 * result. The agent's reply goes to the simulated user as a `respond` action.
 *
 * Failure classes: the child dying, garbage on the protocol stream, a turn timeout, or a session that
 * cannot start are infrastructure errors (`InfraError`, the episode ends as `infra_error` and the
 * run goes on); so is an exception whose chain shows a failed model call (an HTTP status of the
 * endpoint, a failed connection: `bridge/endpoint-failure.ts`), and a connection refused before any
 * turn succeeded stops the run (exit 2), as for built-in agents. Any other exception raised by the
 * agent's own Python code is an agent error.
 *
 * The instance holds no per-episode state, so concurrent episodes are isolated by construction
 * (each has its own child process, environment and bridge session).
 */
export class FastWorkflowAgent implements Participant {
  readonly name: string;
  private readonly live = new Set<PythonBridgeChild>();
  private readonly watch: EndpointWatch;

  constructor(
    readonly options: FastWorkflowAgentOptions,
    /** Extra child options for tests (stderr capture, debug methods). */
    private readonly childOverrides: { debug?: boolean; onStderr?: (line: string) => void } = {},
    /** The model and base URL the run was given (`--model`, `--base-url`), only to name the endpoint in errors. */
    endpoint: { model?: string; baseUrl?: string } = {},
  ) {
    this.name = options.driver === "entry" ? "python-bridge" : "fastworkflow";
    this.watch = new EndpointWatch({
      framework: this.name,
      model: endpoint.model ?? "(set by the Python agent)",
      endpoint: endpoint.baseUrl ? redactUrl(endpoint.baseUrl) : "the Python agent's own endpoint",
      setting: "the Python agent's endpoint settings (e.g. --agent-option env.<NAME>=<url>)",
    });
  }

  /** The run-stopping error once the agent's model endpoint refused the run's first call. */
  unreachable(): Error | undefined {
    return this.watch.failure;
  }

  async start(context: ParticipantContext): Promise<ParticipantSession> {
    const session = new FastWorkflowSession(this.options, context, this.watch);
    const child = await PythonBridgeChild.start({
      ...(this.options.python ? { python: this.options.python } : {}),
      launch: this.options.launch,
      ...(this.options.program ? { program: this.options.program } : {}),
      channel: this.options.channel,
      pythonPath: this.options.pythonPath,
      env: {
        ...this.options.env,
        TAUBRIDGE_BRIDGE_PATCH_TARGET: this.options.patchTarget,
        ...(this.options.patchTargets.length ? { TAUBRIDGE_BRIDGE_TARGETS: this.options.patchTargets.join(",") } : {}),
      },
      ...(this.options.cwd ? { cwd: this.options.cwd } : {}),
      readyTimeoutMs: this.options.readyTimeoutMs,
      requestTimeoutMs: this.options.turnTimeoutMs,
      methods: { "tool.execute": (params: unknown) => session.toolExecute(params) },
      ...this.childOverrides,
    });
    this.live.add(child);
    try {
      await session.open(child);
    } catch (error) {
      await session.close();
      this.live.delete(child);
      throw error;
    }
    session.onClose = () => this.live.delete(child);
    return session;
  }

  /** Stops children of episodes still running (the run was interrupted). */
  async close(): Promise<void> {
    await Promise.all([...this.live].map((child) => child.close({ timeoutMs: 1_000 })));
  }
}

/**
 * One FastWorkflow episode: its Python child, its bridge session over the episode kernel's step path,
 * and one `session.user_turn` per agent turn. A mapped call that arrives after the episode ended or
 * past the step budget is refused by the step path with a tool error text (a framework in the
 * middle of a turn cannot be stopped, only refused), so the turn is left to finish on its own.
 */
class FastWorkflowSession implements ParticipantSession {
  onClose: (() => void) | undefined;
  private child: PythonBridgeChild | undefined;
  private started: SessionStartResult | undefined;
  private readonly bridge: BridgeSession;
  private passthrough = 0;
  private refused = 0;
  private readonly unmapped = new Set<string>();
  private anonymous = 0;
  private readonly recordedCalls = new Set<string>();
  private readonly decisions: JsonValue[] = [];
  private readonly turnStatuses: string[] = [];
  private readonly onAbort = () => this.child?.kill();

  constructor(
    private readonly options: FastWorkflowAgentOptions,
    private readonly context: ParticipantContext,
    private readonly watch: EndpointWatch,
  ) {
    const steps = stepTarget(context);
    this.bridge = new BridgeSession({
      steps,
      mapping: new NameMapping(new Set(context.domain.toolNames), { renames: options.renames, native: options.native }),
      mode: options.bridgeMode,
      decide: (action: Action, call: PlannedToolCall) => {
        this.decisions.push({ toolName: call.toolName, toolCallId: call.toolCallId ?? null, name: action.name, kwargs: pyJsonDumps(action.kwargs) });
        return steps.step({ action, origin: "harness", ...(call.toolCallId ? { toolCallId: call.toolCallId } : {}), frameworkToolName: call.toolName });
      },
      ...(options.responsePrefix ? { render: (observation: string) => `${options.responsePrefix}${observation}` } : {}),
    });
  }

  /** Starts the Python session (the workflow) in the child; an unpatched target is a setup error. */
  async open(child: PythonBridgeChild): Promise<void> {
    this.child = child;
    const { signal } = this.context;
    signal.addEventListener("abort", this.onAbort, { once: true });
    if (signal.aborted) throw signal.reason ?? new PythonBridgeError("episode aborted");
    const options = this.options;
    const start: SessionStartParams = {
      driver: options.driver,
      patchTarget: options.patchTarget,
      runAsAgent: options.runAsAgent,
      envFiles: options.envFiles,
      fwEnv: options.fwEnv,
      patchTargets: options.patchTargets,
      ...(options.workflowPath ? { workflowPath: options.workflowPath } : {}),
      ...(options.entry ? { entry: options.entry } : {}),
    };
    this.started = await child.request<SessionStartResult>("session.start", start, { timeoutMs: options.turnTimeoutMs });
    if (options.driver === "fastworkflow") {
      const wanted = options.patchTarget === "invoke_command" ? INVOKE_COMMAND : EXECUTE_WORKFLOW_QUERY;
      if (!this.started.patched.includes(wanted)) {
        throw new PythonBridgeSetupError(`FastWorkflow target ${wanted} is not patched; tool calls would run unbridged`, { stderrTail: child.stderrTail() });
      }
    }
    const described = options.driver === "entry" ? `Python agent ${options.entry}` : `FastWorkflow workflow ${options.workflowPath}`;
    this.context.transcript.addMessage({ role: "system", content: `${described}, bridged by taubridge (the domain policy is not part of this agent's prompt)` });
  }

  /** The child's `tool.execute`: one intercepted app command, handled by the bridge session. */
  async toolExecute(params: unknown): Promise<ToolExecuteResult> {
    const parsed = parseToolExecute(params);
    const call: PlannedToolCall = parsed.toolCallId ? parsed : { ...parsed, toolCallId: `call_fw_${++this.anonymous}` };
    const outcome = await this.bridge.handle(call);
    if (outcome.kind === "passthrough") {
      this.passthrough++;
      return { passthrough: true };
    }
    const id = call.toolCallId!;
    if (outcome.refused) this.refused++;
    else if (outcome.unmapped) this.unmapped.add(call.toolName);
    else if (!this.recordedCalls.has(id)) {
      this.recordedCalls.add(id);
      const transcript = this.context.transcript;
      transcript.addMessage({
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name: outcome.action.name, arguments: pyJsonDumps(outcome.action.kwargs) } }],
      });
      transcript.addMessage({ role: "tool", tool_call_id: id, name: outcome.action.name, content: outcome.output });
    }
    return { output: outcome.output };
  }

  async next(incoming: Incoming | null): Promise<Turn> {
    const text = incoming === null ? "" : incomingText(incoming);
    this.context.transcript.addMessage({ role: "user", content: text });
    let turn: UserTurnResult;
    try {
      turn = await this.child!.request<UserTurnResult>("session.user_turn", { text }, { timeoutMs: this.options.turnTimeoutMs });
    } catch (error) {
      // The agent's exception shows a failed model call: infrastructure, as for built-in agents.
      if (!this.context.signal.aborted && PythonAgentError.isInstance(error) && endpointFailure(error)) {
        this.watch.refused(error);
        throw new InfraError(`${this.watch.describe()}: model endpoint failed: ${error.message}`, { cause: error });
      }
      throw error;
    }
    this.watch.answer();
    this.turnStatuses.push(turn.status);
    if (!stepTarget(this.context).ended) this.context.transcript.addMessage({ role: "assistant", content: turn.reply });
    return { content: turn.reply, toolCalls: [] };
  }

  finish(incoming: Incoming): void {
    this.context.transcript.addMessage({ role: "user", content: incomingText(incoming) });
  }

  extra(): Record<string, JsonValue> {
    const options = this.options;
    const bridge: Record<string, JsonValue> = {
      driver: options.driver,
      mode: this.bridge.mode,
      launch: options.launch,
      channel: options.channel,
      pythonVersion: this.child?.ready.pythonVersion ?? null,
      patched: [...(this.child?.patched ?? [])],
      patchTarget: options.patchTarget,
      toolCalls: this.recordedCalls.size,
      passthrough: this.passthrough,
      refused: this.refused,
      unmappedTools: [...this.unmapped],
      turnStatuses: this.turnStatuses,
      resolutionErrors: this.bridge.resolutionErrors.map((error) => ({ ...error })) as JsonValue,
      session: (this.started?.info ?? null) as JsonValue,
    };
    if (this.bridge.mode === "decision-only") bridge.decisions = this.decisions;
    return { bridge };
  }

  async close(): Promise<void> {
    this.context.signal.removeEventListener("abort", this.onAbort);
    this.onClose?.();
    await this.child?.close({ timeoutMs: this.options.closeTimeoutMs });
  }
}
