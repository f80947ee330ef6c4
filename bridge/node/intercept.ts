import type { PlannedToolCall } from "../session.ts";
import { currentBridgeScope, type InterceptedCallRecord } from "./context.ts";

/** What an interception point does with a call: answer it with the bridge's text, or run the tool's own code. */
export type InterceptResult<T> = { bridged: true; output: string } | { bridged: false; value: T };

function argumentText(call: PlannedToolCall): string {
  if (call.rawArguments !== undefined) return call.rawArguments;
  try {
    return JSON.stringify(call.params ?? {});
  } catch {
    return String(call.params);
  }
}

/**
 * The one function every framework interception point calls, with the call the framework has
 * planned (tool name + framework-validated params + tool-call id) and a thunk that would run the
 * tool's own implementation.
 *
 * - No active scope (outside an episode): the tool runs natively; the bridge is transparent.
 * - The session maps the call to a benchmark action: the environment is stepped (or the harness
 *   decides, or it is a dry run) and the observation text is returned; `runNative` is never called.
 * - The session says "not a benchmark tool" (handoffs, agent-as-tool, helpers): `runNative` runs.
 *
 * Errors from `runNative` propagate unchanged so the framework's own error handling applies.
 */
export async function interceptToolCall<T>(framework: string, call: PlannedToolCall, runNative: () => T | Promise<T>): Promise<InterceptResult<T>> {
  const scope = currentBridgeScope();
  if (!scope) return { bridged: false, value: await runNative() };
  const started = performance.now();
  const outcome = await scope.session.handle(call);
  const micros = (performance.now() - started) * 1000;
  const record: InterceptedCallRecord = {
    framework,
    toolName: call.toolName,
    ...(call.toolCallId ? { toolCallId: call.toolCallId } : {}),
    arguments: argumentText(call),
    kind: outcome.kind === "passthrough" ? "passthrough" : "bridged",
    micros,
  };
  if (outcome.kind === "passthrough") {
    scope.calls.push(record);
    return { bridged: false, value: await runNative() };
  }
  record.output = outcome.output;
  scope.calls.push(record);
  scope.afterBridged?.(record);
  return { bridged: true, output: outcome.output };
}

/** True when a bridge scope is active in the current async context (adapters use it to skip work). */
export function bridgeActive(): boolean {
  return currentBridgeScope() !== undefined;
}

function sameData(left: unknown, right: unknown): boolean {
  if (Object.is(left, right)) return true;
  if (typeof left === "number" && typeof right === "number") return left === right;
  if (Array.isArray(left)) return Array.isArray(right) && left.length === right.length && left.every((item, index) => sameData(item, right[index]));
  if (left && right && typeof left === "object" && typeof right === "object" && !Array.isArray(right)) {
    const leftKeys = Object.keys(left).filter((key) => (left as Record<string, unknown>)[key] !== undefined);
    const rightKeys = Object.keys(right).filter((key) => (right as Record<string, unknown>)[key] !== undefined);
    if (leftKeys.length !== rightKeys.length) return false;
    return leftKeys.every((key) => Object.hasOwn(right, key) && sameData((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]));
  }
  return false;
}

/**
 * The model's raw argument text, but only when the framework's validated value is the same data.
 *
 * Why: the raw text keeps Python number types (`100.0` stays a float, which τ-bench hashes), so it
 * is preferred by `kwargsFromCall`; but when the framework normalised the input (schema defaults,
 * transforms, coercions), its validated value is what the agent really decided, and the raw text
 * must not override it.
 */
export function rawArgumentsIfUnchanged(raw: string | undefined, params: unknown): string | undefined {
  if (raw === undefined) return undefined;
  try {
    return sameData(JSON.parse(raw.trim() === "" ? "{}" : raw), params ?? {}) ? raw : undefined;
  } catch {
    return undefined;
  }
}
