/**
 * What a new user reads first (issue: found from outside, "errors and output a new user reads"):
 * a missing or wrong τ² data folder is named as such; a τ² run whose tasks need the NL judge names
 * them and the ways forward instead of stopping on a missing key; `report` over several files
 * labels the rows by what differs between the runs; τ² rows name the model as τ-bench rows do; a
 * Markdown table ends with a blank line; a row with no scored episode has no average reward; a run
 * that calls no model has no "cost unknown" line.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildReport, detailsText, leaderboardText } from "../src/report/leaderboard.ts";
import { runCli, runTau2 } from "./support/cli.ts";
import { describeWithTau2Data } from "./support/shared-data.ts";

const scratch = () => mkdtempSync(join(tmpdir(), "taubridge-first-use-"));
const V1 = join(import.meta.dirname, "fixtures", "results", "v1");
const ORACLE_V1 = join(V1, "library-test-oracle-none-0.0_ids_0-6_user-none-scripted.json");
const MODEL_V1 = join(V1, "library-test-tool-calling-agent-model-0.0_ids_0-1-2_user-user-model-llm.json");

/** Expects exit 2, nothing on stdout, and exactly `line` on stderr. */
function expectRefusal(result: { exitCode?: number; stdout: unknown; stderr: unknown }, line: string): void {
  expect(String(result.stderr).trim()).toBe(`taubridge: ${line}`);
  expect(String(result.stdout)).toBe("");
  expect(result.exitCode).toBe(2);
}

describe("τ² data that is not there is named as such", () => {
  it("an empty --data-dir, with a model agent whose judge would read τ²'s sources first", async () => {
    const directory = scratch();
    const empty = join(directory, "empty");
    mkdirSync(empty);
    const result = await runTau2(["--domain", "retail", "--agent", "llm_agent", "--user", "user_simulator"], { data: empty, saveTo: join(directory, "out.json") });
    expectRefusal(result, `τ²-bench data not found in ${empty} (no retail/ folder): run \`taubridge data pull tau2-bench\` or pass --data-dir <τ²-bench data folder>`);
  });

  it("--data-dir holding τ-bench's data (its retail folder has no db.json)", async () => {
    const directory = scratch();
    const tauBench = join(directory, "tau-bench");
    mkdirSync(join(tauBench, "retail"), { recursive: true });
    for (const file of ["tasks_test.json", "users.json", "orders.json", "products.json", "wiki.md"]) writeFileSync(join(tauBench, "retail", file), "[]");
    const result = await runTau2(["--domain", "retail", "--agent", "oracle", "--user", "scripted"], { data: tauBench, saveTo: join(directory, "out.json") });
    expectRefusal(
      result,
      `τ²-bench data not found in ${tauBench} (retail/db.json is missing; this is τ-bench's data, which τ² cannot read): run \`taubridge data pull tau2-bench\` or pass --data-dir <τ²-bench data folder>`,
    );
  });
});

describeWithTau2Data("a τ³ banking_knowledge run whose tasks need the NL judge, without a key", (data) => {
  it("is refused before the first episode, naming task_102 and the three ways forward; nothing is written", async () => {
    const directory = scratch();
    const result = await runTau2(["--domain", "banking_knowledge", "--retrieval-config", "bm25", "--agent", "oracle", "--user", "scripted"], {
      data,
      saveTo: join(directory, "out", "results.json"),
      env: { OPENAI_API_KEY: "" },
    });
    expectRefusal(
      result,
      "1 of the 97 selected banking_knowledge task(s) (task_102) is scored by τ²'s NL-assertion judge, which calls a model and cannot run: " +
        "The judge model (provider openai) needs an API key in the environment variable OPENAI_API_KEY (set it, or give the role an OpenAI-compatible base URL that needs none). " +
        "Give the judge its API key, point it at an OpenAI-compatible server with --judge-base-url (and --judge-model), or leave that task out with --task-ids",
    );
    expect(readdirSync(directory)).toEqual([]);
  });
});

describe("report over several files labels rows by what differs", () => {
  it("τ-bench: by agent, model and user (from the identity in each checkpoint), saying once what every row shares", async () => {
    const result = await runCli(["report", ORACLE_V1, MODEL_V1]);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toBe("Every row: suite=τ-bench, domain=library/test");
    expect(result.stdout).toMatch(/│ \[1\] agent=oracle, model=no model, user=scripted\s+│ 1\.000/);
    expect(result.stdout).toMatch(/│ \[2\] agent=tool-calling, model=agent-model, user=llm \(user-model\) │ 0\.500/);
    expect(result.stdout).toContain(`[2] agent=tool-calling, model=agent-model, user=llm (user-model) — ${MODEL_V1}\nEpisodes: 3 over 2 tasks`);
    expect(lines.filter((line) => line.startsWith("│")).join("\n")).not.toContain("library-test-");
  });

  it("one file gets its run's title, as the run printed it", async () => {
    const result = await runCli(["report", MODEL_V1]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/│ tool-calling \(agent-model\) on library\/test │ 0\.500/);
  });

  it("files that differ in nothing recorded (one run copied) are told apart by their folders", async () => {
    const directory = scratch();
    for (const folder of ["a", "b"]) {
      mkdirSync(join(directory, folder));
      for (const suffix of [".json", ".checkpoint.jsonl"]) copyFileSync(ORACLE_V1.replace(/\.json$/, suffix), join(directory, folder, `run${suffix}`));
    }
    const result = await runCli(["report", join("a", "run.json"), join("b", "run.json")], { cwd: directory });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split("\n")[0]).toBe("Every row: suite=τ-bench, domain=library/test, agent=oracle, model=no model, user=scripted");
    expect(result.stdout).toMatch(/│ \[1\] a\/run\s+│/);
    expect(result.stdout).toMatch(/│ \[2\] b\/run\s+│/);
  });

  it("a Markdown report leaves a blank line after the table, so the next line is not read as a row", async () => {
    const result = await runCli(["report", ORACLE_V1, MODEL_V1, "--format", "markdown"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^Every row: suite=τ-bench, domain=library\/test\n\n\| Strategy \|/);
    expect(result.stdout).toMatch(/\| \[2\] agent=tool-calling, model=agent-model, user=llm \(user-model\) \| 0\.500 \| n\/a \| 0\.500 \| \$0\.0298 \| 1\/3 \|\n\n\[1\] /);
  });
});

describe("a row with no scored episode", () => {
  it("shows no average reward beside its n/a pass^k", () => {
    const summaries = [0, 1].map((taskId) => ({ taskId, trial: 0, reward: 0, termination: "infra_error" as const, error: "HTTP 503", usage: null }));
    const report = buildReport("tool-calling (m) on library/test", summaries);
    expect(report.metrics.averageReward).toBeNull();
    expect(leaderboardText([report], "markdown").split("\n")[2]).toBe("| tool-calling (m) on library/test | n/a | n/a | unknown | 2/2 |");
  });
});

describeWithTau2Data("τ² rows", (data) => {
  it("name the agent's model as τ-bench rows do (no model for the oracle), and a run that calls no model has no 'cost unknown'", async () => {
    const directory = scratch();
    const file = join(directory, "oracle", "results.json");
    const run = await runTau2(["--domain", "mock", "--agent", "oracle", "--user", "scripted"], { data, saveTo: file });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/│ oracle \(no model\) on mock │ 0\.800\s+│ 0\.800\s+│ \$0\.0000 │/);
    expect(run.stdout).not.toMatch(/cost unknown/);
    // The same file as a model agent's run would record it.
    const model = join(directory, "model", "results.json");
    mkdirSync(join(directory, "model"));
    const recorded = JSON.parse(readFileSync(file, "utf8")) as { info: { agent_info: { implementation: string; llm: string } } };
    recorded.info.agent_info = { ...recorded.info.agent_info, implementation: "llm_agent", llm: "gpt-4o-mini" };
    writeFileSync(model, JSON.stringify(recorded));
    const one = await runCli(["report", model, "--data-dir", data]);
    expect(one.exitCode, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/│ llm_agent \(gpt-4o-mini\) on mock │/);
    const both = await runCli(["report", file, model, "--data-dir", data]);
    expect(both.exitCode, both.stderr).toBe(0);
    expect(both.stdout.split("\n")[0]).toBe("Every row: suite=τ²-bench, domain=mock, user=scripted");
    expect(both.stdout).toMatch(/│ \[1\] agent=oracle, model=no model\s+│/);
    expect(both.stdout).toMatch(/│ \[2\] agent=llm_agent, model=gpt-4o-mini │/);
  });
});

describe("detailsText", () => {
  it("prints no usage line for a role that called no model, even when a file recorded its cost as unknown", () => {
    const summaries = [0, 1].map((taskId) => ({
      taskId,
      trial: 0,
      reward: 1,
      termination: "user_stop" as const,
      usage: { agent: { calls: 0, promptTokens: 0, completionTokens: 0, cost: null }, user: null },
    }));
    const report = buildReport("oracle (no model) on mock", summaries);
    expect(report.cost).toBe(0);
    expect(detailsText(report)).toBe("Episodes: 2 over 2 tasks × 1 trial(s); ended by: user_stop=2");
  });
});

describe("agents that cannot run on a suite are refused up front", () => {
  it("few-shot on τ² (its examples are τ-bench conversations, given by a τ-bench flag): one line, before any model client or data", async () => {
    const directory = scratch();
    const result = await runTau2(["--domain", "mock", "--agent", "few-shot", "--user", "scripted"], {
      data: join(directory, "no-data"),
      saveTo: join(directory, "out.json"),
      env: { OPENAI_API_KEY: "" },
    });
    expectRefusal(
      result,
      'the agent strategy "few-shot" runs on τ-bench only, not on τ²; τ² agents: oracle, llm_agent, llm_agent_gt, llm_agent_solo, tool-calling, act, react, human, module, a2a, a2a_agent, openai-agents, vercel-ai, langchain, mastra, fastworkflow, python-bridge',
    );
  });

  it("`taubridge strategies` lists few-shot under τ-bench only", async () => {
    const result = await runCli(["strategies"]);
    expect(result.exitCode).toBe(0);
    const [tauBench, tau2] = result.stdout.split(/^τ²-bench \(--suite tau2\):$/m);
    expect(tauBench).toMatch(/^ {4}few-shot /m);
    expect(tau2).toMatch(/^ {4}tool-calling /m);
    expect(tau2).not.toMatch(/few-shot/);
  });
});

describe("a syntax error in an agent module names its file and line", () => {
  const BROKEN = 'export async function respond() {\n  return { content: "hello" ;\n}\n';

  it.each([
    ["an ES module (.mjs), in a worker thread", "agent.mjs", []],
    ["an ES module (.mjs), in the harness's thread", "agent.mjs", ["--agent-isolation", "none"]],
    ["a CommonJS module (.cjs)", "agent.cjs", []],
  ])("%s", async (_name, file, extra) => {
    const directory = scratch();
    const path = join(directory, file);
    writeFileSync(path, file.endsWith(".cjs") ? 'module.exports = {\n  respond() { return { content: "hello" ; } },\n};\n' : BROKEN);
    const result = await runCli(["run", "--agent-strategy", "module", "--agent-module", path, "--task-ids", "0", "--quiet", "--log-dir", join(directory, "out"), ...extra]);
    const column = file.endsWith(".cjs") ? 41 : 29;
    expectRefusal(result, `cannot load the agent module ${path}: syntax error at ${path}:2:${column}: Unexpected token ';'`);
  });

  it("a TypeScript module (.ts): the compiler's message names the place", async () => {
    const directory = scratch();
    const path = join(directory, "agent.ts");
    writeFileSync(path, BROKEN.replace("respond()", "respond(): Promise<{ content: string }>"));
    const result = await runCli(["run", "--agent-strategy", "module", "--agent-module", path, "--task-ids", "0", "--quiet", "--log-dir", join(directory, "out")]);
    expect(result.exitCode).toBe(2);
    expect(String(result.stderr).trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(`cannot load the agent module ${path}: `);
    expect(result.stderr).toContain(`${path}:2:28: ERROR: Expected "}" but found ";"`);
  });
});

describe("the help and the files around it", () => {
  it("testing serve --help describes the script format and every route, and names no file the package does not ship", async () => {
    const result = await runCli(["testing", "serve", "--help"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.replace(/\s+/g, " ")).toContain("POST /v1/chat/completions, POST /v1/embeddings, GET /v1/models");
    expect(result.stdout).toContain('Script file: {"scripts": {"<model>": [step, ...], "*": [step, ...]}}');
  });

  it("no command's --help (docs/cli.md holds them all, checked against the CLI) names a repository file the package does not ship", () => {
    const cli = readFileSync(join(import.meta.dirname, "..", "docs", "cli.md"), "utf8");
    const help = [...cli.matchAll(/^```console\n([\s\S]*?)^```$/gm)].map((match) => match[1]).join("\n");
    expect(help).toContain("$ taubridge testing serve --help");
    expect(help.match(/\b(?:src|docs|test|adapters|domains)\/[\w./-]+|\b[\w-]+\.md\b/g) ?? []).toEqual([]);
  });

  it("git ignores what runs write into a checkout: results/, simulations/, the cache", async () => {
    const { execa } = await import("execa");
    const root = join(import.meta.dirname, "..");
    const paths = ["results/retail-test.json", "simulations/mock-oracle/results.json", ".taubridge-cache/x.json"];
    const ignored = await execa("git", ["check-ignore", ...paths], { cwd: root, reject: false });
    expect(ignored.stdout.split("\n").sort()).toEqual([...paths].sort());
  });
});
