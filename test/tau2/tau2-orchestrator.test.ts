/**
 * Our τ² orchestrator reproduces the reference fixtures' real orchestrator runs
 * (`evaluator_<domain>.json`): driven by participants that say the recorded messages, every
 * variant yields the recorded trajectory (hops, tool results, error flags), the recorded
 * termination — including the runs cut by `max_steps=4` and by three tool errors with
 * `max_errors=3` — and, evaluated, the recorded reward.
 */
import { readTau2FirstAgentMessage } from "../../src/suites/tau2/engine/upstream-text.ts";
import { describe, expect, it } from "vitest";
import { loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import { evaluateTau2Simulation } from "../../src/suites/tau2/evaluator.ts";
import { runTau2Episode } from "../../src/suites/tau2/loop.ts";
import { type Tau2SimulationMessage, messageFromJson } from "../../src/suites/tau2/simulation.ts";
import type { Tau2Task } from "../../src/suites/tau2/tasks.ts";
import { type PyDict, type PyValue, PyFloat, pyJsonDumpsLine } from "../../src/value/index.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";
import { FIXTURE_DOMAINS, fixtureTasks } from "./domains.ts";
import { readFixture } from "./fixture-checks.ts";
import { recordedParticipant } from "./recorded-participants.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

function get(value: PyValue | undefined, key: string): PyValue {
  return (value as PyDict).get(key) as PyValue;
}

/** What must match: roles, texts, tool calls (name, arguments, requestor), tool results and flags; ids and times are free. */
function shape(messages: readonly Tau2SimulationMessage[]): string {
  return pyJsonDumpsLine(
    messages.map((message) =>
      message.role === "tool"
        ? { role: "tool", content: message.content, requestor: message.requestor, error: message.error }
        : { role: message.role, content: message.content, calls: message.role === "system" ? null : (message.tool_calls?.map((call) => [call.name, call.arguments, call.requestor]) ?? null) },
    ),
  );
}

const BUDGETS: Record<string, { maxSteps?: number; maxErrors?: number }> = { real_max_steps: { maxSteps: 4 }, real_too_many_errors: { maxErrors: 3 } };

describe.skipIf(!data)("τ² orchestrator against the fixtures' real runs", () => {
  for (const [name, definition, tasksFile, config] of FIXTURE_DOMAINS) {
    it(`${name}: every variant's trajectory, termination and reward`, async () => {
      const domain = loadTau2Domain(definition, data as string, config);
      const tasks = fixtureTasks(data as string, definition, tasksFile);
      const problems: string[] = [];
      let runs = 0;
      for (const entry of get(readFixture(data as string, `evaluator_${name}.json`), "tasks") as PyValue[]) {
        const task = tasks.get(get(entry, "task_id") as string) as Tau2Task;
        const historyLength = task.initial_state?.message_history?.length ?? 0;
        for (const variant of get(entry, "variants") as PyValue[]) {
          const label = `${task.id} ${get(variant, "variant") as string}`;
          if (get(variant, "evaluation_error") !== null) continue; // the original's evaluation raised; covered by the evaluator suite
          const recorded = (get(variant, "messages") as PyDict[]).map(messageFromJson);
          const history = recorded.slice(0, historyLength);
          const skip = (role: string) => history.filter((message) => message.role === role).length + (historyLength === 0 && role === "assistant" ? 1 : 0);
          const outcome = await runTau2Episode({
            domain,
            task,
            trial: 0,
            seed: null,
            agent: recordedParticipant(recorded, "assistant", skip("assistant")),
            user: recordedParticipant(recorded, "user", skip("user")),
            firstAgentMessage: recorded[0].role === "assistant" ? (recorded[0].content as string) : readTau2FirstAgentMessage(data as string),
            ...BUDGETS[get(variant, "variant") as string],
          });
          runs++;
          if (outcome.termination !== get(variant, "termination_reason")) problems.push(`${label}: termination ${outcome.termination}, expected ${get(variant, "termination_reason") as string}`);
          if (shape(outcome.messages) !== shape(recorded)) problems.push(`${label}: trajectory\n  got      ${shape(outcome.messages)}\n  expected ${shape(recorded)}`);
          const info = await evaluateTau2Simulation({
            domain,
            task,
            termination: outcome.termination,
            messages: outcome.messages,
            judge: { judge: async (_m, assertions) => assertions.map((nl_assertion) => ({ nl_assertion, met: true, justification: "stub" })) },
          });
          if (info.reward.value !== (get(variant, "reward") as PyFloat).valueOf()) problems.push(`${label}: reward ${info.reward.value}`);
        }
      }
      expect(problems.join("\n")).toBe("");
      expect(runs).toBeGreaterThan(10);
    });
  }
});
