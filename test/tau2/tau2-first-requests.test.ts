/**
 * The model-driven τ² participants send exactly what the original sends: for every domain, the
 * first request of `llm_agent` (system prompt, greeting, first user message, the domain's tools,
 * tool choice, temperature), of `llm_agent_solo` (ticket prompt, agent + user tools + `done`,
 * tool choice required), the system prompt of `llm_agent_gt`, and the user simulator's first
 * request as the runner builds it — all compared with `prompts_<domain>.json`, through the real
 * model client and the scripted OpenAI-compatible server. Prompts and tool schemas come from
 * τ²'s sources in the data directory.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ParticipantContext } from "../../src/core/contracts.ts";
import { loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import { createModelClient } from "../../src/model/model-client.ts";
import { tau2Registries } from "../support/tau2-registries.ts";

const { domains: tau2DomainRegistry, agents: tau2Agents, users: tau2Users } = tau2Registries;
import { type Tau2Task, readTau2Tasks } from "../../src/suites/tau2/tasks.ts";
import { type ScriptedModelServer, startScriptedModelServer } from "../../src/testing/index.ts";
import { type PyDict, type PyValue, toJs } from "../../src/value/index.ts";
import { testDomainView, testParticipantContext } from "../support/participant-context.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";
import { readFixture } from "./fixture-checks.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

function get(value: PyValue | undefined, key: string): PyValue {
  return (value as PyDict).get(key) as PyValue;
}

/** A fixture message as the request carries it (τ² prints a missing tool_calls as None). */
function normalize(messages: unknown): unknown[] {
  return (messages as Record<string, unknown>[]).map((message) => Object.fromEntries(Object.entries(message).filter(([key, value]) => !(key === "tool_calls" && value === null))));
}

describe.skipIf(!data)("τ² model participants' requests equal the original's", () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await startScriptedModelServer({ steps: [{ times: "unlimited", content: "ok" }] });
  });
  afterAll(() => server.close());

  const models = () => {
    const client = (role: "agent" | "user") => createModelClient({ role, model: "gpt-4.1-2025-04-14", provider: "openai-compatible", baseURL: server.baseURL, maxAttempts: 1 });
    return { agent: () => client("agent"), user: () => client("user") };
  };

  async function request(run: () => Promise<unknown>): Promise<Record<string, unknown>> {
    const before = server.requests.length;
    await run();
    return server.requests[before].body as Record<string, unknown>;
  }

  function context(domainName: string, task: Tau2Task, history: ParticipantContext<Tau2Task>["history"], solo = false): ParticipantContext<Tau2Task> {
    const domain = loadTau2Domain(tau2DomainRegistry.get(domainName), data as string);
    return testParticipantContext(task, { domain: testDomainView(domainName, domain.policy(solo)), history, solo, episode: { taskId: task.id, taskIndex: 0, trial: 0 } });
  }

  for (const [fixture, domains] of [
    ["mock", ["mock"]],
    ["airline", ["airline"]],
    ["retail", ["retail"]],
    ["telecom", ["telecom", "telecom-workflow"]],
  ] as const) {
    it(`${fixture}: llm_agent, llm_agent_gt, llm_agent_solo and the user simulator`, async () => {
      const prompts = readFixture(data as string, `prompts_${fixture}.json`);
      const tools = toJs(get(readFixture(data as string, `tools_${fixture}.json`), "agent") as PyValue) as unknown[];
      const tasks = new Map(readTau2Tasks(join(data as string, fixture, "tasks.json")).map((task) => [task.id, task]));
      const anyTask = [...tasks.values()][0];
      const checked = { agent: 0, gt: 0, solo: 0, user: 0 };
      for (const name of domains) {
        const expected = toJs(get(get(get(prompts, "llm_agent"), name), "first_request")) as Record<string, unknown>;
        const loaded = loadTau2Domain(tau2DomainRegistry.get(name), data as string);
        const agent = await tau2Agents.get("llm_agent")({ llm: "gpt-4.1-2025-04-14", llmArgs: { temperature: 0.0 }, models: models(), domain: loaded, dataRoot: data as string });
        const messages = expected.messages as Array<{ role: string; content: string }>;
        const body = await request(async () =>
          (await agent.start(context(name, anyTask, [{ role: "assistant", content: messages[1].content }]))).next({ type: "text", content: messages[2].content }, new AbortController().signal),
        );
        expect(body.messages).toEqual(normalize(expected.messages));
        expect(body.tools).toEqual(tools);
        expect((body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name)).toEqual(expected.tools);
        expect(body.tool_choice).toBe(expected.tool_choice);
        expect(body.temperature).toBe(expected.temperature);
        checked.agent++;
      }
      const loaded = loadTau2Domain(tau2DomainRegistry.get(domains[0]), data as string);
      for (const entry of (get(get(prompts, "llm_agent_gt"), "tasks") as PyValue[] | null) ?? []) {
        const task = tasks.get(get(entry, "task_id") as string) as Tau2Task;
        const agent = await tau2Agents.get("llm_agent_gt")({ llm: "gpt-4.1-2025-04-14", llmArgs: { temperature: 0.0 }, models: models(), domain: loaded, dataRoot: data as string });
        const body = await request(async () => (await agent.start(context(domains[0], task, []))).next({ type: "text", content: "Hi" }, new AbortController().signal));
        expect((body.messages as Array<{ content: string }>)[0].content).toBe(get(entry, "system_prompt"));
        checked.gt++;
      }
      const solo = get(prompts, "llm_agent_solo");
      for (const entry of solo instanceof Map ? ((get(solo, "tasks") as PyValue[]) ?? []) : []) {
        const task = tasks.get(get(entry, "task_id") as string) as Tau2Task;
        const expectedRequest = toJs(get(entry, "first_request")) as Record<string, unknown>;
        const agent = await tau2Agents.get("llm_agent_solo")({ llm: "gpt-4.1-2025-04-14", llmArgs: { temperature: 0.0 }, models: models(), domain: loaded, dataRoot: data as string });
        const body = await request(async () => (await agent.start(context(domains[0], task, [], true))).next(null, new AbortController().signal));
        expect(body.messages).toEqual(normalize(expectedRequest.messages));
        expect((body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name)).toEqual(expectedRequest.tools);
        expect(body.tool_choice).toBe("required");
        checked.solo++;
      }
      for (const entry of get(get(prompts, "user_simulator"), "tasks") as PyValue[]) {
        if (get(entry, "variant") !== "as_built_by_runner") continue;
        const task = tasks.get(get(entry, "task_id") as string) as Tau2Task;
        const expectedRequest = toJs(get(entry, "first_request")) as Record<string, unknown>;
        const user = await tau2Users.get("user_simulator")({ llm: "gpt-4.1-2025-04-14", llmArgs: { temperature: 0.0 }, models: models(), domain: loaded, dataRoot: data as string });
        const messages = expectedRequest.messages as Array<{ content: string }>;
        const body = await request(async () => (await user.start(context(domains[0], task, []))).next({ type: "text", content: messages[1].content }, new AbortController().signal));
        expect(body.messages).toEqual(normalize(expectedRequest.messages));
        expect(((body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((tool) => tool.function.name)).toEqual(expectedRequest.tools ?? []);
        expect(body.tool_choice ?? null).toBe(expectedRequest.tool_choice ?? null);
        checked.user++;
      }
      expect(checked).toMatchObject({ agent: domains.length, gt: 2, user: 2 });
      expect(checked.solo).toBe(fixture === "mock" || fixture === "telecom" ? 2 : 0);
    });
  }
});
