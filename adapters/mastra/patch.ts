/**
 * Mastra (`@mastra/core` 0.24.x) interception.
 *
 * Mastra's tool builder (Mastra: packages/core/src/tools/tool-builder/builder.ts,
 * CoreToolBuilder.createExecute) validates the model's input against the tool's `inputSchema` and
 * then calls `tool.execute({ context: validatedInput, runtimeContext, … }, { toolCallId, … })` on
 * the `Tool` instance, looking `execute` up at call time. The dist is bundled into hashed chunks,
 * so nothing can be hooked by file; the one stable seam is the exported `Agent` class: every tool
 * an agent offers comes from `Agent.prototype.getTools` (packages/core/src/agent/agent.ts; static
 * records and tool functions alike). The patch returns, while an episode is active, a record of
 * per-call shadows (`Object.create(tool)` with an own bridged `execute`) so Mastra's own validation
 * runs first, `instanceof Tool` still holds, and nothing the user owns is mutated.
 *
 * AI SDK tools given to a Mastra agent are called `execute(input, options)` (Mastra's
 * `isVercelTool`, packages/core/src/tools/toolchecks.ts: not a `Tool` and has `parameters`); the
 * shadow follows the same rule.
 */
import type { ModuleHook } from "../../bridge/node/hooks.ts";
import { interceptToolCall } from "../../bridge/node/intercept.ts";
import { currentBridgeScope } from "../../bridge/node/context.ts";
import { markOnce, wrapProperty, type AnyFunction } from "../../bridge/node/marks.ts";

export const FRAMEWORK = "mastra";
const PROTOTYPE_PATCHED = Symbol.for("taubridge.mastra.prototypePatched");
const SHADOW = Symbol.for("taubridge.mastra.shadowTool");

type ToolLike = { execute?: AnyFunction; id?: string; [key: string]: unknown };

/** Mastra's own `Tool` class check, by name along the prototype chain (copies differ; `instanceof` does not hold across them). */
function isMastraTool(tool: object): boolean {
  for (let proto = Object.getPrototypeOf(tool) as object | null; proto; proto = Object.getPrototypeOf(proto) as object | null) {
    if ((proto as { constructor?: { name?: string } }).constructor?.name === "Tool") return true;
  }
  return false;
}

function shadowTool(name: string, tool: ToolLike): ToolLike {
  if (!tool || typeof tool !== "object" || typeof tool.execute !== "function" || Object.hasOwn(tool, SHADOW)) return tool;
  const userExecute = tool.execute;
  const vercelStyle = !isMastraTool(tool) && "parameters" in tool;
  const shadow = Object.create(tool) as ToolLike;
  Object.defineProperty(shadow, SHADOW, { value: true, enumerable: false });
  shadow.execute = async function (this: unknown, first: unknown, options?: { toolCallId?: string }) {
    const params = vercelStyle ? first : (first as { context?: unknown } | undefined)?.context;
    const toolCallId = options?.toolCallId;
    const outcome = await interceptToolCall(FRAMEWORK, { toolName: name, params, ...(toolCallId ? { toolCallId } : {}) }, () => userExecute.call(tool, first, options));
    return outcome.bridged ? outcome.output : outcome.value;
  };
  return shadow;
}

function bridgedRecord(tools: unknown): unknown {
  if (!tools || typeof tools !== "object") return tools;
  const copy: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools as Record<string, ToolLike>)) copy[name] = shadowTool(name, tool);
  return copy;
}

/** Patches `getTools` on the Agent class (idempotent per copy). */
export function patchMastraAgentPrototype(prototype: object | null | undefined): boolean {
  let owner: object | null | undefined = prototype;
  while (owner && !Object.hasOwn(owner, "getTools")) owner = Object.getPrototypeOf(owner) as object | null;
  if (!owner || !markOnce(owner, PROTOTYPE_PATCHED)) return false;
  return wrapProperty(
    owner,
    "getTools",
    (original) =>
      function (this: unknown, ...args: unknown[]) {
        const tools = original.apply(this, args);
        if (!currentBridgeScope()) return tools;
        return tools && typeof (tools as Promise<unknown>).then === "function" ? (tools as Promise<unknown>).then(bridgedRecord) : bridgedRecord(tools);
      },
  );
}

/** The load-time hook on Mastra's public entry points that export `Agent`. */
export const mastraHook: ModuleHook = {
  id: FRAMEWORK,
  modules: ["@mastra/core/agent", "@mastra/core"],
  onLoad(exports) {
    const agentClass = exports.Agent as { prototype?: object } | undefined;
    if (agentClass?.prototype) patchMastraAgentPrototype(agentClass.prototype);
  },
};
