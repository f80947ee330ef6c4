import { AsyncLocalStorage } from "node:async_hooks";
import type { BridgeSession } from "../session.ts";

/** One intercepted tool call, as the adapter saw it (for trajectories when a run is cut short, and stats). */
export interface InterceptedCallRecord {
  framework: string;
  toolName: string;
  toolCallId?: string;
  /** The arguments as JSON text (the model's raw text when the framework exposed it). */
  arguments: string;
  /** `bridged`: answered by the session; `passthrough`: not a benchmark tool, ran natively. */
  kind: "bridged" | "passthrough";
  /** The tool result text we returned (bridged calls only). */
  output?: string;
  /** Time spent in the bridge (µs), from interception to result. */
  micros: number;
}

/**
 * Everything the interception points need for the episode they run in. It travels with the
 * framework's own async work (an {@link AsyncLocalStorage} store), so two episodes running
 * concurrently in one process never see each other's session, and nothing is global.
 */
export interface BridgeScope {
  readonly session: BridgeSession;
  /** Adapter name, for records and error texts. */
  readonly framework: string;
  /** Called after every bridged call (for example to stop the framework once the episode is done). */
  readonly afterBridged?: (record: InterceptedCallRecord) => void;
  /** Every intercepted call in order. */
  readonly calls: InterceptedCallRecord[];
}

// One store per process even if this module is loaded twice (ESM via a loader hook and again
// through a test runner's module graph): the key is a registered symbol on globalThis.
const STORE_KEY = Symbol.for("taubridge.bridge.node.scopeStorage");
const DEFAULT_KEY = Symbol.for("taubridge.bridge.node.processScope");
type GlobalSlots = { [STORE_KEY]?: AsyncLocalStorage<BridgeScope>; [DEFAULT_KEY]?: BridgeScope };
const slots = globalThis as unknown as GlobalSlots;
const storage: AsyncLocalStorage<BridgeScope> = (slots[STORE_KEY] ??= new AsyncLocalStorage<BridgeScope>());

/** Creates a scope with an empty call log. */
export function createBridgeScope(options: Omit<BridgeScope, "calls">): BridgeScope {
  return { ...options, calls: [] };
}

/**
 * Runs `fn` (typically one framework run, or a whole episode) with `scope` as the active bridge
 * scope. Every tool call the framework makes from inside `fn`'s async work is routed to
 * `scope.session`; calls made elsewhere (or after `fn` settles) run natively.
 */
export function runInBridgeScope<T>(scope: BridgeScope, fn: () => T): T {
  return storage.run(scope, fn);
}

/**
 * The scope of the current async context, or the process-wide scope set with
 * {@link setProcessBridgeScope}, or undefined (then intercepted tools run natively).
 */
export function currentBridgeScope(): BridgeScope | undefined {
  return storage.getStore() ?? slots[DEFAULT_KEY];
}

/**
 * For user-owned entrypoints (`node --import taubridge/bridge/register user-entry`): one episode per process,
 * so a process-wide scope is acceptable there. The in-process harness never uses it.
 */
export function setProcessBridgeScope(scope: BridgeScope | undefined): void {
  if (scope) slots[DEFAULT_KEY] = scope;
  else delete slots[DEFAULT_KEY];
}
