#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm run build`, which `prepare` runs on `npm ci` and
// before `npm pack`): its bundle in dist/cli/ when there (TAUBRIDGE_UNBUNDLED=1: the modules as
// compiled). A checkout without a build falls back to the TypeScript sources through
// tsx, which is slower to start (it compiles at start-up) but needs no build step.
//
// Before that: a Node.js older than taubridge supports is refused in one line (exit 2), and on a
// Node.js that has it (22.1+) the module compile cache is switched on, so a second start reuses the
// compiled code of every module it loads (NODE_COMPILE_CACHE names its folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off).
// On one without it (Node 20), the bundle runs from its classic-script form with a V8 code cache
// of its own (code-cache.js), under the same two variables.
import { existsSync } from "node:fs";
import module from "node:module";
import { nodeVersionProblem } from "./node-version.js";

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  process.stderr.write(`taubridge: ${problem}\n`);
  process.exit(2);
}
const moduleCompileCache = typeof module.enableCompileCache === "function";
if (moduleCompileCache) {
  try {
    module.enableCompileCache();
  } catch {
    // A cache that cannot be used (a read-only folder) only costs start-up time.
  }
}

// `taubridge --version` alone is answered here, from package.json, without loading the CLI's
// modules: it then costs about a bare `node -e 0` (what `npm run bench startup` compares it with),
// and prints what commander's `.version()` prints.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  const { readFileSync } = await import("node:fs");
  process.stdout.write(`${JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version}\n`);
} else {
  // The bundled CLI (scripts/build/bundle-cli.mjs: the same compiled code in a few files, which
  // starts faster), else the compiled modules as tsc wrote them.
  const bundled = new URL("../dist/cli/cli.js", import.meta.url);
  const built = new URL("../dist/app/cli.js", import.meta.url);
  if (existsSync(bundled) && !process.env.TAUBRIDGE_UNBUNDLED) {
    const codeCache = !moduleCompileCache && !process.env.NODE_DISABLE_COMPILE_CACHE;
    const ran = codeCache && (await import("./code-cache.js")).runWithCodeCache(new URL("../dist/cli/", import.meta.url), "cli.js");
    await (ran || import(bundled.href));
  } else if (existsSync(built)) {
    await import(built.href);
  } else {
    const { register } = await import("tsx/esm/api");
    register();
    await import(new URL("../app/cli.ts", import.meta.url).href);
  }
}
