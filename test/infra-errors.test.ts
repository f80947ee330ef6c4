/**
 * Infrastructure errors end to end, on the bundled library domain (offline): a tool that throws a
 * plain JavaScript error ends its episode as `infra_error` naming the tool (only Python-level
 * errors become observations); resume re-runs infra-error episodes and nothing else; reports
 * count them and leave them out of pass^k; the CLI exits 3 while any remain.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ToolCrashError } from "../src/errors/error-tree.ts";
import type { Task } from "../src/core/types.ts";
import { loadDomain, LoadedDomain, type DomainDefinition } from "../src/suites/tau-bench/engine/domain.ts";
import { invokeTool, type ToolImplementation } from "../src/suites/tau-bench/engine/tool.ts";
import { PyException } from "../src/value/index.ts";
import { OracleAgent } from "../src/suites/tau-bench/participants/oracle-agent.ts";
import { scriptedUser } from "../src/suites/tau-bench/participants/scripted-user.ts";
import { runEpisode } from "../src/suites/tau-bench/loop.ts";
import { standaloneStepPath } from "../src/suites/tau-bench/loop.ts";
import { groundTruthHashFor } from "../src/suites/tau-bench/evaluator.ts";
import { BridgeSession, NameMapping } from "../bridge/session.ts";
import { interceptToolCall } from "../bridge/node/intercept.ts";
import { FrameworkAgent, type FrameworkAdapter } from "../adapters/common/driver.ts";
import type { AdapterSettings } from "../adapters/common/settings.ts";
import { buildRun } from "./support/registries.ts";
import { runBatch } from "../src/suites/tau-bench/batch.ts";
import { buildReport, detailsText, leaderboardText, perTaskText, reportJson } from "../src/report/leaderboard.ts";
import { loadResultsFile } from "../src/suites/tau-bench/codec.ts";
import { startScriptedModelServer, type ScriptedModelServer } from "../src/testing/index.ts";
import { libraryDomain } from "../domains/library/index.ts";
import { runCli } from "./support/cli.ts";

const CRASHING_TOOL = "pay_fine";

/**
 * The library domain with `pay_fine` replaced by a tool that throws a plain `TypeError` while
 * `crash.on` is set (a bug in a port of a tool), and otherwise runs the real `pay_fine`.
 */
function crashingLibrary(crash: { on: boolean }): LoadedDomain {
  const real = loadDomain(libraryDomain, undefined);
  const original = real.toolsByName.get(CRASHING_TOOL)!;
  const crashing: ToolImplementation = {
    ...original,
    invoke(db, args) {
      if (crash.on) {
        const record = undefined as unknown as { get(key: string): unknown };
        return String(record.get("balance")); // TypeError: Cannot read properties of undefined
      }
      return original.invoke(db, args);
    },
  };
  const definition: DomainDefinition = { ...libraryDomain, tools: libraryDomain.tools.map((tool) => (tool.name === CRASHING_TOOL ? crashing : tool)) };
  return new LoadedDomain(definition, real.dataDirectory, real.base, real.policy, real.toolSchemas);
}

function tasksUsing(domain: LoadedDomain, toolName: string): number[] {
  return domain
    .tasks("test")
    .map((task: Task, index: number) => (task.actions.some((action) => action.name === toolName) ? index : -1))
    .filter((index: number) => index >= 0);
}

describe("only Python-level tool errors become observations", () => {
  const tool: ToolImplementation = {
    name: "probe",
    className: "Probe",
    parameters: ["mode"],
    invoke(_db, args) {
      if (args.mode === "python") throw new PyException("'missing'", "KeyError");
      if (args.mode === "js") throw new RangeError("Invalid array length");
      return "ok";
    },
  };
  const db = loadDomain(libraryDomain, undefined).newDatabase();

  it("a PyException is the observation `Error: <str(exception)>`", () => {
    expect(invokeTool(tool, "library", db, new Map([["mode", "python"]]))).toBe("Error: 'missing'");
    expect(invokeTool(tool, "library", db, new Map([["mode", "ok"]]))).toBe("ok");
    // Python's argument-binding TypeErrors are Python-level errors too.
    expect(invokeTool(tool, "library", db, new Map())).toBe("Error: Probe.invoke() missing 1 required positional argument: 'mode'");
  });

  it("any other exception is a ToolCrashError naming the tool, with the original as cause", () => {
    let raised: unknown;
    try {
      invokeTool(tool, "library", db, new Map([["mode", "js"]]));
    } catch (error) {
      raised = error;
    }
    expect(ToolCrashError.isInstance(raised)).toBe(true);
    const crash = raised as ToolCrashError;
    expect(crash.toolName).toBe("probe");
    expect(crash.message).toBe("tool probe crashed (a harness bug, not the agent's action): RangeError: Invalid array length");
    expect(crash.cause).toBeInstanceOf(RangeError);
  });
});

describe("a crashing tool ends the episode as infra_error", () => {
  it("names the tool and the error; the model never sees a JavaScript message", async () => {
    const domain = crashingLibrary({ on: true });
    const taskIndex = tasksUsing(domain, CRASHING_TOOL)[0];
    const result = await runEpisode({
      domain,
      task: domain.tasks("test")[taskIndex],
      taskIndex,
      trial: 0,
      agent: new OracleAgent(domain),
      user: scriptedUser,
      maxSteps: 30,
    });
    expect(result.termination).toBe("infra_error");
    expect(result.reward).toBe(0);
    expect(result.error?.message).toMatch(/^tool pay_fine crashed \(a harness bug, not the agent's action\): TypeError: Cannot read properties of undefined/);
    expect(String(result.info.error)).toContain("tool pay_fine crashed");
    expect(result.steps.map((step) => step.observation).join("\n")).not.toMatch(/Cannot read properties/);
  });
});

describe("a crashing tool under the runtime bridge", () => {
  it("the step path keeps the first step error and ends the episode; the bridge rethrows it to the framework", async () => {
    const domain = crashingLibrary({ on: true });
    const steps = standaloneStepPath(domain);
    const session = new BridgeSession({ steps, mapping: new NameMapping(new Set(domain.toolNames)) });
    const call = (id: string) => session.handle({ toolName: CRASHING_TOOL, toolCallId: id, params: { member_id: "M1", amount: 1, payment_method_id: "card" } });
    await expect(call("a")).rejects.toSatisfy((error) => ToolCrashError.isInstance(error));
    expect(steps.ended).toBe(true);
    expect((steps.kernel.fatalError as ToolCrashError).toolName).toBe(CRASHING_TOOL);
    const refused = await call("b");
    expect(refused).toMatchObject({ kind: "result", refused: true, stepped: false });
  });

  it("a framework that shows the tool's exception to the model as a tool result still ends the episode as infra_error", async () => {
    // A stand-in framework: its tool executor catches every tool exception and hands the model the
    // message (what several real frameworks do by default), then the turn ends with a text.
    const shownToModel: string[] = [];
    const adapter: FrameworkAdapter<object> = {
      name: "swallowing-framework",
      hooks: [],
      prepare: (candidate) => candidate as object,
      converse: () => ({
        async turn() {
          try {
            const outcome = await interceptToolCall(
              "swallowing-framework",
              { toolName: CRASHING_TOOL, toolCallId: "call_1", params: { member_id: "M1", amount: 1, payment_method_id: "card" } },
              () => "native",
            );
            shownToModel.push(outcome.bridged ? outcome.output : String(outcome.value));
          } catch (error) {
            shownToModel.push(`An error occurred while running the tool: ${(error as Error).message}`);
          }
          return { text: "Your fine is paid.", messages: [] };
        },
      }),
    };
    const moduleDir = mkdtempSync(join(tmpdir(), "taubridge-fake-agent-"));
    writeFileSync(join(moduleDir, "agent.mjs"), "export const agent = { fake: true };\n");
    const crash = { on: false };
    const domain = crashingLibrary(crash);
    const taskIndex = tasksUsing(domain, CRASHING_TOOL)[0];
    // The ground-truth hash is computed (and cached) with the real tool, so only the agent's call crashes.
    groundTruthHashFor(domain, domain.tasks("test")[taskIndex]);
    crash.on = true;
    const settings: AdapterSettings = {
      modulePath: join(moduleDir, "agent.mjs"),
      mode: "internal",
      mapping: new NameMapping(new Set(domain.toolNames)),
      mappingSpec: {},
      apiKey: "unused",
      options: {},
    };
    const result = await runEpisode({
      domain,
      task: domain.tasks("test")[taskIndex],
      taskIndex,
      trial: 0,
      agent: new FrameworkAgent(adapter, settings),
      user: scriptedUser,
      maxSteps: 30,
    });
    expect(shownToModel).toHaveLength(1); // the framework did swallow it ...
    expect(result.termination).toBe("infra_error"); // ... and the episode ended anyway, before a respond
    expect(result.error?.message).toMatch(/^tool pay_fine crashed/);
    expect(result.steps.map((step) => step.action.name)).not.toContain("respond");
  });
});

describe("resume and reports", () => {
  it("resume re-runs the infra-error episodes and nothing else; reports count them outside pass^k", async () => {
    const crash = { on: true };
    const domain = crashingLibrary(crash);
    const crashing = tasksUsing(domain, CRASHING_TOOL);
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-infra-"));
    const build = () => ({ ...buildRun({ env: "library", agentStrategy: "oracle", userStrategy: "scripted", logDir, numTrials: 2, quiet: true }), domain, tasks: domain.tasks("test") });

    const first = await runBatch(build());
    const total = first.summaries.length;
    const infra = first.summaries.filter((summary) => summary.termination === "infra_error");
    expect(infra.map((summary) => summary.taskId).sort()).toEqual([...crashing, ...crashing].sort());
    expect(first.metrics.infraErrors).toBe(infra.length);
    // Left out of pass^k: every other episode succeeds, so pass^1 and pass^2 are 1, not deflated.
    expect(first.metrics.passK).toEqual({ 1: 1, 2: 1 });
    expect(first.metrics.tasks).toBe(domain.tasks("test").length - crashing.length);
    expect(first.metrics.averageReward).toBe(1);

    const report = buildReport("oracle on library", first.summaries);
    expect(report.infraErrors).toBe(infra.length);
    expect(report.terminations.infra_error).toBe(infra.length);
    expect(leaderboardText([report])).toMatch(/Infra errors/);
    expect(leaderboardText([report])).toContain(`${infra.length}/${total}`);
    expect(leaderboardText([report], "markdown").split("\n")[0]).toBe("| Strategy | Pass^1 | Pass^2 | Avg reward | Cost | Infra errors |");
    expect(detailsText(report)).toMatch(new RegExp(`infra_error=${infra.length}`));
    expect(detailsText(report)).toMatch(new RegExp(`⚠ ${infra.length} episode\\(s\\) ended in infrastructure errors: left out of pass\\^k`));
    expect(reportJson(report)).toMatchObject({ infraErrors: infra.length, passK: { 1: 1, 2: 1 } });
    const perTask = report.perTask.find((task) => task.taskId === crashing[0])!;
    expect(perTask).toEqual({ taskId: crashing[0], trials: 2, successes: 0, averageReward: null, infraErrors: 2 });
    expect(perTaskText(report)).toMatch(/Infra errors/);

    // The results file keeps them, and `report` on it says the same.
    const fromFile = loadResultsFile(first.resultsPath);
    expect(fromFile.filter((entry) => entry.termination === "infra_error")).toHaveLength(infra.length);

    crash.on = false;
    const second = await runBatch(build());
    expect(second.rerunInfraErrors).toBe(infra.length);
    expect(second.ranEpisodes).toBe(infra.length);
    expect(second.resumedEpisodes).toBe(total - infra.length);
    expect(second.summaries).toHaveLength(total);
    expect(second.summaries.every((summary) => summary.termination !== "infra_error")).toBe(true);
    expect(second.metrics).toMatchObject({ passK: { 1: 1, 2: 1 }, infraErrors: 0, tasks: domain.tasks("test").length });

    const third = await runBatch(build());
    expect(third.ranEpisodes).toBe(0);
    expect(third.rerunInfraErrors).toBe(0);
  });

  it("an interrupted re-run keeps the old infra-error entries in the results", async () => {
    const domain = crashingLibrary({ on: true });
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-infra-"));
    const build = () => ({ ...buildRun({ env: "library", agentStrategy: "oracle", userStrategy: "scripted", logDir, quiet: true }), domain, tasks: domain.tasks("test") });
    const first = await runBatch(build());
    const controller = new AbortController();
    controller.abort();
    const second = await runBatch(build(), {}, controller.signal);
    expect(second.ranEpisodes).toBe(0);
    expect(second.summaries).toEqual(first.summaries);
  });
});

describe("CLI exit codes for infrastructure errors", () => {
  // The sources, not dist/ (which `npm run build` may not have refreshed).
  const KEY_ENV = "TAUBRIDGE_INFRA_TEST_KEY";
  let server: ScriptedModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const taubridge = (args: string[]) => runCli(args, { env: { [KEY_ENV]: "sk-infra-test" } });

  it("exits 3 while infra errors remain, shows them, and 0 once a resumed run re-ran them", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-cli-infra-"));
    server = await startScriptedModelServer({ scripts: { "agent-model": [{ error: { status: 503, retryAfter: 0 }, times: "unlimited" }] } });
    const args = (url: string) => [
      "run",
      "--env",
      "library",
      "--task-ids",
      "0",
      "1",
      "--model",
      "agent-model",
      "--model-provider",
      "openai-compatible",
      "--base-url",
      url,
      "--api-key-env",
      KEY_ENV,
      "--model-max-attempts",
      "1",
      "--log-dir",
      logDir,
    ];
    const failed = await taubridge([...args(server.baseURL), "--quiet"]);
    expect(failed.exitCode).toBe(3);
    expect(failed.stdout).toMatch(/Infra errors/);
    expect(failed.stdout).toMatch(/infra_error=2/);
    expect(failed.stderr.trim()).toBe("taubridge: 2 episode(s) ended in infrastructure errors (not scored); run the same command again to retry them (exit code 3)");
    const resultsPath = /Results saved to (.+\.json)/.exec(failed.stdout)![1];

    const report = await taubridge(["report", resultsPath, "--format", "json"]);
    expect(report.exitCode).toBe(0);
    expect(JSON.parse(report.stdout)).toMatchObject({ infraErrors: 2, terminations: { infra_error: 2 }, passK: { 1: null } });
    const rescored = await taubridge(["rescore", resultsPath, "--env", "library", "--format", "json"]);
    expect(rescored.exitCode).toBe(0);
    expect(JSON.parse(rescored.stdout)).toMatchObject({ total: 2, infraErrors: 2, passK: { 1: null } });

    await server.close();
    server = await startScriptedModelServer({ scripts: { "agent-model": [{ content: "Happy to help.", times: 2 }] } });
    // The new server listens on another port: a different base URL is a different run unless accepted.
    const refused = await taubridge([...args(server.baseURL), "--format", "json"]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/changed: --base-url\); --no-resume starts over, --accept-changes/);
    const resumed = await taubridge([...args(server.baseURL), "--format", "json", "--accept-changes"]);
    expect(resumed.stderr).toMatch(/resuming despite changes since the checkpoint \(--accept-changes\): --base-url/);
    expect(resumed.stderr).toMatch(/re-running 2 episode\(s\) that ended in infrastructure errors/);
    expect(resumed.exitCode).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ infraErrors: 0, episodes: 2 });
    expect(readFileSync(resultsPath, "utf8")).not.toContain('"infra_error"');
  });

  it("lists every exit code in --help", async () => {
    const help = await taubridge(["--help"]);
    expect(help.exitCode).toBe(0);
    for (const code of ["0", "1", "2", "3", "130"]) expect(help.stdout).toMatch(new RegExp(`^  ${code} +\\S`, "m"));
  });

  it("exits 2 for a usage error the option parser finds", async () => {
    const result = await taubridge(["run", "--num-trials", "two"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe('taubridge: --num-trials: expected an integer, got "two"');
  });
});
