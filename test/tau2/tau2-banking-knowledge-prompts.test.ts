/**
 * τ³ banking_knowledge's prompts against `prompts_banking_knowledge.json`: the policy of every
 * variant (the offline ones built here; golden_retrieval per task and its Info placeholder; full_kb
 * by hash and size), and — through the real model client and the scripted OpenAI-compatible
 * server — the first request of `llm_agent` under each offline tool variant (policy, greeting,
 * the variant's tools), the `llm_agent_gt` system prompts and the user simulator with the task's
 * `user_tools` (the guideline file follows whether the task gives the user tools).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { tau2BankingKnowledgeDomain } from "../../domains/tau2-banking-knowledge/index.ts";
import { createModelClient } from "../../src/model/model-client.ts";
import { type LoadedTau2Domain, loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import { KnowledgeBase, OFFLINE_VARIANTS, RETRIEVAL_VARIANTS } from "../../src/suites/tau2/knowledge/index.ts";
import { variantPolicy } from "../../domains/tau2-banking-knowledge/policy.ts";
import { type Tau2Task, readTau2TaskDirectory } from "../../src/suites/tau2/tasks.ts";
import { tau2DomainViews } from "../../src/suites/tau2/views.ts";
import { type ScriptedModelServer, startScriptedModelServer } from "../../src/testing/index.ts";
import { type PyDict, type PyValue, toJs } from "../../src/value/index.ts";
import { testParticipantContext } from "../support/participant-context.ts";
import { describeWithTau2Data } from "../support/shared-data.ts";
import { tau2Registries } from "../support/tau2-registries.ts";
import { readFixture } from "./fixture-checks.ts";

const get = (value: PyValue | undefined, key: string): PyValue => (value as PyDict).get(key) as PyValue;
const normalize = (messages: unknown): unknown[] =>
  (messages as Record<string, unknown>[]).map((message) => Object.fromEntries(Object.entries(message).filter(([key, value]) => !(key === "tool_calls" && value === null))));

describeWithTau2Data("τ³ banking_knowledge prompts against the reference fixtures", (data) => {
  const prompts = readFixture(data, "prompts_banking_knowledge.json");
  const tasks = new Map(readTau2TaskDirectory(join(data, "banking_knowledge", "tasks")).map((task) => [task.id, task]));
  const domains = new Map<string, LoadedTau2Domain>();
  const domainFor = (variant: string) => {
    let domain = domains.get(variant);
    if (!domain) domains.set(variant, (domain = loadTau2Domain(tau2BankingKnowledgeDomain, data, { retrievalConfig: variant })));
    return domain;
  };
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await startScriptedModelServer({ steps: [{ times: "unlimited", content: "ok" }] });
  });
  afterAll(() => server.close());
  const models = () => {
    const client = (role: "agent" | "user") => createModelClient({ role, model: "gpt-4.1-2025-04-14", provider: "openai-compatible", baseURL: server.baseURL, maxAttempts: 1 });
    return { agent: () => client("agent"), user: () => client("user") };
  };
  async function firstRequest(run: () => Promise<unknown>): Promise<Record<string, unknown>> {
    const before = server.requests.length;
    await run();
    return server.requests[before].body as Record<string, unknown>;
  }

  it("builds every offline variant's policy as the original (full_kb by hash, golden_retrieval per task and its Info placeholder)", () => {
    const policies = get(prompts, "bk_policies");
    for (const name of OFFLINE_VARIANTS) {
      const domain = domainFor(name);
      const expected = get(policies, name);
      if (name === "full_kb") {
        const policy = domain.policy(false);
        expect(createHash("sha256").update(policy, "utf8").digest("hex")).toBe(get(expected, "sha256"));
        expect(policy.length).toBe(get(expected, "chars"));
      } else if (name === "golden_retrieval") {
        for (const [taskId, policy] of get(expected, "per_task") as PyDict) expect(domain.policy(false, tasks.get(taskId) as Tau2Task)).toBe(policy);
        expect(domain.policy(false)).toBe(get(expected, "without_task"));
        expect(domain.setup?.infoPolicy).toBe(get(expected, "info_policy_override"));
      } else {
        expect(domain.policy(false)).toBe(get(expected, "policy"));
        expect(domain.setup?.infoPolicy).toBe(get(expected, "policy"));
      }
    }
  });

  it("assembles the policy of every model-backed and shell variant too, as the original", () => {
    domainFor("bm25"); // loads retrieval.py's texts
    const knowledgeBase = KnowledgeBase.load(join(data, "banking_knowledge", "documents"));
    const read = (file: string) => readFileSync(join(data, "banking_knowledge", file), "utf8");
    const policies = get(prompts, "bk_policies");
    const online = RETRIEVAL_VARIANTS.filter((variant) => !OFFLINE_VARIANTS.includes(variant.name));
    expect(online).toHaveLength(14);
    for (const variant of online) expect(variantPolicy(read, variant, knowledgeBase, null)).toBe(get(get(policies, variant.name), "policy"));
  });

  it("llm_agent sends the original's first request under each offline tool variant", async () => {
    const variants = get(prompts, "llm_agent") as PyDict;
    expect([...variants.keys()].sort()).toEqual(["bm25", "bm25_grep", "grep_only", "no_knowledge"]);
    const anyTask = tasks.get("task_001") as Tau2Task;
    for (const [variant, entry] of variants) {
      const domain = domainFor(variant);
      const expected = toJs(get(entry, "first_request")) as Record<string, unknown>;
      const agent = await tau2Registries.agents.get("llm_agent")({ llm: "gpt-4.1-2025-04-14", llmArgs: { temperature: 0.0 }, models: models(), domain, dataRoot: data });
      const messages = expected.messages as Array<{ content: string }>;
      const view = tau2DomainViews(domain).agent(false, anyTask);
      const context = testParticipantContext(anyTask, { domain: view, history: [{ role: "assistant", content: messages[1].content }], episode: { taskId: anyTask.id, taskIndex: 0, trial: 0 } });
      const body = await firstRequest(async () => (await agent.start(context)).next({ type: "text", content: messages[2].content }, new AbortController().signal));
      expect(body.messages).toEqual(normalize(expected.messages));
      expect((body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name)).toEqual(expected.tools);
      expect(body.tool_choice).toBe(expected.tool_choice);
      expect(view.toolNames).toEqual(expected.tools);
      expect(get(entry, "system_prompt")).toBe((body.messages as Array<{ content: string }>)[0].content);
    }
    const schemas = toJs(get(readFixture(data, "tools_banking_knowledge.json"), "agent") as PyValue);
    expect(tau2DomainViews(domainFor("bm25_grep")).agent(false).toolSchemas.json).toEqual(schemas);
  });

  it("llm_agent_gt's system prompt and the user simulator with the task's user_tools equal the original's", async () => {
    const domain = domainFor("bm25_grep");
    for (const entry of get(get(prompts, "llm_agent_gt"), "tasks") as PyValue[]) {
      const task = tasks.get(get(entry, "task_id") as string) as Tau2Task;
      const agent = await tau2Registries.agents.get("llm_agent_gt")({ llm: "gpt-4.1-2025-04-14", llmArgs: { temperature: 0.0 }, models: models(), domain, dataRoot: data });
      const context = testParticipantContext(task, { domain: tau2DomainViews(domain).agent(false, task), history: [], episode: { taskId: task.id, taskIndex: 0, trial: 0 } });
      const body = await firstRequest(async () => (await agent.start(context)).next({ type: "text", content: "Hi" }, new AbortController().signal));
      expect((body.messages as Array<{ content: string }>)[0].content).toBe(get(entry, "system_prompt"));
    }
    let users = 0;
    for (const entry of get(get(prompts, "user_simulator"), "tasks") as PyValue[]) {
      if (get(entry, "variant") !== "as_built_by_runner") continue;
      const task = tasks.get(get(entry, "task_id") as string) as Tau2Task;
      const expected = toJs(get(entry, "first_request")) as Record<string, unknown>;
      const user = await tau2Registries.users.get("user_simulator")({ llm: "gpt-4.1-2025-04-14", llmArgs: { temperature: 0.0 }, models: models(), domain, dataRoot: data });
      const messages = expected.messages as Array<{ content: string }>;
      const context = testParticipantContext(task, { domain: tau2DomainViews(domain).user(task), history: [], episode: { taskId: task.id, taskIndex: 0, trial: 0 } });
      const body = await firstRequest(async () => (await user.start(context)).next({ type: "text", content: messages[1].content }, new AbortController().signal));
      expect(body.messages).toEqual(normalize(expected.messages));
      expect(((body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((tool) => tool.function.name)).toEqual(expected.tools ?? []);
      users++;
    }
    expect(users).toBe(2);
  });
});
