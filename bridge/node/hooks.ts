import { createRequire, register } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * A load-time hook for one framework: which modules to intercept and what to do with their
 * exports when a copy of them loads.
 *
 * `onLoad` receives the module's exports (the ESM namespace as import-in-the-middle exposes it,
 * or the CJS `exports` object). It should mutate reachable objects (class prototypes) and may
 * return replacements for exported functions (factories such as `tool`, `generateText`): those are
 * re-bound for every importer (ESM) or put on a fresh exports object (CJS, whose getters are not
 * configurable). It is called once per loaded copy, so it must be idempotent (see `marks.ts`).
 */
export type { ModuleHook, ModuleLoadInfo } from "../../src/core/contracts.ts";
import type { ModuleHook, ModuleLoadInfo } from "../../src/core/contracts.ts";

/** What the hook layer managed to install, and every load it saw (for diagnostics and tests). */
export interface HookStatus {
  esmLoader: "registered" | "unavailable";
  esmLoaderError?: string;
  cjs: boolean;
  installed: string[];
  loads: Array<{ hook: string; module: string; system: "esm" | "cjs"; error?: string }>;
}

interface HookState {
  status: HookStatus;
  // The import-in-the-middle instance whose message channel the loader listens to.
  iitm?: {
    Hook: new (modules: string[], hookFn: (ns: Record<string, unknown>, name: string, baseDir?: string) => unknown) => unknown;
    waitForAllMessagesAcknowledged: () => Promise<void>;
  };
  ritm?: { Hook: new (modules: string[], onrequire: (exports: unknown, name: string, baseDir?: string) => unknown) => unknown };
}

const STATE_KEY = Symbol.for("taubridge.bridge.node.hookState");
const require = createRequire(import.meta.url);

function state(): HookState {
  const slots = globalThis as unknown as Record<symbol, HookState | undefined>;
  return (slots[STATE_KEY] ??= { status: { esmLoader: "unavailable", cjs: false, installed: [], loads: [] } });
}

/**
 * Registers the import-in-the-middle ESM loader once per process, restricted to the modules we
 * hook (its message channel carries the include list; nothing else is rewritten). Must run before
 * the target packages are first imported: modules already in the ESM cache are not affected.
 */
function ensureEsmLoader(current: HookState): void {
  if (current.iitm || current.status.esmLoaderError) return;
  try {
    const iitm = require("import-in-the-middle") as {
      Hook: NonNullable<HookState["iitm"]>["Hook"];
      createAddHookMessageChannel: () => { registerOptions: { data?: unknown; transferList?: unknown[] }; waitForAllMessagesAcknowledged: () => Promise<void> };
    };
    const { registerOptions, waitForAllMessagesAcknowledged } = iitm.createAddHookMessageChannel();
    register("import-in-the-middle/hook.mjs", import.meta.url, registerOptions as never);
    current.iitm = { Hook: iitm.Hook, waitForAllMessagesAcknowledged };
    current.status.esmLoader = "registered";
  } catch (error) {
    current.status.esmLoaderError = error instanceof Error ? error.message : String(error);
  }
}

function ensureCjs(current: HookState): void {
  if (current.ritm) return;
  const ritm = require("require-in-the-middle") as { Hook: NonNullable<HookState["ritm"]>["Hook"] };
  current.ritm = ritm;
  current.status.cjs = true;
}

/** A copy of CJS `exports` with some properties replaced (CJS re-export getters cannot be redefined in place). */
function replaceCjsExports(exports: object, replacements: Record<string, unknown>): object {
  const copy = Object.create(Object.getPrototypeOf(exports) as object | null) as Record<PropertyKey, unknown>;
  for (const key of Reflect.ownKeys(exports)) {
    const descriptor = Object.getOwnPropertyDescriptor(exports, key)!;
    if (typeof key === "string" && Object.hasOwn(replacements, key)) continue;
    Object.defineProperty(copy, key, { ...descriptor, configurable: true });
  }
  for (const [key, value] of Object.entries(replacements)) Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/**
 * The module specifiers plus the absolute paths of their ESM entry files as resolved from here.
 *
 * Why: Node resolves a bare `import "ai"` itself and the loader matches the specifier, but some
 * runners (vitest's module runner, bundler-style loaders) import dependencies by their resolved
 * path; import-in-the-middle matches those only by absolute path.
 */
function withResolvedPaths(modules: readonly string[]): string[] {
  const result = [...modules];
  for (const specifier of modules) {
    try {
      const url = import.meta.resolve(specifier);
      if (url.startsWith("file:")) result.push(fileURLToPath(url));
    } catch {
      // not resolvable from taubridge's location: the bare specifier still matches
    }
  }
  return result;
}

/**
 * Installs load-time hooks for the given frameworks: import-in-the-middle for ESM (registered with
 * `module.register` and the add-hook message channel, so only these modules are intercepted) and
 * require-in-the-middle for CJS. Resolves once the ESM loader has acknowledged the module list, so
 * an `await import(userModule)` afterwards is guaranteed to go through the hooks.
 *
 * Hook callbacks never throw into the user's import: a failing patch is recorded in
 * {@link hookStatus} and the module loads unpatched (the adapter's object walk still applies).
 */
export async function installModuleHooks(hooks: readonly ModuleHook[]): Promise<HookStatus> {
  const current = state();
  ensureEsmLoader(current);
  ensureCjs(current);
  for (const hook of hooks) {
    if (current.status.installed.includes(hook.id)) continue;
    current.status.installed.push(hook.id);
    const run = (exports: Record<string, unknown>, info: ModuleLoadInfo): Record<string, unknown> | undefined => {
      try {
        const replacements = hook.onLoad(exports, info) ?? undefined;
        current.status.loads.push({ hook: hook.id, module: info.module, system: info.system });
        return replacements && Object.keys(replacements).length > 0 ? replacements : undefined;
      } catch (error) {
        current.status.loads.push({ hook: hook.id, module: info.module, system: info.system, error: error instanceof Error ? error.message : String(error) });
        return undefined;
      }
    };
    if (current.iitm) {
      new current.iitm.Hook(withResolvedPaths(hook.modules), (namespace, name, baseDir) => {
        const replacements = run(namespace, { module: name, system: "esm", ...(baseDir ? { baseDir } : {}) });
        if (replacements) for (const [key, value] of Object.entries(replacements)) namespace[key] = value;
      });
    }
    new current.ritm!.Hook([...hook.modules], (exports, name, baseDir) => {
      if (!exports || (typeof exports !== "object" && typeof exports !== "function")) return exports;
      const replacements = run(exports as Record<string, unknown>, { module: name, system: "cjs", ...(baseDir ? { baseDir } : {}) });
      return replacements ? replaceCjsExports(exports as object, replacements) : exports;
    });
  }
  if (current.iitm) await current.iitm.waitForAllMessagesAcknowledged();
  return hookStatus();
}

/** A snapshot of what the hook layer installed and saw. */
export function hookStatus(): HookStatus {
  const { status } = state();
  return { ...status, installed: [...status.installed], loads: [...status.loads] };
}
