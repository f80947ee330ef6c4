/**
 * Frozen τ² results files of schema version 1 (`test/fixtures/tau2-results/v1/`, see its README):
 * they keep loading, reporting the same metrics, rescoring in agreement and resuming with nothing
 * left to run. A results-format change adds `v2/` instead of regenerating these.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tau2Registries } from "../support/tau2-registries.ts";
import { loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import { rescoreTau2Results } from "../../src/suites/tau2/rescore.ts";
import {
  TAU2_RESULTS_SCHEMA_VERSION,
  checkpointEntry,
  printedSimulationText,
  readTau2Checkpoint,
  readTau2Results,
  resultsText,
  simulationMetrics,
  simulationToJson,
  tau2CheckpointPath,
  tau2CheckpointWriter,
} from "../../src/suites/tau2/codec.ts";
import { TAU2_RUN_DEFAULTS, buildTau2Run } from "../../src/suites/tau2/build.ts";
import { writtenSimulation } from "../../src/suites/tau2/batch.ts";
import { rawTau2Task, readTau2Tasks, validateTau2Tasks } from "../../src/suites/tau2/tasks.ts";
import { type PyDict, parsePythonJson, pyJsonDumpsIndented, pyJsonDumpsLine } from "../../src/value/index.ts";
import { tau2MockDomain } from "../../domains/tau2-mock/index.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";

const file = fileURLToPath(new URL("../fixtures/tau2-results/v1/mock-oracle-3-tasks-2-trials.json", import.meta.url));
const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

/**
 * The fixture leaves out the upstream authors' text (policy, user guidelines, tasks), which the
 * project never contains; this puts it back from the data directory, as the run had it.
 */
function materialize(): string {
  const text = readFileSync(file, "utf8");
  const document = parsePythonJson(text) as PyDict;
  const info = document.get("info") as PyDict;
  const policy = readFileSync(join(data as string, "mock", "policy.md"), "utf8");
  (info.get("environment_info") as PyDict).set("policy", policy);
  (info.get("user_info") as PyDict).set("global_simulation_guidelines", readFileSync(join(data as string, "user_simulator", "simulation_guidelines.md"), "utf8"));
  const raw = new Map(readTau2Tasks(join(data as string, "mock", "tasks.json")).map((task) => [task.id, rawTau2Task(task) as PyDict]));
  document.set(
    "tasks",
    (document.get("tasks") as PyDict[]).map((task) => raw.get(task.get("id") as string) as PyDict),
  );
  for (const simulation of document.get("simulations") as PyDict[]) simulation.set("policy", policy);
  const copy = join(mkdtempSync(join(tmpdir(), "tau2-v1-")), "results.json");
  writeFileSync(copy, pyJsonDumpsIndented(document));
  return copy;
}

describe("frozen τ² results, schema version 1", () => {
  const results = readTau2Results(file);

  it("loads at schema version 1 with τ²'s fields and reports the same metrics", () => {
    expect(results.taubridge?.get("schemaVersion")).toBe(1);
    expect(results.simulations).toHaveLength(6);
    const metrics = simulationMetrics(results.simulations);
    expect(metrics.averageReward).toBeCloseTo(2 / 3, 10);
    expect(metrics.passK).toEqual({ 1: 2 / 3, 2: 2 / 3 });
    expect(results.tasks.map((task) => task.get("id")).sort()).toEqual(["create_task_1", "update_task_with_message_history", "update_task_with_user_tools"]);
  });

  it("writes each simulation's checkpoint line and results-file text as a fresh print would", () => {
    for (const simulation of results.simulations) {
      expect(pyJsonDumpsLine({ type: "episode", entry: checkpointEntry(simulation) })).toBe(pyJsonDumpsLine({ type: "episode", entry: simulationToJson(simulation) }));
    }
    const document = { timestamp: "t", info: {}, tasks: results.tasks, simulations: results.simulations, taubridge: {} };
    expect(resultsText(document)).toBe(
      pyJsonDumpsIndented({
        timestamp: "t",
        info: {},
        tasks: results.tasks,
        simulations: results.simulations.map(simulationToJson),
        simulation_index: null,
        taubridge: { schemaVersion: TAU2_RESULTS_SCHEMA_VERSION, suite: "tau2-bench" },
      }),
    );
  });

  it("writes a policy once per checkpoint and reads every simulation back as it was printed", () => {
    const [first, second] = results.simulations;
    const long = `# Policy\n${'Say "yes" — ünïcode, then\ttabs.\n'.repeat(200)}`;
    const simulations = [
      { ...first, policy: long },
      { ...second, policy: long },
      { ...first, policy: "another policy" },
      { ...second, policy: null },
      { ...first, policy: long },
    ];
    const resultsPath = join(mkdtempSync(join(tmpdir(), "tau2-checkpoint-")), "results.json");
    const writer = tau2CheckpointWriter(resultsPath);
    writer.open({ resultsFile: resultsPath }, true);
    for (const simulation of simulations) writer.append(simulation);
    writer.close();
    const lines = readFileSync(tau2CheckpointPath(resultsPath), "utf8").trimEnd().split("\n");
    // header, policy, episode, episode, policy, episode, episode (no policy), policy, episode
    expect(lines.map((line) => (JSON.parse(line) as { type: string }).type)).toEqual(["run", "policy", "episode", "episode", "policy", "episode", "episode", "policy", "episode"]);
    expect(lines.filter((line) => line.includes('Say \\"yes\\"')).length).toBe(2);
    const read = readTau2Checkpoint(resultsPath);
    expect(read.map((simulation) => simulation.policy)).toEqual(simulations.map((simulation) => simulation.policy));
    expect(read.map(printedSimulationText)).toEqual(simulations.map((simulation) => pyJsonDumpsIndented(simulationToJson(simulation), 2, 2)));
  });

  it("redacts a simulation's policy as the rest of it, the same for every simulation of a run", () => {
    const [first, second] = results.simulations;
    const secrets = ["known-secret-value"];
    const policy = "Call with sk-abcdefghijklmnopqrstuvwx or known-secret-value.";
    const message = { ...first.messages[0], content: "here: known-secret-value" } as (typeof first.messages)[number];
    const written = [writtenSimulation({ ...first, policy, messages: [message] }, secrets), writtenSimulation({ ...second, policy }, secrets), writtenSimulation({ ...second, policy: null }, secrets)];
    expect(written.map((simulation) => simulation.policy)).toEqual(["Call with [REDACTED] or [REDACTED].", "Call with [REDACTED] or [REDACTED].", null]);
    expect((written[0].messages[0] as { content: string }).content).toBe("here: [REDACTED]");
    expect(Object.keys(written[0])).toEqual(Object.keys(first));
    expect(writtenSimulation({ ...first, policy: "another: known-secret-value" }, ["other-secret-value"]).policy).toBe("another: known-secret-value");
  });

  it.skipIf(!data)("rescores in agreement and resumes with nothing left to run", async () => {
    const copy = materialize();
    const restored = readTau2Results(copy);
    const domain = loadTau2Domain(tau2MockDomain, data as string);
    const tasks = new Map(validateTau2Tasks(restored.tasks, copy).map((task) => [task.id, task]));
    const report = await rescoreTau2Results(domain, restored, tasks);
    expect(report.agree).toBe(6);
    const run = await buildTau2Run(
      {
        ...TAU2_RUN_DEFAULTS,
        domain: "mock",
        agent: "oracle",
        user: "scripted",
        agentLlm: "gpt-4.1-2025-04-14",
        userLlm: "gpt-4.1-2025-04-14",
        agentLlmArgs: { temperature: 0.0 },
        userLlmArgs: { temperature: 0.0 },
        numTrials: 2,
        taskIds: ["create_task_1", "update_task_with_user_tools", "update_task_with_message_history"],
        timeout: null,
        dataDir: data as string,
        saveTo: copy,
      },
      tau2Registries,
    );
    expect(run.resumed.size).toBe(6);
    expect(run.units).toHaveLength(6);
    expect(run.units.every((unit) => run.resumed.has(`${unit.task.id}\u0000${unit.trial}`))).toBe(true);
  });
});
