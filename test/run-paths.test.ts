/**
 * Issue 29: every path a run is given is checked before the first episode. A path flag that cannot
 * be used is refused in one line naming the flag (exit 2), like `--log-dir`: the response cache
 * (`--cache-dir`, also the embeddings' cache), `--price-file`, the prompt templates, the few-shot
 * file, the agent module and the other agent files, on both suites. The derived cache, only a
 * speed-up, costs one warning line when it cannot be used; a cache that fails in the middle of a
 * run says so once instead of staying silent.
 */
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRunModels } from "../src/run/model-clients.ts";
import { startScriptedModelServer, type ScriptedModelServer } from "../src/testing/index.ts";
import { runCli } from "./support/cli.ts";
import { missingTau2Reason, tau2BenchDirectory } from "./support/shared-data.ts";

const scratch = (prefix: string) => mkdtempSync(join(tmpdir(), `taubridge-${prefix}-`));
const RENEWAL = join(import.meta.dirname, "fixtures", "function-agent", "renewal-agent.mjs");

/** A regular file, so that a path under it can never be created or read. */
function aFile(): string {
  const path = join(scratch("paths"), "plain.txt");
  writeFileSync(path, "not a folder");
  return path;
}

function expectRefused(result: { exitCode?: number; stderr: string }, flag: string): void {
  expect(result.exitCode, result.stderr).toBe(2);
  const lines = result.stderr.trim().split("\n");
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^taubridge: ${flag.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} `));
}

describe("τ-bench run: a path flag that cannot be used is refused before the first episode", () => {
  const file = aFile();
  const cases: Array<[string, string[]]> = [
    ["--cache-dir", ["--cache-dir", join(file, "cache")]],
    ["--price-file", ["--price-file", join(file, "prices.json")]],
    ["--price-file", ["--price-file", join(scratch("missing"), "prices.json")]],
    ["--agent-prompt-file", ["--agent-prompt-file", join(file, "prompt.txt")]],
    ["--user-prompt-file", ["--user-prompt-file", join(scratch("missing"), "prompt.txt")]],
    ["--few-shot-displays-path", ["--few-shot-displays-path", join(file, "shots.jsonl")]],
    ["--agent-module", ["--agent-strategy", "module", "--agent-module", join(file, "agent.mjs")]],
    ["--workflow-path", ["--workflow-path", join(scratch("missing"), "workflow")]],
    ["--agent-option mapping", ["--agent-option", `mapping=${join(file, "mapping.json")}`]],
  ];
  it.each(cases)(
    "%s (%j): exit 2, one line naming the flag, no results written",
    async (flag, args) => {
      const logDir = scratch("paths-log");
      const result = await runCli(["run", "--task-ids", "0", "--log-dir", logDir, "--quiet", ...args]);
      expectRefused(result, flag);
      expect(readdirSync(logDir)).toEqual([]);
    },
    180_000,
  );

  it("a path that is a folder where a file is meant", async () => {
    const result = await runCli(["run", "--task-ids", "0", "--log-dir", scratch("paths-log"), "--quiet", "--price-file", scratch("a-folder")]);
    expectRefused(result, "--price-file");
    expect(result.stderr).toContain("is a folder, not a file");
  }, 180_000);
});

describe.skipIf(!tau2BenchDirectory)(`τ² run: the same checks${tau2BenchDirectory ? "" : ` (${missingTau2Reason})`}`, () => {
  const file = aFile();
  it.each([
    ["--cache-dir", ["--cache-dir", join(file, "cache")]],
    ["--price-file", ["--price-file", join(file, "prices.json")]],
    ["--agent-module", ["--agent", "module", "--agent-module", join(file, "agent.mjs")]],
  ])(
    "%s: exit 2, one line naming the flag",
    async (flag, args) => {
      const saveTo = join(scratch("paths-tau2"), "results.json");
      const base = ["tau2", "run", "--domain", "mock", "--task-ids", "create_task_1", "--user", "scripted", "--data-dir", tau2BenchDirectory as string, "--save-to", saveTo, "--quiet"];
      const result = await runCli([...base, ...(args.includes("--agent") ? [] : ["--agent", "oracle"]), ...args]);
      expectRefused(result, flag);
    },
    180_000,
  );
});

describe("the derived cache is only a speed-up", () => {
  it("a derived-cache folder that cannot be used is one warning line; the run goes on", async () => {
    const result = await runCli(["run", "--task-ids", "0", "--log-dir", scratch("derived-log"), "--quiet"], { env: { TAUBRIDGE_DERIVED_CACHE_DIR: join(aFile(), "derived") } });
    expect(result.exitCode, result.stderr).toBe(0);
    const warnings = result.stderr.split("\n").filter((line) => line.includes("derived cache"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^\[taubridge\] warning: the derived cache .* cannot be used/);
  }, 180_000);
});

describe("a response cache that fails in the middle of a run says so", () => {
  let server: ScriptedModelServer;
  afterAll(async () => server?.close());

  it("once, through the run's warning channel; the calls still succeed", async () => {
    server = await startScriptedModelServer({ steps: [{ content: "hello", times: "unlimited" }] });
    const directory = scratch("cache");
    // The cache folder is usable when the run starts; every fan-out folder of its entries is taken by a file.
    for (let index = 0; index < 256; index++) writeFileSync(join(directory, index.toString(16).padStart(2, "0")), "");
    const warnings: string[] = [];
    const models = createRunModels({
      model: "m",
      modelProvider: "openai-compatible",
      baseUrl: server.baseURL,
      modelTimeoutMs: 10_000,
      modelMaxAttempts: 1,
      maxConcurrency: 1,
      cacheDir: directory,
      warn: (message) => warnings.push(message),
    });
    const agent = models.agent();
    for (const text of ["one", "two", "three"]) expect((await agent.complete({ messages: [{ role: "user", content: text }] })).message.content).toBe("hello");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`^the response cache ${directory.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} cannot be written`));
  }, 180_000);
});

// The function agent runs with the checks above in place (a usable agent module passes).
describe("a usable path passes", () => {
  it("--agent-module of a real module", async () => {
    const result = await runCli(["run", "--agent-strategy", "module", "--agent-module", RENEWAL, "--task-ids", "2", "--log-dir", scratch("ok"), "--quiet"]);
    expect(result.exitCode, result.stderr).toBe(0);
  }, 180_000);
});
