/**
 * The published package, as a user gets it: `npm pack` (which runs `prepare`, i.e. the build),
 * run in a temporary copy of the repository so that the build never replaces the checkout's own
 * `dist/` while other test files (in parallel, or another Node version's run) use it; the tarball installed into a fresh temporary project, and used from plain JavaScript: the CLI
 * (`--version`, `run` on the bundled library domain), `import "taubridge"` from ESM and
 * `require("taubridge")` from CommonJS running a bundled-domain benchmark, and `taubridge/testing`
 * starting the scripted model server. The project is CommonJS (its package.json has no `"type"`,
 * like `npm init -y`'s), so it also checks the agent modules a newcomer writes there: TypeScript,
 * `.mjs` and CommonJS function agents, a TypeScript AI SDK agent, and the one-line advice when ES-module
 * syntax cannot work as CommonJS.
 *
 * Offline: the project's dependencies are installed with `npm ci --offline` from the npm cache
 * that the repository's own `npm ci` filled, pinned to our package-lock.json's versions (plus the AI
 * SDK packages a framework agent imports, from our dev dependencies); when the cache lacks a package
 * the tests skip and print why. Slow (a full build): one file, run once.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { startScriptedModelServer } from "../src/testing/index.ts";
import { missingTau2Reason, tau2BenchDirectory } from "./support/shared-data.ts";

const root = join(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
let project = "";
let tarballFiles: string[] = [];
let skipReason: string | undefined;

/** The framework a user's agent imports besides taubridge (the AI SDK: few packages), taken from our dev dependencies. */
const FRAMEWORK_PACKAGES = ["ai", "@ai-sdk/openai-compatible"];

type LockPackages = Record<string, Record<string, unknown>>;

/**
 * A lockfile for the consumer project: the tarball, our own locked runtime dependencies, and the
 * framework packages with everything they depend on, at our locked versions.
 */
function consumerLock(tarball: string): { dependencies: Record<string, string>; lock: object } {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as { packages: LockPackages };
  const own = lock.packages[""];
  const dependencies: Record<string, string> = { taubridge: `file:${tarball}` };
  const packages: LockPackages = {
    "node_modules/taubridge": { version: own.version, resolved: `file:${tarball}`, dependencies: own.dependencies, bin: own.bin, engines: own.engines },
  };
  for (const [path, entry] of Object.entries(lock.packages)) if (path !== "" && !entry.dev) packages[path] = entry;
  const pending = FRAMEWORK_PACKAGES.map((name) => `node_modules/${name}`);
  for (const name of FRAMEWORK_PACKAGES) dependencies[name] = String(lock.packages[`node_modules/${name}`].version);
  const added = new Set<string>();
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    if (added.has(path) || (packages[path] && !lock.packages[path].dev)) continue;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = lock.packages[path];
    packages[path] = entry;
    added.add(path);
    const needs = { ...(entry.dependencies as object), ...(entry.optionalDependencies as object), ...(entry.peerDependencies as object) };
    for (const name of Object.keys(needs)) {
      const found = lockedPath(lock.packages, path, name);
      if (found) pending.push(found);
    }
  }
  const manifest = { name: "consumer", version: "1.0.0", dependencies };
  return { dependencies, lock: { name: "consumer", version: "1.0.0", lockfileVersion: 3, requires: true, packages: { "": manifest, ...packages } } };
}

/** Where Node would find `name` from the package at `path`: its own node_modules, then each enclosing one. */
function lockedPath(packages: LockPackages, path: string, name: string): string | undefined {
  for (let at = path; ; at = at.slice(0, at.lastIndexOf("/node_modules/"))) {
    if (packages[`${at}/node_modules/${name}`]) return `${at}/node_modules/${name}`;
    if (!at.includes("/node_modules/")) break;
  }
  return packages[`node_modules/${name}`] ? `node_modules/${name}` : undefined;
}

/**
 * A copy of the repository's sources (no `.git`, `dist/`, run outputs or `node_modules/`, which is linked), for
 * `npm pack` to build in: the build starts by removing `dist/`, which must not happen under the
 * tests that run the checkout's own build at the same time.
 */
function sourceCopy(): string {
  const copy = join(mkdtempSync(join(tmpdir(), "taubridge-pack-source-")), "taubridge");
  const skipped = new Set([".git", "dist", "node_modules", "results", "simulations", ".taubridge-cache"]);
  cpSync(root, copy, { recursive: true, filter: (source) => !skipped.has(relative(root, source).split(sep)[0]) });
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"), "dir");
  return copy;
}

beforeAll(async () => {
  const packDirectory = mkdtempSync(join(tmpdir(), "taubridge-pack-"));
  const packed = await execa("npm", ["pack", "--json", "--pack-destination", packDirectory], { cwd: sourceCopy(), reject: false });
  if (packed.exitCode !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarballFiles = info.files.map((file) => file.path);
  const tarball = join(packDirectory, readdirSync(packDirectory).find((name) => name.endsWith(".tgz"))!);

  project = mkdtempSync(join(tmpdir(), "taubridge-consumer-"));
  const { dependencies, lock } = consumerLock(tarball);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true, dependencies }));
  writeFileSync(join(project, "package-lock.json"), JSON.stringify(lock));
  const installed = await execa("npm", ["ci", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: project, reject: false });
  if (installed.exitCode !== 0) {
    const missing = /ENOTCACHED|only-if-cached|ETARGET/.test(installed.stderr);
    if (!missing) throw new Error(`npm ci of the packed tarball failed:\n${installed.stderr}`);
    skipReason = `the npm cache lacks a dependency of the packed package (npm ci --offline: ${installed.stderr.split("\n").find((line) => /ENOTCACHED|ETARGET|request to/.test(line)) ?? "not cached"})`;
    console.warn(`[package.test] skipped: ${skipReason}`);
  }
}, 900_000); // npm pack builds (tsc, the CLI bundle) and npm ci installs: minutes on a loaded machine

/** Runs a command in the consumer project (no network, its own cache dir); npm's own config warnings are dropped from stderr. */
async function inProject(command: string, args: string[]) {
  const result = await execa(command, args, { cwd: project, reject: false, env: { TAUBRIDGE_CACHE_DIR: join(project, ".cache") } });
  const stderr = String(result.stderr)
    .split("\n")
    .filter((line) => !line.startsWith("npm warn"))
    .join("\n");
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
    expect(tarballFiles).toContain("dist/tasks/manifests/tau2-bench.json");
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
    expect(bad.stderr.trim()).toBe("taubridge: --num-trials: must be between 1 and 10000, got 0");
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
    expect(output.error).toBe("ConfigError: --num-trials: must be between 1 and 10000, got 0");
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

/** A typed function agent (`--agent-strategy module`) for library task 2: renew every active loan of the member the user names. */
const TYPED_FUNCTION_AGENT = `import type { FunctionAgentReply, FunctionAgentRequest } from "taubridge";

interface Loan { loan_id: string; status: string }
const EMAIL = /[\\w.+-]+@[\\w-]+(\\.[\\w-]+)+/;

export async function respond({ messages }: FunctionAgentRequest): Promise<FunctionAgentReply> {
  const results: string[] = messages.filter((message) => message.role === "tool").map((message) => String(message.content));
  if (results.length === 0) {
    const email = EMAIL.exec(String(messages.find((message) => message.role === "user")?.content))?.[0];
    return email ? { toolCalls: [{ name: "find_member_id_by_email", arguments: { email } }] } : { content: "What is the e-mail on your account?" };
  }
  if (results.length === 1) return { toolCalls: [{ name: "get_member_details", arguments: { member_id: results[0] } }] };
  const loans = (JSON.parse(results[1]) as { loans: string[] }).loans;
  if (results.length === 2) return { toolCalls: loans.map((loan_id) => ({ name: "get_loan_details", arguments: { loan_id } })) };
  if (results.length === 2 + loans.length) {
    const active = results.slice(2).map((text) => JSON.parse(text) as Loan).filter((loan) => loan.status === "active");
    return { toolCalls: active.map((loan) => ({ name: "renew_loan", arguments: { loan_id: loan.loan_id } })) };
  }
  return { content: "Renewed: " + results.slice(2 + loans.length).join(" / ") };
}
`;

/** The scripted agent model for library task 2 through a framework agent (the ground-truth calls, then the required output). */
const LIBRARY_TASK_2_SCRIPT = [
  { tool_calls: [{ name: "find_member_id_by_email", arguments: { email: "ava.lindqvist@example.com" } }] },
  { tool_calls: [{ name: "get_member_details", arguments: { member_id: "ava_lindqvist_4102" } }] },
  { tool_calls: ["L2001", "L2002"].map((loan_id) => ({ name: "get_loan_details", arguments: { loan_id } })) },
  { tool_calls: ["L2001", "L2002"].map((loan_id) => ({ name: "renew_loan", arguments: { loan_id } })) },
  { content: "L2001 is renewed until 2025-03-28; L2002 cannot be renewed while another patron holds it." },
];

describe('agent modules in the CommonJS project (package.json without "type", like npm init -y)', () => {
  /** `taubridge run` on library task 2 with the given agent module; the results-file reward and the steps' origins. */
  async function runAgent(strategy: string, module: string, ...extra: string[]) {
    const logDir = mkdtempSync(join(project, "results-agent-"));
    const run = await inProject("npx", [
      "--offline",
      "taubridge",
      "run",
      "--agent-strategy",
      strategy,
      "--agent-module",
      module,
      "--task-ids",
      "2",
      "--quiet",
      "--format",
      "json",
      "--log-dir",
      logDir,
      ...extra,
    ]);
    if (run.exitCode !== 0) return { ...run, reward: undefined, origins: [] };
    const results = JSON.parse(readFileSync(join(logDir, readdirSync(logDir).find((name) => name.endsWith(".json"))!), "utf8")) as Array<{
      reward: number;
      taubridge: { steps: Array<{ origin: string }> };
    }>;
    return { ...run, reward: results[0].reward, origins: [...new Set(results[0].taubridge.steps.map((step) => step.origin))] };
  }

  it("runs function agents written as .ts, .mjs and CommonJS .js, and names the fix for ES-module-only syntax in a CommonJS .ts", async (context) => {
    if (skipReason) context.skip(skipReason);
    writeFileSync(join(project, "agent.ts"), TYPED_FUNCTION_AGENT);
    writeFileSync(join(project, "agent.mjs"), readFileSync(join(root, "test/fixtures/function-agent/renewal-agent.mjs"), "utf8"));
    const esmSource = readFileSync(join(root, "test/fixtures/function-agent/renewal-agent.mjs"), "utf8");
    writeFileSync(join(project, "agent-commonjs.js"), `${esmSource.replace("export async function respond", "async function respond")}\nmodule.exports = { respond };\n`);
    writeFileSync(join(project, "agent-await.ts"), `${TYPED_FUNCTION_AGENT}\nawait Promise.resolve();\n`);
    for (const module of ["./agent.ts", "./agent.mjs", "./agent-commonjs.js"]) {
      const run = await runAgent("module", module);
      expect({ module, exitCode: run.exitCode, stderr: run.stderr, reward: run.reward }).toEqual({ module, exitCode: 0, stderr: "", reward: 1 });
    }
    const awaiting = await runAgent("module", "./agent-await.ts");
    expect(awaiting.exitCode).toBe(2);
    expect(awaiting.stderr.trim().split("\n")).toHaveLength(1);
    expect(awaiting.stderr).toContain(`cannot load the agent module ${join(project, "agent-await.ts")}:`);
    expect(awaiting.stderr).toContain(
      `(agent-await.ts is loaded as CommonJS: ${join(project, "package.json")} has no "type": "module"; rename the file to agent-await.mts or add "type": "module" to the project's package.json)`,
    );
  }, 300_000);

  it("runs a TypeScript function agent on τ² with the built CLI (tsx is registered for it, as on τ-bench)", async (context) => {
    if (skipReason) context.skip(skipReason);
    if (!tau2BenchDirectory) context.skip(missingTau2Reason);
    writeFileSync(join(project, "tau2-agent.ts"), TYPED_FUNCTION_AGENT);
    const saveTo = join(mkdtempSync(join(project, "results-tau2-")), "results.json");
    const args = ["--domain", "mock", "--agent", "module", "--agent-module", "./tau2-agent.ts", "--user", "scripted", "--task-ids", "create_task_1", "--quiet"];
    const run = await inProject("npx", ["--offline", "taubridge", "tau2", "run", ...args, "--data-dir", tau2BenchDirectory as string, "--save-to", saveTo]);
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/│ module \(gpt-4\.1-2025-04-14\) on mock │/);
    const stored = JSON.parse(readFileSync(saveTo, "utf8")) as { simulations: Array<{ task_id: string; messages: Array<{ role: string; content: string | null }> }> };
    expect(stored.simulations.map((simulation) => simulation.task_id)).toEqual(["create_task_1"]);
    expect(stored.simulations[0].messages.some((message) => message.role === "assistant" && message.content === "What is the e-mail on your account?")).toBe(true);
  }, 300_000);

  it("runs an unmodified TypeScript AI SDK agent through the bridge, and in decision-only mode", async (context) => {
    if (skipReason) context.skip(skipReason);
    writeFileSync(join(project, "library-agent.ts"), readFileSync(join(root, "adapters/vercel-ai/example/library-agent.ts"), "utf8"));
    const server = await startScriptedModelServer({ scripts: { "agent-model": [...LIBRARY_TASK_2_SCRIPT, ...LIBRARY_TASK_2_SCRIPT] } });
    try {
      const model = ["--model", "agent-model", "--base-url", server.baseURL];
      const bridged = await runAgent("vercel-ai", "./library-agent.ts", ...model);
      expect({ exitCode: bridged.exitCode, stderr: bridged.stderr, reward: bridged.reward, origins: bridged.origins }).toEqual({ exitCode: 0, stderr: "", reward: 1, origins: ["bridge", "agent"] });
      const decisionOnly = await runAgent("vercel-ai", "./library-agent.ts", ...model, "--agent-option", "bridgeMode=decision-only");
      expect({ exitCode: decisionOnly.exitCode, stderr: decisionOnly.stderr, reward: decisionOnly.reward, origins: decisionOnly.origins }).toEqual({
        exitCode: 0,
        stderr: "",
        reward: 1,
        origins: ["harness", "agent"],
      });
      server.assertAllConsumed();
    } finally {
      await server.close();
    }
  }, 300_000);
});
