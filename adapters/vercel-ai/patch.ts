/**
 * Vercel AI SDK (`ai` 6.0.x) interception.
 *
 * The SDK validates the model's tool input against the tool's `inputSchema` (Vercel AI SDK:
 * packages/ai/src/generate-text/parse-tool-call.ts, parseToolCall) and only then calls
 * `tool.execute(input, { toolCallId, messages, abortSignal })`
 * (packages/ai/src/generate-text/execute-tool-call.ts, executeToolCall). Tools are plain objects in
 * a record, so the bridge gives the SDK, for the duration of one call, a copy of the record whose
 * tools have a bridged `execute`; nothing the user owns is mutated:
 * - `generateText` / `streamText` exports are wrapped at load time (import-in-the-middle for ESM;
 *   require-in-the-middle returns a new exports object for CJS, whose getters are not configurable);
 * - `ToolLoopAgent.prototype.generate` / `stream` (packages/ai/src/agent/tool-loop-agent.ts) are
 *   wrapped on every copy a hook sees and on the class of the user's agent: they call the original
 *   with a shadow `this` whose `settings.tools` is the bridged record (the agent calls the SDK's
 *   internal `generateText`, which no export wrapper can reach).
 * Outside an episode every wrapper calls straight through.
 */
import type { ModuleHook } from "../../bridge/node/hooks.ts";
import { interceptToolCall } from "../../bridge/node/intercept.ts";
import { currentBridgeScope } from "../../bridge/node/context.ts";
import { ORIGINAL, isBridgeWrapper, markOnce, wrapProperty, type AnyFunction } from "../../bridge/node/marks.ts";

export const FRAMEWORK = "vercel-ai";
const BRIDGED_TOOL = Symbol.for("taubridge.vercel-ai.bridgedTool");
const PROTOTYPE_PATCHED = Symbol.for("taubridge.vercel-ai.prototypePatched");

type ToolRecord = Record<string, { execute?: AnyFunction; [key: string]: unknown }>;

/**
 * A copy of a tool record in which every tool with an `execute` is bridged under its record key
 * (the name the model calls it by). Provider-executed and client-side tools (no `execute`) are
 * kept as they are.
 */
export function bridgedToolSet<T>(tools: T): T {
  if (!tools || typeof tools !== "object") return tools;
  const copy: ToolRecord = {};
  for (const [name, tool] of Object.entries(tools as ToolRecord)) {
    if (!tool || typeof tool !== "object" || typeof tool.execute !== "function" || (tool as Record<symbol, unknown>)[BRIDGED_TOOL]) {
      copy[name] = tool;
      continue;
    }
    const userExecute = tool.execute;
    const execute = async function (this: unknown, input: unknown, options?: { toolCallId?: string }) {
      const outcome = await interceptToolCall(FRAMEWORK, { toolName: name, params: input, ...(options?.toolCallId ? { toolCallId: options.toolCallId } : {}) }, () =>
        userExecute.call(this, input, options),
      );
      return outcome.bridged ? outcome.output : outcome.value;
    };
    copy[name] = Object.defineProperty({ ...tool, execute }, BRIDGED_TOOL, { value: true, enumerable: false });
  }
  return copy as T;
}

/** Wraps `generateText`/`streamText`: the call's `tools` are bridged while an episode is active. */
export function wrapGenerateFunction(original: AnyFunction): AnyFunction {
  if (isBridgeWrapper(original)) return original;
  const wrapper = function (this: unknown, options: { tools?: unknown } & Record<string, unknown>, ...rest: unknown[]) {
    if (!currentBridgeScope() || !options || typeof options !== "object" || !options.tools) return original.call(this, options, ...rest);
    return original.call(this, { ...options, tools: bridgedToolSet(options.tools) }, ...rest);
  };
  Object.defineProperty(wrapper, ORIGINAL, { value: original, enumerable: false });
  return wrapper;
}

/** Patches `generate`/`stream` of an agent class (the `ToolLoopAgent` the user's agent is an instance of). */
export function patchToolLoopAgentPrototype(prototype: object | null | undefined): boolean {
  let owner: object | null | undefined = prototype;
  while (owner && !Object.hasOwn(owner, "generate")) owner = Object.getPrototypeOf(owner) as object | null;
  if (!owner || !markOnce(owner, PROTOTYPE_PATCHED)) return false;
  for (const method of ["generate", "stream"]) {
    wrapProperty(
      owner,
      method,
      (original) =>
        function (this: { settings?: { tools?: unknown } }, ...args: unknown[]) {
          if (!currentBridgeScope() || !this?.settings?.tools) return original.apply(this, args);
          const shadow = Object.create(this) as { settings: unknown };
          shadow.settings = { ...this.settings, tools: bridgedToolSet(this.settings.tools) };
          return original.apply(shadow, args);
        },
    );
  }
  return true;
}

/** The load-time hook on `ai`. */
export const vercelAIHook: ModuleHook = {
  id: FRAMEWORK,
  modules: ["ai"],
  onLoad(exports) {
    for (const name of ["ToolLoopAgent", "Experimental_Agent"]) {
      const agentClass = exports[name] as { prototype?: object } | undefined;
      if (agentClass?.prototype) patchToolLoopAgentPrototype(agentClass.prototype);
    }
    const replacements: Record<string, unknown> = {};
    for (const name of ["generateText", "streamText"]) {
      const original = exports[name];
      if (typeof original === "function" && !isBridgeWrapper(original)) replacements[name] = wrapGenerateFunction(original as AnyFunction);
    }
    return replacements;
  },
};
