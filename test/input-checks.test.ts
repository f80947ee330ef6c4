/**
 * Issue 9 item 4: bad input is caught at the door — results files of another domain are refused by
 * rescore and report, report checks a file on its own, every usage error of every subcommand
 * exits 2 with one line naming the flag, and `run --help` shows every default.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createProgram } from "../src/cli/main.ts";
import { RUN_FLAGS, type RunFlag } from "../src/run/run-flags.ts";
import { missingSharedReason, tauBenchDirectory, warnIfMissingShared } from "./support/shared-data.ts";
import { runCli } from "./support/cli.ts";

warnIfMissingShared();

const taubridge = runCli;

/** A τ-bench-shaped results entry (the original's fields only). */
function entry(taskId: number, trial: number, groundTruth: string[], agentCalls: string[], instruction = `task ${taskId}`) {
  return {
    task_id: taskId,
    reward: 0.0,
    info: { task: { user_id: "u", actions: groundTruth.map((name) => ({ name, kwargs: {} })), instruction, outputs: [] } },
    traj: [
      { role: "system", content: "policy" },
      { role: "user", content: "hi" },
      ...agentCalls.map((name, index) => ({
        role: "assistant",
        content: null,
        tool_calls: [{ id: `call_${index}`, type: "function", function: { name, arguments: "{}" } }],
      })),
    ],
    trial,
  };
}

function resultsFile(entries: unknown[]): string {
  const path = join(mkdtempSync(join(tmpdir(), "taubridge-check-")), "results.json");
  writeFileSync(path, JSON.stringify(entries, null, 2));
  return path;
}

describe("rescore and report refuse a results file of another domain", () => {
  it.skipIf(!tauBenchDirectory)(`rescore gpt-4o-airline.json --env retail exits 2 naming the file and the foreign tools${tauBenchDirectory ? "" : ` (${missingSharedReason})`}`, async () => {
    const file = join(tauBenchDirectory!, "historical_trajectories", "gpt-4o-airline.json");
    const expected =
      `taubridge: ${file} does not belong to --env retail: its tasks' ground-truth actions use tools retail does not have ` +
      "(book_reservation, cancel_reservation, get_reservation_details, search_direct_flight, send_certificate and 3 more)";
    const rescore = await taubridge(["rescore", file, "--env", "retail", "--data-dir", tauBenchDirectory!]);
    expect(rescore.exitCode).toBe(2);
    expect(rescore.stdout).toBe("");
    expect(rescore.stderr.trim()).toBe(expected);
    const report = await taubridge(["report", file, "--env", "retail", "--data-dir", tauBenchDirectory!]);
    expect(report.exitCode).toBe(2);
    expect(report.stderr.trim()).toBe(expected);
    // The right domain still reports (rescore on airline is covered by cli.test.ts).
    const right = await taubridge(["report", file, "--env", "airline", "--data-dir", tauBenchDirectory!, "--format", "json"]);
    expect(right.exitCode).toBe(0);
    expect(JSON.parse(right.stdout).episodes).toBe(200);
  });

  it("library: foreign ground truth, mostly foreign agent calls and unknown task ids are refused in one line", async () => {
    const retailLike = resultsFile([entry(0, 0, ["get_order_details", "cancel_pending_order"], ["get_order_details"])]);
    const foreignTruth = await taubridge(["rescore", retailLike, "--env", "library"]);
    expect(foreignTruth.exitCode).toBe(2);
    expect(foreignTruth.stderr.trim()).toBe(
      `taubridge: ${retailLike} does not belong to --env library: its tasks' ground-truth actions use tools library does not have (cancel_pending_order, get_order_details)`,
    );
    const report = await taubridge(["report", retailLike, "--env", "library"]);
    expect(report.exitCode).toBe(2);
    expect(report.stderr.trim()).toBe(foreignTruth.stderr.trim());

    // No recorded task (as in error entries): the agent's calls decide; one invented name among known ones is fine.
    const agentOnly = (calls: string[]) => resultsFile([{ ...entry(0, 0, [], calls), info: {} }]);
    const foreignCalls = agentOnly(["get_order_details", "get_user_details", "think"]);
    const refused = await taubridge(["rescore", foreignCalls, "--env", "library"]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr.trim()).toBe(`taubridge: ${foreignCalls} does not belong to --env library: its agent called tools library does not have (get_order_details, get_user_details)`);
    const oneInvented = await taubridge(["rescore", agentOnly(["get_member_details", "search_catalog", "look_up_everything"]), "--env", "library", "--format", "json"]);
    expect(oneInvented.exitCode).toBe(0);

    const beyondSplit = resultsFile([entry(4, 0, ["get_member_details"], []), entry(40, 0, ["get_member_details"], []), entry(12, 0, [], [])]);
    const ids = await taubridge(["rescore", beyondSplit, "--env", "library"]);
    expect(ids.exitCode).toBe(2);
    expect(ids.stderr.trim()).toBe(`taubridge: ${beyondSplit} does not belong to --env library: task id(s) 12, 40 are not in library's test split (11 tasks)`);
  });

  it("a library run's own results pass both checks", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-check-"));
    const run = await taubridge(["run", "--task-ids", "0", "3", "--num-trials", "2", "--log-dir", logDir, "--quiet"]);
    const resultsPath = /Results saved to (.+\.json)/.exec(run.stdout)![1];
    const rescore = await taubridge(["rescore", resultsPath, "--env", "library", "--format", "json"]);
    expect(rescore.exitCode).toBe(0);
    expect(JSON.parse(rescore.stdout)).toMatchObject({ total: 4, agree: 4 });
    const report = await taubridge(["report", resultsPath, "--env", "library", "--format", "json"]);
    expect(report.exitCode).toBe(0);
    expect(JSON.parse(report.stdout).passK).toEqual({ "1": 1, "2": 1 });
  });

  it("report without --env checks a file on its own: one entry per (task, trial), one task per id", async () => {
    const duplicated = resultsFile([entry(0, 0, [], []), entry(1, 0, [], []), entry(0, 0, [], [])]);
    const duplicate = await taubridge(["report", duplicated]);
    expect(duplicate.exitCode).toBe(2);
    expect(duplicate.stderr.trim()).toBe(`taubridge: ${duplicated}: entries 0 and 2 are both task 0 trial 0; is it several runs' results in one file?`);
    const mixed = resultsFile([entry(0, 0, [], [], "Return my order"), entry(0, 1, [], [], "Change my flight")]);
    const twoTasks = await taubridge(["report", mixed]);
    expect(twoTasks.exitCode).toBe(2);
    expect(twoTasks.stderr.trim()).toBe(`taubridge: ${mixed}: entries 0 and 1 record different tasks under task id 0; is it results of different domains or splits in one file?`);
  });
});

/** [arguments, the exact stderr line] of usage errors; each exits 2. */
const USAGE_ERRORS: Array<[string[], string]> = [
  [["run", "--num-trial", "2"], "taubridge: unknown option '--num-trial' (did you mean --num-trials?); see taubridge run --help"],
  [["run", "--num-trials"], "taubridge: option '--num-trials <n>' argument missing; see taubridge run --help"],
  [["run", "--format", "xml"], 'taubridge: --format: must be one of text, json, markdown, got "xml"'],
  [["run", "--bridge-mode", "inside"], 'taubridge: --bridge-mode: must be one of internal, decision-only, dry-run, got "inside"'],
  [["run", "--num-trials", "0"], "taubridge: --num-trials: must be between 1 and 10000, got 0"],
  [["run", "extra"], "taubridge: too many arguments for 'run'. Expected 0 arguments but got 1; see taubridge run --help"],
  [["report", "x.json", "--per-tsk"], "taubridge: unknown option '--per-tsk' (did you mean --per-task?); see taubridge report --help"],
  [["report", "x.json", "--format"], "taubridge: option '--format <format>' argument missing; see taubridge report --help"],
  [["report", "x.json", "--format", "xml"], "taubridge: option '--format <format>' argument 'xml' is invalid. Allowed choices are text, json, markdown; see taubridge report --help"],
  [["report"], "taubridge: missing required argument 'results'; see taubridge report --help"],
  [["rescore", "x.json", "--env", "retail", "--detail"], "taubridge: unknown option '--detail' (did you mean --details?); see taubridge rescore --help"],
  [["rescore", "x.json", "--env"], "taubridge: option '--env <domain>' argument missing; see taubridge rescore --help"],
  [
    ["rescore", "x.json", "--env", "retail", "--format", "markdown"],
    "taubridge: option '--format <format>' argument 'markdown' is invalid. Allowed choices are text, json; see taubridge rescore --help",
  ],
  [["rescore", "x.json"], "taubridge: cannot read x.json: no such file"],
  [["rescore", "test/fixtures/results/v1/library-test-oracle-none-0.0_ids_0-6_user-none-scripted.json"], "taubridge: rescore needs --env <domain> for a τ-bench results file"],
  [["replay", "--env", "library", "--actions", "a.json", "--data-dr", "d"], "taubridge: unknown option '--data-dr' (did you mean --data-dir?); see taubridge replay --help"],
  [["replay", "--env", "library", "--actions"], "taubridge: option '--actions <file>' argument missing; see taubridge replay --help"],
  [
    ["replay", "--env", "library", "--actions", "a.json", "--format", "yaml"],
    "taubridge: option '--format <format>' argument 'yaml' is invalid. Allowed choices are json, text; see taubridge replay --help",
  ],
  [["data", "pull", "tau-bench", "--cach-dir", "d"], "taubridge: unknown option '--cach-dir' (did you mean --cache-dir?); see taubridge data pull --help"],
  [["data", "import", "checkout", "--cache-dir"], "taubridge: option '--cache-dir <dir>' argument missing; see taubridge data import --help"],
  [["data", "pull", "tau-bench2"], 'taubridge: Unknown dataset "tau-bench2"; known: tau-bench, tau2-bench'],
  [["data", "fetch"], "taubridge: unknown command 'fetch'; see taubridge data --help"],
  [["testing", "serve", "--script", "s.json", "--prot", "1"], "taubridge: unknown option '--prot' (did you mean --port?); see taubridge testing serve --help"],
  [["testing", "serve", "--script"], "taubridge: option '--script <file>' argument missing; see taubridge testing serve --help"],
  [
    ["testing", "serve", "--script", "s.json", "--port", "http"],
    "taubridge: option '--port <n>' argument 'http' is invalid. expected an integer port between 0 and 65535; see taubridge testing serve --help",
  ],
  [["strategies", "--all"], "taubridge: unknown option '--all'; see taubridge strategies --help"],
  [["rerun"], "taubridge: unknown command 'rerun' (did you mean run?); see taubridge --help"],
];

describe("usage errors exit 2 with one line naming the flag", () => {
  it.each(USAGE_ERRORS)("taubridge %j", async (args, line) => {
    const result = await taubridge(args);
    expect(result.stderr.trim()).toBe(line);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
  });
});

describe("run --help shows every default", () => {
  it("every flag of the table has a default or says what happens without it", () => {
    const silent = (RUN_FLAGS as readonly RunFlag[]).filter((flag) => flag.default === undefined && flag.defaultHelp === undefined).map((flag) => flag.flag);
    expect(silent).toEqual([]);
  });

  it("prints them, the per-domain task split included", () => {
    const run = createProgram(async () => {
      throw new Error("not needed for help");
    }).commands.find((command) => command.name() === "run")!;
    const raw = run.helpInformation();
    const help = raw.replace(/\s+/g, " ");
    // One entry per option: its first line starts with "  -", continuation lines are indented further.
    const entries = raw.split(/\n(?= {2}-)/).map((text) => text.replace(/\s+/g, " ").trim());
    expect(help).toContain(
      "--task-split <split> task split (τ-bench: test, train, dev; airline has only test. τ²: base, train, test; telecom also small, full) (default: τ-bench: the domain's default split, test; τ²: base)",
    );
    expect(help).toContain("--num-trials <n> trials per task (pass^k needs k ≤ trials) (default: 1)");
    expect(help).toContain(
      "--model-provider <name> agent model provider: openai, anthropic, gemini, azure, deepseek, mistral, groq, together_ai, fireworks_ai, xai, openrouter, bedrock, vllm, ollama, llamacpp, lmstudio, or openai-compatible (any server) (default: openai; τ²: from the litellm prefix or model name, openai-compatible with a base URL)",
    );
    expect(help).toContain("--shuffle shuffle the task order each trial [τ-bench only] (default: off)");
    expect(help).toContain("--max-steps <n> budget per episode (τ-bench: agent turns; τ²: hops) (default: τ-bench 30, τ² 200)");
    for (const flag of RUN_FLAGS) {
      const names = "short" in flag && flag.short ? `${flag.short}, ${flag.flag}` : flag.flag;
      const option = entries.find((text) => text.startsWith(`${names} `));
      expect(option, flag.flag).toContain("(default: ");
    }
  });
});
