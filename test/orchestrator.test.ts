/**
 * The orchestrator owns the episode: one step path records and counts every step (agent turn,
 * bridge inside a turn, harness, dry-run plan), it alone decides the termination reason, and the
 * evaluator runs only for scored terminations. Runs on the bundled library domain (no shared data).
 */
import { describe, expect, it } from "vitest";
import { libraryDomain } from "../domains/library/index.ts";
import type { Agent, AgentEpisodeContext, AgentTurn, Evaluation, Evaluator, FinishedEpisode, UserSimulator } from "../src/core/contracts.ts";
import { InfraError } from "../src/core/errors.ts";
import type { Action } from "../src/core/types.ts";
import { loadDomain } from "../src/suites/tau-bench/engine/domain.ts";
import { EPISODE_ENDED_OUTPUT, runEpisode, STEP_LIMIT_OUTPUT } from "../src/kernel/index.ts";
import { ScriptedUser } from "../src/suites/tau-bench/participants/scripted-user.ts";

const domain = loadDomain(libraryDomain, undefined);
const task = domain.tasks()[2];
const call = (name: string, kwargs: Record<string, string> = {}): Action => ({ name, kwargs: new Map(Object.entries(kwargs)) });
const LOOKUP = call("find_member_id_by_email", { email: "ava.lindqvist@example.com" });
const TRANSFER = call("transfer_to_human_agents", { summary: "needs a person" });

/** An agent whose turns are given as a list (then it keeps saying "ok"). */
function turnsAgent(turns: AgentTurn[]): Agent {
  return { name: "turns", start: () => ({ turn: async () => turns.shift() ?? { type: "respond", content: "ok" } }) };
}

/** An agent that, like a framework, steps several tools inside one turn through the step path. */
function frameworkLike(actions: Action[], seen: { outputs: string[]; aborted: boolean[] }): Agent {
  return {
    name: "framework-like",
    start: (context: AgentEpisodeContext) => ({
      async turn(_input, signal): Promise<AgentTurn> {
        for (const action of actions) {
          const outcome = await context.steps.step({ action, origin: "bridge", toolCallId: `c${seen.outputs.length}` });
          seen.outputs.push(outcome.observation);
          seen.aborted.push(signal.aborted);
        }
        return { type: "respond", content: "done" };
      },
    }),
  };
}

/** Counts calls; scores everything 1. */
class CountingEvaluator implements Evaluator {
  readonly suite = "taubridge" as const;
  calls: FinishedEpisode[] = [];
  evaluate(episode: FinishedEpisode): Evaluation {
    this.calls.push(episode);
    return { reward: 1, breakdown: { counted: 1 }, rewardInfo: { counted: true } };
  }
}

const silentUser = (overrides: Partial<UserSimulator>): UserSimulator => ({ ...new ScriptedUser(), reset: async (text) => text, step: async () => "###STOP###", reportedCost: () => 0, ...overrides });

describe("orchestrator", () => {
  it("a respond goes to the user; the stop token ends the episode as user_stop and the evaluator scores it", async () => {
    const evaluator = new CountingEvaluator();
    const result = await runEpisode({
      domain,
      task,
      taskIndex: 2,
      trial: 0,
      agent: turnsAgent([
        { type: "tool_call", action: LOOKUP },
        { type: "respond", content: "bye" },
      ]),
      user: new ScriptedUser(),
      evaluator,
      maxSteps: 30,
    });
    expect(result.termination).toBe("user_stop");
    expect(result.reward).toBe(1);
    expect(result.rewardBreakdown).toEqual({ counted: 1 });
    expect(evaluator.calls).toHaveLength(1);
    expect(result.steps.map((step) => [step.action.name, step.origin, step.done])).toEqual([
      ["find_member_id_by_email", "agent", false],
      ["respond", "agent", true],
    ]);
    expect(result.info).toMatchObject({ source: "user", user_cost: 0, reward_info: { counted: true } });
  });

  it("a terminate tool ends the episode as agent_stop", async () => {
    const result = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: turnsAgent([{ type: "tool_call", action: TRANSFER }]), user: new ScriptedUser(), maxSteps: 30 });
    expect(result.termination).toBe("agent_stop");
    expect(result.info).toMatchObject({ source: "transfer_to_human_agents" });
    expect(result.rewardBreakdown).toHaveProperty("actions");
  });

  it("max_steps counts every agent action, malformed ones included, and is not scored", async () => {
    const evaluator = new CountingEvaluator();
    const invalid: AgentTurn = { type: "invalid", name: "x", error: "Error: bad" };
    const result = await runEpisode({
      domain,
      task,
      taskIndex: 2,
      trial: 0,
      agent: turnsAgent([invalid, { type: "tool_call", action: LOOKUP }, invalid, invalid]),
      user: new ScriptedUser(),
      evaluator,
      maxSteps: 3,
    });
    expect(result.termination).toBe("max_steps");
    expect(result.reward).toBe(0);
    expect(evaluator.calls).toHaveLength(0);
    expect(result.steps).toHaveLength(1);
    expect(result.info).toMatchObject({ reward_info: null, user_cost: null });
  });

  it("a framework's steps inside one turn go through the step path: the budget refuses and ends the episode mid-turn", async () => {
    const seen = { outputs: [] as string[], aborted: [] as boolean[] };
    const result = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: frameworkLike([LOOKUP, LOOKUP, LOOKUP, LOOKUP], seen), user: new ScriptedUser(), maxSteps: 2 });
    expect(result.termination).toBe("max_steps");
    expect(result.steps.map((step) => [step.origin, step.toolCallId])).toEqual([
      ["bridge", "c0"],
      ["bridge", "c1"],
    ]);
    expect(seen.outputs.slice(2)).toEqual([STEP_LIMIT_OUTPUT, EPISODE_ENDED_OUTPUT]);
    expect(seen.aborted).toEqual([false, false, true, true]);
  });

  it("a terminate tool inside a framework turn ends the episode; later calls are refused and not recorded", async () => {
    const seen = { outputs: [] as string[], aborted: [] as boolean[] };
    const result = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: frameworkLike([LOOKUP, TRANSFER, LOOKUP], seen), user: new ScriptedUser(), maxSteps: 30 });
    expect(result.termination).toBe("agent_stop");
    expect(result.steps.map((step) => step.action.name)).toEqual(["find_member_id_by_email", "transfer_to_human_agents"]);
    expect(seen.outputs[2]).toBe(EPISODE_ENDED_OUTPUT);
  });

  it("dry-run plans count toward the budget and are kept apart from steps", async () => {
    const agent: Agent = {
      name: "planner",
      start: (context) => ({
        async turn(): Promise<AgentTurn> {
          context.steps.plan({ action: LOOKUP, origin: "dry-run" });
          context.steps.plan({ action: LOOKUP, origin: "dry-run" });
          return { type: "respond", content: "planned" };
        },
      }),
    };
    const result = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent, user: new ScriptedUser(), maxSteps: 2 });
    expect(result.termination).toBe("max_steps");
    expect(result.plannedOnly).toHaveLength(2);
    expect(result.steps).toHaveLength(0);
  });

  it("classifies failures: agent_error, infra_error, user_error, timeout — as data, with τ-bench's error info", async () => {
    const throwing = (error: Error): Agent => ({ name: "t", start: () => ({ turn: async () => Promise.reject(error) }) });
    const agentError = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: throwing(new Error("boom")), user: new ScriptedUser(), maxSteps: 30 });
    expect(agentError).toMatchObject({ termination: "agent_error", reward: 0, traj: [], error: { kind: "agent_error", message: "boom" } });
    expect(Object.keys(agentError.info)).toEqual(["error", "traceback"]);
    const infra = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: throwing(new InfraError("endpoint down")), user: new ScriptedUser(), maxSteps: 30 });
    expect(infra.termination).toBe("infra_error");
    const userFailure = Object.assign(new Error("user model broke"), { role: "user" });
    const user = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: turnsAgent([]), user: silentUser({ step: async () => Promise.reject(userFailure) }), maxSteps: 30 });
    expect(user.termination).toBe("user_error");
    const hanging: Agent = { name: "h", start: () => ({ turn: (_input, signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))) }) };
    const timeout = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: hanging, user: new ScriptedUser(), maxSteps: 30, timeoutMs: 50 });
    expect(timeout.termination).toBe("timeout");
  });

  it("closes the agent's session whatever the outcome, and keeps its extra data", async () => {
    const closed: string[] = [];
    const agent = (fail: boolean): Agent => ({
      name: "closing",
      start: () => ({
        turn: async () => (fail ? Promise.reject(new Error("x")) : { type: "respond", content: "hi" }),
        extra: () => ({ note: "kept" }),
        close: async () => void closed.push(fail ? "failed" : "ok"),
      }),
    });
    const ok = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: agent(false), user: new ScriptedUser(), maxSteps: 30 });
    const failed = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: agent(true), user: new ScriptedUser(), maxSteps: 30 });
    expect(closed).toEqual(["ok", "failed"]);
    expect(ok.extra).toEqual({ note: "kept" });
    expect(failed.extra).toEqual({ note: "kept" });
  });
});
