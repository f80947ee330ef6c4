/**
 * LangChain.js / LangGraph.js (`@langchain/core` 1.x) interception.
 *
 * Every way a LangChain tool runs (`tool.invoke` from LangGraph's or langchain v1's ToolNode, the
 * legacy `call`, any `StructuredTool` subclass) funnels through `StructuredTool.prototype.call`
 * (LangChain.js: libs/langchain-core/src/tools/index.ts, StructuredTool.call), which validates the
 * input against the tool's schema, runs callbacks, calls `this._call(parsed)` and formats the
 * `ToolMessage`. The patch calls the original `call` with a per-call shadow `this`
 * (`Object.create(tool)`) whose own `_call` is the bridge: validation errors, callbacks and
 * ToolMessage formatting stay native, nothing is mutated per call (so concurrent episodes are
 * safe), and the tool's own `_call`/`func` never runs for mapped tools.
 *
 * `@langchain/core` is dual (ESM `.js` / CJS `.cjs`), so the patch goes on every copy: from the
 * load-time hook on `@langchain/core/tools` and `@langchain/core` and, belt and braces, on the
 * copies resolvable from the user's module (ESM import and CJS `require`).
 */
import { createRequire } from "node:module";
import type { ModuleHook } from "../../bridge/node/hooks.ts";
import { interceptToolCall } from "../../bridge/node/intercept.ts";
import { currentBridgeScope } from "../../bridge/node/context.ts";
import { markOnce, wrapProperty } from "../../bridge/node/marks.ts";

export const FRAMEWORK = "langchain";
const PROTOTYPE_PATCHED = Symbol.for("taubridge.langchain.prototypePatched");

interface ToolLike {
  name: string;
  responseFormat?: string;
  _call(parsed: unknown, runManager?: unknown, config?: unknown): Promise<unknown>;
}
type ToolCallArg = { type?: string; id?: string; name?: string; args?: unknown };

function toolCallIdOf(arg: unknown, config: unknown): string | undefined {
  if (arg && typeof arg === "object" && (arg as ToolCallArg).type === "tool_call" && typeof (arg as ToolCallArg).id === "string") return (arg as ToolCallArg).id;
  const fromConfig = (config as { toolCall?: { id?: unknown } } | undefined)?.toolCall?.id;
  return typeof fromConfig === "string" ? fromConfig : undefined;
}

/** Patches `call` on a `StructuredTool` prototype (idempotent per copy). */
export function patchStructuredToolPrototype(prototype: object | null | undefined): boolean {
  if (!prototype || !Object.hasOwn(prototype, "call") || !markOnce(prototype, PROTOTYPE_PATCHED)) return false;
  return wrapProperty(
    prototype,
    "call",
    (original) =>
      function (this: ToolLike, arg: unknown, configArg?: unknown, tags?: unknown) {
        if (!currentBridgeScope()) return original.call(this, arg, configArg, tags);
        const tool = this;
        const outerId = toolCallIdOf(arg, configArg);
        const shadow = Object.create(tool) as ToolLike;
        shadow._call = async (parsed: unknown, runManager?: unknown, config?: unknown) => {
          const toolCallId = outerId ?? toolCallIdOf(undefined, config);
          const outcome = await interceptToolCall(FRAMEWORK, { toolName: tool.name, params: parsed, ...(toolCallId ? { toolCallId } : {}) }, () => tool._call(parsed, runManager, config));
          if (!outcome.bridged) return outcome.value;
          return tool.responseFormat === "content_and_artifact" ? [outcome.output, undefined] : outcome.output;
        };
        return original.call(shadow, arg, configArg, tags);
      },
  );
}

function patchExports(exports: Record<string, unknown>): void {
  const structuredTool = exports.StructuredTool as { prototype?: object } | undefined;
  if (structuredTool?.prototype) patchStructuredToolPrototype(structuredTool.prototype);
}

/** The load-time hook on `@langchain/core/tools` (and the package root, which some code imports). */
export const langChainHook: ModuleHook = {
  id: FRAMEWORK,
  modules: ["@langchain/core/tools", "@langchain/core"],
  onLoad(exports) {
    patchExports(exports);
  },
};

/**
 * Patches the copies of `@langchain/core/tools` the user's module resolves, in case they were
 * loaded before the hooks were installed: the ESM copy through `import()` (the same instance the
 * user's ESM imports get when resolution agrees) and the CJS copy if `require` already loaded it.
 */
export async function patchReachableCopies(userModulePath: string): Promise<void> {
  try {
    patchExports((await import("@langchain/core/tools")) as Record<string, unknown>);
  } catch {
    // not installed next to taubridge: the hook or the CJS copy below covers it
  }
  try {
    const require = createRequire(userModulePath);
    const loaded = require.cache[require.resolve("@langchain/core/tools")];
    if (loaded) patchExports(loaded.exports as Record<string, unknown>);
  } catch {
    // no CJS copy resolvable from the user's module
  }
}
