/**
 * The run manifest in every results file taubridge writes (τ-bench: each entry's `taubridge` block
 * with its own task's definition hash; τ²: the file's block), read back by `report` and `compare`,
 * which say when two runs differ in more than the agent — here in the user's model, in the task set
 * and in the seed. No API key value set in the environment reaches a written file.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entryManifestText, entryWithManifest } from "../src/suites/tau-bench/codec.ts";
import { printedJson, pyJsonDumpsIndented } from "../src/value/index.ts";
import { startScriptedModelServer, type ScriptedModelServer } from "../src/testing/index.ts";
import { runCli, runTau2 } from "./support/cli.ts";
import { missingTau2Reason, tau2BenchDirectory } from "./support/shared-data.ts";
import type { RunManifest } from "../src/core/run-manifest.ts";

const SECRET = "sk-manifest-test-0123456789abcdefSECRET";
const LIBRARY_TASKS = new URL("../domains/library/data/tasks_test.json", import.meta.url);

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await startScriptedModelServer({ responder: () => ({ content: "Thanks, that is all. ###STOP###", usage: { prompt_tokens: 20, completion_tokens: 5 } }) });
});
afterAll(async () => {
  await server.close();
});

/** The one results file (not its `.meta.json`) a run wrote into `directory`. */
function resultsFileIn(directory: string): string {
  const names = readdirSync(directory).filter((name) => name.endsWith(".json") && !name.endsWith(".meta.json"));
  expect(names).toHaveLength(1);
  return join(directory, names[0]);
}

/** A τ-bench run of the library oracle agent with the LLM user on the scripted server. */
async function libraryRun(userModel: string, extra: string[] = []): Promise<string> {
  const logDir = mkdtempSync(join(tmpdir(), "taubridge-manifest-"));
  const result = await runCli(
    [
      "run",
      "--user-strategy",
      "llm",
      "--user-model",
      userModel,
      "--user-model-provider",
      "openai-compatible",
      "--user-base-url",
      server.baseURL,
      "--user-api-key-env",
      "MANIFEST_TEST_KEY",
      "--task-ids",
      "0",
      "6",
      "--log-dir",
      logDir,
      "--quiet",
      ...extra,
    ],
    { env: { MANIFEST_TEST_KEY: SECRET } },
  );
  expect(result.exitCode, result.stderr).toBe(0);
  return resultsFileIn(logDir);
}

describe("τ-bench results carry the run manifest", () => {
  let userA: string;
  let userB: string;
  let otherTasks: string;
  beforeAll(async () => {
    userA = await libraryRun("user-a");
    userB = await libraryRun("user-b");
    // The same task ids from a task file whose task 0 reads differently: another task set.
    const tasks = JSON.parse(readFileSync(LIBRARY_TASKS, "utf8")) as Array<{ instruction: string }>;
    tasks[0].instruction = `${tasks[0].instruction} You are in a hurry.`;
    const taskFile = join(mkdtempSync(join(tmpdir(), "taubridge-manifest-tasks-")), "tasks_changed.json");
    writeFileSync(taskFile, JSON.stringify(tasks));
    otherTasks = await libraryRun("user-a", ["--task-file", taskFile]);
  }, 300_000);

  it("writes it in every entry (schema 2), with that entry's task definition only and no secret", () => {
    const text = readFileSync(userA, "utf8");
    expect(text).not.toContain(SECRET);
    const entries = JSON.parse(text) as Array<{ task_id: number; taubridge: { schemaVersion: number; manifest: RunManifest } }>;
    expect(entries).toHaveLength(2);
    for (const entry of entries) {
      expect(entry.taubridge.schemaVersion).toBe(2);
      expect(Object.keys(entry.taubridge.manifest.taskDefinitions)).toEqual([String(entry.task_id)]);
      expect(entry.taubridge.manifest.taskDefinitions[String(entry.task_id)]).toMatch(/^[0-9a-f]{64}$/);
    }
    const manifest = entries[0].taubridge.manifest;
    expect(manifest).toMatchObject({
      manifestVersion: 1,
      suite: "tau-bench",
      domain: "library",
      dataCommit: null, // the bundled domain is no pinned dataset
      taskSet: { name: "library", split: "test" },
      agent: { strategy: "oracle", model: null },
      user: { strategy: "llm", model: "user-a", provider: "openai-compatible" },
      judge: null,
      seed: 10,
      numTrials: 1,
      settings: { maxSteps: 30 },
    });
    expect(manifest.taskSet.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.user.parameters.endpoint).toBe(server.baseURL);
    // The entries of a run share everything but their task definition.
    expect({ ...entries[1].taubridge.manifest, taskDefinitions: {} }).toEqual({ ...manifest, taskDefinitions: {} });
  });

  it("report reads it back (JSON) and says what differs besides the agent: the user's model", async () => {
    const single = await runCli(["report", userA, "--format", "json"]);
    expect(single.exitCode, single.stderr).toBe(0);
    const json = JSON.parse(single.stdout) as { manifest: RunManifest };
    expect(Object.keys(json.manifest.taskDefinitions).sort()).toEqual(["0", "6"]);
    expect(json.manifest.user.model).toBe("user-a");

    const both = await runCli(["report", userA, userB]);
    expect(both.exitCode, both.stderr).toBe(0);
    expect(both.stdout).toMatch(/differs from .* in more than the agent: user\.model \("user-a" → "user-b"\)/);
  });

  it("compare names a different user model and a different task set; the same configuration differs in nothing", async () => {
    const user = await runCli(["compare", userA, userB, "--format", "json"]);
    expect(user.exitCode, user.stderr).toBe(0);
    const userDifferences = (JSON.parse(user.stdout) as { candidates: Array<{ manifestDifferences: Array<{ field: string }> }> }).candidates[0].manifestDifferences;
    expect(userDifferences.map((difference) => difference.field)).toEqual(["user.model"]);

    const tasks = await runCli(["compare", userA, otherTasks, "--format", "json"]);
    expect(tasks.exitCode, tasks.stderr).toBe(0);
    const taskDifferences = (JSON.parse(tasks.stdout) as { candidates: Array<{ manifestDifferences: Array<{ field: string; candidate: string }> }> }).candidates[0].manifestDifferences;
    expect(taskDifferences.map((difference) => difference.field)).toEqual(["taskSet.name", "taskSet.sha256", "taskSet.split", "taskDefinitions"]);
    expect(taskDifferences[3].candidate).toBe("1 changed: 0");

    const text = await runCli(["compare", userA, otherTasks]);
    expect(text.stdout).toContain("⚠ the runs differ in more than the agent: taskSet.name");
    // Hashes are cut to 12 characters in the text (the JSON keeps them whole).
    expect(text.stdout).toMatch(/taskSet\.sha256 \("[0-9a-f]{12}…" → "[0-9a-f]{12}…"\)/);

    const same = await runCli(["compare", userA, userA, "--format", "json"]);
    expect((JSON.parse(same.stdout) as { candidates: Array<{ manifestDifferences: unknown[] }> }).candidates[0].manifestDifferences).toEqual([]);
  });
});

describe("an entry's manifest is spliced into its printed text", () => {
  it("gives the same bytes as printing the whole entry with the manifest", () => {
    const entry = { task_id: 3, reward: 1, info: { a: [1, 2] }, traj: [], trial: 0, taubridge: { schemaVersion: 2, termination: "user_stop", steps: [{ action: { name: "x" } }] } };
    const manifest = { manifestVersion: 1, suite: "tau-bench", taskDefinitions: { "3": "abc" }, settings: { maxSteps: 30 }, promptTemplates: {} } as unknown as RunManifest;
    const stamped = entryWithManifest(printedJson(entry, 2, 1), manifest, entryManifestText(manifest));
    const expected = pyJsonDumpsIndented([{ ...entry, taubridge: { ...entry.taubridge, manifest } }], 2);
    expect(pyJsonDumpsIndented([stamped], 2)).toBe(expected);
    // A resumed entry (a value read from a checkpoint, schema 1) gets it as a value, at the current schema.
    const resumed = entryWithManifest({ ...entry, taubridge: { ...entry.taubridge, schemaVersion: 1 } }, manifest, entryManifestText(manifest));
    expect(pyJsonDumpsIndented([resumed], 2)).toBe(expected);
  });
});

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

describe.skipIf(!data)("τ² results carry the run manifest in the file's block", () => {
  it("records the pinned data commit and τ²'s task hashes, and compare names a different seed", async () => {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-manifest-tau2-"));
    const run = async (seed: string) => {
      const saveTo = join(directory, `seed-${seed}.json`);
      const result = await runTau2(["--domain", "mock", "--agent", "oracle", "--user", "scripted", "--task-ids", "create_task_1", "update_task_1", "--seed", seed], {
        data: data as string,
        saveTo,
        env: { OPENAI_API_KEY: SECRET },
      });
      expect(result.exitCode, result.stderr).toBe(0);
      return saveTo;
    };
    const first = await run("300");
    const second = await run("301");
    const text = readFileSync(first, "utf8");
    expect(text).not.toContain(SECRET);
    const block = (JSON.parse(text) as { taubridge: { schemaVersion: number; manifest: RunManifest } }).taubridge;
    expect(block.schemaVersion).toBe(2);
    expect(block.manifest).toMatchObject({ suite: "tau2", domain: "mock", seed: 300, agent: { strategy: "oracle" }, user: { strategy: "scripted" }, taskSet: { name: "mock", split: "base" } });
    expect(block.manifest.dataCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(Object.keys(block.manifest.taskDefinitions).sort()).toEqual(["create_task_1", "update_task_1"]);
    expect(Object.keys(block.manifest.promptTemplates)).toContain("user.original");

    const compared = await runCli(["compare", first, second, "--format", "json"]);
    expect(compared.exitCode, compared.stderr).toBe(0);
    const differences = (JSON.parse(compared.stdout) as { candidates: Array<{ manifestDifferences: Array<{ field: string; baseline: string; candidate: string }> }> }).candidates[0]
      .manifestDifferences;
    expect(differences).toEqual([{ field: "seed", baseline: "300", candidate: "301" }]);
  }, 300_000);
});
