// Bundles the built CLI (dist/app/cli.js and the modules it imports from dist/) into dist/cli/,
// which bin/taubridge.js runs when it is there. Why: a τ² oracle run otherwise resolves, reads and
// compiles about a thousand module files of ours before its first simulation, a large share of a
// short run's time (docs/benchmarks.md, "original-oracle"). The bundle is the same compiled code:
//
// - npm packages stay external (each keeps its own files, `package.json` and `require` semantics);
// - dynamic `import()`s stay lazy, as chunks (`splitting`), so an offline run still loads neither
//   the model SDKs nor the framework adapters;
// - every `import.meta.url` in a bundled module is rewritten to that module's own location in
//   dist/ (relative to the chunk, so the package can be moved), so the files a module finds beside
//   itself (task manifests, the bundled domain's data, the Python bridge, worker entry points,
//   `createRequire`) are the same as without the bundle.
//
// The library (`import "taubridge"`) and the worker entry points are not bundled: they load dist/
// as compiled. Plain JavaScript: it runs in `prepare` (npm ci, npm pack), after `tsc`.
import { readFile, rm } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const dist = join(root, "dist");
const outdir = join(dist, "cli");
await rm(outdir, { recursive: true, force: true });

/** `import.meta.url` of the module at `path`, as an expression valid in any chunk of the bundle. */
const metaUrlOf = (path) => `new URL(${JSON.stringify(relative(outdir, path).split(sep).join("/"))}, import.meta.url).href`;

await build({
  entryPoints: { cli: join(dist, "app", "cli.js") },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  outdir,
  // Chunks beside the entry: the rewritten `import.meta.url`s are relative to the folder every output file is in.
  chunkNames: "[name]-[hash]",
  legalComments: "none",
  logLevel: "warning",
  plugins: [
    {
      name: "module-own-url",
      setup(builder) {
        builder.onLoad({ filter: /\.js$/ }, async ({ path }) => {
          const text = await readFile(path, "utf8");
          return { contents: text.includes("import.meta.url") ? text.replaceAll("import.meta.url", metaUrlOf(path)) : text, loader: "js" };
        });
      },
    },
  ],
});
