/**
 * The published package, as a user gets it: `npm pack` (which runs `prepare`, i.e. the build),
 * the tarball installed into a fresh temporary project, and used from plain JavaScript: the CLI
 * (`--version`, `run` on the bundled library domain), `import "taubridge"` from ESM and
 * `require("taubridge")` from CommonJS running a bundled-domain benchmark, and `taubridge/testing`
 * starting the scripted model server.
 *
 * Offline: the project's dependencies are installed with `npm ci --offline` from the npm cache
 * that the repository's own `npm ci` filled, pinned to our package-lock.json's versions; when the
 * cache lacks a package the tests skip and print why. Slow (a full build): one file, run once.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
let project = "";
let tarballFiles: string[] = [];
let skipReason: string | undefined;

/** A lockfile for the consumer project: the tarball plus our own locked runtime dependencies. */
function consumerLock(tarball: string): object {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as { packages: Record<string, Record<string, unknown>> };
  const own = lock.packages[""];
  const packages: Record<string, unknown> = {
    "": { name: "consumer", version: "1.0.0", dependencies: { taubridge: `file:${tarball}` } },
    "node_modules/taubridge": { version: own.version, resolved: `file:${tarball}`, dependencies: own.dependencies, bin: own.bin, engines: own.engines },
  };
  for (const [path, entry] of Object.entries(lock.packages)) if (path !== "" && !entry.dev) packages[path] = entry;
  return { name: "consumer", version: "1.0.0", lockfileVersion: 3, requires: true, packages };
}

beforeAll(async () => {
  const packDirectory = mkdtempSync(join(tmpdir(), "taubridge-pack-"));
  const packed = await execa("npm", ["pack", "--json", "--pack-destination", packDirectory], { cwd: root, reject: false });
  if (packed.exitCode !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarballFiles = info.files.map((file) => file.path);
  const tarball = join(packDirectory, readdirSync(packDirectory).find((name) => name.endsWith(".tgz"))!);

  project = mkdtempSync(join(tmpdir(), "taubridge-consumer-"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true, dependencies: { taubridge: `file:${tarball}` } }));
  writeFileSync(join(project, "package-lock.json"), JSON.stringify(consumerLock(tarball)));
  const installed = await execa("npm", ["ci", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: project, reject: false });
  if (installed.exitCode !== 0) {
    const missing = /ENOTCACHED|only-if-cached|ETARGET/.test(installed.stderr);
    if (!missing) throw new Error(`npm ci of the packed tarball failed:\n${installed.stderr}`);
    skipReason = `the npm cache lacks a dependency of the packed package (npm ci --offline: ${installed.stderr.split("\n").find((line) => /ENOTCACHED|ETARGET|request to/.test(line)) ?? "not cached"})`;
    console.warn(`[package.test] skipped: ${skipReason}`);
  }
}, 300_000);

/** Runs a command in the consumer project (no network, its own cache dir); npm's own config warnings are dropped from stderr. */
async function inProject(command: string, args: string[]) {
  const result = await execa(command, args, { cwd: project, reject: false, env: { TAUBRIDGE_CACHE_DIR: join(project, ".cache") } });
  const stderr = String(result.stderr).split("\n").filter((line) => !line.startsWith("npm warn")).join("\n");
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr };
}

describe("the packed package in a fresh project (plain JavaScript)", () => {
  it("publishes the build and no tests, fixtures or test helpers", () => {
    expect(tarballFiles).toContain("dist/app/index.js");
    expect(tarballFiles).toContain("dist/app/index.d.ts");
    expect(tarballFiles).toContain("dist/src/testing/index.js");
    expect(tarballFiles).toContain("dist/domains/library/data/tasks_test.json");
    expect(tarballFiles).toContain("dist/bridge/python/taubridge_bridge/__main__.py");
    expect(tarballFiles).toContain("dist/tasks/manifests/tau-bench.json");
    const leaked = tarballFiles.filter((path) => /\.test\.|(^|\/)(test|tests|fixtures|test-fixtures|example)\/|adapter-suite|test-support|\.ts$(?<!\.d\.ts)/.test(path));
    expect(leaked).toEqual([]);
  });

  it("runs the CLI: --version and the bundled domain", async (context) => {
    if (skipReason) context.skip(skipReason);
    const version = await inProject("npx", ["--offline", "taubridge", "--version"]);
    expect(version.stdout.trim()).toBe(manifest.version);
    const run = await inProject("npx", ["--offline", "taubridge", "run", "--quiet", "--log-dir", join(project, "results"), "--format", "json"]);
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout).passK).toEqual({ "1": 1 });
    const bad = await inProject("npx", ["--offline", "taubridge", "run", "--num-trials", "0"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.trim()).toBe("taubridge: --num-trials: must be ≥ 1, got 0");
  });

  it("runs a bundled-domain benchmark through the API from ESM, and starts the scripted server from taubridge/testing", async (context) => {
    if (skipReason) context.skip(skipReason);
    writeFileSync(
      join(project, "api.mjs"),
      `import { runBenchmark, loadDomain, passHatK, formatReport } from "taubridge";
import { startScriptedModelServer } from "taubridge/testing";
const tasks = loadDomain("library").tasks().length;
let seen = 0;
const result = await runBenchmark({ env: "library", agentStrategy: "oracle", userStrategy: "scripted", numTrials: 2, logDir: "results-api" }, { onEpisode: () => seen++ });
let error = null;
try { await runBenchmark({ numTrials: 0 }); } catch (caught) { error = caught.name + ": " + caught.message; }
const server = await startScriptedModelServer({ steps: [{ content: "hello" }] });
const reply = await fetch(server.baseURL + "/chat/completions", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }) }).then((response) => response.json());
await server.close();
const table = formatReport(result);
console.log(JSON.stringify({ table, tasks, seen, episodes: result.episodes.length, passK: result.metrics.passK, recomputed: passHatK(result.episodes).passK, avgReward: result.metrics.avgReward, error, reply: reply.choices[0].message.content }));
`,
    );
    const run = await inProject("node", ["api.mjs"]);
    expect(run.stderr).toBe("");
    const output = JSON.parse(run.stdout);
    expect(output.tasks).toBeGreaterThan(0);
    expect(output.episodes).toBe(2 * output.tasks);
    expect(output.seen).toBe(2 * output.tasks);
    expect(output.passK).toEqual({ "1": 1, "2": 1 });
    expect(output.recomputed).toEqual({ "1": 1, "2": 1 });
    expect(output.avgReward).toBe(1);
    expect(output.error).toBe("ConfigError: --num-trials: must be ≥ 1, got 0");
    expect(output.reply).toBe("hello");
    expect(output.table).toMatch(/Pass\^1 .*Pass\^2/);
  });

  it("loads from CommonJS with require()", async (context) => {
    if (skipReason) context.skip(skipReason);
    writeFileSync(
      join(project, "api.cjs"),
      `const { runBenchmark } = require("taubridge");
const { startScriptedModelServer } = require("taubridge/testing");
runBenchmark({ numTrials: 1, logDir: "results-cjs" }).then((result) =>
  console.log(JSON.stringify({ episodes: result.episodes.length, passK: result.metrics.passK, server: typeof startScriptedModelServer })));
`,
    );
    const run = await inProject("node", ["api.cjs"]);
    expect(run.exitCode).toBe(0);
    const output = JSON.parse(run.stdout);
    expect(output.passK).toEqual({ "1": 1 });
    expect(output.episodes).toBeGreaterThan(0);
    expect(output.server).toBe("function");
  });
});
