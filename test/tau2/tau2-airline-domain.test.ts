import { join } from "node:path";
import { describe, it } from "vitest";
import { loadTau2Domain } from "../../src/engine/tau2/domain.ts";
import { readTau2Tasks } from "../../src/tasks/tau2-tasks.ts";
import { type PyDict, type PyValue } from "../../src/value/index.ts";
import { tau2AirlineDomain } from "../../domains/tau2-airline/index.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";
import { checkGroundTruthReplay, checkToolProbes, expectNoProblems, readFixture } from "./fixture-checks.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

describe.skipIf(!data)("τ² airline domain against the reference fixtures", () => {
  const domain = loadTau2Domain(tau2AirlineDomain, data as string);
  const tasks = new Map(readTau2Tasks(join(data as string, "airline", "tasks.json")).map((task) => [task.id, task]));

  it("replays every ground-truth action with the original's results, error flags and hashes", () => {
    const fixture = readFixture(data as string, "gt_replay_airline.json");
    const entries = (fixture.get("sets") as PyDict).get("tasks") as PyValue[];
    expectNoProblems(entries.flatMap((entry) => checkGroundTruthReplay(domain, tasks.get((entry as PyDict).get("id") as string)!, entry as PyDict)));
  });

  it("answers every tool probe as the original does", () => {
    expectNoProblems(checkToolProbes(domain, tasks, readFixture(data as string, "tool_probes_airline.json")));
  });
});
