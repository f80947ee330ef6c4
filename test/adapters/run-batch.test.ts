/**
 * Every adapter strategy through the runner's batch layer (`buildRun` + `runBatch`, concurrency 2,
 * results file) in a plain Node child process, as the CLI runs it: the frameworks are imported by
 * bare specifier through Node's own loader chain (tsx, then import-in-the-middle), unlike vitest's
 * module runner. Data-dependent (τ-bench retail).
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { tauBenchDirectory, warnIfMissingShared } from "../support/shared-data.ts";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const script = fileURLToPath(new URL("./fixtures/run-batch.ts", import.meta.url));

const cases = [
  { strategy: "openai-agents", module: "adapters/openai-agents/example/retail-agent.ts", hooked: "@openai/agents" },
  { strategy: "vercel-ai", module: "adapters/vercel-ai/example/retail-agent.ts", hooked: "ai" },
  { strategy: "langchain", module: "adapters/langchain/example/retail-agent.ts", hooked: "@langchain/core/tools" },
  { strategy: "mastra", module: "adapters/mastra/example/retail-agent.ts", hooked: "@mastra/core/agent" },
];

warnIfMissingShared();
describe.skipIf(!tauBenchDirectory)("adapter strategies through runBatch in a plain Node process (CLI path)", () => {
  it.each(cases)("$strategy: tasks 5, 10, 11 score 1.0 with concurrency 2; every tool step comes from the bridge; hooks matched the bare specifier", async ({ strategy, module, hooked }) => {
    const logDir = mkdtempSync(join(tmpdir(), `taubridge-${strategy}-`));
    const { stdout } = await run(process.execPath, ["--import", "tsx", script, strategy, join(root, module), "5,10,11", "2", logDir], {
      cwd: root,
      env: { ...process.env },
      timeout: 180_000,
      maxBuffer: 1 << 24,
    });
    const report = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
      rewards: Array<[number, number, string]>;
      origins: string[][];
      hooked: string[];
      backendHits: number;
      failures: number;
    };
    expect(report.rewards).toEqual([
      [5, 1, "user_stop"],
      [10, 1, "agent_stop"],
      [11, 1, "user_stop"],
    ]);
    expect(report.origins.map((origins) => origins.filter((origin) => origin !== "agent").every((origin) => origin === "bridge"))).toEqual([true, true, true]);
    expect(report.origins.map((origins) => origins.length)).toEqual([6, 5, 7]);
    expect(report.hooked).toContain(hooked);
    expect(report.backendHits).toBe(0);
    expect(report.failures).toBe(0);
  });
});
