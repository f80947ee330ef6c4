import { expect, it } from "vitest";
import { isBridgeWrapper } from "../../bridge/node/marks.ts";
import { defineAdapterSuite } from "./adapter-suite.ts";
import { groundTruthScript, type TaskScript } from "./test-support.ts";

defineAdapterSuite({
  strategy: "openai-agents",
  exampleModule: new URL("../../adapters/openai-agents/example/retail-agent.ts", import.meta.url),
  libraryModule: new URL("../../adapters/openai-agents/example/library-agent.ts", import.meta.url),
  aliasModule: new URL("./fixtures/openai-agents/alias-agent.ts", import.meta.url),
  invalidArgumentText: /Invalid JSON input for tool/,
  extra({ serverFor, agentFor, episode, loadTasks, backendHits, toolSteps, toolMessages }) {
    it("tools built outside the hooked factory are bridged by the getAllTools instance wrap, with the SDK's own input parsing", async () => {
      const good = groundTruthScript(loadTasks()[5], "pre");
      const bad = { name: "get_order_details", arguments: { order_id: 7 }, id: "pre_bad" };
      const script: TaskScript = { ...good, calls: [good.calls[0], bad, ...good.calls.slice(1)] };
      let errorText: string | undefined;
      const module = new URL("./fixtures/openai-agents/prebuilt-tools-agent.ts", import.meta.url);
      const agent = await agentFor(
        await serverFor([script], (request) => {
          const results = toolMessages(request);
          if (results.length === 2) errorText = results[1].content;
        }),
        {},
        module,
      );
      const { agent: fixture } = (await import("./fixtures/openai-agents/prebuilt-tools-agent.ts")) as { agent: { tools: Array<{ invoke: unknown }> } };
      const hits = backendHits().length;
      const result = await episode(agent, 5);
      expect(result.reward).toBe(1);
      expect(toolSteps(result).every((step) => step.origin === "bridge")).toBe(true);
      expect(toolSteps(result)).toHaveLength(good.calls.length);
      expect(errorText).toMatch(/Invalid JSON input for tool/);
      expect(fixture.tools.every((tool) => isBridgeWrapper(tool.invoke))).toBe(true);
      expect(fixture.tools.every((tool) => !Object.getOwnPropertySymbols(tool).some((symbol) => symbol.description === "taubridge.openai-agents.factoryBridged"))).toBe(true);
      expect(backendHits().slice(hits)).toEqual([]);
    });
  },
});
