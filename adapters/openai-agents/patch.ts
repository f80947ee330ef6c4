/**
 * OpenAI Agents SDK (`@openai/agents` 0.14.x) interception.
 *
 * Two layers, both patching objects and never bindings (an ES module namespace is read-only):
 * 1. Load time: the `tool` factory export of `@openai/agents` and `@openai/agents-core` (OpenAI
 *    Agents JS: packages/agents-core/src/tool.ts, tool) is wrapped (import-in-the-middle for ESM,
 *    require-in-the-middle for CJS). The wrapper calls the SDK's own `tool()` with a substituted
 *    `execute`, so the bridge receives the zod/JSON-schema-parsed input (defaults applied) and
 *    invalid input is rejected by the SDK exactly as natively.
 * 2. Object walk: `Agent.prototype.getAllTools` (packages/agents-core/src/agent.ts; the runner's
 *    only way to list an agent's tools) is wrapped on the class the user's agent actually is, and
 *    on every copy a hook sees. Each `FunctionTool` it returns that the factory layer did not
 *    already cover gets its `invoke` wrapped: planning runs the SDK's own parser (through the
 *    runner's parsed-input callback) and stops before the tool's `execute`; only when that callback
 *    is unavailable does it fall back to `JSON.parse` of the model's arguments.
 *
 * Unmapped tools (agent-as-tool, MCP tools, helpers) and any call outside an episode run natively.
 */
import type { ModuleHook } from "../../bridge/node/hooks.ts";
import { interceptToolCall, rawArgumentsIfUnchanged } from "../../bridge/node/intercept.ts";
import { currentBridgeScope } from "../../bridge/node/context.ts";
import { ORIGINAL, isBridgeWrapper, markOnce, wrapProperty, type AnyFunction } from "../../bridge/node/marks.ts";

export const FRAMEWORK = "openai-agents";
/** On a FunctionTool made by the wrapped factory: its `execute` is already bridged. */
const FACTORY_BRIDGED = Symbol.for("taubridge.openai-agents.factoryBridged");
const PROTOTYPE_PATCHED = Symbol.for("taubridge.openai-agents.prototypePatched");
const PARSED_INPUT_CALLBACK = "openai.agents.functionToolParsedInputCallback";

type Details = Record<PropertyKey, unknown> & { toolCall?: { callId?: string; arguments?: string }; signal?: AbortSignal };
interface FunctionToolLike {
  type: "function";
  name: string;
  invoke: (runContext: unknown, input: string, details?: Details) => Promise<unknown>;
}

function isFunctionTool(value: unknown): value is FunctionToolLike {
  return !!value && typeof value === "object" && (value as FunctionToolLike).type === "function" && typeof (value as FunctionToolLike).invoke === "function";
}

/** Wraps the SDK's `tool()` factory so tools it builds execute through the bridge. */
export function wrapToolFactory(original: AnyFunction): AnyFunction {
  if (isBridgeWrapper(original)) return original;
  const wrapped = function bridgedTool(this: unknown, options: Record<string, unknown>) {
    if (!options || typeof options !== "object" || typeof options.execute !== "function") return original.call(this, options);
    const userExecute = options.execute as AnyFunction;
    // The SDK derives a missing name from `execute.name`; with neither, let it fail natively.
    if (!options.name && !userExecute.name) return original.call(this, options);
    let toolName = "";
    const execute = async function (this: unknown, input: unknown, runContext: unknown, details?: Details) {
      const outcome = await interceptToolCall(
        FRAMEWORK,
        {
          toolName,
          params: input,
          ...optional("rawArguments", rawArgumentsIfUnchanged(details?.toolCall?.arguments, input)),
          ...optional("toolCallId", details?.toolCall?.callId),
        },
        () => userExecute.call(this, input, runContext, details),
      );
      return outcome.bridged ? outcome.output : outcome.value;
    };
    const bridgedOptions = { ...options, name: options.name || userExecute.name, execute };
    const tool = original.call(this, bridgedOptions) as FunctionToolLike;
    toolName = tool.name;
    if (tool && typeof tool === "object") markOnce(tool, FACTORY_BRIDGED);
    return tool;
  };
  return markWrapper(wrapped, original);
}

function markWrapper(wrapper: AnyFunction, original: AnyFunction): AnyFunction {
  Object.defineProperty(wrapper, ORIGINAL, { value: original, enumerable: false });
  return wrapper;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

class PlanCaptured {
  constructor(readonly value: unknown) {}
}

type Plan = { kind: "parsed"; value: unknown } | { kind: "rejected"; output: unknown } | { kind: "unavailable" };

/**
 * Runs the SDK's own input parsing for a tool whose `execute` we cannot replace, and stops right
 * before `execute`: the runner passes a parsed-input callback in `details` (a symbol the SDK
 * calls with the parsed value just before `execute`); ours records the value and aborts through
 * the details' signal, which the SDK rethrows instead of turning into a tool error.
 */
async function planWithSdkParser(original: FunctionToolLike["invoke"], tool: FunctionToolLike, runContext: unknown, input: string, details: Details | undefined): Promise<Plan> {
  if (!details) return { kind: "unavailable" };
  const callbackKey = Object.getOwnPropertySymbols(details).find((symbol) => symbol.description === PARSED_INPUT_CALLBACK);
  if (!callbackKey) return { kind: "unavailable" };
  const runnerCallback = details[callbackKey] as ((value: unknown) => void) | undefined;
  const controller = new AbortController();
  const planning = Object.defineProperties({}, Object.getOwnPropertyDescriptors(details)) as Details;
  Object.defineProperty(planning, "signal", { value: controller.signal, enumerable: true, configurable: true, writable: true });
  Object.defineProperty(planning, callbackKey, {
    enumerable: true,
    configurable: true,
    writable: true,
    value: (value: unknown) => {
      runnerCallback?.(value);
      const captured = new PlanCaptured(value);
      controller.abort(captured);
      throw captured;
    },
  });
  try {
    const output = await original.call(tool, runContext, input, planning);
    return { kind: "rejected", output };
  } catch (error) {
    if (error instanceof PlanCaptured) return { kind: "parsed", value: error.value };
    throw error;
  }
}

/** Wraps one FunctionTool's `invoke` in place (idempotent; skipped for factory-bridged tools). */
export function wrapFunctionTool(tool: unknown): boolean {
  if (!isFunctionTool(tool) || Object.hasOwn(tool, FACTORY_BRIDGED)) return false;
  return wrapProperty<FunctionToolLike["invoke"]>(
    tool,
    "invoke",
    (original) =>
      async function (this: FunctionToolLike, runContext: unknown, input: string, details?: Details) {
        if (!currentBridgeScope()) return original.call(this, runContext, input, details);
        const plan = await planWithSdkParser(original, this, runContext, input, details);
        if (plan.kind === "rejected") return plan.output; // the SDK's own invalid-input text, nothing stepped
        let params: unknown;
        if (plan.kind === "parsed") params = plan.value;
        else {
          try {
            params = JSON.parse(input.trim() === "" ? "{}" : input);
          } catch (error) {
            return `An error occurred while running the tool. Please try again. Error: invalid JSON arguments for ${this.name}: ${(error as Error).message}`;
          }
        }
        const outcome = await interceptToolCall(
          FRAMEWORK,
          {
            toolName: this.name,
            params,
            ...optional("rawArguments", rawArgumentsIfUnchanged(input, params)),
            ...optional("toolCallId", details?.toolCall?.callId),
          },
          () => original.call(this, runContext, input, details),
        );
        return outcome.bridged ? outcome.output : outcome.value;
      },
  );
}

/**
 * Patches an Agent class prototype (the one owning `getAllTools`) so every tool list the runner
 * asks for is bridged, including tools added after construction, MCP tools and nested agents.
 */
export function patchAgentPrototype(prototype: object | null | undefined): boolean {
  let owner: object | null | undefined = prototype;
  while (owner && !Object.hasOwn(owner, "getAllTools")) owner = Object.getPrototypeOf(owner) as object | null;
  if (!owner || !markOnce(owner, PROTOTYPE_PATCHED)) return false;
  return wrapProperty(
    owner,
    "getAllTools",
    (original) =>
      async function (this: unknown, ...args: unknown[]) {
        const tools = (await original.apply(this, args)) as unknown[];
        if (Array.isArray(tools)) for (const tool of tools) wrapFunctionTool(tool);
        return tools;
      },
  );
}

/**
 * Prepares the user's agent: patches its class and wraps the tools reachable now (its own tools
 * and those of its handoff agents), so the bridge works even when the SDK was imported before
 * our hooks were installed.
 */
export function prepareOpenAIAgent(agent: unknown, seen = new Set<unknown>()): void {
  if (!agent || typeof agent !== "object" || seen.has(agent)) return;
  seen.add(agent);
  patchAgentPrototype(Object.getPrototypeOf(agent) as object);
  const record = agent as { tools?: unknown[]; handoffs?: unknown[] };
  for (const tool of record.tools ?? []) wrapFunctionTool(tool);
  for (const handoff of record.handoffs ?? []) {
    const target = (handoff as { agent?: unknown }).agent ?? handoff;
    prepareOpenAIAgent(target, seen);
  }
}

/** The load-time hook: wrap `tool`, patch `Agent.prototype` on every copy that loads. */
export const openAIAgentsHook: ModuleHook = {
  id: FRAMEWORK,
  modules: ["@openai/agents", "@openai/agents-core"],
  onLoad(exports) {
    const agentClass = exports.Agent as { prototype?: object } | undefined;
    if (agentClass?.prototype) patchAgentPrototype(agentClass.prototype);
    const factory = exports.tool;
    if (typeof factory === "function" && !isBridgeWrapper(factory)) return { tool: wrapToolFactory(factory as AnyFunction) };
    return undefined;
  },
};
