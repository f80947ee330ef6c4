/**
 * τ-bench's loop over the episode kernel: one step path records and counts every step (an agent
 * turn's calls, a bridge inside a turn, the harness, a dry-run plan), the loop alone decides the
 * termination reason, and the evaluator runs only for scored terminations. Runs on the bundled
 * library domain (no shared data).
 */
import { describe, expect, it } from "vitest";
import { libraryDomain } from "../domains/library/index.ts";
import type { Evaluation, Evaluator, FinishedEpisode, Participant, ParticipantContext, Turn } from "../src/core/contracts.ts";
import { InfraError } from "../src/errors/error-tree.ts";
import type { Action, Task } from "../src/core/types.ts";
import { loadDomain } from "../src/suites/tau-bench/engine/domain.ts";
import { EPISODE_ENDED_OUTPUT } from "../src/kernel/index.ts";
import { runEpisode, STEP_LIMIT_OUTPUT } from "../src/suites/tau-bench/loop.ts";
import { ScriptedUser, scriptedUser } from "../src/suites/tau-bench/participants/scripted-user.ts";
import { simulatedUser, type UserSimulator } from "../src/suites/tau-bench/participants/simulated-user.ts";

const domain = loadDomain(libraryDomain, undefined);
const task = domain.tasks()[2];
const call = (name: string, kwargs: Record<string, string> = {}): Action => ({ name, kwargs: new Map(Object.entries(kwargs)) });
const LOOKUP = call("find_member_id_by_email", { email: "ava.lindqvist@example.com" });
const TRANSFER = call("transfer_to_human_agents", { summary: "needs a person" });

type Agent = Participant<Task>;
const say = (content: string): Turn => ({ content, toolCalls: [] });
const use = (...actions: Action[]): Turn => ({ content: null, toolCalls: actions.map((action, index) => ({ id: `t${index}`, name: action.name, arguments: action.kwargs })) });
const invalid: Turn = { content: null, toolCalls: [{ id: "", name: "x", arguments: new Map(), invalid: "Error: bad" }] };

/** An agent whose turns are given as a list (then it keeps saying "ok"). */
function turnsAgent(turns: Turn[]): Agent {
  return { name: "turns", start: () => ({ next: async () => turns.shift() ?? say("ok") }) };
}

/** An agent that, like a framework, steps several tools inside one turn through the step path. */
function frameworkLike(actions: Action[], seen: { outputs: string[]; aborted: boolean[] }): Agent {
  return {
    name: "framework-like",
    start: (context: ParticipantContext<Task>) => ({
      async next(_incoming, signal): Promise<Turn> {
        for (const action of actions) {
          const outcome = await context.steps!.step({ action, origin: "bridge", toolCallId: `c${seen.outputs.length}` });
          seen.outputs.push(outcome.observation);
          seen.aborted.push(signal.aborted);
        }
        return say("done");
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

const silentUser = (overrides: Partial<UserSimulator>): Participant<Task> =>
  simulatedUser("silent", () => ({ ...new ScriptedUser(), reset: async (text) => text, step: async () => "###STOP###", reportedCost: () => 0, ...overrides }));

describe("orchestrator", () => {
  it("a respond goes to the user; the stop token ends the episode as user_stop and the evaluator scores it", async () => {
    const evaluator = new CountingEvaluator();
    const result = await runEpisode({
      domain,
      task,
      taskIndex: 2,
      trial: 0,
      agent: turnsAgent([use(LOOKUP), say("bye")]),
      user: scriptedUser,
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
    const result = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: turnsAgent([use(TRANSFER)]), user: scriptedUser, maxSteps: 30 });
    expect(result.termination).toBe("agent_stop");
    expect(result.info).toMatchObject({ source: "transfer_to_human_agents" });
    expect(result.rewardBreakdown).toHaveProperty("actions");
  });

  it("max_steps counts every agent action, malformed ones included, and is not scored", async () => {
    const evaluator = new CountingEvaluator();
    const result = await runEpisode({
      domain,
      task,
      taskIndex: 2,
      trial: 0,
      agent: turnsAgent([invalid, use(LOOKUP), invalid, invalid]),
      user: scriptedUser,
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
    const result = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: frameworkLike([LOOKUP, LOOKUP, LOOKUP, LOOKUP], seen), user: scriptedUser, maxSteps: 2 });
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
    const result = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: frameworkLike([LOOKUP, TRANSFER, LOOKUP], seen), user: scriptedUser, maxSteps: 30 });
    expect(result.termination).toBe("agent_stop");
    expect(result.steps.map((step) => step.action.name)).toEqual(["find_member_id_by_email", "transfer_to_human_agents"]);
    expect(seen.outputs[2]).toBe(EPISODE_ENDED_OUTPUT);
  });

  it("dry-run plans count toward the budget and are kept apart from steps", async () => {
    const agent: Agent = {
      name: "planner",
      start: (context) => ({
        async next(): Promise<Turn> {
          context.steps!.plan({ action: LOOKUP, origin: "dry-run" });
          context.steps!.plan({ action: LOOKUP, origin: "dry-run" });
          return say("planned");
        },
      }),
    };
    const result = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent, user: scriptedUser, maxSteps: 2 });
    expect(result.termination).toBe("max_steps");
    expect(result.plannedOnly).toHaveLength(2);
    expect(result.steps).toHaveLength(0);
  });

  it("classifies failures: agent_error, infra_error, user_error, timeout — as data, with τ-bench's error info", async () => {
    const throwing = (error: Error): Agent => ({ name: "t", start: () => ({ next: async () => Promise.reject(error) }) });
    const agentError = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: throwing(new Error("boom")), user: scriptedUser, maxSteps: 30 });
    expect(agentError).toMatchObject({ termination: "agent_error", reward: 0, traj: [], error: { kind: "agent_error", message: "boom" } });
    expect(Object.keys(agentError.info)).toEqual(["error", "traceback"]);
    const infra = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: throwing(new InfraError("endpoint down")), user: scriptedUser, maxSteps: 30 });
    expect(infra.termination).toBe("infra_error");
    const userFailure = Object.assign(new Error("user model broke"), { role: "user" });
    const user = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: turnsAgent([]), user: silentUser({ step: async () => Promise.reject(userFailure) }), maxSteps: 30 });
    expect(user.termination).toBe("user_error");
    const hanging: Agent = { name: "h", start: () => ({ next: (_incoming, signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))) }) };
    const timeout = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: hanging, user: scriptedUser, maxSteps: 30, timeoutMs: 50 });
    expect(timeout.termination).toBe("timeout");
  });

  it("closes the agent's session whatever the outcome, and keeps its extra data", async () => {
    const closed: string[] = [];
    const agent = (fail: boolean): Agent => ({
      name: "closing",
      start: () => ({
        next: async () => (fail ? Promise.reject(new Error("x")) : say("hi")),
        extra: () => ({ note: "kept" }),
        close: async () => void closed.push(fail ? "failed" : "ok"),
      }),
    });
    const ok = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: agent(false), user: scriptedUser, maxSteps: 30 });
    const failed = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: agent(true), user: scriptedUser, maxSteps: 30 });
    expect(closed).toEqual(["ok", "failed"]);
    expect(ok.extra).toEqual({ note: "kept" });
    expect(failed.extra).toEqual({ note: "kept" });
  });

  it("a turn with several tool calls steps each in order, one action each; the agent gets all their results at once", async () => {
    const received: unknown[] = [];
    const agent: Agent = {
      name: "several",
      start: () => {
        const turns = [use(LOOKUP, LOOKUP, LOOKUP), say("bye")];
        return {
          next: async (incoming) => {
            received.push(incoming);
            return turns.shift() ?? say("ok");
          },
        };
      },
    };
    const result = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent, user: scriptedUser, maxSteps: 30 });
    expect(result.steps.map((step) => [step.action.name, step.toolCallId])).toEqual([
      ["find_member_id_by_email", "t0"],
      ["find_member_id_by_email", "t1"],
      ["find_member_id_by_email", "t2"],
      ["respond", undefined],
    ]);
    expect(received[1]).toMatchObject({ type: "tool_results", results: [{ id: "t0" }, { id: "t1" }, { id: "t2" }] });
    const capped = await runEpisode({ domain, task, taskIndex: 2, trial: 0, agent: turnsAgent([use(LOOKUP, LOOKUP, LOOKUP)]), user: scriptedUser, maxSteps: 2 });
    expect([capped.termination, capped.steps.length]).toEqual(["max_steps", 2]);
  });
});
