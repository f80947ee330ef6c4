/**
 * The script logic shared by the scripted HTTP server and the in-process scripted model client:
 * which script a request is routed to, which step answers it, what is left over, and what a step's
 * answer looks like. Kept in one place so both doubles answer the same script identically.
 */
import type { z } from "zod";
import { TaubridgeError, errorMarker } from "../errors/error-tree.ts";
import { DEFAULT_SCRIPT, type scriptFileSchema, type scriptStepSchema, type StepMatch } from "./script-format.ts";

/** A step after validation (defaults not yet applied). */
export type ParsedStep = z.output<typeof scriptStepSchema>;
type Json = Record<string, unknown>;

/** An unconsumed scripted step, as reported by `pending()`. */
export interface PendingStep {
  script: string;
  index: number;
  label: string | undefined;
  /** Remaining uses. */
  remaining: number;
}

/** A request the script could not answer properly (exhausted script, unknown model, bad input). */
export interface ScriptFailure {
  requestIndex: number;
  code: "script_exhausted" | "model_not_found" | "invalid_request" | "invalid_step" | "responder_error" | "not_found";
  message: string;
}

/** Thrown by `assertAllConsumed()` / `assertDone()` when scripted steps were never used. */
export class UnconsumedStepsError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("UnconsumedStepsError");

  constructor(readonly pending: PendingStep[]) {
    super(`Scripted model: ${pending.length} step(s) never consumed: ` + pending.map(describePending).join(", "));
  }
}

/** Thrown when a model call arrives that no scripted step (and no responder) can answer. */
export class UnexpectedModelCallError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("UnexpectedModelCallError");

  constructor(readonly failures: ScriptFailure[]) {
    super(`Scripted model: ${failures.length} unexpected request(s): ${failures.map((failure) => `#${failure.requestIndex} ${failure.message}`).join("; ")}`);
  }
}

function describePending(step: PendingStep): string {
  return `${step.script}#${step.index}${step.label ? ` (${step.label})` : ""}${step.remaining > 1 ? ` ×${step.remaining}` : ""}`;
}

/** The text of a chat message: string content, or text parts joined. */
export function messageText(message: Json | undefined): string {
  if (!message) return "";
  const content = message.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (part && typeof part === "object" && typeof (part as Json).text === "string" ? ((part as Json).text as string) : "")).join("");
  }
  return "";
}

function toolName(tool: Json): string | undefined {
  const fn = tool.function as Json | undefined;
  return typeof fn?.name === "string" ? fn.name : typeof tool.name === "string" ? tool.name : undefined;
}

/** True when the request satisfies every condition of `match`. */
export function requestMatches(match: StepMatch | undefined, request: { messages: Json[]; tools: Json[] }): boolean {
  if (!match) return true;
  const last = request.messages[request.messages.length - 1];
  if (match.lastMessageRole !== undefined && last?.role !== match.lastMessageRole) return false;
  if (match.lastMessageContains !== undefined && !messageText(last).includes(match.lastMessageContains)) return false;
  if (match.anyMessageContains !== undefined && !request.messages.some((message) => messageText(message).includes(match.anyMessageContains as string))) return false;
  if (match.systemContains !== undefined) {
    const system = request.messages.filter((message) => message.role === "system" || message.role === "developer");
    if (!system.some((message) => messageText(message).includes(match.systemContains as string))) return false;
  }
  if (match.hasTools !== undefined && request.tools.length > 0 !== match.hasTools) return false;
  if (match.hasTool !== undefined && !request.tools.some((tool) => toolName(tool) === match.hasTool)) return false;
  return true;
}

interface StepState {
  step: ParsedStep;
  index: number;
  remaining: number; // Infinity for "unlimited"
}

/** A step chosen for a request. */
export interface SelectedStep {
  step: ParsedStep;
  script: string;
  /** `"<script>#<index>"` plus the label, for recordings and messages. */
  answeredBy: string;
}

/**
 * The mutable state of a validated script file: steps per script with their remaining uses.
 * Requests are routed by model name (`"*"` answers models without their own script).
 */
export class ScriptBook {
  private readonly scripts = new Map<string, StepState[]>();

  constructor(file: z.output<typeof scriptFileSchema>) {
    for (const [name, steps] of Object.entries(file.scripts ?? {})) this.scripts.set(name, steps.map(stateOf));
    if (file.steps) this.scripts.set(DEFAULT_SCRIPT, file.steps.map(stateOf));
  }

  /** The script names, in definition order (including `"*"`). */
  names(): string[] {
    return [...this.scripts.keys()];
  }

  /** The script that answers `model`, or undefined when there is neither its own nor a `"*"` script. */
  route(model: string): string | undefined {
    return this.scripts.has(model) ? model : this.scripts.has(DEFAULT_SCRIPT) ? DEFAULT_SCRIPT : undefined;
  }

  /** Takes the first step of `script` with uses left whose `match` holds (and uses it up once). */
  select(script: string | undefined, request: { messages: Json[]; tools: Json[] }): SelectedStep | undefined {
    if (script === undefined) return undefined;
    for (const state of this.scripts.get(script) ?? []) {
      if (state.remaining <= 0 || !requestMatches(state.step.match, request)) continue;
      state.remaining -= 1;
      return { step: state.step, script, answeredBy: `${script}#${state.index}${state.step.label ? ` (${state.step.label})` : ""}` };
    }
    return undefined;
  }

  /** How many steps of `script` are used up (for "exhausted" messages). */
  usedUp(script: string | undefined): number {
    return script ? (this.scripts.get(script) ?? []).filter((state) => state.remaining <= 0).length : 0;
  }

  /** Steps not yet used up (`times: "unlimited"` steps never count). */
  pending(): PendingStep[] {
    const result: PendingStep[] = [];
    for (const [script, states] of this.scripts) {
      for (const state of states) {
        if (state.remaining > 0 && Number.isFinite(state.remaining)) result.push({ script, index: state.index, label: state.step.label, remaining: state.remaining });
      }
    }
    return result;
  }
}

function stateOf(step: ParsedStep, index: number): StepState {
  return { step, index, remaining: step.times === "unlimited" ? Infinity : (step.times ?? 1) };
}

const estimateTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** A step's answer in chat-completions terms (defaults applied). */
export interface StepAnswer {
  content: string | null;
  toolCalls: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
}

/**
 * What a (non-error) step answers to the `requestIndex`-th request: tool-call ids default to
 * `call_<requestIndex>_<position>`, object arguments become their JSON text, and usage without a
 * scripted value is a deterministic estimate (≈ characters ÷ 4).
 */
export function stepAnswer(step: ParsedStep, requestIndex: number, messages: Json[]): StepAnswer {
  const toolCalls = (step.tool_calls ?? []).map((call, position) => ({
    id: call.id ?? `call_${requestIndex}_${position}`,
    type: "function" as const,
    function: {
      name: call.name,
      arguments: call.arguments === undefined ? "{}" : typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
  const content = step.content !== undefined ? step.content : toolCalls.length > 0 ? null : "";
  const finishReason = step.finish_reason ?? (toolCalls.length > 0 ? "tool_calls" : "stop");
  let usage: StepAnswer["usage"];
  if (step.usage) {
    usage = {
      prompt_tokens: step.usage.prompt_tokens,
      completion_tokens: step.usage.completion_tokens,
      total_tokens: step.usage.prompt_tokens + step.usage.completion_tokens,
      ...(step.usage.cached_tokens !== undefined ? { prompt_tokens_details: { cached_tokens: step.usage.cached_tokens } } : {}),
    };
  } else {
    // Deterministic estimate so tests that do not care about usage still see plausible numbers.
    const prompt = estimateTokens(JSON.stringify(messages));
    const completion = estimateTokens((content ?? "") + toolCalls.map((call) => call.function.name + call.function.arguments).join(""));
    usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  }
  return { content, toolCalls, finishReason, usage };
}
