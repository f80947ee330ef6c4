/**
 * A worker's build of a τ² run (`buildTau2EpisodeParts`, `--workers` / `--queue`): once a build
 * validated every task of the same selection of the same file (the coordinator's, or the worker's
 * first), a worker parses only the tasks its units ask for; its tasks, its judge check and its
 * errors are those of a run's build (a changed file is checked whole again).
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildTau2EpisodeParts, buildTau2Run, TAU2_RUN_DEFAULTS, type Tau2RunOptions } from "../../src/suites/tau2/build.ts";
import { tau2BenchDirectory } from "../support/shared-data.ts";
import { tau2Registries } from "../support/tau2-registries.ts";

const data = tau2BenchDirectory;

/** A data root with τ²'s files, its mock domain a copy whose tasks this test may change. */
function dataRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "tau2-worker-build-"));
  for (const name of readdirSync(data as string)) {
    if (name === "mock") cpSync(join(data as string, "mock"), join(root, "mock"), { recursive: true });
    else symlinkSync(join(data as string, name), join(root, name));
  }
  return root;
}

/** Rewrites the mock task file (a copy) with `change` applied to its parsed tasks. */
function changeTasks(root: string, change: (tasks: Array<Record<string, unknown>>) => void): void {
  const path = join(root, "mock", "tasks.json");
  const tasks = JSON.parse(readFileSync(path, "utf8")) as Array<Record<string, unknown>>;
  change(tasks);
  writeFileSync(path, JSON.stringify(tasks, null, 2));
}

describe.skipIf(!data)("a worker's build of a τ² run", () => {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = mkdtempSync(join(tmpdir(), "tau2-worker-build-derived-"));
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
    else process.env.TAUBRIDGE_DERIVED_CACHE_DIR = saved;
  });

  const optionsFor = (root: string): Tau2RunOptions => ({
    ...TAU2_RUN_DEFAULTS,
    domain: "mock",
    agent: "oracle",
    user: "scripted",
    agentLlm: "x",
    userLlm: "x",
    agentLlmArgs: {},
    userLlmArgs: {},
    timeout: null,
    dataDir: root,
    saveTo: join(mkdtempSync(join(tmpdir(), "tau2-worker-build-out-")), "results.json"),
  });

  it("gives the run's tasks by id, before and after the selection was checked, and nothing for another id", async () => {
    const options = optionsFor(dataRoot());
    const first = await buildTau2EpisodeParts(options, tau2Registries); // nothing checked yet: every task validated
    expect(readdirSync(join(process.env.TAUBRIDGE_DERIVED_CACHE_DIR as string, "tau2-checked-selection"))).toHaveLength(1);
    const run = await buildTau2Run(options, tau2Registries);
    run.lock.release();
    const later = await buildTau2EpisodeParts(options, tau2Registries); // checked: parsed as asked
    expect(run.taskSet.tasks.length).toBeGreaterThan(1);
    for (const task of run.taskSet.tasks) {
      expect(first.task(task.id)).toEqual(task);
      expect(later.task(task.id)).toEqual(task);
    }
    expect(later.task("not_a_task")).toBeUndefined();
  });

  it("checks a changed task file whole again: an invalid selected task fails the build as a run's build fails", async () => {
    const root = dataRoot();
    const options = optionsFor(root);
    await buildTau2EpisodeParts(options, tau2Registries);
    changeTasks(root, (tasks) => {
      (tasks.at(-1) as Record<string, unknown>).user_scenario = 3;
    });
    const run = await buildTau2Run(options, tau2Registries).catch((error: Error) => error);
    const worker = await buildTau2EpisodeParts(options, tau2Registries).catch((error: Error) => error);
    expect(run).toBeInstanceOf(Error);
    expect(worker).toBeInstanceOf(Error);
    expect((worker as Error).message).toBe((run as Error).message);
    expect((worker as Error).message).toMatch(/field user_scenario/);
  });

  it("refuses a selection that needs τ²'s judge without one, with the run's message, checked or not", async () => {
    const root = dataRoot();
    changeTasks(root, (tasks) => {
      const last = tasks.at(-1) as { evaluation_criteria?: Record<string, unknown> };
      last.evaluation_criteria = { ...(last.evaluation_criteria ?? {}), reward_basis: ["NL_ASSERTION"], nl_assertions: ["the agent was polite"] };
    });
    const options = optionsFor(root);
    const unchecked = await buildTau2EpisodeParts(options, tau2Registries).catch((error: Error) => error); // validates all, records the selection
    const checked = await buildTau2EpisodeParts(options, tau2Registries).catch((error: Error) => error); // from the recorded judged ids
    const run = await buildTau2Run(options, tau2Registries).catch((error: Error) => error);
    expect(run).toBeInstanceOf(Error);
    expect((run as Error).message).toMatch(/scored by τ²'s NL-assertion judge/);
    expect((unchecked as Error).message).toBe((run as Error).message);
    expect((checked as Error).message).toBe((run as Error).message);
  });
});
