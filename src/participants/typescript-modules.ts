/**
 * The CLI and the library run as compiled JavaScript. A user's agent module may still be
 * TypeScript (`--agent-module ./my-agent.ts`): how it is loaded depends on the Node.js running.
 *
 * **Node with type stripping** (22.18+, 23.6+, 24: `process.features.typescript`) loads a `.ts`
 * module itself, as it loads JavaScript: nothing is registered, the framework hooks see its
 * imports as they see a `.mjs` file's. That works for the TypeScript Node can strip (no `enum`,
 * `namespace`, parameter properties, `import x = require()`, JSX; relative imports spelled with
 * their extension): {@link typeScriptLoader} checks the module and every TypeScript file it imports
 * relatively before choosing it, so a module Node could not load goes to tsx instead of failing.
 *
 * **Otherwise (Node 20, or a module outside that subset) tsx** is registered, then and only then,
 * before any framework hook is installed, so the hooks see the module's imports as they would in a
 * `tsx` process. Both of tsx's hooks are registered, as the `tsx` command does: the ESM loader and
 * the CommonJS one. In a CommonJS project (`npm init -y`: no `"type": "module"`) a `.ts` file is
 * CommonJS, so Node hands it to `require`; without tsx's CommonJS hook, `require` finds ESM syntax,
 * goes back to the ESM loader that is already loading the file, and fails with `Cannot require() ES
 * Module … in a cycle`. With it, the file is compiled to CommonJS (its `export`s become
 * `module.exports`, which `loadUserAgentModule` reads), and its framework imports go through
 * `require`, where the require-in-the-middle hooks see them.
 *
 * `TAUBRIDGE_TYPESCRIPT=tsx` (or `native`) forces one way.
 */
import { existsSync, readFileSync } from "node:fs";
import module from "node:module";
import { dirname, resolve } from "node:path";
import { Script } from "node:vm";

const TYPESCRIPT_FILE = /\.(?:[mc]?ts|tsx)$/i;
/** What Node's type stripping loads: not `.tsx` (JSX needs a transform). */
const STRIPPABLE_FILE = /\.[mc]?ts$/i;
let registered = false;

/** A TypeScript file by its extension (`.ts`, `.mts`, `.cts`, `.tsx`): Node's type stripping or tsx must load it. */
export function isTypeScriptFile(path: string): boolean {
  return TYPESCRIPT_FILE.test(path);
}

/** How a module is loaded: by Node itself, or through tsx. */
export type TypeScriptLoader = "native" | "tsx";

type StripTypes = (code: string, options?: { mode?: "strip" | "transform" }) => string;

/** Node's own type stripper (22.13+), called with its "experimental" warning held back: a check, not a feature the user turned on. */
function nodeStripper(): StripTypes | undefined {
  const strip = (module as unknown as { stripTypeScriptTypes?: StripTypes }).stripTypeScriptTypes;
  if (typeof strip !== "function") return undefined;
  return (code) => {
    const emitWarning = process.emitWarning;
    process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
      const text = typeof warning === "string" ? warning : warning.message;
      if (/stripTypeScriptTypes/.test(text)) return;
      (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
    }) as typeof process.emitWarning;
    try {
      return strip(code, { mode: "strip" });
    } finally {
      process.emitWarning = emitWarning;
    }
  };
}

/** Relative import specifiers of a module's JavaScript (static, dynamic with a literal, re-exports, `require`). */
function relativeSpecifiers(code: string): string[] {
  const found: string[] = [];
  for (const match of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g)) found.push(match[1] as string);
  return found;
}

/**
 * Whether a `.ts` file at `path` sits in a CommonJS package: the nearest package.json has no
 * `"type": "module"` (`npm init -y`). With no package.json at all, Node decides by syntax silently.
 */
function inCommonJsPackage(path: string): boolean {
  for (let directory = dirname(path); ; directory = dirname(directory)) {
    const manifest = resolve(directory, "package.json");
    if (existsSync(manifest)) {
      try {
        return (JSON.parse(readFileSync(manifest, "utf8")) as { type?: unknown }).type !== "module";
      } catch {
        return true;
      }
    }
    if (dirname(directory) === directory) return false;
  }
}

/** Whether JavaScript compiles as a CommonJS module body (no `import`/`export` statements, no top-level `await`). */
function compilesAsCommonJs(code: string): boolean {
  try {
    new Script(`(function (exports, require, module, __filename, __dirname) {${code}\n})`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether Node can load `path` and the TypeScript files it imports relatively: each one strips
 * (no syntax that needs a transform), each relative import names an existing file by its exact
 * path (Node does not add extensions to ES module specifiers; tsx does), and a `.ts` file in a
 * CommonJS project (no `"type": "module"`) is CommonJS: Node would otherwise re-parse it as an
 * ES module and print a MODULE_TYPELESS_PACKAGE_JSON warning, where tsx compiles it to CommonJS
 * silently, as on Node 20 — so the same file behaves the same on every Node.
 */
function loadsNatively(path: string, strip: StripTypes, seen = new Set<string>()): boolean {
  if (seen.has(path)) return true;
  seen.add(path);
  if (!STRIPPABLE_FILE.test(path) || path.split(/[\\/]/).includes("node_modules")) return false;
  let code: string;
  try {
    code = strip(readFileSync(path, "utf8"));
  } catch {
    return false;
  }
  if (/\.ts$/i.test(path) && inCommonJsPackage(path) && !compilesAsCommonJs(code)) return false;
  for (const specifier of relativeSpecifiers(code)) {
    const target = resolve(dirname(path), specifier.split(/[?#]/)[0] as string);
    if (!existsSync(target)) return false;
    if (isTypeScriptFile(target) && !loadsNatively(target, strip, seen)) return false;
  }
  return true;
}

const decisions = new Map<string, TypeScriptLoader>();

/**
 * How the TypeScript module at `path` is loaded here: `native` when this Node strips types and can
 * load the module and its relative TypeScript imports as they are, `tsx` otherwise (decided once
 * per path).
 */
export function typeScriptLoader(path: string): TypeScriptLoader {
  const forced = process.env.TAUBRIDGE_TYPESCRIPT;
  if (forced === "tsx" || forced === "native") return forced;
  const absolute = resolve(path);
  const known = decisions.get(absolute);
  if (known) return known;
  const strip = (process.features as { typescript?: unknown }).typescript ? nodeStripper() : undefined;
  const decision: TypeScriptLoader = strip && loadsNatively(absolute, strip) ? "native" : "tsx";
  decisions.set(absolute, decision);
  return decision;
}

/** Registers tsx once when an agent option names a TypeScript module this Node cannot load itself. */
export async function ensureTypeScriptModules(agentOptions: Record<string, unknown> | undefined): Promise<void> {
  if (registered || !agentOptions) return;
  const paths = [agentOptions.module, agentOptions.agentModule].filter((value): value is string => typeof value === "string");
  if (!paths.some((path) => TYPESCRIPT_FILE.test(path) && typeScriptLoader(path) === "tsx")) return;
  // Already loading TypeScript: a `tsx` process, or vitest running these sources (a process vitest starts inherits VITEST but runs the build).
  if (process.execArgv.some((argument) => argument.includes("tsx")) || (process.env.VITEST && import.meta.url.endsWith(".ts"))) return;
  const [esm, commonJs] = await Promise.all([import("tsx/esm/api"), import("tsx/cjs/api")]);
  commonJs.register();
  esm.register();
  registered = true;
}
