/**
 * The Node bridge layer on its own (no framework, no data): idempotent patching, per-episode
 * routing through AsyncLocalStorage (no cross-talk between concurrent episodes), pass-through of
 * unmapped tools and outside episodes, idempotence per tool-call id, and the raw-argument rule.
 */
import { describe, expect, it } from "vitest";
import type { StepOutcome, StepRequest, StepTarget } from "../../src/core/contracts.ts";
import type { Action } from "../../src/core/types.ts";
import { BridgeSession, NameMapping } from "../../bridge/session.ts";
import { createBridgeScope, currentBridgeScope, runInBridgeScope, setProcessBridgeScope } from "../../bridge/node/context.ts";
import { interceptToolCall, rawArgumentsIfUnchanged } from "../../bridge/node/intercept.ts";
import { ORIGINAL, isBridgeWrapper, originalOf, unwrapProperty, wrapProperty } from "../../bridge/node/marks.ts";

/** A stand-in for the episode kernel's step path: records requests and answers `<label>:<tool>:<kwargs>`. */
function fakeSteps(label: string, delayMs = 0) {
  const actions: Action[] = [];
  const recorder = { steps: [] as StepRequest[], plannedOnly: [] as StepRequest[] };
  const steps: StepTarget = {
    ended: false,
    async step(request: StepRequest): Promise<StepOutcome> {
      actions.push(request.action);
      recorder.steps.push(request);
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { observation: `${label}:${request.action.name}:${JSON.stringify(Object.fromEntries(request.action.kwargs))}`, done: false, refused: false };
    },
    plan(request: StepRequest): StepOutcome {
      recorder.plannedOnly.push(request);
      return { observation: "", done: false, refused: false };
    },
  };
  return { steps, actions, recorder };
}

function session(label: string, options: { delayMs?: number; mode?: "internal" | "dry-run" } = {}) {
  const { steps, actions, recorder } = fakeSteps(label, options.delayMs);
  const bridge = new BridgeSession({
    steps,
    mapping: new NameMapping(new Set(["get_order_details", "get_user_details"]), { renames: { lookup_order: "get_order_details" }, native: ["summarise"] }),
    mode: options.mode ?? "internal",
  });
  return { scope: createBridgeScope({ session: bridge, framework: "test" }), actions, recorder };
}

describe("marks: idempotent, reversible wrapping", () => {
  it("wraps once, keeps the original reachable, and unwraps", () => {
    const target = { greet: (name: string) => `hi ${name}` };
    const first = wrapProperty<(name: string) => string>(target, "greet", (original) => (name: string) => original(name).toUpperCase());
    const second = wrapProperty<(name: string) => string>(target, "greet", (original) => (name: string) => `${original(name)}!`);
    expect(first).toBe(true);
    expect(second).toBe(false);
    expect(target.greet("ann")).toBe("HI ANN");
    expect(isBridgeWrapper(target.greet)).toBe(true);
    expect(originalOf(target.greet)("bo")).toBe("hi bo");
    expect((target.greet as unknown as Record<symbol, unknown>)[ORIGINAL]).toBeTypeOf("function");
    expect(unwrapProperty(target, "greet")).toBe(true);
    expect(target.greet("cy")).toBe("hi cy");
  });

  it("patches a prototype so every instance sees it, and refuses frozen objects", () => {
    class Tool {
      run() {
        return "native";
      }
    }
    wrapProperty(Tool.prototype, "run", () => () => "patched");
    expect(new Tool().run()).toBe("patched");
    const frozen = Object.freeze({ run: () => "x" });
    expect(wrapProperty(frozen, "run", () => () => "y")).toBe(false);
  });
});

describe("interceptToolCall: routing", () => {
  it("runs the tool natively outside an episode", async () => {
    let native = 0;
    const result = await interceptToolCall("test", { toolName: "get_order_details", params: { order_id: "#W1" } }, () => {
      native++;
      return "native result";
    });
    expect(result).toEqual({ bridged: false, value: "native result" });
    expect(native).toBe(1);
    expect(currentBridgeScope()).toBeUndefined();
  });

  it("answers mapped tools from the session and never runs their code; unmapped tools pass through", async () => {
    const { scope, actions, recorder } = session("A");
    let native = 0;
    const runNative = () => {
      native++;
      return "native";
    };
    await runInBridgeScope(scope, async () => {
      const mapped = await interceptToolCall("test", { toolName: "get_order_details", params: { order_id: "#W1" }, toolCallId: "c1" }, runNative);
      expect(mapped).toEqual({ bridged: true, output: 'A:get_order_details:{"order_id":"#W1"}' });
      const renamed = await interceptToolCall("test", { toolName: "lookup_order", params: { order_id: "#W2" }, toolCallId: "c2" }, runNative);
      expect(renamed.bridged).toBe(true);
      const helper = await interceptToolCall("test", { toolName: "summarise", params: { text: "x" }, toolCallId: "c3" }, runNative);
      expect(helper).toEqual({ bridged: false, value: "native" });
    });
    expect(native).toBe(1);
    expect(actions.map((action) => action.name)).toEqual(["get_order_details", "get_order_details"]);
    expect(recorder.steps.map((step) => [step.origin, step.toolCallId, step.frameworkToolName])).toEqual([
      ["bridge", "c1", undefined],
      ["bridge", "c2", "lookup_order"],
    ]);
    expect(scope.calls.map((call) => call.kind)).toEqual(["bridged", "bridged", "passthrough"]);
  });

  it("a retry with the same tool-call id returns the first result without stepping again", async () => {
    const { scope, actions } = session("A");
    await runInBridgeScope(scope, async () => {
      const first = await interceptToolCall("test", { toolName: "get_user_details", params: { user_id: "u1" }, toolCallId: "same" }, () => "native");
      const again = await interceptToolCall("test", { toolName: "get_user_details", params: { user_id: "u1" }, toolCallId: "same" }, () => "native");
      expect(again).toEqual(first);
    });
    expect(actions).toHaveLength(1);
  });

  it("two concurrent episodes never see each other's session", async () => {
    const a = session("A", { delayMs: 5 });
    const b = session("B", { delayMs: 3 });
    const run = (scope: typeof a.scope, prefix: string) =>
      runInBridgeScope(scope, async () => {
        const outputs: string[] = [];
        for (let index = 0; index < 20; index++) {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
          const result = await interceptToolCall("test", { toolName: "get_order_details", params: { order_id: `${prefix}${index}` }, toolCallId: `${prefix}-${index}` }, () => "native");
          outputs.push(result.bridged ? result.output : "native");
        }
        return outputs;
      });
    const [outA, outB] = await Promise.all([run(a.scope, "a"), run(b.scope, "b")]);
    expect(outA.every((text) => text.startsWith("A:") && text.includes('"a'))).toBe(true);
    expect(outB.every((text) => text.startsWith("B:") && text.includes('"b'))).toBe(true);
    expect(a.actions).toHaveLength(20);
    expect(b.actions).toHaveLength(20);
  });

  it("dry-run plans without stepping; the process scope applies when no async scope is active", async () => {
    const { scope, actions, recorder } = session("D", { mode: "dry-run" });
    setProcessBridgeScope(scope);
    try {
      const result = await interceptToolCall("test", { toolName: "get_order_details", params: { order_id: "#W9" } }, () => "native");
      expect(result.bridged && result.output).toContain("[dry run]");
    } finally {
      setProcessBridgeScope(undefined);
    }
    expect(actions).toHaveLength(0);
    expect(recorder.plannedOnly.map((step) => step.action.name)).toEqual(["get_order_details"]);
  });
});

describe("rawArgumentsIfUnchanged", () => {
  it("keeps the model's text only when the framework's value is the same data", () => {
    expect(rawArgumentsIfUnchanged('{"amount": 100.0}', { amount: 100 })).toBe('{"amount": 100.0}');
    expect(rawArgumentsIfUnchanged('{"a": 1}', { a: 1, b: "default" })).toBeUndefined();
    expect(rawArgumentsIfUnchanged('{"id": "W1"}', { id: "#W1" })).toBeUndefined();
    expect(rawArgumentsIfUnchanged("not json", {})).toBeUndefined();
    expect(rawArgumentsIfUnchanged(undefined, {})).toBeUndefined();
  });
});
