/**
 * What one suite did and the other did not, before both ran on one stack (issue: one stack), each
 * checked on both suites through the CLI: a foreign domain refused by `rescore`, `report`'s
 * `--per-task` and Markdown without colour codes, several files at once, a dead model endpoint
 * stopping the run (model strategies, τ²'s participants, framework adapters, the judge), the
 * decisions of a decision-only framework agent in the results file, infra errors with their text,
 * the progress line after a resume, τ²'s LLM arguments with Python's float spelling, and the hint
 * for an action file of the other suite.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer } from "../src/testing/index.ts";
import { readTau2Results } from "../src/suites/tau2/codec.ts";
import { byModel, tau2AgentResponder, tau2PlanTasks, tau2UserResponder } from "./golden/responders.ts";
import { runCli } from "./support/cli.ts";
import { refusedPort } from "./support/refused-port.ts";
import { missingTau2Reason, tau2BenchDirectory } from "./support/shared-data.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

const scratch = () => mkdtempSync(join(tmpdir(), "taubridge-parity-"));
const ANSI = new RegExp(String.fromCharCode(27) + "\\[");
const REPOSITORY = join(import.meta.dirname, "..");
const example = (framework: string, domain: string) => join(REPOSITORY, "adapters", framework, "example", `${domain}-agent.ts`);

/**
 * The default results files (no extra flags), made once per file and shared by the tests that only
 * read them (`rescore` without `--output`, `report`): the same command writes the same file.
 */
const shared = new Map<string, Promise<string>>();
function once(key: string, make: () => Promise<string>, extra: string[]): Promise<string> {
  if (extra.length > 0) return make();
  let made = shared.get(key);
  if (!made) shared.set(key, (made = make()));
  return made;
}

/** A τ-bench results file of the library domain (oracle, scripted user) in a fresh directory (the default one shared). */
function libraryResults(extra: string[] = []): Promise<string> {
  return once("library", () => newLibraryResults(extra), extra);
}

/** A τ² results file of the mock domain (oracle, scripted user; the default one shared). */
function mockResults(extra: string[] = []): Promise<string> {
  return once("mock", () => newMockResults(extra), extra);
}

async function newLibraryResults(extra: string[]): Promise<string> {
  const directory = scratch();
  const result = await runCli(["run", "--log-dir", directory, "--quiet", "--task-ids", "0", "1", "2", ...extra]);
  expect(result.exitCode).toBe(0);
  return join(directory, readdirSync(directory).find((name) => name.endsWith(".json") && !name.endsWith(".meta.json"))!);
}

async function newMockResults(extra: string[]): Promise<string> {
  const file = join(scratch(), "mock.json");
  const result = await runCli(["tau2", "run", "--domain", "mock", "--agent", "oracle", "--user", "scripted", "--data-dir", data as string, "--save-to", file, "--quiet", ...extra]);
  expect(result.exitCode).toBe(0);
  return file;
}

describe.skipIf(!data)("the same report, rescore and replay for both suites", () => {
  it("rescore refuses a τ² file on another domain in one line, as it refuses a τ-bench file", async () => {
    const tau2 = await runCli(["rescore", await mockResults(), "--env", "airline", "--data-dir", data as string]);
    expect(tau2.exitCode).toBe(2);
    expect(tau2.stderr.trim().split("\n")).toHaveLength(1);
    expect(tau2.stderr).toMatch(/does not belong to --env airline: it was recorded on the mock domain/);
    const tau = await runCli(["rescore", await libraryResults(), "--env", "retail", "--data-dir", join(data as string, "..", "tau-bench")]);
    expect(tau.exitCode).toBe(2);
    expect(tau.stderr.trim().split("\n")).toHaveLength(1);
  });

  it.each([
    ["τ-bench", () => libraryResults()],
    ["τ²", () => mockResults()],
  ])("report on a %s file: --per-task and Markdown, no colour codes when piped", async (_suite, make) => {
    const file = await make();
    const text = await runCli(["report", file, "--per-task"]);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toMatch(/Task\s*│\s*Trials\s*│\s*Successes/);
    expect(text.stdout).not.toMatch(ANSI);
    const markdown = await runCli(["report", file, "--per-task", "--format", "markdown"]);
    expect(markdown.stdout).toMatch(/^\| Strategy \| Pass\^1 \| Avg reward \| Cost \|$/m);
    expect(markdown.stdout).toMatch(/^\| Task \| Trials \| Successes \| Avg reward \| Infra errors \|$/m);
    expect(markdown.stdout).not.toMatch(ANSI);
  });

  it("rescore and report take several files of either suite (a shell glob)", async () => {
    const tau2 = [await mockResults(), await mockResults(["--num-trials", "2"])];
    const rescored = await runCli(["rescore", ...tau2, "--data-dir", data as string]);
    expect(rescored.exitCode).toBe(0);
    expect(rescored.stdout.match(/Rewards: \d+\/\d+ agree/g)).toHaveLength(2);
    const reported = await runCli(["report", ...tau2, await mockResults(["--num-tasks", "3"])]);
    await expect(reported.exitCode).toBe(0);
    expect(reported.stdout.match(/oracle on mock|mock/g)?.length).toBeGreaterThanOrEqual(3);
    const mixed = await runCli(["report", tau2[0], await libraryResults()]);
    expect(mixed.exitCode).toBe(2);
    expect(mixed.stderr).toMatch(/not both at once/);
  });

  it("replay names the other suite's action-file shape when given one", async () => {
    const directory = scratch();
    const tauActions = join(directory, "tau.json");
    writeFileSync(tauActions, JSON.stringify([{ name: "find_patron", kwargs: { email: "a@b.c" } }]));
    const tau2Actions = join(directory, "tau2.json");
    writeFileSync(tau2Actions, JSON.stringify([{ name: "get_users", arguments: {}, requestor: "assistant" }]));
    const onTau2 = await runCli(["replay", "--suite", "tau2", "--env", "mock", "--actions", tauActions, "--data-dir", data as string]);
    expect(onTau2.exitCode).toBe(2);
    expect(onTau2.stderr).toMatch(/τ-bench actions/);
    const onTau = await runCli(["replay", "--env", "library", "--actions", tau2Actions]);
    expect(onTau.exitCode).toBe(2);
    expect(onTau.stderr).toMatch(/τ²/);
  });
});

describe.skipIf(!data)("a dead model endpoint stops the run at once (exit 2, naming the URL), on both suites", () => {
  let url: string;
  beforeAll(async () => {
    url = `http://127.0.0.1:${await refusedPort()}/v1`;
  });

  // Each run writes into a folder that does not exist yet: a run that recorded nothing leaves none behind.
  const expectStopped = (result: { exitCode?: number; stderr: string; stdout: string }, directory: string) => {
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(url);
    expect(result.stderr).toMatch(/refused the connection .* no episode was recorded/);
    expect(readdirSync(join(directory, "..", ".."))).toEqual([]);
  };
  const freshFolder = () => join(scratch(), "out", "run");

  it("τ²'s own model agent", async () => {
    const directory = freshFolder();
    const result = await runCli([
      "tau2",
      "run",
      "--domain",
      "mock",
      "--agent",
      "llm_agent",
      "--user",
      "scripted",
      "--agent-llm",
      "local-model",
      "--agent-llm-args",
      JSON.stringify({ temperature: 0, api_base: url }),
      "--data-dir",
      data as string,
      "--save-to",
      join(directory, "r.json"),
      "--quiet",
      "--num-tasks",
      "3",
    ]);
    expectStopped(result, directory);
    expect(result.stderr).toMatch(/api_base in --agent-llm-args/);
  });

  it("τ²'s NL judge with --judge-base-url: no API key asked for, the dead judge stops the run", async () => {
    const directory = scratch();
    const result = await runCli(
      [
        "tau2",
        "run",
        "--domain",
        "retail",
        "--agent",
        "oracle",
        "--user",
        "scripted",
        "--judge-model",
        "local-judge",
        "--judge-base-url",
        url,
        "--data-dir",
        data as string,
        "--save-to",
        join(directory, "r.json"),
        "--quiet",
        "--max-concurrency",
        "1",
      ],
      { env: { OPENAI_API_KEY: "" } },
    );
    expect(result.stderr).not.toMatch(/API key/);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/judge model endpoint .* refused the connection/);
  });

  // LangChain is left out: its ChatOpenAI retries a refused connection 6 times with exponential
  // backoff (~90 s) before the failure reaches the adapter; the stop is the same driver code.
  it.each(["vercel-ai", "openai-agents", "mastra"])("the %s adapter on τ-bench and on τ²", async (framework) => {
    const tauDirectory = freshFolder();
    const tau = await runCli([
      "run",
      "--agent-strategy",
      framework,
      "--agent-module",
      example(framework, "library"),
      "--base-url",
      url,
      "--model",
      "m",
      "--log-dir",
      tauDirectory,
      "--quiet",
      "--task-ids",
      "0",
      "1",
    ]);
    expectStopped(tau, tauDirectory);
    if (framework !== "vercel-ai") return;
    const tau2Directory = freshFolder();
    const tau2 = await runCli([
      "tau2",
      "run",
      "--domain",
      "retail",
      "--task-ids",
      "0",
      "5",
      "--agent",
      framework,
      "--agent-option",
      `module=${example(framework, "retail")}`,
      "--agent-llm",
      "m",
      "--agent-base-url",
      url,
      "--user",
      "scripted",
      "--data-dir",
      data as string,
      "--save-to",
      join(tau2Directory, "r.json"),
      "--quiet",
    ]);
    expectStopped(tau2, tau2Directory);
  });
});

describe.skipIf(!data)("framework agents on τ²: decision-only leaves its decisions, dry runs say so", () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    const tasks = tau2PlanTasks(join(data as string, "retail", "tasks.json"));
    server = await startScriptedModelServer({ responder: byModel({ agent: tau2AgentResponder(tasks), user: tau2UserResponder(tasks) }) });
  });
  afterAll(() => server?.close());

  const frameworkRun = (mode: string, file: string) =>
    runCli([
      "tau2",
      "run",
      "--domain",
      "retail",
      "--task-ids",
      "0",
      "--agent",
      "vercel-ai",
      "--agent-option",
      `module=${example("vercel-ai", "retail")}`,
      "--bridge-mode",
      mode,
      "--agent-llm",
      "scripted-model",
      "--agent-base-url",
      server.baseURL,
      "--user",
      "user_simulator",
      "--user-llm",
      "user-model",
      "--user-llm-args",
      JSON.stringify({ temperature: 0.0, api_base: server.baseURL }),
      "--data-dir",
      data as string,
      "--save-to",
      file,
      "--quiet",
    ]);

  it("records each stepped decision with the framework's tool name in the simulation's info", async () => {
    const file = join(scratch(), "r.json");
    const result = await frameworkRun("decision-only", file);
    expect(result.exitCode).toBe(0);
    const [simulation] = readTau2Results(file).simulations;
    const decisions = (simulation.info as { decisions?: Array<Record<string, unknown>> } | null)?.decisions ?? [];
    expect(decisions.length).toBeGreaterThan(0);
    for (const decision of decisions) expect(Object.keys(decision)).toEqual(["name", "arguments", "tool_call_id", "framework_tool_name"]);
    // The canonical record shows them as executed steps the harness made, as it does on τ-bench.
    const [record] = (await runCli(["records", file])).stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(record.steps.filter((step: { origin: string }) => step.origin === "harness")).toHaveLength(decisions.length);
    expect(record.planned).toEqual([]);
  });

  it("records a refused framework tool (not the benchmark's) in the simulation and warns in the report, as on τ-bench", async () => {
    const refusing = await startScriptedModelServer({
      steps: [
        { match: { lastMessageRole: "user" }, tool_calls: [{ name: "lookup_order", arguments: { order_number: "#W6390527" } }], times: "unlimited" },
        { match: { lastMessageRole: "tool" }, content: "Done.", times: "unlimited" },
      ],
    });
    try {
      const file = join(scratch(), "r.json");
      const module = join(REPOSITORY, "test", "adapters", "fixtures", "vercel-ai", "alias-agent.ts");
      const args = [
        "--domain",
        "retail",
        "--task-ids",
        "0",
        "--agent",
        "vercel-ai",
        "--agent-option",
        `module=${module}`,
        "--agent-llm",
        "m",
        "--agent-base-url",
        refusing.baseURL,
        "--user",
        "scripted",
      ];
      const result = await runCli(["tau2", "run", ...args, "--data-dir", data as string, "--save-to", file, "--quiet"]);
      expect(result.exitCode).toBe(0);
      const [simulation] = readTau2Results(file).simulations;
      expect(simulation.info).toMatchObject({ unmapped_tools: ["lookup_order"] });
      expect(result.stdout).toMatch(/warning: 1 tool\(s\) of your agent are not part of the benchmark and were not executed: lookup_order/);
    } finally {
      await refusing.close();
    }
  });

  it("labels a dry run in the table and the JSON report", async () => {
    const file = join(scratch(), "r.json");
    const text = await frameworkRun("dry-run", file);
    expect(text.stdout).toMatch(/vercel-ai \(scripted-model\) on retail \[dry run\]/);
    expect(text.stdout).toMatch(/⚠ dry run: the agent's tool calls were planned, not executed/);
    const json = await runCli([
      "run",
      "--agent-strategy",
      "vercel-ai",
      "--agent-module",
      example("vercel-ai", "library"),
      "--base-url",
      server.baseURL,
      "--model",
      "scripted-model",
      "--dry-run",
      "--log-dir",
      scratch(),
      "--quiet",
      "--task-ids",
      "0",
      "--format",
      "json",
    ]);
    expect(JSON.parse(json.stdout)).toMatchObject({ dryRun: true, strategy: expect.stringMatching(/\[dry run\]$/) });
  });
});

describe.skipIf(!data)("what a τ² results file records and what a resumed run shows", () => {
  it("writes LLM arguments with the command line's own number spelling (0.0 stays 0.0) and never a key (its value redacted)", async () => {
    const file = await mockResults(["--num-tasks", "1", "--agent-llm-args", '{"temperature": 0.0, "top_p": 1}', "--user-llm-args", '{"temperature": 0.50, "api_key": "sk-secret"}']);
    const text = readFileSync(file, "utf8");
    expect(text).toContain('"llm_args": {\n        "temperature": 0.5,\n        "api_key": "[REDACTED]"\n      }');
    expect(text).toContain('"llm_args": {\n        "temperature": 0.0,\n        "top_p": 1\n      }');
    expect(text).not.toContain("sk-secret");
    const defaults = readFileSync(await mockResults(["--num-tasks", "1"]), "utf8");
    expect(defaults.match(/"temperature": 0\.0/g)).toHaveLength(2);
  });

  it.each([
    ["τ-bench", (directory: string) => ["run", "--log-dir", directory, "--task-ids", "0", "1"]],
    [
      "τ²",
      (directory: string) => [
        "tau2",
        "run",
        "--domain",
        "mock",
        "--agent",
        "oracle",
        "--user",
        "scripted",
        "--data-dir",
        data as string,
        "--save-to",
        join(directory, "r.json"),
        "--task-ids",
        "create_task_1",
        "update_task_1",
      ],
    ],
  ])("%s: the progress line after a resume counts the resumed episodes' successes and cost", async (_suite, command) => {
    const directory = scratch();
    expect((await runCli([...command(directory), "--quiet"])).exitCode).toBe(0);
    const resumed = await runCli([...command(directory), "--num-trials", "2"]);
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stderr).toMatch(/resumed 2 finished episodes, running 2/);
    expect(resumed.stderr).toMatch(/2\/4 episodes, pass rate 100\.0%, cost \$0\.0000/);
  });
});
