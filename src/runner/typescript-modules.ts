/**
 * The CLI and the library run as compiled JavaScript, which Node 20 cannot import `.ts` from. A
 * user's agent module may still be TypeScript (`--agent-module ./my-agent.ts`): then, and only
 * then, tsx's loader is registered, before any framework hook is installed, so the hooks see the
 * module's imports as they would in a `node --import tsx` process.
 */
const TYPESCRIPT_FILE = /\.(?:[mc]?ts|tsx)$/i;
let registered = false;

/** Registers tsx once when any of the agent options names a TypeScript module. */
export async function ensureTypeScriptModules(agentOptions: Record<string, unknown> | undefined): Promise<void> {
  if (registered || !agentOptions) return;
  const paths = [agentOptions.module, agentOptions.agentModule].filter((value): value is string => typeof value === "string");
  if (!paths.some((path) => TYPESCRIPT_FILE.test(path))) return;
  if (process.execArgv.some((argument) => argument.includes("tsx")) || process.env.VITEST) return; // already loading TypeScript
  const { register } = await import("tsx/esm/api");
  register();
  registered = true;
}
