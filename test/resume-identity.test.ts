/**
 * Resume never mixes configurations: the checkpoint records the run's identity (every
 * outcome-deciding option, the content of the task set, data files, agent module, mapping file and
 * prompt templates, the taubridge version) and a re-run with any of them changed is refused with a
 * one-line error naming what changed — unless `--accept-changes` says so. On the bundled library
 * domain (no shared data, no model).
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { libraryDomain } from "../domains/library/index.ts";
import { ConfigError } from "../src/errors/error-tree.ts";
import { buildRun } from "./support/registries.ts";
import { runBatch } from "../src/suites/tau-bench/batch.ts";
import type { RunConfigInput } from "../src/suites/tau-bench/run-config.ts";
import { identityChanges, ResumeMismatchError } from "../src/run/run-identity.ts";
import { runIdentity } from "../src/suites/tau-bench/run-identity.ts";
import { runCli } from "./support/cli.ts";

const FUNCTION_AGENT = join(import.meta.dirname, "fixtures", "function-agent", "renewal-agent.mjs");
const LIBRARY_DATA = libraryDomain.bundledDataDirectory!;
const root = join(import.meta.dirname, "..");

function scratch(): string {
  return mkdtempSync(join(tmpdir(), "taubridge-identity-"));
}

type Overrides = Partial<RunConfigInput>;

/** A library run of task 2 with the oracle and the scripted user, changed by `config`. */
function input(config: Overrides): RunConfigInput {
  return { env: "library", agentStrategy: "oracle", userStrategy: "scripted", quiet: true, taskIds: [2], ...config };
}

async function run(config: Overrides) {
  return runBatch(buildRun(input(config)));
}

async function refusal(first: Overrides, second: Overrides, beforeSecond?: () => void): Promise<ResumeMismatchError> {
  await run(first);
  beforeSecond?.();
  const error = await run(second).catch((caught: unknown) => caught);
  expect(ResumeMismatchError.isInstance(error)).toBe(true);
  expect(ConfigError.isInstance(error)).toBe(true);
  return error as ResumeMismatchError;
}

describe("resume refuses a checkpoint written by a different run", () => {
  it("the task set: another --task-file (same run name) or the same file edited", async () => {
    const logDir = scratch();
    const tasks = JSON.parse(readFileSync(join(LIBRARY_DATA, "tasks_test.json"), "utf8")) as unknown[];
    const first = join(logDir, "first.json");
    const second = join(logDir, "second.json");
    writeFileSync(first, JSON.stringify(tasks));
    writeFileSync(second, JSON.stringify([...tasks].reverse()));
    const error = await refusal({ logDir, taskFile: first }, { logDir, taskFile: second });
    expect(error.changed).toEqual(["the task set"]);
    expect(error.message).toBe(
      `the checkpoint ${join(logDir, readdirSync(logDir).find((name) => name.endsWith(".checkpoint.jsonl"))!)} was written by a different run (changed: the task set); --no-resume starts over, --accept-changes keeps its finished episodes anyway`,
    );
    writeFileSync(first, JSON.stringify(tasks.slice(0, 5)));
    await expect(run({ logDir, taskFile: first })).rejects.toThrow(/changed: the task set/);
  });

  it("the data files", async () => {
    const logDir = scratch();
    const dataDir = join(scratch(), "library");
    cpSync(LIBRARY_DATA, dataDir, { recursive: true });
    const error = await refusal({ logDir, dataDir }, { logDir, dataDir }, () => writeFileSync(join(dataDir, "policy.md"), `${readFileSync(join(dataDir, "policy.md"), "utf8")}\nOne more rule.\n`));
    expect(error.changed).toEqual(["the data files"]);
  });

  it("the agent module (edited in place)", async () => {
    const logDir = scratch();
    const module = join(scratch(), "agent.mjs");
    cpSync(FUNCTION_AGENT, module);
    const config = { logDir, agentStrategy: "module", agentOptions: { module } };
    const error = await refusal(config, config, () => writeFileSync(module, `${readFileSync(module, "utf8")}\n// tuned\n`));
    expect(error.changed).toEqual(["the agent module"]);
  });

  it("an option that decides outcomes (--max-steps, --agent-option), but not one that does not (--num-trials, --max-concurrency)", async () => {
    const logDir = scratch();
    const error = await refusal({ logDir }, { logDir, maxSteps: 5 });
    expect(error.changed).toEqual(["--max-steps"]);
    const outcome = await run({ logDir, numTrials: 2, maxConcurrency: 3 });
    expect(outcome.resumedEpisodes).toBe(1);
    expect(outcome.ranEpisodes).toBe(1);
  });

  it("the prompt template, the mapping file and the taubridge version are part of the identity", () => {
    const built = buildRun({ env: "library", agentStrategy: "oracle", userStrategy: "scripted", quiet: true, logDir: scratch() });
    const template = join(scratch(), "prompt.md");
    const mapping = join(scratch(), "mapping.json");
    writeFileSync(template, "You are a librarian. {{policy}}");
    writeFileSync(mapping, JSON.stringify({ renames: {} }));
    const config = { ...built.config, agentPromptFile: template, agentOptions: { mapping } };
    const before = runIdentity(config, built.domain, built.taskFilePath);
    writeFileSync(template, "You are a helpful librarian. {{policy}}");
    writeFileSync(mapping, JSON.stringify({ renames: { lookup: "get_member_details" } }));
    const after = runIdentity(config, built.domain, built.taskFilePath);
    expect(identityChanges(before, after).changed).toEqual(["the mapping file", "the agent prompt template"]);
    expect(identityChanges({ ...before, taubridgeVersion: "0.0.1" }, before).changed).toEqual(["the taubridge version"]);
    expect(identityChanges(before, before)).toEqual({ changed: [], unverified: false });
  });

  it("--accept-changes resumes anyway, says what changed, and records the new identity", async () => {
    const logDir = scratch();
    await run({ logDir });
    const warnings: string[] = [];
    const accepted = await runBatch(buildRun(input({ logDir, maxSteps: 5, acceptChanges: true })), { warn: (message) => warnings.push(message) });
    expect(accepted.resumedEpisodes).toBe(1);
    expect(warnings).toEqual(["resuming despite changes since the checkpoint (--accept-changes): --max-steps"]);
    const again = await run({ logDir, maxSteps: 5 });
    expect(again.resumedEpisodes).toBe(1);
    await expect(run({ logDir })).rejects.toThrow(/changed: --max-steps/);
  });

  it("a run that fails at configuration time (a missing agent module) writes no checkpoint", async () => {
    const logDir = scratch();
    const built = buildRun({ env: "library", userStrategy: "scripted", quiet: true, logDir, agentStrategy: "module", agentOptions: { module: join(logDir, "missing.mjs") } });
    await expect(runBatch(built)).rejects.toThrow(/agent module not found/);
    expect(existsSync(logDir) ? (await import("node:fs")).readdirSync(logDir) : []).toEqual([]);
  });
});

describe("the command line", () => {
  it("exits 2 with the one-line refusal; says how many episodes were resumed even with --quiet", async () => {
    const logDir = scratch();
    const cli = (args: string[]) => runCli(["run", "--log-dir", logDir, "--quiet", ...args], { cwd: root });
    expect((await cli([])).exitCode).toBe(0);
    const resumed = await cli(["--num-trials", "2"]);
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stderr).toMatch(/^\[taubridge\] resumed 11 finished episodes, running 11 \(checkpoint .+\)$/m);
    const refused = await cli(["--max-steps", "3"]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr.trim()).toMatch(
      /^taubridge: the checkpoint .+ was written by a different run \(changed: --max-steps\); --no-resume starts over, --accept-changes keeps its finished episodes anyway$/,
    );
    expect((await cli(["--max-steps", "3", "--no-resume"])).exitCode).toBe(0);
  });
});
