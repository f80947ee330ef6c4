import { setMaxListeners } from "node:events";
import type { Agent, AgentEpisodeContext, AgentEpisodeResult } from "../../src/agents/agent.ts";
import { InfraError } from "../../src/core/errors.ts";
import { RESPOND_ACTION_NAME, type Action, type ChatMessage, type JsonValue, type RoleUsage, type StepResult, type TerminationReason } from "../../src/core/types.ts";
import { pyJsonDumps } from "../../src/value/index.ts";
import { BridgeSession, type BridgeMode, type PlannedToolCall } from "../../bridge/session.ts";
import { createBridgeScope, runInBridgeScope, type BridgeScope, type InterceptedCallRecord } from "../../bridge/node/context.ts";
import { installModuleHooks, type ModuleHook } from "../../bridge/node/hooks.ts";
import type { AdapterSettings } from "./settings.ts";
import { agentForEpisode, loadUserAgentModule, type AgentFactoryOptions, type UserAgentSource } from "./user-module.ts";

/** Token usage of one framework turn (what the framework reports). */
export interface UsageDelta {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/** One user turn handed to the framework's own run loop. */
export interface TurnOutcome {
  /** The agent's final text for this turn; it becomes a `respond` action. */
  text: string;
  /** The turn's assistant/tool messages in τ-bench's trajectory shape (not the user message). */
  messages: ChatMessage[];
  usage?: UsageDelta;
}

/** A conversation with one framework agent, for one episode; it keeps the history in the framework's own shape. */
export interface FrameworkConversation {
  /** The agent's system prompt, when it can be read, for the trajectory's first message. */
  readonly system?: string;
  turn(userMessage: string, signal: AbortSignal): Promise<TurnOutcome>;
}

export interface ConversationContext {
  settings: AdapterSettings;
  /** The episode's step budget (`--max-steps`). */
  maxSteps: number;
  /**
   * The framework's own loop limit per user turn (model calls), where it takes one per call:
   * `--agent-option maxTurns`, else one more than `maxSteps`, so the bridge's step budget (which
   * ends the episode as `max_steps`) always trips before the framework's own limit (an error).
   */
  maxTurns: number;
}

/**
 * What each adapter provides: its load-time hooks, how to recognise and patch the user's agent
 * object, and how to hand one user turn to the framework's run loop. Everything else (bridge
 * session, modes, step budget, respond/termination, recording) is shared in {@link FrameworkAgent}.
 */
export interface FrameworkAdapter<A = unknown> {
  readonly name: string;
  readonly hooks: readonly ModuleHook[];
  /** Checks the user's export is this framework's agent and patches what can be reached from it (idempotent). */
  prepare(candidate: unknown, source: UserAgentSource): A | Promise<A>;
  converse(agent: A, context: ConversationContext): FrameworkConversation | Promise<FrameworkConversation>;
}

/** Why the driver stopped the framework's run itself (not an error). */
export class EpisodeStop extends Error {
  constructor(readonly reason: "done" | "max_steps") {
    super(reason === "done" ? "the episode ended" : "the episode's step limit was reached");
    this.name = "EpisodeStop";
  }
}

const RETRYABLE_STATUS = new Set([408, 409, 429]);

/**
 * Model-endpoint failures are infrastructure, not agent mistakes: they must be recorded as
 * `infra_error` (and retried by `--episode-retries`), never scored as a zero. Everything else the
 * framework throws is the agent's failure.
 */
export function isInfraFailure(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === "object" && !seen.has(current)) {
    seen.add(current);
    const record = current as { status?: unknown; statusCode?: unknown; code?: unknown; name?: unknown; message?: unknown; cause?: unknown; lastError?: unknown };
    const status = typeof record.status === "number" ? record.status : typeof record.statusCode === "number" ? record.statusCode : undefined;
    if (status !== undefined && (status >= 500 || RETRYABLE_STATUS.has(status))) return true;
    const name = typeof record.name === "string" ? record.name : "";
    if (/APIConnection|ConnectionError|FetchError|ECONNREFUSED|ECONNRESET|ETIMEDOUT|RetryError|TimeoutError/i.test(name)) return true;
    if (typeof record.code === "string" && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|UND_ERR_\w+|ENOTFOUND)$/.test(record.code)) return true;
    if (typeof record.message === "string" && /fetch failed|ECONNREFUSED|socket hang up|Connection error/i.test(record.message)) return true;
    current = record.cause ?? record.lastError;
  }
  return false;
}

function respondAction(text: string): Action {
  return { name: RESPOND_ACTION_NAME, kwargs: new Map([["content", text]]) };
}

/** Trajectory messages for calls made during a run that was cut short (the framework's result is lost). */
export function messagesFromCalls(calls: readonly InterceptedCallRecord[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  calls.forEach((call, index) => {
    const id = call.toolCallId ?? `call_bridge_${index}`;
    messages.push({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: call.toolName, arguments: call.arguments } }] });
    messages.push({ role: "tool", tool_call_id: id, name: call.toolName, content: call.output ?? "(ran natively; output not captured)" });
  });
  return messages;
}

/** A decision handed to the harness in decision-only mode, for the results file. */
interface Decision {
  action: string;
  kwargs: string;
  toolCallId: string | null;
  frameworkToolName: string;
}

/**
 * The agent the runner sees for an adapter strategy: it loads the user's module once (after the
 * hooks are installed), then per episode builds a {@link BridgeSession}, runs the conversation in
 * that session's scope (so concurrent episodes never cross-talk) and turns each final text into a
 * `respond` action until the user stops, a terminate tool ends the episode, or the step budget is
 * spent. `maxSteps` counts environment steps: bridged tool calls (or dry-run plans) and responds.
 */
export class FrameworkAgent<A> implements Agent {
  readonly name: string;
  private source: Promise<UserAgentSource> | undefined;

  constructor(
    private readonly adapter: FrameworkAdapter<A>,
    private readonly settings: AdapterSettings,
  ) {
    this.name = adapter.name;
  }

  /** Installs the framework's hooks, then imports the user's module (once per run). */
  load(): Promise<UserAgentSource> {
    this.source ??= (async () => {
      await installModuleHooks(this.adapter.hooks);
      return loadUserAgentModule(this.settings.modulePath, this.settings.exportName);
    })();
    return this.source;
  }

  /**
   * Loads the module and checks that its export yields an agent of this framework (a factory is
   * called once for that), so a wrong module or export fails the run before any episode starts
   * instead of turning every episode into an agent error.
   */
  async validate(): Promise<void> {
    const source = await this.load();
    await this.adapter.prepare(await agentForEpisode(source, this.factoryOptions()), source);
  }

  private factoryOptions(): AgentFactoryOptions {
    const { baseURL, model, apiKey, options } = this.settings;
    return { ...(baseURL ? { baseURL } : {}), ...(model ? { model } : {}), apiKey, options };
  }

  async solve({ env, maxSteps, signal, recorder }: AgentEpisodeContext): Promise<AgentEpisodeResult> {
    const source = await this.load();
    const agent = await this.adapter.prepare(await agentForEpisode(source, this.factoryOptions()), source);
    const controller = new AbortController();
    // Frameworks add an abort listener per model call and tool call; a long episode exceeds Node's default of 10.
    setMaxListeners(1000, controller.signal);
    const forwardAbort = () => controller.abort(signal.reason);
    if (signal.aborted) forwardAbort();
    else signal.addEventListener("abort", forwardAbort, { once: true });
    let stop: EpisodeStop | undefined;
    const stopRun = (reason: EpisodeStop["reason"]) => {
      stop ??= new EpisodeStop(reason);
      if (!controller.signal.aborted) controller.abort(stop);
    };
    const stepsTaken = () => recorder.steps.length + recorder.plannedOnly.length;
    const decisions: Decision[] = [];
    const mode: BridgeMode = this.settings.mode;
    const session = new BridgeSession({
      env,
      recorder,
      mapping: this.settings.mapping,
      mode,
      decide: async (action: Action, call: PlannedToolCall): Promise<StepResult> => {
        decisions.push({ action: action.name, kwargs: pyJsonDumps(action.kwargs), toolCallId: call.toolCallId ?? null, frameworkToolName: call.toolName });
        return env.step(action);
      },
      admit: () => {
        if (env.isDone) return "Error: the conversation has already ended; this tool call was not executed.";
        if (stepsTaken() >= maxSteps) {
          stopRun("max_steps");
          return "Error: the step limit of this episode was reached; this tool call was not executed.";
        }
        return undefined;
      },
    });
    const scope: BridgeScope = createBridgeScope({
      session,
      framework: this.adapter.name,
      afterBridged: () => {
        // τ-bench stops the moment the environment says done (a terminate tool): no more model calls.
        if (env.isDone) stopRun("done");
      },
    });
    const usage = { calls: 0, promptTokens: 0, completionTokens: 0 };
    try {
      return await runInBridgeScope(scope, async () => {
        const reset = await env.reset();
        let info: Record<string, unknown> = { ...reset.info };
        const conversation = await this.adapter.converse(agent, { settings: this.settings, maxSteps, maxTurns: this.settings.maxTurns ?? maxSteps + 1 });
        if (conversation.system) recorder.addMessage({ role: "system", content: conversation.system });
        recorder.addMessage({ role: "user", content: reset.observation });
        let userText = reset.observation;
        let termination: TerminationReason | undefined;
        while (!env.isDone) {
          if (stepsTaken() >= maxSteps) {
            termination = "max_steps";
            break;
          }
          const callsBefore = scope.calls.length;
          let turn: TurnOutcome;
          try {
            turn = await conversation.turn(userText, controller.signal);
          } catch (error) {
            if (stop) {
              for (const message of messagesFromCalls(scope.calls.slice(callsBefore))) recorder.addMessage(message);
              if (stop.reason === "max_steps") termination = "max_steps";
              break;
            }
            if (signal.aborted) throw error;
            if (isInfraFailure(error)) throw new InfraError(`${this.adapter.name}: model endpoint failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
            return this.agentError(error, recorder, info, usage, scope, decisions);
          }
          if (turn.usage) {
            usage.calls += turn.usage.calls;
            usage.promptTokens += turn.usage.promptTokens;
            usage.completionTokens += turn.usage.completionTokens;
          }
          for (const message of turn.messages) recorder.addMessage(message);
          if (env.isDone) break;
          if (stepsTaken() >= maxSteps) {
            termination = "max_steps";
            break;
          }
          const action = respondAction(turn.text);
          const result = await env.step(action);
          recorder.addStep({ action, observation: result.observation, reward: result.reward, done: result.done, origin: "agent" }, result);
          recorder.addMessage({ role: "assistant", content: turn.text });
          recorder.addMessage({ role: "user", content: result.observation });
          info = { ...info, ...result.info };
          userText = result.observation;
        }
        const last = recorder.lastStep;
        if (last) info = { ...info, ...last.info };
        const done = env.isDone;
        return {
          reward: done && last ? last.reward : 0,
          termination: done ? (last?.info.source === "user" ? "user_stop" : "agent_stop") : (termination ?? "max_steps"),
          info,
          usage: this.roleUsage(usage),
          extra: this.extra(scope, decisions),
        };
      });
    } finally {
      signal.removeEventListener("abort", forwardAbort);
    }
  }

  private roleUsage(usage: UsageDelta): RoleUsage | null {
    return usage.calls > 0 ? { ...usage, cost: null } : null;
  }

  private extra(scope: BridgeScope, decisions: Decision[]): Record<string, JsonValue> {
    const bridged = scope.calls.filter((call) => call.kind === "bridged");
    const micros = bridged.map((call) => call.micros).sort((a, b) => a - b);
    return {
      framework: this.adapter.name,
      bridgeMode: this.settings.mode,
      bridgedCalls: bridged.length,
      passthroughCalls: scope.calls.length - bridged.length,
      passthroughTools: [...new Set(scope.calls.filter((call) => call.kind === "passthrough").map((call) => call.toolName))],
      bridgeMicrosMedian: micros.length ? Math.round(micros[Math.floor(micros.length / 2)]) : null,
      resolutionErrors: scope.session.resolutionErrors.map((entry) => ({ toolName: entry.toolName, message: entry.message, toolCallId: entry.toolCallId ?? null })),
      ...(this.settings.mode === "decision-only" ? { decisions: decisions as unknown as JsonValue } : {}),
    };
  }

  private agentError(
    error: unknown,
    recorder: AgentEpisodeContext["recorder"],
    info: Record<string, unknown>,
    usage: UsageDelta,
    scope: BridgeScope,
    decisions: Decision[],
  ): AgentEpisodeResult {
    const message = error instanceof Error ? error.message : String(error);
    return {
      reward: 0,
      termination: "agent_error",
      info: { ...info, error: `${this.adapter.name}: ${message}`, traceback: error instanceof Error ? (error.stack ?? message) : message },
      usage: this.roleUsage(usage),
      extra: { ...this.extra(scope, decisions), steps: recorder.steps.length },
    };
  }
}
