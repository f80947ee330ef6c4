/**
 * The Node side of the runtime bridge: per-episode routing (an AsyncLocalStorage scope carrying the
 * episode's BridgeSession), the generic interception entry point adapters call, idempotent object
 * patching, and load-time module hooks (import-in-the-middle + require-in-the-middle).
 * See bridge/README.md.
 */
export { createBridgeScope, currentBridgeScope, runInBridgeScope, setProcessBridgeScope, type BridgeScope, type InterceptedCallRecord } from "./context.ts";
export { interceptToolCall, rawArgumentsIfUnchanged, bridgeActive, type InterceptResult } from "./intercept.ts";
export { installModuleHooks, hookStatus, type HookStatus, type ModuleHook, type ModuleLoadInfo } from "./hooks.ts";
export { ORIGINAL, isBridgeWrapper, markOnce, originalOf, unwrapProperty, wrapProperty } from "./marks.ts";
