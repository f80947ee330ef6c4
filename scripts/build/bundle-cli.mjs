// Bundles the built CLI (dist/app/cli.js and the modules it imports from dist/) into dist/cli/,
// which bin/taubridge.js runs when it is there. Why: a τ² oracle run otherwise resolves, reads and
// compiles about a thousand module files of ours before its first simulation, a large share of a
// short run's time (docs/benchmarks.md, "original-oracle"). The bundle is the same compiled code:
//
// - npm packages stay external (each keeps its own files, `package.json` and `require` semantics),
//   but for those `bundled-packages.json` lists, which are compiled in with what they import;
// - dynamic `import()`s stay lazy, as chunks (`splitting`), so an offline run still loads neither
//   the model SDKs nor the framework adapters;
// - every `import.meta.url` in a bundled module is rewritten to that module's own location in
//   dist/ (relative to the chunk, so the package can be moved), so the files a module finds beside
//   itself (task manifests, the bundled domain's data, the Python bridge, worker entry points,
//   `createRequire`) are the same as without the bundle.
//
// The `--workers` entry (`app/worker-entry.js`) is a second entry point of the same bundle, sharing
// its chunks: a CLI run forks its worker processes from dist/cli/, so each child starts as fast as
// the CLI does (`worker-entry-url.js` names `worker-entry.js` beside the chunk it is compiled into: a
// launcher written below, which runs the bundled entry, `worker-entry-module.js`, as the CLI runs
// its own — from the classic form with a code cache on a Node.js without a module compile cache). The
// library (`import "taubridge"`) and its worker entry are not bundled: they load dist/ as compiled.
// Plain JavaScript: it runs in `prepare` (npm ci, npm pack), after `tsc`.
import { readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { writeClassicForm } from "./classic-form.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const dist = join(root, "dist");
const outdir = join(dist, "cli");
await rm(outdir, { recursive: true, force: true });

/**
 * npm packages compiled into the bundle (`bundled-packages.json`; `test/cli-bundle.test.ts` reads
 * it too). Why: Node resolves, reads and compiles every file of an external package one by one and
 * compiles each module's whole top level, where a bundle's functions are compiled only when first
 * called (importing execa alone took ~0.2 s of CPU at load 8, openai ~0.19 s against ~0.025 s
 * bundled; a τ² model run's start took ~0.2 s less CPU with the first set, and 5% fewer instructions
 * with openai added: docs/benchmarks.md). Only packages whose objects never meet another copy of
 * themselves belong here: used by taubridge's own code, not handed to or from the frameworks and
 * agent modules a run loads from node_modules. `onlyFrom` narrows a package to the folders of
 * ours whose imports of it are bundled; elsewhere it stays external. openai is bundled for
 * `src/model/` only: the model layer's client and the error classes it checks on errors its own
 * transport makes; a framework adapter's `import("openai")` (the OpenAI Agents SDK is handed a
 * client) still loads node_modules' copy, the one the framework itself uses. `zod` likewise is
 * bundled for `src/model/`, `src/worker/` and `src/queue/` only: their schemas check the model
 * layer's own configurations (endpoint, price table, cache entries) and the worker and queue wire
 * forms at both ends, and never leave them; a run with a judge otherwise resolved and compiled
 * zod's 95 module files for the model layer alone (importing zod: 140–180 ms of CPU at load 5,
 * against about 60 ms bundled), and a worker process loads the model layer and the worker
 * protocol together (one bundled copy rather than a bundled and an external one). Everywhere else
 * zod stays external (schemas pass between agent modules, frameworks and the bridge), as do the
 * framework SDKs and undici (`src/model/undici-parts.ts` loads it in parts at run time).
 */
const bundledPackages = JSON.parse(await readFile(join(dirname(fileURLToPath(import.meta.url)), "bundled-packages.json"), "utf8"));
const BUNDLED_PACKAGES = new Set(bundledPackages.packages);
/** Whether `importer` (a file of dist/) may have `name` bundled (`onlyFrom`: folders under dist/, else anywhere). */
const bundledFor = (name, importer) => {
  const folders = bundledPackages.onlyFrom?.[name];
  if (!folders) return BUNDLED_PACKAGES.has(name);
  const own = relative(dist, importer).split(sep).join("/");
  return BUNDLED_PACKAGES.has(name) && folders.some((folder) => own.startsWith(folder));
};

/** `import.meta.url` of the module at `path`, as an expression valid in any chunk of the bundle. */
const metaUrlOf = (path) => `new URL(${JSON.stringify(relative(outdir, path).split(sep).join("/"))}, import.meta.url).href`;

/**
 * Modules whose `import.meta.url` stays the chunk's own: what they find beside themselves is part
 * of the bundle. `worker-entry-url.js` names `./worker-entry.js`, which in dist/cli/ is the launcher
 * of the bundled worker entry (`worker-entry-module.js`, an entry point below; the launcher is
 * written after the build) and in dist/app/ the compiled one.
 */
const OWN_URL_IN_BUNDLE = new Set([join(dist, "app", "worker-entry-url.js")]);

/** Gives the CommonJS packages bundled into ESM a `require` for Node's own modules. */
const BANNER = 'import { createRequire as __taubridgeCreateRequire } from "node:module"; const require = __taubridgeCreateRequire(import.meta.url);';

const { metafile } = await build({
  entryPoints: { cli: join(dist, "app", "cli.js"), "worker-entry-module": join(dist, "app", "worker-entry.js") },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outdir,
  // Chunks beside the entry: the rewritten `import.meta.url`s are relative to the folder every output file is in.
  chunkNames: "[name]-[hash]",
  legalComments: "none",
  logLevel: "warning",
  banner: { js: BANNER },
  metafile: true,
  plugins: [
    {
      name: "packages",
      setup(builder) {
        builder.onResolve({ filter: /^[^./]/ }, ({ path, importer }) => {
          if (path.startsWith("node:")) return { external: true };
          // What a bundled package imports is bundled with it.
          if (importer.includes(`${sep}node_modules${sep}`)) return undefined;
          const name = path.startsWith("@") ? path.split("/").slice(0, 2).join("/") : path.split("/")[0];
          return bundledFor(name, importer) ? undefined : { external: true };
        });
      },
    },
    {
      name: "module-own-url",
      setup(builder) {
        builder.onLoad({ filter: /\.js$/ }, async ({ path }) => {
          const text = await readFile(path, "utf8");
          if (OWN_URL_IN_BUNDLE.has(path)) return { contents: text, loader: "js" };
          return { contents: text.includes("import.meta.url") ? text.replaceAll("import.meta.url", metaUrlOf(path)) : text, loader: "js" };
        });
      },
    },
  ],
});

// The same bundle as classic scripts, for Node.js without a module compile cache (classic-form.mjs).
await writeClassicForm({ outdir, metafile, banner: BANNER, cwd: process.cwd() });
await writeFile(
  join(outdir, "worker-entry.js"),
  `// A \`--workers\` process's entry (scripts/build/bundle-cli.mjs): the bundled worker entry, run as bin/taubridge.js runs the CLI.
import module from "node:module";
const classic = typeof module.enableCompileCache !== "function" && !process.env.NODE_DISABLE_COMPILE_CACHE;
const ran = classic && (await import("../../bin/code-cache.js")).runWithCodeCache(new URL("./", import.meta.url), "worker-entry-module.js");
await (ran || import("./worker-entry-module.js"));
`,
);
