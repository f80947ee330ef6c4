/**
 * The CLI as `bin/taubridge.js` runs it from the build: its bundle (`dist/cli/`, made by
 * `scripts/build/bundle-cli.mjs` in `npm run build`), which must write exactly what the compiled
 * modules write (`TAUBRIDGE_UNBUNDLED=1`), load none of `dist/`'s separate modules of ours, and —
 * for an offline run — none of the packages only other runs need (undici for A2A and the model
 * path, execa for τ³'s shell, zod for worker wire forms and error wording), which are a large share
 * of a short run's start-up. The packages compiled into the bundle (`scripts/build/bundled-packages.json`)
 * are never resolved from `node_modules`, and execa's code, which is among them, is in no chunk an
 * offline run loads. Every module a run resolves is recorded by a module hook.
 *
 * Needs the build (`npm ci` makes it); without `dist/cli/cli.js` the tests skip and say so.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedRequest } from "../src/testing/index.ts";
import { resolveRecorder } from "./support/resolve-recorder.ts";
import { missingTau2Reason, tau2BenchDirectory } from "./support/shared-data.ts";

const root = join(import.meta.dirname, "..");
const bin = join(root, "bin", "taubridge.js");
const bundle = join(root, "dist", "cli", "cli.js");
const built = existsSync(bundle);
if (!built) console.warn("[cli-bundle.test] skipped: dist/cli/cli.js is not built (npm run build; npm ci runs it)");

/** Runs the built CLI with `args` (plus `--out`'s flag and a fresh folder), recording the modules it resolves. */
async function runBuilt(args: string[], outFlag: "--log-dir" | "--save-to", env: Record<string, string> = {}) {
  const directory = mkdtempSync(join(tmpdir(), "taubridge-bundle-"));
  const log = join(directory, "resolved.txt");
  const out = join(directory, outFlag === "--log-dir" ? "logs" : "results.json");
  const result = await execa("node", ["--import", resolveRecorder(directory, log), bin, ...args, outFlag, out, "--quiet"], {
    reject: false,
    // The ES module bundle, whose modules the hook sees: on Node 20 the CLI otherwise runs the
    // bundle's classic-script form with a code cache, which no module hook sees load (test/cli-code-cache.test.ts).
    env: { TAUBRIDGE_CACHE_DIR: join(directory, "cache"), NODE_DISABLE_COMPILE_CACHE: "1", ...env },
  });
  expect(result.stderr).toBe("");
  expect(result.exitCode).toBe(0);
  const resolved = readFileSync(log, "utf8").trim().split("\n");
  const file = outFlag === "--log-dir" ? join(out, readdirSync(out).find((name) => name.endsWith(".json") && !name.endsWith(".meta.json"))!) : out;
  return { resolved, results: readFileSync(file, "utf8") };
}

/** What differs between two runs of the same work: clock readings and random ids. */
const masked = (text: string) =>
  text
    .replace(/"(timestamp|start_time|end_time|startedAt|finishedAt|createdAt|updatedAt)": "[^"]*"/g, '"$1": "…"')
    .replace(/"(duration|durationMs|elapsedMs|elapsed_ms)": [0-9.e-]+/g, '"$1": 0')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>");

const ours = (url: string) => url.startsWith(pathToFileURL(join(root, "dist")).href);
const BUNDLED_PACKAGES = (JSON.parse(readFileSync(join(root, "scripts", "build", "bundled-packages.json"), "utf8")) as { packages: string[] }).packages;
const packageOf = (url: string) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];

/** What an offline run must not load: the lazily needed packages (but `allowed`), from node_modules or (execa) from the bundle's chunks. */
function expectOfflineLoads(resolved: readonly string[], allowed: readonly string[] = []): void {
  const packages = new Set(resolved.map(packageOf).filter((name) => name !== undefined));
  for (const name of ["undici", "execa", "zod", "openai", ...BUNDLED_PACKAGES]) if (!allowed.includes(name)) expect(packages).not.toContain(name);
  const chunks = [...new Set(resolved.filter((url) => url.includes("/dist/cli/")))];
  expect(chunks.filter((url) => readFileSync(new URL(url), "utf8").includes("ExecaError"))).toEqual([]);
}

describe.skipIf(!built)("the bundled CLI (dist/cli/)", () => {
  it("runs τ-bench's library oracle from the bundle, loading no separate module of ours and neither undici, execa nor zod, and writes what the compiled modules write", {
    timeout: 180_000,
  }, async () => {
    const args = ["run", "--agent-strategy", "oracle", "--user-strategy", "scripted"];
    const bundled = await runBuilt(args, "--log-dir");
    const fromDist = bundled.resolved.filter(ours);
    expect(fromDist).toContain(pathToFileURL(bundle).href);
    expect(fromDist.filter((url) => !url.includes("/dist/cli/"))).toEqual([]);
    expectOfflineLoads(bundled.resolved);

    const unbundled = await runBuilt(args, "--log-dir", { TAUBRIDGE_UNBUNDLED: "1" });
    expect(unbundled.resolved).toContain(pathToFileURL(join(root, "dist", "app", "cli.js")).href);
    expect(unbundled.resolved.some((url) => url.includes("/dist/cli/"))).toBe(false);
    expect(masked(bundled.results)).toBe(masked(unbundled.results));
    expect(bundled.results).toContain('"reward": 1.0');
  });

  it.skipIf(!tau2BenchDirectory)("runs a τ² telecom oracle from the bundle without undici, execa or zod, writing what the compiled modules write", { timeout: 180_000 }, async () => {
    if (!tau2BenchDirectory) return console.warn(missingTau2Reason);
    const args = ["tau2", "run", "--domain", "telecom", "--agent", "oracle", "--user", "scripted", "--num-tasks", "5", "--data-dir", tau2BenchDirectory];
    const bundled = await runBuilt(args, "--save-to");
    expectOfflineLoads(bundled.resolved);
    expect(bundled.resolved.filter(ours).filter((url) => !url.includes("/dist/cli/"))).toEqual([]);
    const unbundled = await runBuilt(args, "--save-to", { TAUBRIDGE_UNBUNDLED: "1" });
    // Only the named τ² domain loads, and no τ-bench suite (issue 28 §3: neither is used by this run).
    const loaded = (part: string) => unbundled.resolved.some((url) => url.includes(part));
    expect(loaded("/dist/domains/tau2-telecom/index.js")).toBe(true);
    for (const part of [
      "/dist/domains/tau2-retail/",
      "/dist/domains/tau2-airline/",
      "/dist/domains/tau2-mock/",
      "/dist/domains/tau2-banking-knowledge/",
      "/dist/domains/index.js",
      "/dist/src/suites/tau-bench/suite.js",
    ])
      expect(loaded(part), part).toBe(false);
    expect(masked(bundled.results)).toBe(masked(unbundled.results));
    expect(JSON.parse(bundled.results).simulations).toHaveLength(5);
  });

  it.skipIf(!tau2BenchDirectory)("runs τ² retail tasks with the NL judge from the bundle, its model layer's zod compiled in (none resolved from node_modules)", { timeout: 180_000 }, async () => {
    if (!tau2BenchDirectory) return console.warn(missingTau2Reason);
    // The judge meets every assertion of the task the request is about (task 2 of the first three has some).
    const tasks = JSON.parse(readFileSync(join(tau2BenchDirectory, "retail", "tasks.json"), "utf8")) as Array<{ evaluation_criteria?: { nl_assertions?: string[] | null } | null }>;
    const assertionSets = tasks.map((task) => task.evaluation_criteria?.nl_assertions ?? []).filter((list) => list.length > 0);
    const judge = await startScriptedModelServer({
      responder: (request: ScriptedRequest) => {
        const text = request.messages.map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content ?? ""))).join("\n");
        const assertions = assertionSets.filter((list) => list.every((assertion) => text.includes(assertion))).sort((a, b) => b.length - a.length)[0] ?? [];
        return { content: JSON.stringify({ results: assertions.map((assertion) => ({ expectedOutcome: assertion, reasoning: "met", metExpectation: true })) }) };
      },
    });
    try {
      const args = ["tau2", "run", "--domain", "retail", "--agent", "oracle", "--user", "scripted", "--num-tasks", "3", "--data-dir", tau2BenchDirectory];
      const judged = await runBuilt([...args, "--judge-model", "judge-model", "--judge-provider", "openai-compatible", "--judge-base-url", judge.baseURL], "--save-to");
      expect(judge.requests.length).toBeGreaterThan(0);
      expect(judged.resolved.some((url) => packageOf(url) === "zod")).toBe(false);
      expect(judged.resolved.filter(ours).filter((url) => !url.includes("/dist/cli/"))).toEqual([]);
      expect(JSON.parse(judged.results).simulations.map((simulation: { reward_info: { reward: number } }) => simulation.reward_info.reward)).toEqual([1, 1, 1]);
    } finally {
      await judge.close();
    }
  });

  it.skipIf(!tau2BenchDirectory)(
    "forks `--workers` processes from the bundle's worker entry, which load no separate module of ours either, with the results of one process",
    {
      timeout: 180_000,
    },
    async () => {
      if (!tau2BenchDirectory) return console.warn(missingTau2Reason);
      const args = ["tau2", "run", "--domain", "telecom", "--agent", "oracle", "--user", "scripted", "--num-tasks", "4", "--data-dir", tau2BenchDirectory];
      // The recording hook is in the CLI's execArgv, which its worker processes inherit: their resolutions land in the same log.
      const workers = await runBuilt([...args, "--workers", "2"], "--save-to");
      expect(workers.resolved).toContain(pathToFileURL(join(root, "dist", "cli", "worker-entry.js")).href);
      expect(workers.resolved.filter(ours).filter((url) => !url.includes("/dist/cli/"))).toEqual([]);
      // zod is the worker protocol's: its messages are checked at both ends of the pipe.
      expectOfflineLoads(workers.resolved, ["zod"]);
      const single = await runBuilt(args, "--save-to");
      expect(masked(workers.results)).toBe(masked(single.results));
      expect(JSON.parse(workers.results).simulations).toHaveLength(4);
    },
  );
});
