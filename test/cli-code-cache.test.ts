/**
 * The built CLI's code cache on a Node.js without a module compile cache (Node 20): `bin/taubridge.js`
 * runs the bundle's classic-script form (dist/cli/classic/, `bin/code-cache.js`) with V8 code caches
 * in NODE_COMPILE_CACHE's folder. The run must write exactly what the ES module bundle writes
 * (NODE_DISABLE_COMPILE_CACHE=1), write its caches the first time, reuse them untouched after,
 * rewrite one V8 rejects, run unchanged when the folder cannot be written, and load the external
 * packages from node_modules as the ES module bundle does (none of those an offline run never needs).
 * On Node 22.1+ the CLI uses Node's own compile cache instead, and these tests skip.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import module from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { resolveRecorder } from "./support/resolve-recorder.ts";
import { missingTau2Reason, tau2BenchDirectory } from "./support/shared-data.ts";

const root = join(import.meta.dirname, "..");
const bin = join(root, "bin", "taubridge.js");
const classic = join(root, "dist", "cli", "classic", "manifest.json");
const built = statSync(classic, { throwIfNoEntry: false }) !== undefined;
const moduleCompileCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function";
if (!built) console.warn("[cli-code-cache.test] skipped: dist/cli/classic/ is not built (npm run build)");
if (moduleCompileCache) console.warn("[cli-code-cache.test] skipped: this Node.js has module.enableCompileCache, which the CLI uses instead");

/**
 * One recorder for every run: its path is in the runs' `execArgv`, which keys the cache (V8 flags),
 * so runs that should share a cache must start with the same one. The runs here go one at a time.
 */
const recorderDirectory = mkdtempSync(join(tmpdir(), "taubridge-code-cache-hook-"));
const resolvedLog = join(recorderDirectory, "resolved.txt");
const recorder = resolveRecorder(recorderDirectory, resolvedLog);

/** Runs τ-bench's library oracle through the built CLI with `env`; returns its results file's text and the URLs it resolved. */
async function oracleRun(env: Record<string, string>, extra: string[] = []) {
  const directory = mkdtempSync(join(tmpdir(), "taubridge-code-cache-"));
  const log = resolvedLog;
  writeFileSync(log, "");
  const out = join(directory, "logs");
  const result = await execa("node", ["--import", recorder, bin, "run", "--agent-strategy", "oracle", "--user-strategy", "scripted", ...extra, "--log-dir", out, "--quiet"], {
    reject: false,
    env: { TAUBRIDGE_CACHE_DIR: join(directory, "data-cache"), ...env },
  });
  expect(result.stderr).toBe("");
  expect(result.exitCode).toBe(0);
  const file = join(out, readdirSync(out).find((name) => name.endsWith(".json") && !name.endsWith(".meta.json"))!);
  return { results: readFileSync(file, "utf8"), resolved: readFileSync(log, "utf8").trim().split("\n") };
}

/** What differs between two runs of the same work: clock readings and random ids. */
const masked = (text: string) =>
  text
    .replace(/"(timestamp|start_time|end_time|startedAt|finishedAt|createdAt|updatedAt)": "[^"]*"/g, '"$1": "…"')
    .replace(/"(duration|durationMs|elapsedMs|elapsed_ms)": [0-9.e-]+/g, '"$1": 0')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>");

/** The code cache files under `folder` (one subfolder per bundle, Node.js and flags), by name, with their bytes and modification times. */
function cacheFiles(folder: string): Map<string, { bytes: Buffer; modified: number }> {
  const files = new Map<string, { bytes: Buffer; modified: number }>();
  for (const sub of readdirSync(folder)) {
    for (const name of readdirSync(join(folder, sub))) {
      const path = join(folder, sub, name);
      files.set(`${sub}/${name}`, { bytes: readFileSync(path), modified: statSync(path).mtimeMs });
    }
  }
  return files;
}

describe.skipIf(!built || moduleCompileCache)("the CLI's code cache on Node.js without a module compile cache", () => {
  it("writes the cache on a first run, reuses it untouched on the next, and writes what the ES module bundle writes", { timeout: 180_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), "taubridge-code-cache-folder-"));
    const first = await oracleRun({ NODE_COMPILE_CACHE: folder });
    const written = cacheFiles(folder);
    expect([...written.keys()].some((name) => name.endsWith("/cli.js.cache"))).toBe(true);
    expect([...written.keys()].every((name) => name.endsWith(".cache"))).toBe(true); // no temporary file left
    // The classic form loads no chunk as an ES module, and from node_modules none of what an offline run never needs.
    expect(first.resolved.filter((url) => url.includes("/dist/cli/"))).toEqual([pathToFileURL(join(root, "dist", "cli", "classic-host.js")).href]);
    for (const name of ["undici", "execa", "zod", "openai"])
      expect(
        first.resolved.some((url) => url.includes(`/node_modules/${name}/`)),
        name,
      ).toBe(false);

    const second = await oracleRun({ NODE_COMPILE_CACHE: folder });
    expect(cacheFiles(folder)).toEqual(written);

    const esm = await oracleRun({ NODE_COMPILE_CACHE: folder, NODE_DISABLE_COMPILE_CACHE: "1" });
    expect(esm.resolved).toContain(pathToFileURL(join(root, "dist", "cli", "cli.js")).href);
    expect(masked(first.results)).toBe(masked(esm.results));
    expect(masked(second.results)).toBe(masked(esm.results));
    expect(first.results).toContain('"reward": 1.0');
  });

  it("rewrites a cache file V8 rejects", { timeout: 180_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), "taubridge-code-cache-folder-"));
    await oracleRun({ NODE_COMPILE_CACHE: folder });
    const entry = [...cacheFiles(folder).keys()].find((name) => name.endsWith("/cli.js.cache"))!;
    const good = readFileSync(join(folder, entry));
    // Another chunk's cache: well-formed, but made for another source, so V8 rejects it.
    const other = [...cacheFiles(folder).entries()].find(([name, file]) => !name.endsWith("/cli.js.cache") && file.bytes.length !== good.length)!;
    writeFileSync(join(folder, entry), other[1].bytes);
    await oracleRun({ NODE_COMPILE_CACHE: folder });
    const rewritten = readFileSync(join(folder, entry));
    expect(rewritten.equals(other[1].bytes)).toBe(false);
    expect(rewritten.length).toBeGreaterThan(0);
  });

  it("runs unchanged when the cache folder cannot be made, and not at all with NODE_DISABLE_COMPILE_CACHE=1", { timeout: 180_000 }, async () => {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-code-cache-folder-"));
    const file = join(directory, "a-file");
    writeFileSync(file, "not a folder");
    const unwritable = await oracleRun({ NODE_COMPILE_CACHE: join(file, "cache") });
    const off = await oracleRun({ NODE_COMPILE_CACHE: join(directory, "off"), NODE_DISABLE_COMPILE_CACHE: "1" });
    expect(readdirSync(directory)).toEqual(["a-file"]);
    expect(masked(unwritable.results)).toBe(masked(off.results));
  });

  it("loads a CommonJS package's namespace (bullmq, ioredis: `__esModule` among its names) as the ES module bundle does", { timeout: 60_000 }, async () => {
    // `queue status` imports the queue's chunk, and with it bullmq and ioredis, before it connects:
    // a port nothing listens on gives the queue's own one-line refusal (exit 2) on both forms.
    const folder = mkdtempSync(join(tmpdir(), "taubridge-code-cache-folder-"));
    const status = (env: Record<string, string>) => execa("node", [bin, "queue", "status", "a-run", "--queue", "redis://127.0.0.1:1"], { reject: false, env: { NODE_COMPILE_CACHE: folder, ...env } });
    const classicForm = await status({});
    const esm = await status({ NODE_DISABLE_COMPILE_CACHE: "1" });
    expect(esm.exitCode).toBe(2);
    expect(esm.stderr).toContain("cannot reach Redis at redis://127.0.0.1:1");
    expect([classicForm.exitCode, classicForm.stderr]).toEqual([esm.exitCode, esm.stderr]);
  });

  it.skipIf(!tau2BenchDirectory)("shares one cache folder between CLIs and `--workers` processes running at once", { timeout: 180_000 }, async () => {
    if (!tau2BenchDirectory) return console.warn(missingTau2Reason);
    const data = tau2BenchDirectory;
    const folder = mkdtempSync(join(tmpdir(), "taubridge-code-cache-folder-"));
    const directory = mkdtempSync(join(tmpdir(), "taubridge-code-cache-"));
    const run = (name: string, env: Record<string, string>, workers: string[] = []) =>
      execa(
        "node",
        [bin, "tau2", "run", "--domain", "telecom", "--agent", "oracle", "--user", "scripted", "--num-tasks", "4", "--data-dir", data, ...workers, "--save-to", join(directory, name), "--quiet"],
        {
          reject: false,
          env: { TAUBRIDGE_CACHE_DIR: join(directory, `${name}-data`), ...env },
        },
      );
    const together = await Promise.all([
      run("a.json", { NODE_COMPILE_CACHE: folder }),
      run("b.json", { NODE_COMPILE_CACHE: folder }, ["--workers", "2"]),
      run("c.json", { NODE_COMPILE_CACHE: folder }),
    ]);
    for (const result of together) expect([result.exitCode, result.stderr]).toEqual([0, ""]);
    const written = cacheFiles(folder);
    expect([...written.keys()].every((name) => name.endsWith(".cache"))).toBe(true);
    const again = await run("d.json", { NODE_COMPILE_CACHE: folder });
    expect([again.exitCode, again.stderr]).toEqual([0, ""]);
    expect(cacheFiles(folder)).toEqual(written);
    const esm = await run("e.json", { NODE_DISABLE_COMPILE_CACHE: "1" });
    expect(esm.exitCode).toBe(0);
    const results = (name: string) => masked(readFileSync(join(directory, name), "utf8"));
    for (const name of ["a.json", "b.json", "c.json", "d.json"]) expect(results(name), name).toBe(results("e.json"));
  });
});

/**
 * The classic form's exports: esbuild's CommonJS form reads each through two getters, which the
 * loader replaces by values once a chunk has run — except bindings the chunk assigns again, which
 * the build lists per chunk (`live`) and which must stay live as an ES module's would.
 */
describe("the classic form's exports read as values", () => {
  it("lists as live exactly the exported bindings assigned after their declaration", async () => {
    const { liveExports } = await import(pathToFileURL(join(root, "scripts", "build", "classic-form.mjs")).href);
    const text = [
      "var a = 1; var b; let c = 2; function d() {} var e = class {}; var f = 0; var g; var h; var i2; var j = 3;",
      "function setB(v) { b = v; } c += 1; f++; [g] = [1]; for (h of []) ; ({ x: i2 } = {}); function k() { let j = 0; return j; }",
      "export { a, b as bee, c, d, e, f, g, h, i2 as eye, j };",
    ].join("\n");
    expect(liveExports(text, "chunk.js")).toEqual(["bee", "c", "eye", "f", "g", "h"]);
  });

  it("replaces the getters of bindings nothing assigns again by their values, and keeps the rest live", async () => {
    const { settledExports } = await import(pathToFileURL(join(root, "bin", "code-cache.js")).href);
    let counter = 1;
    const notYet = () => {
      throw new ReferenceError("Cannot access 'late' before initialization");
    };
    const exports = Object.defineProperties(
      {},
      {
        __esModule: { value: true },
        fixed: { get: () => "fixed", enumerable: true },
        counter: { get: () => counter, enumerable: true },
        late: { get: notYet, enumerable: true },
      },
    );
    const settled = settledExports(exports, ["counter"]);
    expect(Object.getOwnPropertyDescriptor(settled, "fixed")).toMatchObject({ value: "fixed", enumerable: true, writable: false });
    expect(Object.getOwnPropertyDescriptor(settled, "__esModule")).toMatchObject({ value: true, enumerable: false });
    counter = 2;
    expect(settled.counter).toBe(2);
    expect(Object.getOwnPropertyDescriptor(settled, "late")?.get).toBe(notYet);
    expect(Object.keys(settled)).toEqual(["fixed", "counter", "late"]);
    // A manifest from a build before `live` existed: every getter kept, the same object.
    expect(settledExports(exports, undefined)).toBe(exports);
  });

  it.skipIf(!built)("has the build list each chunk's live exports", () => {
    const manifest = JSON.parse(readFileSync(classic, "utf8")) as { chunks: Record<string, { live?: unknown }> };
    const chunks = Object.values(manifest.chunks);
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) expect(Array.isArray(chunk.live)).toBe(true);
  });
});
