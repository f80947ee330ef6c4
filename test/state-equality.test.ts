/**
 * The evaluator decides "end state = ground-truth state" without hashing the end state
 * (`EpisodeDatabase.sameStateAs`). It must agree with τ-bench's hash comparison in every case:
 * checked on every prefix of every task's ground truth against the full ground truth, on the
 * bundled domain and (with the shared data) on retail and airline.
 */
import { describe, expect, it } from "vitest";
import { libraryDomain } from "../domains/library/index.ts";
import { retailDomain } from "../domains/retail/index.ts";
import { airlineDomain } from "../domains/airline/index.ts";
import type { DomainDefinition } from "../src/core/contracts.ts";
import type { Task } from "../src/core/types.ts";
import { loadDomain, type LoadedDomain } from "../src/suites/tau-bench/engine/domain.ts";
import { Environment } from "../src/suites/tau-bench/engine/environment.ts";
import { tauBenchDirectory, warnIfMissingShared } from "./support/shared-data.ts";

warnIfMissingShared();

function replay(domain: LoadedDomain, task: Task, count: number): Environment {
  const environment = new Environment(domain);
  for (const action of task.actions.slice(0, count)) {
    if (domain.definition.terminateTools.includes(action.name) || !domain.toolsByName.has(action.name)) continue;
    environment.step(action);
  }
  return environment;
}

function checkDomain(definition: DomainDefinition, dataRoot: string | undefined, split: string): { compared: number; equal: number } {
  const domain = loadDomain(definition, dataRoot);
  let compared = 0;
  let equal = 0;
  for (const task of domain.tasks(split)) {
    const full = replay(domain, task, task.actions.length);
    for (let count = 0; count <= task.actions.length; count++) {
      const partial = replay(domain, task, count);
      const byHash = partial.dataHash() === full.dataHash();
      expect(partial.db.sameStateAs(full.db)).toBe(byHash);
      expect(full.db.sameStateAs(partial.db)).toBe(byHash);
      compared++;
      if (byHash) equal++;
    }
  }
  return { compared, equal };
}

describe("state equality without hashing agrees with the τ-bench hash", () => {
  it("library: every ground-truth prefix against the full ground truth", () => {
    const { compared, equal } = checkDomain(libraryDomain, undefined, "test");
    expect(compared).toBeGreaterThan(40);
    expect(equal).toBeGreaterThan(0);
    expect(equal).toBeLessThan(compared);
  });

  const shared = tauBenchDirectory;
  it.skipIf(!shared)("retail and airline test splits (shared data)", () => {
    const root = shared!;
    for (const [definition, split] of [
      [retailDomain, "test"],
      [airlineDomain, "test"],
    ] as const) {
      const { compared, equal } = checkDomain(definition, root, split);
      expect(compared).toBeGreaterThan(100);
      expect(equal).toBeLessThan(compared);
    }
  });
});
