/**
 * The τ² model agent's loop through the real model client and the scripted OpenAI-compatible
 * server: the conversation it sends (system prompt, the greeting from its history, the user's
 * words, its own tool calls with Python's `json.dumps` arguments, tool results by call id), the
 * trial's seed and LLM arguments in the request body, lossless tool arguments (`2.0` stays a
 * float), solo mode's `done` call turned into the stop token, and malformed arguments failing the
 * attempt as τ² does.
 */
import { describe, expect, it } from "vitest";
import { Tau2ToolArgumentsError, requestArguments, tau2LlmAgent } from "../../src/suites/tau2/participants/llm-agent.ts";
import type { ParticipantContext } from "../../src/core/contracts.ts";
import { createModelClient } from "../../src/model/model-client.ts";
import { type Tau2Task, tau2Schemas } from "../../src/suites/tau2/tasks.ts";
import { startScriptedModelServer } from "../../src/testing/index.ts";
import { PyFloat } from "../../src/value/index.ts";
import { testDomainView, testParticipantContext } from "../support/participant-context.ts";

/** Any agent opening line (the orchestrator's real one is read from the data directory). */
const OPENING = "Hello, what can I do for you?";
const task = tau2Schemas().task.parse({ id: "t", user_scenario: { instructions: "x" } }) as Tau2Task;
const tools = [{ type: "function" as const, function: { name: "refuel_data", parameters: { type: "object", properties: {} } } }];

function context(seed: number | null): ParticipantContext<Tau2Task> {
  return testParticipantContext(task, { domain: testDomainView("telecom"), history: [{ role: "assistant", content: OPENING }], seed });
}

describe("τ² model agent", () => {
  it("sends the conversation, the seed and the LLM arguments, and keeps tool arguments lossless", async () => {
    const server = await startScriptedModelServer({
      steps: [{ tool_calls: [{ id: "call_1", name: "refuel_data", arguments: '{"customer_id": "C1", "gb_amount": 2.0}' }] }, { content: "Done: 2.0 GB added." }],
    });
    try {
      const model = createModelClient({ role: "agent", model: "gpt-4.1-2025-04-14", provider: "openai-compatible", baseURL: server.baseURL, maxAttempts: 1 });
      const agent = tau2LlmAgent(
        "llm_agent",
        () => model,
        { temperature: 0.0, max_tokens: 500 },
        () => ({ systemPrompt: "SYSTEM", tools, toolChoice: "auto" }),
      );
      const session = await agent.start(context(626729));
      const first = await session.next({ type: "text", content: "I need data." }, new AbortController().signal);
      expect(first.toolCalls[0].arguments.get("gb_amount")).toEqual(new PyFloat(2));
      await session.next({ type: "tool_results", results: [{ id: "call_1", name: "refuel_data", content: "ok", error: false }] }, new AbortController().signal);
      const [firstBody, secondBody] = server.requests.map((request) => request.body as Record<string, unknown>);
      expect(firstBody).toMatchObject({ model: "gpt-4.1-2025-04-14", temperature: 0, max_tokens: 500, seed: 626729, tool_choice: "auto" });
      expect(firstBody.messages).toEqual([
        { role: "system", content: "SYSTEM" },
        { role: "assistant", content: OPENING },
        { role: "user", content: "I need data." },
      ]);
      expect((secondBody.messages as unknown[]).slice(3)).toEqual([
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "refuel_data", arguments: '{"customer_id": "C1", "gb_amount": 2.0}' } }] },
        { role: "tool", tool_call_id: "call_1", content: "ok" },
      ]);
    } finally {
      await server.close();
    }
  });

  it("solo mode: a done call becomes the stop token; malformed arguments fail the attempt", async () => {
    const server = await startScriptedModelServer({
      steps: [{ tool_calls: [{ id: "d", name: "done", arguments: "{}" }] }, { tool_calls: [{ id: "x", name: "refuel_data", arguments: "{not json" }] }],
    });
    try {
      const model = createModelClient({ role: "agent", model: "m", provider: "openai-compatible", baseURL: server.baseURL, maxAttempts: 1 });
      const setup = () => ({ systemPrompt: "S", tools, toolChoice: "required" as const, stopTool: { name: "done", token: "###STOP###" } });
      const session = await tau2LlmAgent("llm_agent_solo", () => model, {}, setup).start(context(null));
      const stop = await session.next(null, new AbortController().signal);
      expect(stop).toMatchObject({ content: "###STOP###", toolCalls: [] });
      expect(session.isStop?.(stop)).toBe(true);
      expect((server.requests[0].body as { tool_choice: string; seed?: number }).tool_choice).toBe("required");
      expect((server.requests[0].body as { seed?: number }).seed).toBeUndefined();
      await expect(session.next(null, new AbortController().signal)).rejects.toBeInstanceOf(Tau2ToolArgumentsError);
    } finally {
      await server.close();
    }
  });

  it("user simulator: flips roles, calls its own tools, and sees its tool results", async () => {
    const { tau2UserSimulator } = await import("../../src/suites/tau2/participants/user-simulator.ts");
    const server = await startScriptedModelServer({ steps: [{ tool_calls: [{ id: "u1", name: "check_status_bar", arguments: "{}" }] }, { content: "It shows no bars." }] });
    try {
      const model = createModelClient({ role: "user", model: "m", provider: "openai-compatible", baseURL: server.baseURL, maxAttempts: 1 });
      const user = tau2UserSimulator(
        () => model,
        { temperature: 0.0 },
        () => ({ systemPrompt: "GUIDELINES", tools }),
      );
      const session = await user.start({ ...context(7), history: [] });
      const first = await session.next({ type: "text", content: OPENING }, new AbortController().signal);
      expect(first.toolCalls.map((call) => call.name)).toEqual(["check_status_bar"]);
      await session.next({ type: "tool_results", results: [{ id: "u1", name: "check_status_bar", content: "📶 No Signal", error: false }] }, new AbortController().signal);
      const second = server.requests[1].body as { messages: unknown[]; seed: number };
      expect(second.seed).toBe(7);
      expect(second.messages).toEqual([
        { role: "system", content: "GUIDELINES" },
        { role: "user", content: OPENING },
        { role: "assistant", content: null, tool_calls: [{ id: "u1", type: "function", function: { name: "check_status_bar", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "u1", content: "📶 No Signal" },
      ]);
    } finally {
      await server.close();
    }
  });

  it("passes τ²'s LLM arguments on, leaving out litellm's own settings; the trial seed wins", () => {
    expect(requestArguments({ temperature: 0.5, seed: 1, api_base: "http://x", num_retries: 3, top_p: 0.9 }, 42)).toEqual({ temperature: 0.5, params: { seed: 42, top_p: 0.9 } });
  });
});
