/**
 * τ²'s NL-assertion judge: its prompts and defaults are read from the τ² sources in the data
 * directory (never written into the project), the request it builds equals the one the original
 * built (`nl_judge_request_for_first_variant` in the evaluator fixtures), and, through the real
 * model client against the scripted OpenAI-compatible server, its verdicts gate the reward.
 * Also the orchestrator's fixed first message, read from the sources, equals the original's.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tau2MockDomain } from "../../domains/tau2-mock/index.ts";
import { loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import { readTau2FirstAgentMessage } from "../../src/suites/tau2/engine/upstream-text.ts";
import { evaluateTau2Simulation } from "../../src/suites/tau2/evaluator.ts";
import { createTau2NlJudge, judgeRequestMessages, readTau2JudgeTemplates } from "../../src/suites/tau2/judge.ts";
import { createModelClient } from "../../src/model/model-client.ts";
import { messageFromJson } from "../../src/suites/tau2/simulation.ts";
import { readTau2Tasks, tau2Schemas } from "../../src/suites/tau2/tasks.ts";
import { startScriptedModelServer } from "../../src/testing/index.ts";
import { type PyDict, type PyValue, toJs } from "../../src/value/index.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";
import { readFixture } from "./fixture-checks.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

function get(value: PyValue | undefined, key: string): PyValue {
  return (value as PyDict).get(key) as PyValue;
}

describe.skipIf(!data)("τ² NL-assertion judge", () => {
  it("reads its prompts and defaults from the τ² sources, and builds the original's exact request", () => {
    const templates = readTau2JudgeTemplates(data as string);
    const prompts = readFixture(data as string, "prompts_retail.json");
    const defaults = get(prompts, "llm_defaults");
    expect(templates.defaultModel).toBe(get(defaults, "DEFAULT_LLM_NL_ASSERTIONS"));
    expect(templates.defaultTemperature).toBe(0);
    let compared = 0;
    for (const name of ["retail", "mock", "airline", "telecom"]) {
      for (const entry of get(readFixture(data as string, `evaluator_${name}.json`), "tasks") as PyValue[]) {
        const request = get(entry, "nl_judge_request_for_first_variant");
        if (!(request instanceof Map)) continue;
        const variant = (get(entry, "variants") as PyValue[])[0];
        const expected = toJs(get(request, "messages")) as Array<{ content: string }>;
        const built = judgeRequestMessages(templates, (get(variant, "messages") as PyDict[]).map(messageFromJson), assertionsOf(name, get(entry, "task_id") as string));
        expect(built).toEqual(expected);
        expect(get(request, "model")).toBe(templates.defaultModel);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(0);
  });

  it("reads the orchestrator's first agent message from the sources", () => {
    const prompts = readFixture(data as string, "prompts_mock.json");
    expect(readTau2FirstAgentMessage(data as string)).toBe(get(get(prompts, "orchestrator_first_agent_message"), "content"));
  });

  it("judges through a real model client and the scripted server; a verdict of not met scores 0", async () => {
    const server = await startScriptedModelServer({
      steps: [
        { content: JSON.stringify({ results: [{ expectedOutcome: "The task is created", reasoning: "the agent created it", metExpectation: true }] }) },
        { content: JSON.stringify({ results: [{ expectedOutcome: "The task is created", reasoning: "nothing was created", metExpectation: false }] }) },
      ],
    });
    try {
      const templates = readTau2JudgeTemplates(data as string);
      const judge = createTau2NlJudge(createModelClient({ role: "judge", model: templates.defaultModel, provider: "openai-compatible", baseURL: server.baseURL, maxAttempts: 1 }), templates);
      const domain = loadTau2Domain(tau2MockDomain, data as string);
      const task = tau2Schemas().task.parse({ id: "judged", user_scenario: { instructions: "x" }, evaluation_criteria: { nl_assertions: ["The task is created"], reward_basis: ["NL_ASSERTION"] } });
      const messages = [
        messageFromJson(
          new Map<string, PyValue>([
            ["role", "assistant"],
            ["content", "Created."],
            ["timestamp", "t0"],
          ]),
        ),
      ];
      const met = await evaluateTau2Simulation({ domain, task, termination: "user_stop", messages, judge });
      expect(met.reward.value).toBe(1);
      expect(met.nl_assertions).toEqual([{ nl_assertion: "The task is created", met: true, justification: "the agent created it" }]);
      const notMet = await evaluateTau2Simulation({ domain, task, termination: "user_stop", messages, judge });
      expect(notMet.reward.value).toBe(0);
      expect(notMet.reward_breakdown).toEqual({ NL_ASSERTION: expect.objectContaining({ value: 0 }) });
      const body = server.requests[0].body as { messages: Array<{ role: string; content: string }>; temperature: number };
      expect(body.messages).toEqual(judgeRequestMessages(templates, messages, ["The task is created"]));
      expect(body.temperature).toBe(0);
      expect(judge.usage?.()).toMatchObject({ calls: 2 });
      server.assertAllConsumed();
    } finally {
      await server.close();
    }
  });
});

function assertionsOf(domain: string, taskId: string): string[] {
  const task = readTau2Tasks(join(data as string, domain, "tasks.json")).find((candidate) => candidate.id === taskId);
  return task?.evaluation_criteria?.nl_assertions ?? [];
}
