/**
 * Issue 29, resume and results files: the default results of a run are named by the run, so running
 * the same command again resumes (τ²'s `tau2 run` without `--save-to` too: what exit 130 and
 * `--help` promise); the name includes the agent module, so two agents' runs with the same flags
 * keep apart; and `--no-resume` never overwrites another run's results without a word (they are set
 * aside, and a line says where).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./support/cli.ts";
import { missingTau2Reason, tau2BenchDirectory } from "./support/shared-data.ts";

const FIXTURES = join(import.meta.dirname, "fixtures");
const RENEWAL = join(FIXTURES, "function-agent", "renewal-agent.mjs");
const DO_NOTHING = join(FIXTURES, "tau2", "do-nothing-agent.mjs");
const scratch = (prefix: string) => mkdtempSync(join(tmpdir(), `taubridge-${prefix}-`));

const resultsFiles = (directory: string) => readdirSync(directory).filter((name) => name.endsWith(".json") && !name.endsWith(".meta.json"));

describe("τ-bench: the results name includes the agent module", () => {
  it("two agents' runs with the same flags keep their own results; each reruns into its own", async () => {
    const logDir = scratch("names");
    const run = (module: string) => runCli(["run", "--agent-strategy", "module", "--agent-module", module, "--task-ids", "2", "--log-dir", logDir, "--quiet"]);
    const first = await run(RENEWAL);
    expect(first.exitCode, first.stderr).toBe(0);
    const second = await run(DO_NOTHING);
    expect(second.exitCode, second.stderr).toBe(0);
    const files = resultsFiles(logDir).sort();
    expect(files).toHaveLength(2);
    expect(files.some((name) => name.includes("renewal-agent"))).toBe(true);
    expect(files.some((name) => name.includes("do-nothing-agent"))).toBe(true);
    const again = await run(RENEWAL);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/resumed 1 finished episodes/);
    expect(resultsFiles(logDir)).toHaveLength(2);
  }, 180_000);

  it("--no-resume over another run's results (same name, another --max-steps) sets them aside and says where", async () => {
    const logDir = scratch("no-resume");
    const run = (extra: string[]) => runCli(["run", "--agent-strategy", "module", "--agent-module", RENEWAL, "--task-ids", "2", "--log-dir", logDir, "--quiet", ...extra]);
    expect((await run([])).exitCode).toBe(0);
    const [file] = resultsFiles(logDir);
    const before = readFileSync(join(logDir, file), "utf8");
    const replaced = await run(["--max-steps", "5", "--no-resume"]);
    expect(replaced.exitCode, replaced.stderr).toBe(0);
    expect(replaced.stderr).toMatch(/--no-resume: .* held the results of another run \(changed: --max-steps\); moved .* to .*\.replaced-/);
    const kept = readdirSync(logDir).find((name) => name.startsWith(`${file}.replaced-`));
    expect(kept, readdirSync(logDir).join(", ")).toBeDefined();
    expect(readFileSync(join(logDir, kept as string), "utf8")).toBe(before);
    // The same run again with --no-resume starts over in place: nothing more is set aside.
    const setAside = () => readdirSync(logDir).filter((name) => name.includes(".replaced-")).length;
    const count = setAside();
    const again = await run(["--max-steps", "5", "--no-resume"]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/held the results of another run/);
    expect(setAside()).toBe(count);
  }, 180_000);
});

describe.skipIf(!tau2BenchDirectory)(`τ²: tau2 run without --save-to${tau2BenchDirectory ? "" : ` (${missingTau2Reason})`}`, () => {
  const data = tau2BenchDirectory as string;

  it("names its results by the run, so the same command again resumes them", async () => {
    const cwd = scratch("tau2-default");
    const args = ["tau2", "run", "--domain", "mock", "--task-ids", "create_task_1", "--agent", "oracle", "--user", "scripted", "--data-dir", data];
    const first = await runCli(args, { cwd });
    expect(first.exitCode, first.stderr).toBe(0);
    const folders = readdirSync(join(cwd, "simulations"));
    expect(folders).toHaveLength(1);
    expect(folders[0]).not.toMatch(/^\d{8}_\d{6}/); // not named by the time
    const second = await runCli(args, { cwd });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/resumed 1 finished/);
    expect(readdirSync(join(cwd, "simulations"))).toEqual(folders);
  }, 180_000);

  it("another agent module gets its own default results", async () => {
    const cwd = scratch("tau2-modules");
    const run = (module: string) =>
      runCli(["tau2", "run", "--domain", "mock", "--task-ids", "create_task_1", "--agent", "module", "--agent-module", module, "--user", "scripted", "--data-dir", data, "--quiet"], { cwd });
    expect((await run(DO_NOTHING)).exitCode).toBe(0);
    const other = await run(RENEWAL);
    expect(other.exitCode === 0 || other.exitCode === 3, other.stderr).toBe(true);
    const folders = readdirSync(join(cwd, "simulations"));
    expect(folders).toHaveLength(2);
    expect(folders.some((name) => name.includes("do-nothing-agent"))).toBe(true);
  }, 180_000);

  it("--no-resume over another run's results.json sets them aside and says where", async () => {
    const saveTo = join(scratch("tau2-no-resume"), "results.json");
    const args = ["tau2", "run", "--domain", "mock", "--task-ids", "create_task_1", "--agent", "oracle", "--user", "scripted", "--data-dir", data, "--save-to", saveTo, "--quiet"];
    expect((await runCli(args)).exitCode).toBe(0);
    const before = readFileSync(saveTo, "utf8");
    const replaced = await runCli([...args, "--max-steps", "50", "--no-resume"]);
    expect(replaced.exitCode, replaced.stderr).toBe(0);
    expect(replaced.stderr).toMatch(/--no-resume: .* held the results of another run \(changed: --max-steps\); moved .* to .*\.replaced-/);
    const directory = join(saveTo, "..");
    const kept = readdirSync(directory).find((name) => name.startsWith("results.json.replaced-"));
    expect(kept).toBeDefined();
    expect(readFileSync(join(directory, kept as string), "utf8")).toBe(before);
    expect(existsSync(saveTo)).toBe(true);
  }, 180_000);
});
