/**
 * Issue 29: a model endpoint that fails inside a framework agent's own model call (404, 401, 5xx, a
 * dead port) is an infrastructure error, for every adapter and the Python bridge, on both suites —
 * never the agent's zero. As with built-in agents: the episode ends as `infra_error` (exit 3 while
 * such episodes remain), and an endpoint that refuses the run's very first call stops the run
 * (exit 2, nothing recorded). Everything is real: each framework's own HTTP client talks to the
 * scripted server on 127.0.0.1 (or to a port nobody listens on).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execaSync } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { ModelEndpointUnreachableError } from "../../src/model/errors.ts";
import { runBatch } from "../../src/suites/tau-bench/batch.ts";
import { startScriptedModelServer, type ScriptedModelServer } from "../../src/testing/index.ts";
import { runTau2Benchmark } from "../../app/index.ts";
import { runCli } from "../support/cli.ts";
import { buildRun } from "../support/registries.ts";
import { refusedPort } from "../support/refused-port.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";

const repository = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const PYTHON_AGENTS = repository("test/fixtures/python-agents");
/** LangChain retries a 5xx or a refused connection six times with back-off (≈ 100 s): these cases use the example with its retries off. */
const LANGCHAIN_NO_RETRY = repository("test/adapters/fixtures/langchain/no-retry-agent.ts");

type Failure = "404" | "401" | "503" | "dead port";
const FRAMEWORKS = ["openai-agents", "vercel-ai", "langchain", "mastra"] as const;
type Strategy = (typeof FRAMEWORKS)[number] | "python-bridge";

const servers: ScriptedModelServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** A base URL on a loopback port that refuses connections (see test/support/refused-port.ts). */
async function deadPort(): Promise<string> {
  return `http://127.0.0.1:${await refusedPort()}/v1`;
}

/** A base URL where the agent's model call fails the given way. */
async function failingEndpoint(failure: Failure): Promise<string> {
  if (failure === "dead port") return deadPort();
  // 404: the scripted server has no script for the model the agent asks for (OpenAI's model_not_found).
  const server =
    failure === "404"
      ? await startScriptedModelServer({ scripts: { "another-model": [{ content: "never used" }] } })
      : await startScriptedModelServer({ steps: [{ error: { status: Number(failure), retryAfter: 0 }, times: "unlimited" }] });
  servers.push(server);
  return server.baseURL;
}

/** The agent options of a strategy on τ-bench's bundled library domain (the example agents; Python: a chat agent over urllib). */
function libraryAgentOptions(strategy: Strategy, failure: Failure, baseUrl: string, client = "urllib"): Record<string, string> {
  if (strategy === "python-bridge") {
    return { driver: "entry", entry: "chat_agent:ChatAgent", pythonPath: PYTHON_AGENTS, "env.CHAT_AGENT_BASE_URL": baseUrl, "env.CHAT_AGENT_MODEL": "my-model", "env.CHAT_AGENT_CLIENT": client };
  }
  const retries = strategy === "langchain" && (failure === "503" || failure === "dead port");
  return { module: retries ? LANGCHAIN_NO_RETRY : repository(`adapters/${strategy}/example/library-agent.ts`) };
}

function libraryRun(strategy: Strategy, failure: Failure, baseUrl: string, client?: string) {
  return buildRun({
    env: "library",
    agentStrategy: strategy,
    userStrategy: "scripted",
    baseUrl,
    model: "my-model",
    taskIds: [0],
    logDir: mkdtempSync(join(tmpdir(), `taubridge-endpoint-${strategy}-`)),
    resume: false,
    quiet: true,
    agentOptions: libraryAgentOptions(strategy, failure, baseUrl, client),
  });
}

const STATUS_TEXT: Record<Exclude<Failure, "dead port">, RegExp> = { "404": /No script for model|404/, "401": /401/, "503": /503/ };

describe.each([...FRAMEWORKS, "python-bridge"] as Strategy[])("%s on τ-bench: a failing model endpoint inside the agent is an infrastructure error", (strategy) => {
  it.each(["404", "401", "503"] as const)(
    "HTTP %s from the model endpoint: infra_error (left out of the score, rerun on resume), not agent_error",
    async (failure) => {
      const baseUrl = await failingEndpoint(failure);
      const outcome = await runBatch(libraryRun(strategy, failure, baseUrl));
      expect(outcome.summaries.map((summary) => summary.termination)).toEqual(["infra_error"]);
      expect(outcome.summaries[0].error).toMatch(/model endpoint failed/);
      expect(outcome.summaries[0].error).toMatch(STATUS_TEXT[failure]);
      expect(outcome.metrics.infraErrors).toBe(1);
    },
    120_000,
  );

  it("a dead port on the run's first call stops the run (ModelEndpointUnreachableError: exit 2, nothing recorded)", async () => {
    const baseUrl = await deadPort();
    const built = libraryRun(strategy, "dead port", baseUrl);
    const error = await runBatch(built).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ModelEndpointUnreachableError.isInstance(error), String(error)).toBe(true);
    expect(String((error as Error).message)).toContain("ECONNREFUSED");
  }, 300_000);
});

const requestsInstalled = execaSync("python3", ["-c", "import requests"], { reject: false }).exitCode === 0;
if (!requestsInstalled) console.warn("skipped: the python3 on PATH has no `requests` module (the Python bridge's requests case)");

describe.skipIf(!requestsInstalled)("the Python bridge classifies another HTTP client's errors too", () => {
  it("requests: a 404 is infra_error", async () => {
    const baseUrl = await failingEndpoint("404");
    const outcome = await runBatch(libraryRun("python-bridge", "404", baseUrl, "requests"));
    expect(outcome.summaries.map((summary) => summary.termination)).toEqual(["infra_error"]);
    expect(outcome.summaries[0].error).toMatch(/model endpoint failed/);
  }, 300_000);
});

describe("the CLI's exit codes (τ-bench)", () => {
  it("the issue's recipe: vercel-ai's example against a scripted server without a script for its model exits 3 and leaves the episode out of Pass^1", async () => {
    const baseUrl = await failingEndpoint("404");
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-endpoint-cli-"));
    const run = await runCli([
      "run",
      "--agent-strategy",
      "vercel-ai",
      "--agent-module",
      repository("adapters/vercel-ai/example/library-agent.ts"),
      "--model",
      "my-model",
      "--base-url",
      baseUrl,
      "--task-ids",
      "0",
      "--log-dir",
      logDir,
      "--format",
      "json",
    ]);
    expect(run.exitCode, run.stderr).toBe(3);
    const report = JSON.parse(run.stdout) as { passK: Record<string, number | null>; infraErrors: number };
    expect(report.passK["1"]).toBeNull();
  }, 180_000);

  it("a dead port exits 2 with one line naming the endpoint", async () => {
    const baseUrl = await deadPort();
    const run = await runCli([
      "run",
      "--agent-strategy",
      "openai-agents",
      "--agent-module",
      repository("adapters/openai-agents/example/library-agent.ts"),
      "--model",
      "my-model",
      "--base-url",
      baseUrl,
      "--task-ids",
      "0",
      "--log-dir",
      mkdtempSync(join(tmpdir(), "taubridge-endpoint-cli-")),
      "--quiet",
    ]);
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain(baseUrl);
  }, 180_000);
});

describe.skipIf(!tau2BenchDirectory)(`on τ² (retail, through the library API)${tau2BenchDirectory ? "" : ` (${missingTau2Reason})`}`, () => {
  function tau2Run(strategy: Strategy, failure: Failure, baseUrl: string) {
    const saveTo = join(mkdtempSync(join(tmpdir(), "taubridge-endpoint-tau2-")), "results.json");
    const common = { domain: "retail", dataDir: tau2BenchDirectory as string, taskIds: ["0"], user: "scripted", saveTo, maxConcurrency: 1 };
    if (strategy === "python-bridge") return runTau2Benchmark({ ...common, agent: strategy, agentOptions: libraryAgentOptions(strategy, failure, baseUrl) });
    const retries = strategy === "langchain" && failure === "dead port";
    const module = retries ? LANGCHAIN_NO_RETRY : repository(`adapters/${strategy}/example/retail-agent.ts`);
    return runTau2Benchmark({ ...common, agent: strategy, agentOptions: { module }, agentLlm: "my-model", agentBaseUrl: baseUrl });
  }

  it.each([...FRAMEWORKS, "python-bridge"] as Strategy[])(
    "%s: HTTP 404 is an infrastructure error (exit 3); a dead port stops the run (exit 2)",
    async (strategy) => {
      const result = await tau2Run(strategy, "404", await failingEndpoint("404"));
      expect(result.simulations.map((simulation) => simulation.termination_reason)).toEqual(["infrastructure_error"]);
      expect(String((result.simulations[0].info as Record<string, unknown>).error)).toMatch(/model endpoint failed/);
      const error = await tau2Run(strategy, "dead port", await deadPort()).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(ModelEndpointUnreachableError.isInstance(error), String(error)).toBe(true);
    },
    180_000,
  );
});
