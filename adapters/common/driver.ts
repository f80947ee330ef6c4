import { setMaxListeners } from "node:events";
import {
  type FrameworkAdapter,
  type FrameworkConversation,
  type Incoming,
  incomingText,
  type Participant,
  type ParticipantContext,
  type ParticipantSession,
  type StepOutcome,
  type StepTarget,
  type Turn,
  type TurnOutcome,
} from "../../src/core/contracts.ts";
import { AgentProtocolError, InfraError } from "../../src/errors/error-tree.ts";
import type { Action, ChatMessage, JsonValue } from "../../src/core/types.ts";
import { pyJsonDumps } from "../../src/value/index.ts";
import { BridgeSession, type PlannedToolCall } from "../../bridge/session.ts";
import { endpointFailure, EndpointWatch } from "../../bridge/endpoint-failure.ts";
import { createBridgeScope, runInBridgeScope, type BridgeScope, type InterceptedCallRecord } from "../../bridge/node/context.ts";
import { installModuleHooks } from "../../bridge/node/hooks.ts";
import type { AdapterSettings } from "./settings.ts";
import { frameworkEndpoint } from "./endpoint.ts";
import { agentForEpisode, loadUserAgentModule, type AgentFactoryOptions, type UserAgentSource } from "../../src/participants/user-module.ts";

export type { FrameworkAdapter, FrameworkConversation, FrameworkSettings, ConversationContext, TurnOutcome, UsageDelta } from "../../src/core/contracts.ts";

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

/** The kernel's step path an agent session is given (a framework steps only through it). */
export function stepTarget(context: ParticipantContext): StepTarget {
  if (!context.steps) throw new AgentProtocolError("this agent steps tools inside its own turn, but the episode gave it no step path");
  return context.steps;
}

/** A decision handed to the harness in decision-only mode, for the results file. */
interface Decision {
  action: string;
  kwargs: string;
  toolCallId: string | null;
  frameworkToolName: string;
}

/**
 * The agent the episode sees for an adapter strategy: it loads the user's module once (after the
 * hooks are installed), then per episode builds a {@link BridgeSession} over the episode kernel's step
 * path and runs each turn of the conversation in that session's scope (so concurrent episodes never
 * cross-talk). A turn is one run of the framework's own loop: its tool calls are stepped through
 * the bridge, its final text is what the agent says to the user. Budgets, recording and the end of
 * the episode belong to the episode kernel and the suite's loop.
 */
export class FrameworkAgent<A> implements Participant {
  readonly name: string;
  private source: Promise<UserAgentSource> | undefined;
  private readonly watch: EndpointWatch;

  constructor(
    private readonly adapter: FrameworkAdapter<A>,
    private readonly settings: AdapterSettings,
  ) {
    this.name = adapter.name;
    this.watch = new EndpointWatch({
      framework: adapter.name,
      model: settings.model ?? "(set by the agent module)",
      endpoint: frameworkEndpoint(adapter, settings),
      setting: "--base-url (τ²: --agent-base-url), handed to the agent module, or the framework's own endpoint settings",
    });
  }

  unreachable(): Error | undefined {
    return this.watch.failure;
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
    await this.adapter.prepare(await agentForEpisode(source, this.factoryOptions(), true), source);
  }

  private factoryOptions(): AgentFactoryOptions {
    const { baseURL, model, apiKey, options } = this.settings;
    return { ...(baseURL ? { baseURL } : {}), ...(model ? { model } : {}), apiKey, options };
  }

  async start(context: ParticipantContext): Promise<ParticipantSession> {
    const source = await this.load();
    const agent = await this.adapter.prepare(await agentForEpisode(source, this.factoryOptions()), source);
    const session = new FrameworkSession(this.adapter.name, this.settings, context, frameworkEndpoint(this.adapter, this.settings), this.watch);
    const conversation = await this.adapter.converse(agent, { settings: this.settings, maxSteps: context.maxSteps, maxTurns: this.settings.maxTurns ?? context.maxSteps + 1 });
    if (conversation.system) context.transcript.addMessage({ role: "system", content: conversation.system });
    session.conversation = conversation;
    return session;
  }
}

/** One framework episode: the bridge session, its scope, and the framework's conversation. */
class FrameworkSession implements ParticipantSession {
  conversation!: FrameworkConversation;
  private readonly scope: BridgeScope;
  private readonly decisions: Decision[] = [];

  constructor(
    private readonly framework: string,
    private readonly settings: AdapterSettings,
    private readonly context: ParticipantContext,
    /** The base URL the framework was given, or its default: named in every error of the framework. */
    private readonly endpoint: string,
    private readonly watch: EndpointWatch,
  ) {
    const steps = stepTarget(context);
    const bridge = new BridgeSession({
      steps,
      mapping: settings.mapping,
      mode: settings.mode,
      decide: (action: Action, call: PlannedToolCall): Promise<StepOutcome> => {
        this.decisions.push({ action: action.name, kwargs: pyJsonDumps(action.kwargs), toolCallId: call.toolCallId ?? null, frameworkToolName: call.toolName });
        return steps.step({ action, origin: "harness", ...(call.toolCallId ? { toolCallId: call.toolCallId } : {}), frameworkToolName: call.toolName });
      },
    });
    this.scope = createBridgeScope({ session: bridge, framework });
  }

  async next(incoming: Incoming | null, signal: AbortSignal): Promise<Turn> {
    const { transcript, usage } = this.context;
    const steps = stepTarget(this.context);
    const text = incoming === null ? "" : incomingText(incoming);
    transcript.addMessage({ role: "user", content: text });
    // Frameworks add an abort listener per model call and tool call; a long episode exceeds Node's default of 10.
    setMaxListeners(1000, signal);
    const callsBefore = this.scope.calls.length;
    let turn: TurnOutcome;
    try {
      turn = await runInBridgeScope(this.scope, () => this.conversation.turn(text, signal));
    } catch (error) {
      if (steps.ended) {
        // The episode ended inside the run (a terminate tool, the step budget): the framework's own result is lost.
        for (const message of messagesFromCalls(this.scope.calls.slice(callsBefore))) transcript.addMessage(message);
        throw error;
      }
      if (signal.aborted) throw error;
      const message = error instanceof Error ? error.message : String(error);
      const where = `${this.framework} (model endpoint: ${this.endpoint})`;
      // An endpoint failure in the framework's model call (bridge/endpoint-failure.ts): infrastructure, as for built-in agents.
      if (endpointFailure(error)) {
        this.watch.refused(error);
        throw new InfraError(`${where}: model endpoint failed: ${message}`, { cause: error });
      }
      throw new AgentProtocolError(`${where}: ${message}`, { cause: error });
    }
    this.watch.answer();
    if (turn.usage) usage.addUnpriced(turn.usage.calls, turn.usage.promptTokens, turn.usage.completionTokens);
    for (const message of turn.messages) transcript.addMessage(message);
    if (!steps.ended) transcript.addMessage({ role: "assistant", content: turn.text });
    return { content: turn.text, toolCalls: [] };
  }

  finish(incoming: Incoming): void {
    this.context.transcript.addMessage({ role: "user", content: incomingText(incoming) });
  }

  extra(): Record<string, JsonValue> {
    const calls = this.scope.calls;
    const bridged = calls.filter((call) => call.kind === "bridged");
    const micros = bridged.map((call) => call.micros).sort((a, b) => a - b);
    return {
      framework: this.framework,
      bridgeMode: this.settings.mode,
      bridgedCalls: bridged.length,
      passthroughCalls: calls.length - bridged.length,
      passthroughTools: [...new Set(calls.filter((call) => call.kind === "passthrough").map((call) => call.toolName))],
      unmappedTools: [...this.scope.session.unmappedTools],
      bridgeMicrosMedian: micros.length ? Math.round(micros[Math.floor(micros.length / 2)]) : null,
      resolutionErrors: this.scope.session.resolutionErrors.map((entry) => ({ toolName: entry.toolName, message: entry.message, toolCallId: entry.toolCallId ?? null })),
      ...(this.settings.mode === "decision-only" ? { decisions: this.decisions as unknown as JsonValue } : {}),
    };
  }
}
