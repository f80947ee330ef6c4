import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError } from "../errors/error-tree.ts";

/**
 * What a user's agent factory receives. The harness owns the model endpoint (`--base-url`,
 * `--model`, the key from `--api-key-env`), so a factory builds the framework's model client from
 * these instead of hard-coding it.
 */
export interface AgentFactoryOptions {
  /** OpenAI-compatible base URL (`--base-url`), e.g. `http://127.0.0.1:8000/v1`; undefined = the module's default. */
  baseURL?: string;
  /** Model name (`--model`); undefined = the module's default. */
  model?: string;
  /** API key (from `--api-key-env`, else `OPENAI_API_KEY`, else a placeholder for local servers). */
  apiKey: string;
  /** Every `--agent-option key=value`, for module-specific settings. */
  options: Readonly<Record<string, string>>;
}

/** The export names tried, in order, when `--agent-option export=` is not given. */
export const DEFAULT_EXPORTS = ["createAgent", "agent", "default"] as const;

export type { UserAgentSource } from "../core/contracts.ts";
import type { UserAgentSource } from "../core/contracts.ts";

/**
 * Imports the user's agent module. Call only after the framework hooks are installed: the
 * module's imports of the framework must go through them.
 */
export async function loadUserAgentModule(modulePath: string, exportName?: string): Promise<UserAgentSource> {
  if (!existsSync(modulePath)) throw new ConfigError(`agent module not found: ${modulePath}`);
  let namespace: Record<string, unknown>;
  try {
    namespace = moduleExports((await import(pathToFileURL(modulePath).href)) as Record<string, unknown>);
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, " "); // one line (a compiler's error spans several)
    const location = syntaxErrorLocation(modulePath, error, reason);
    throw new ConfigError(`cannot load the agent module ${modulePath}: ${location ? `syntax error at ${location}: ` : ""}${reason}${moduleFormatHint(modulePath, error)}`, { cause: error });
  }
  const names = exportName ? [exportName] : DEFAULT_EXPORTS;
  for (const name of names) {
    const value = namespace[name];
    if (value === undefined || value === null) continue;
    const kind = typeof value === "function" && !isClass(value) ? "factory" : "instance";
    return { modulePath, exportName: name, kind, value };
  }
  throw new ConfigError(
    exportName
      ? `agent module ${modulePath} has no export "${exportName}" (exports: ${Object.keys(namespace).join(", ") || "none"})`
      : `agent module ${modulePath} exports none of ${DEFAULT_EXPORTS.join(", ")} (exports: ${Object.keys(namespace).join(", ") || "none"}); add one or pass --agent-option export=<name>`,
  );
}

/**
 * Where a syntax error in the module is (`file:line:column`), when the error does not say: Node's
 * `import()` of an ES module throws a bare `SyntaxError: Unexpected token ';'`, with neither file
 * nor line in its message or stack. `node --check` parses the file as Node would and prints the
 * place; it runs only after a load has failed. TypeScript modules need nothing: tsx's compiler
 * names the place in its message. Undefined when the error is no syntax error, is located already,
 * or lies in a module the agent imports (the check of the agent's own file then passes).
 */
function syntaxErrorLocation(modulePath: string, error: unknown, reason: string): string | undefined {
  if ((error as { name?: unknown } | null)?.name !== "SyntaxError" || /:\d+:\d+/.test(reason)) return undefined;
  const checked = spawnSync(process.execPath, ["--check", modulePath], { encoding: "utf8", timeout: 30_000 });
  const [place, , caret] = (checked.stderr ?? "").split("\n");
  const match = /^(.*):(\d+)$/.exec(place ?? "");
  if (checked.status === 0 || !match) return undefined;
  const column = caret?.indexOf("^") ?? -1;
  return `${match[1]}:${match[2]}${column >= 0 ? `:${column + 1}` : ""}`;
}

/**
 * The exports of the user's module as an ES module would declare them. `import()` of a CommonJS
 * module gives `module.exports` as `default` and only the names Node's lexer finds in the source;
 * for a TypeScript file that tsx compiled to CommonJS (a `.ts` file in a project without `"type":
 * "module"`) the lexer reads the TypeScript source and finds none. So: compiled ES modules (marked
 * `__esModule`) are read through their exports object, and a CommonJS module with no named export
 * through its `module.exports` object.
 */
function moduleExports(namespace: Record<string, unknown>): Record<string, unknown> {
  const main = namespace.default;
  if (typeof main !== "object" || main === null) return namespace;
  if ((main as { __esModule?: unknown }).__esModule) return main as Record<string, unknown>;
  const onlyDefault = Object.keys(namespace).every((key) => key === "default" || key === "module.exports");
  const prototype = Object.getPrototypeOf(main);
  if (onlyDefault && (prototype === Object.prototype || prototype === null)) return { ...(main as Record<string, unknown>), default: main };
  return namespace;
}

/**
 * What to do when a module fails to load because of its format: Node decides ESM or CommonJS from
 * the extension and the nearest package.json's `"type"`, and a newcomer's project (`npm init -y`)
 * is CommonJS, where ES-module-only syntax (top-level `await`, `import.meta`) cannot work.
 */
function moduleFormatHint(modulePath: string, error: unknown): string {
  const text = error instanceof Error ? `${error.message} ${(error as { code?: unknown }).code ?? ""}` : String(error);
  if (!/top-level await|import\.meta|Cannot require\(\) ES Module|ERR_REQUIRE_(?:ESM|ASYNC_MODULE|CYCLE_MODULE)|Cannot use import statement outside a module|Unexpected token 'export'/i.test(text))
    return "";
  const extension = extname(modulePath).toLowerCase();
  const explicitlyCommonJs = extension === ".cjs" || extension === ".cts";
  if (!explicitlyCommonJs && ![".js", ".jsx", ".ts", ".tsx"].includes(extension)) return "";
  const manifest = nearestPackageJson(dirname(modulePath));
  if (!explicitlyCommonJs && manifest?.type === "module") return "";
  const renamed = `${basename(modulePath, extname(modulePath))}${extension.includes("t") ? ".mts" : ".mjs"}`;
  if (explicitlyCommonJs) return ` (${basename(modulePath)} is CommonJS by its extension; ES-module syntax needs ${renamed})`;
  const why = manifest ? `${manifest.path} has no "type": "module"` : `no package.json above it says "type": "module"`;
  return ` (${basename(modulePath)} is loaded as CommonJS: ${why}; rename the file to ${renamed} or add "type": "module" to the project's package.json)`;
}

/** The nearest package.json above a directory, as Node finds it to decide a file's module format. */
function nearestPackageJson(directory: string): { path: string; type?: unknown } | undefined {
  for (let current = directory; ; current = dirname(current)) {
    const path = join(current, "package.json");
    if (existsSync(path)) {
      try {
        return { path, type: (JSON.parse(readFileSync(path, "utf8")) as { type?: unknown }).type };
      } catch {
        return { path };
      }
    }
    if (dirname(current) === current) return undefined;
  }
}

function isClass(value: unknown): boolean {
  return typeof value === "function" && /^class[\s{]/.test(Function.prototype.toString.call(value));
}

/**
 * The agent for one episode: a fresh one from a factory, or the shared instance. A factory that
 * throws is an error naming the export and the module (its own message alone, "no API key", says
 * nothing of where it came from); `firstCall` makes it a {@link ConfigError}: the run's check
 * before any episode, which then exits 2 in one line.
 */
export async function agentForEpisode(source: UserAgentSource, options: AgentFactoryOptions, firstCall = false): Promise<unknown> {
  if (source.kind === "instance") return source.value;
  let made: unknown;
  try {
    made = await (source.value as (options: AgentFactoryOptions) => unknown)(options);
  } catch (error) {
    const reason = (error instanceof Error ? `${error.name === "Error" ? "" : `${error.name}: `}${error.message}` : String(error)).replace(/\s*\n\s*/g, " ");
    const message = `${source.exportName}() in ${source.modulePath} threw: ${reason}`;
    throw firstCall ? new ConfigError(message, { cause: error }) : new Error(message, { cause: error });
  }
  if (made === undefined || made === null) throw new ConfigError(`${source.exportName}() in ${source.modulePath} returned ${String(made)}; it must return the agent`);
  return made;
}

/**
 * Rejects `--agent-option` keys that no part of the run reads: a typo (`mappin=`) would otherwise be
 * silently ignored. `user.<name>` keys are always accepted: they are for the user's own module.
 */
export function checkAgentOptionKeys(options: Readonly<Record<string, unknown>>, known: readonly string[], strategy: string): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key) || key.startsWith("user.")) continue;
    throw new ConfigError(`unknown --agent-option ${key} for --agent-strategy ${strategy}; known: ${known.join(", ")}, user.<name> (for your module)`);
  }
}
