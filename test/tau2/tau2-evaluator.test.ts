import { describe, expect, it } from "vitest";
import { type LoadedTau2Domain, loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import type { Tau2NlJudge } from "../../src/suites/tau2/judge.ts";
import { evaluateTau2Simulation } from "../../src/suites/tau2/evaluator.ts";
import { type Tau2TerminationReason, messageFromJson } from "../../src/suites/tau2/simulation.ts";
import type { Tau2Task } from "../../src/suites/tau2/tasks.ts";
import { PyException, type PyDict, type PyValue, pyJsonDumps, pyJsonDumpsLine } from "../../src/value/index.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";
import { FIXTURE_DOMAINS, fixtureTasks } from "./domains.ts";
import { readFixture } from "./fixture-checks.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

const stubJudge: Tau2NlJudge = {
  judge: async (_messages, assertions) => assertions.map((nl_assertion) => ({ nl_assertion, met: true, justification: "STUB JUDGE (no LLM): marked as met" })),
};

function get(value: PyValue | undefined, key: string): PyValue {
  return (value as PyDict).get(key) as PyValue;
}

async function evaluateVariant(domain: LoadedTau2Domain, task: Tau2Task, variant: PyValue, termination?: string): Promise<string> {
  try {
    const info = await evaluateTau2Simulation({
      domain,
      task,
      termination: (termination ?? get(variant, "termination_reason")) as Tau2TerminationReason,
      messages: (get(variant, "messages") as PyDict[]).map(messageFromJson),
      judge: stubJudge,
    });
    return pyJsonDumpsLine(info);
  } catch (error) {
    if (PyException.isInstance(error)) return `${error.pythonType}: ${error.message}`;
    throw error;
  }
}

function expected(variant: PyValue): string {
  const error = get(variant, "evaluation_error");
  return typeof error === "string" ? error : pyJsonDumps(get(variant, "reward_info"));
}

describe.skipIf(!data)("τ² evaluator against evaluator_<domain>.json", () => {
  for (const [name, definition, tasksFile, config] of FIXTURE_DOMAINS) {
    it(`${name}: every variant's reward info, and the termination gate`, async () => {
      const domain = loadTau2Domain(definition, data as string, config);
      const tasks = fixtureTasks(data as string, definition, tasksFile);
      const fixture = readFixture(data as string, `evaluator_${name}.json`);
      const problems: string[] = [];
      let compared = 0;
      for (const entry of get(fixture, "tasks") as PyValue[]) {
        const task = tasks.get(get(entry, "task_id") as string) as Tau2Task;
        const variants = get(entry, "variants") as PyValue[];
        for (const variant of variants) {
          const got = await evaluateVariant(domain, task, variant);
          compared++;
          if (got !== expected(variant)) problems.push(`${task.id} ${get(variant, "variant") as string}:\n  got      ${got}\n  expected ${expected(variant)}`);
        }
        const perfect = variants.find((variant) => get(variant, "variant") === "perfect");
        for (const gate of (get(entry, "termination_gate") as PyValue[] | null) ?? []) {
          const got = await evaluateVariant(domain, task, perfect as PyValue, get(gate, "termination_reason") as string);
          compared++;
          if (got !== expected(gate)) problems.push(`${task.id} gate ${get(gate, "termination_reason") as string}:\n  got      ${got}\n  expected ${expected(gate)}`);
        }
      }
      expect(problems.join("\n")).toBe("");
      expect(compared).toBeGreaterThan(10);
    });
  }
});
