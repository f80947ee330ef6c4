/**
 * The CLI and the library run as compiled JavaScript, which Node 20 cannot import `.ts` from. A
 * user's agent module may still be TypeScript (`--agent-module ./my-agent.ts`): then, and only
 * then, tsx is registered, before any framework hook is installed, so the hooks see the module's
 * imports as they would in a `tsx` process.
 *
 * Both of tsx's hooks are registered, as the `tsx` command does: the ESM loader and the CommonJS
 * one. In a CommonJS project (`npm init -y`: no `"type": "module"`) a `.ts` file is CommonJS, so
 * Node hands it to `require`; without tsx's CommonJS hook, `require` finds ESM syntax, goes back to
 * the ESM loader that is already loading the file, and fails with `Cannot require() ES Module … in
 * a cycle`. With it, the file is compiled to CommonJS (its `export`s become `module.exports`, which
 * `loadUserAgentModule` reads), and its framework imports go through `require`, where the
 * require-in-the-middle hooks see them.
 */
const TYPESCRIPT_FILE = /\.(?:[mc]?ts|tsx)$/i;
let registered = false;

/** A TypeScript file by its extension (`.ts`, `.mts`, `.cts`, `.tsx`): tsx must load it. */
export function isTypeScriptFile(path: string): boolean {
  return TYPESCRIPT_FILE.test(path);
}

/** Registers tsx once when any of the agent options names a TypeScript module. */
export async function ensureTypeScriptModules(agentOptions: Record<string, unknown> | undefined): Promise<void> {
  if (registered || !agentOptions) return;
  const paths = [agentOptions.module, agentOptions.agentModule].filter((value): value is string => typeof value === "string");
  if (!paths.some((path) => TYPESCRIPT_FILE.test(path))) return;
  // Already loading TypeScript: a `tsx` process, or vitest running these sources (a process vitest starts inherits VITEST but runs the build).
  if (process.execArgv.some((argument) => argument.includes("tsx")) || (process.env.VITEST && import.meta.url.endsWith(".ts"))) return;
  const [esm, commonJs] = await Promise.all([import("tsx/esm/api"), import("tsx/cjs/api")]);
  commonJs.register();
  esm.register();
  registered = true;
}
