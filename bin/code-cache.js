// Runs the CLI bundle's classic-script form (dist/cli/classic/, written by
// scripts/build/classic-form.mjs) with a V8 code cache, on a Node.js that has no module compile
// cache (`module.enableCompileCache`, Node 22.1+). Why: a start otherwise compiles every function
// it runs again, ~10% of a short τ² run's main-thread instructions on Node 20
// (docs/benchmarks.md, "Node 20's missing compile cache").
//
// Each chunk is a `vm.Script` given the code V8 compiled for it in an earlier run; a chunk run
// without one (first run, or V8 rejected it: another V8 or other flags) has its code cache written
// when the process exits, so the functions compiled lazily during the run are in it. The cache
// lives in NODE_COMPILE_CACHE's folder, else `<os.tmpdir()>/node-compile-cache` (Node's default),
// in a folder named by the bundle's content, the Node.js version and the V8 flags; every file is
// written whole under a temporary name and renamed, so processes running at once (`--workers`,
// several CLIs) never read a partial one. A cache that cannot be read or written only costs time.
// Once a chunk has run, its exports are read as values, not through esbuild's getters (settledExports).
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

/**
 * Runs `entry` of the bundle in `cliFolder` (dist/cli/, a URL) from its classic form with a code
 * cache; resolves when the entry's work is done. Returns `false`, having run nothing, when the
 * classic form is not built: the caller then imports the ES module bundle.
 */
export function runWithCodeCache(cliFolder, entry, env = process.env) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(new URL("classic/manifest.json", cliFolder), "utf8"));
  } catch {
    return false;
  }
  const cache = cacheFolder(manifest.id, env);
  const loader = new ClassicLoader(cliFolder, manifest, cache);
  process.once("exit", () => loader.writeCaches());
  return loader.runEntry(entry);
}

/** The cache's folder for this bundle, Node.js and V8 flags (V8 rejects a code cache made under other flags). */
export function cacheFolder(bundleId, env = process.env) {
  const flags = JSON.stringify([process.version, process.arch, process.execArgv, env.NODE_OPTIONS ?? ""]);
  const key = createHash("sha256").update(bundleId).update("\0").update(flags).digest("hex").slice(0, 24);
  return join(env.NODE_COMPILE_CACHE || join(tmpdir(), "node-compile-cache"), `taubridge-classic-${key}`);
}

/** Loads the classic form's chunks as `require` loads CommonJS modules: each once, its exports shared. */
class ClassicLoader {
  constructor(cliFolder, manifest, cache) {
    this.cliFolder = cliFolder;
    this.manifest = manifest;
    this.cache = cache;
    this.modules = new Map();
    this.externals = new Map();
    this.unwritten = [];
  }

  /** Runs the entry chunk after loading what it imports; resolves with its work. */
  async runEntry(name) {
    const { resolve, importModule } = await import(new URL("classic-host.js", this.cliFolder).href);
    this.resolve = resolve;
    this.importModule = importModule;
    let done;
    this.done = (promise) => {
      done = promise;
    };
    await this.importChunk(`./${name}`);
    await done;
  }

  /** `import()` in a chunk: of a chunk, its external packages first, then the chunk; else Node's own `import()` from dist/cli/. */
  async importChunk(specifier, options) {
    const name = typeof specifier === "string" && specifier.startsWith("./") ? specifier.slice(2) : undefined;
    if (name === undefined || !this.manifest.chunks[name]) return this.importModule(specifier, options);
    for (const external of this.manifest.chunks[name].preload) {
      if (!this.externals.has(external)) this.externals.set(external, namespaceExports(await import(this.resolve(external))));
    }
    return this.load(name);
  }

  /** The exports of chunk `name`, running it first if it has not run. */
  load(name) {
    const known = this.modules.get(name);
    if (known?.failed) throw known.failed.error;
    if (known) return known.exports;
    const module = { exports: {} };
    this.modules.set(name, module);
    const url = new URL(name, this.cliFolder).href;
    const fallback = createRequire(url);
    const require = (specifier) => {
      if (specifier.startsWith("./") && this.manifest.chunks[specifier.slice(2)]) return this.load(specifier.slice(2));
      return this.externals.get(specifier) ?? fallback(specifier);
    };
    const importMeta = { url, resolve: this.resolve };
    try {
      const run = this.compile(name);
      run.call(undefined, module.exports, require, module, importMeta, (specifier, options) => this.importChunk(specifier, options), this.done);
    } catch (error) {
      // As an ES module that threw: importing it again throws the same error.
      module.failed = { error };
      throw error;
    }
    // Chunks loaded from now on read the values; one that imported this chunk while it ran (an import cycle) keeps its getters.
    module.exports = settledExports(module.exports, this.manifest.chunks[name].live);
    return module.exports;
  }

  /** Chunk `name`'s function, compiled with its cached code when there is usable cached code. */
  compile(name) {
    const filename = fileURLToPath(new URL(`classic/${name}`, this.cliFolder));
    const source = readFileSync(filename, "utf8");
    const cacheFile = join(this.cache, `${name}.cache`);
    let cachedData;
    try {
      cachedData = readFileSync(cacheFile);
    } catch {}
    // No `import()` is left in the classic form (classic-form.mjs): no dynamic-import callback.
    const script = new vm.Script(source, { filename, cachedData });
    if (cachedData === undefined || script.cachedDataRejected) this.unwritten.push({ script, cacheFile });
    return script.runInThisContext();
  }

  /** Writes the code caches of the chunks that had none (at exit: with the functions the run compiled). */
  writeCaches() {
    if (this.unwritten.length === 0) return;
    const unwritten = this.unwritten;
    this.unwritten = [];
    try {
      mkdirSync(this.cache, { recursive: true });
    } catch {
      return; // A folder that cannot be made (read-only) only costs the next start its compile time.
    }
    for (const { script, cacheFile } of unwritten) {
      const temporary = `${cacheFile}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
      try {
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, cacheFile);
      } catch {
        try {
          unlinkSync(temporary);
        } catch {}
      }
    }
  }
}

/**
 * A chunk's exports once it has run, with each getter esbuild's CommonJS form made (`() =>
 * from[key]` over `() => x`: two calls and a load V8 sees with every key, on every use of an
 * imported function) replaced by its value — what an ES module's import reads for a binding nothing
 * assigns again. The names in `live` (assigned after their declaration, listed per chunk by
 * scripts/build/classic-form.mjs), and a getter that throws (a binding not initialised yet), keep
 * their getters. A manifest without `live` (an older build) keeps every getter.
 */
export function settledExports(exports, live) {
  if (!Array.isArray(live)) return exports;
  const keep = new Set(live);
  const settled = {};
  for (const key of Object.getOwnPropertyNames(exports)) {
    const descriptor = Object.getOwnPropertyDescriptor(exports, key);
    if (descriptor.get !== undefined && !keep.has(key)) {
      try {
        Object.defineProperty(settled, key, { value: descriptor.get.call(exports), enumerable: descriptor.enumerable });
        continue;
      } catch {}
    }
    Object.defineProperty(settled, key, descriptor);
  }
  return settled;
}

/**
 * An external ES module's namespace as esbuild's CommonJS form of an `import` reads it (`__esModule`:
 * `default` is the default export). A CommonJS package's namespace (bullmq, ioredis) can name
 * `__esModule` itself, as Node's import of it finds the flag among its exports: it is set once here.
 */
function namespaceExports(namespace) {
  const exports = Object.defineProperty({}, "__esModule", { value: true });
  for (const key of Object.keys(namespace)) {
    if (key !== "__esModule") Object.defineProperty(exports, key, { get: () => namespace[key], enumerable: true });
  }
  return exports;
}
