import { join } from "node:path";
import { loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import { readTau2Tasks } from "../../src/suites/tau2/tasks.ts";
import { tau2MockDomain } from "../../domains/tau2-mock/index.ts";
import { describeWithTau2Data, missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";
import { itMatchesTheReferenceFixtures } from "./fixture-checks.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

describeWithTau2Data("τ² mock domain against the reference fixtures", () => {
  const domain = loadTau2Domain(tau2MockDomain, data as string);
  const tasks = new Map(readTau2Tasks(join(data as string, "mock", "tasks.json")).map((task) => [task.id, task]));

  itMatchesTheReferenceFixtures("mock", data as string, tau2MockDomain, domain, tasks);
});
