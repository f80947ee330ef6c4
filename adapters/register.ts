/**
 * Preload entry for user-owned entrypoints (`taubridge/bridge/register`; it lives here, not in
 * bridge/, because it names every adapter's hook and the bridge never imports adapters):
 *
 *   node --import tsx --import taubridge/bridge/register ./my-entry.ts     (TypeScript entry)
 *   node --import taubridge/bridge/register ./my-entry.mjs                 (once compiled)
 *
 * It installs the framework hooks (import-in-the-middle for ESM, require-in-the-middle for CJS)
 * before the entry's own static imports are evaluated, which is the only way to patch factory
 * exports (`tool`, `generateText`) that a statically importing entry binds at link time. The
 * harness does not need it: it installs the same hooks itself before it `import()`s the user's
 * module.
 *
 * Installing the hooks changes nothing by itself: outside a bridge scope every intercepted tool
 * runs natively. Code in the same process (a harness, a test, the out-of-process transport) runs
 * an episode with `runInBridgeScope(createBridgeScope({ session, framework }), fn)`, or, for a
 * one-episode process, `setProcessBridgeScope(...)`.
 *
 * `TAUBRIDGE_FRAMEWORKS=openai-agents,langchain` limits which frameworks are hooked (default: all).
 */
import { installModuleHooks } from "../bridge/node/hooks.ts";
import { frameworkHooks } from "./hooks.ts";

const wanted = (process.env.TAUBRIDGE_FRAMEWORKS ?? "")
  .split(",")
  .map((name) => name.trim())
  .filter(Boolean);
const unknown = wanted.filter((name) => !(name in frameworkHooks));
if (unknown.length > 0) throw new Error(`TAUBRIDGE_FRAMEWORKS: unknown framework(s) ${unknown.join(", ")}; known: ${Object.keys(frameworkHooks).join(", ")}`);
const selected = wanted.length > 0 ? wanted.map((name) => frameworkHooks[name]) : Object.values(frameworkHooks);

await installModuleHooks(selected);
