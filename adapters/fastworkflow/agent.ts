import { BridgeSession, NameMapping, type PlannedToolCall } from "../../bridge/session.ts";
import {
  PythonBridgeChild,
  PythonBridgeError,
  PythonBridgeSetupError,
  type SessionStartParams,
  type SessionStartResult,
  type ToolExecuteResult,
  type UserTurnResult,
} from "../../bridge/transport/index.ts";
import { RESPOND_ACTION_NAME, type Action, type JsonValue, type TerminationReason } from "../../src/core/types.ts";
import type { Agent, AgentEpisodeContext, AgentEpisodeResult } from "../../src/agents/agent.ts";
import { pyJsonDumps } from "../../src/value/index.ts";
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
 * run goes on); an exception raised by the agent's own Python code is an agent error.
 *
 * The instance holds no per-episode state, so concurrent episodes are isolated by construction
 * (each has its own child process, environment and bridge session).
 */
export class FastWorkflowAgent implements Agent {
  readonly name: string;
  private readonly live = new Set<PythonBridgeChild>();

  constructor(
    readonly options: FastWorkflowAgentOptions,
    /** Extra child options for tests (stderr capture, debug methods). */
    private readonly childOverrides: { debug?: boolean; onStderr?: (line: string) => void } = {},
  ) {
    this.name = options.driver === "entry" ? "python-bridge" : "fastworkflow";
  }

  async solve({ env, recorder, maxSteps, signal }: AgentEpisodeContext): Promise<AgentEpisodeResult> {
    const options = this.options;
    let steps = 0;
    let passthrough = 0;
    let refused = 0;
    const recordedCalls = new Set<string>();
    const refusedCalls = new Set<string>();
    const decisions: JsonValue[] = [];
    const turnStatuses: string[] = [];
    const mapping = new NameMapping(new Set(env.domain.toolsByName.keys()), options.renames);
    const session = new BridgeSession({
      env,
      recorder,
      mapping,
      mode: options.bridgeMode,
      decide: async (action: Action, call: PlannedToolCall) => {
        decisions.push({ toolName: call.toolName, toolCallId: call.toolCallId ?? null, name: action.name, kwargs: pyJsonDumps(action.kwargs) });
        return env.step(action);
      },
      // The step budget and the end of the episode: a mapped call that arrives too late is refused
      // with a tool error text, not stepped and not recorded (τ-bench stops the loop instead; a
      // framework in the middle of a turn cannot be stopped, only refused). A slot is reserved here,
      // so concurrent calls from a multi-threaded agent cannot overrun the budget.
      admit: (_action: Action, call: PlannedToolCall) => {
        if (env.isDone || steps >= maxSteps) {
          refused++;
          if (call.toolCallId) refusedCalls.add(call.toolCallId);
          return EPISODE_OVER_OUTPUT;
        }
        steps++;
        return undefined;
      },
      ...(options.responsePrefix ? { render: (observation: string) => `${options.responsePrefix}${observation}` } : {}),
    });

    let anonymous = 0;
    const toolExecute = async (params: unknown): Promise<ToolExecuteResult> => {
      const parsed = parseToolExecute(params);
      const call: PlannedToolCall = parsed.toolCallId ? parsed : { ...parsed, toolCallId: `call_fw_${++anonymous}` };
      const outcome = await session.handle(call);
      if (outcome.kind === "passthrough") {
        passthrough++;
        return { passthrough: true };
      }
      const id = call.toolCallId!;
      if (!recordedCalls.has(id) && !refusedCalls.has(id)) {
        recordedCalls.add(id);
        recorder.addMessage({
          role: "assistant",
          content: null,
          tool_calls: [{ id, type: "function", function: { name: outcome.action.name, arguments: pyJsonDumps(outcome.action.kwargs) } }],
        });
        recorder.addMessage({ role: "tool", tool_call_id: id, name: outcome.action.name, content: outcome.output });
      }
      return { output: outcome.output };
    };

    const child = await PythonBridgeChild.start({
      ...(options.python ? { python: options.python } : {}),
      launch: options.launch,
      ...(options.program ? { program: options.program } : {}),
      channel: options.channel,
      pythonPath: options.pythonPath,
      env: {
        ...options.env,
        TAUBRIDGE_BRIDGE_PATCH_TARGET: options.patchTarget,
        ...(options.patchTargets.length ? { TAUBRIDGE_BRIDGE_TARGETS: options.patchTargets.join(",") } : {}),
      },
      ...(options.cwd ? { cwd: options.cwd } : {}),
      readyTimeoutMs: options.readyTimeoutMs,
      requestTimeoutMs: options.turnTimeoutMs,
      methods: { "tool.execute": toolExecute },
      ...this.childOverrides,
    });
    this.live.add(child);
    const onAbort = () => child.kill();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      if (signal.aborted) throw signal.reason ?? new PythonBridgeError("episode aborted");
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
      const started = await child.request<SessionStartResult>("session.start", start, { timeoutMs: options.turnTimeoutMs });
      if (options.driver === "fastworkflow") {
        const wanted = options.patchTarget === "invoke_command" ? INVOKE_COMMAND : EXECUTE_WORKFLOW_QUERY;
        if (!started.patched.includes(wanted)) {
          throw new PythonBridgeSetupError(`FastWorkflow target ${wanted} is not patched; tool calls would run unbridged`, { stderrTail: child.stderrTail() });
        }
      }

      const reset = await env.reset();
      const described = options.driver === "entry" ? `Python agent ${options.entry}` : `FastWorkflow workflow ${options.workflowPath}`;
      recorder.addMessage({ role: "system", content: `${described}, bridged by taubridge (the domain policy is not part of this agent's prompt)` });
      recorder.addMessage({ role: "user", content: reset.observation });
      let userText = reset.observation;
      let termination: TerminationReason = "max_steps";
      for (;;) {
        const turn = await child.request<UserTurnResult>("session.user_turn", { text: userText }, { timeoutMs: options.turnTimeoutMs });
        turnStatuses.push(turn.status);
        if (env.isDone) {
          termination = recorder.lastStep?.info.source === "user" ? "user_stop" : "agent_stop";
          break;
        }
        if (steps >= maxSteps) break;
        steps++;
        const action: Action = { name: RESPOND_ACTION_NAME, kwargs: new Map([["content", turn.reply]]) };
        const result = await env.step(action);
        recorder.addMessage({ role: "assistant", content: turn.reply });
        recorder.addMessage({ role: "user", content: result.observation });
        recorder.addStep({ action, observation: result.observation, reward: result.reward, done: result.done, origin: "agent" }, result);
        if (result.done) {
          termination = "user_stop";
          break;
        }
        userText = result.observation;
      }
      const last = recorder.lastStep;
      const bridge: Record<string, JsonValue> = {
        driver: options.driver,
        mode: session.mode,
        launch: options.launch,
        channel: options.channel,
        pythonVersion: child.ready.pythonVersion,
        patched: [...child.patched],
        patchTarget: options.patchTarget,
        toolCalls: recordedCalls.size,
        passthrough,
        refused,
        turnStatuses,
        resolutionErrors: session.resolutionErrors.map((error) => ({ ...error })) as JsonValue,
        session: started.info as JsonValue,
      };
      if (session.mode === "decision-only") bridge.decisions = decisions;
      return {
        reward: last?.done ? last.reward : 0,
        termination,
        info: { ...reset.info, ...(last?.info ?? {}) },
        usage: null,
        extra: { bridge },
      };
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.live.delete(child);
      await child.close({ timeoutMs: options.closeTimeoutMs });
    }
  }

  /** Stops children of episodes still running (the run was interrupted). */
  async close(): Promise<void> {
    await Promise.all([...this.live].map((child) => child.close({ timeoutMs: 1_000 })));
  }
}
