/**
 * A whole telecom task with model-driven participants, end to end through the CLI: `llm_agent`
 * and `user_simulator` on the scripted OpenAI-compatible server (one script per model name, the
 * endpoint given as litellm's `api_base` in tau2's LLM arguments). The agent enables roaming on
 * the line with its tool, the user turns roaming on on their own phone with theirs, and the task
 * scores 1.0; when the user skips their part, it scores 0. Cost and usage per role land in the
 * results file.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readTau2Results, rewardOf } from "../../src/suites/tau2/codec.ts";
import { startScriptedModelServer } from "../../src/testing/index.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";
import { runCli, runTau2 } from "../support/cli.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);
const TASK = "[mobile_data_issue]user_abroad_roaming_disabled_off[PERSONA:Hard]";

async function run(userSteps: unknown[]) {
  const server = await startScriptedModelServer({
    scripts: {
      "agent-model": [
        { tool_calls: [{ id: "a1", name: "enable_roaming", arguments: '{"customer_id": "C1001", "line_id": "L1002"}' }], usage: { prompt_tokens: 100, completion_tokens: 10 } },
        { content: "Roaming is now enabled on your line. Please turn on data roaming on your phone.", usage: { prompt_tokens: 120, completion_tokens: 20 } },
        { content: "You're all set.", times: "unlimited", usage: { prompt_tokens: 130, completion_tokens: 5 } },
      ],
      "user-model": userSteps as never,
    },
  });
  try {
    const file = join(mkdtempSync(join(tmpdir(), "tau2-model-")), "results.json");
    const args = ["--domain", "telecom", "--task-set-name", "telecom_small", "--task-ids", TASK];
    const endpoint = JSON.stringify({ temperature: 0.0, api_base: server.baseURL });
    const result = await runTau2(
      [...args, "--agent", "llm_agent", "--agent-llm", "agent-model", "--agent-llm-args", endpoint, "--user", "user_simulator", "--user-llm", "user-model", "--user-llm-args", endpoint],
      { data: data as string, saveTo: file },
    );
    return { result, file, server };
  } finally {
    await server.close();
  }
}

describe.skipIf(!data)("τ² telecom with model-driven agent and user (scripted models)", () => {
  it("the user fixes their phone with their own tool: reward 1.0; per-role cost and usage recorded", async () => {
    const { result, file, server } = await run([
      { content: "My mobile data stopped working since I arrived abroad.", usage: { prompt_tokens: 50, completion_tokens: 12 } },
      { tool_calls: [{ id: "u1", name: "toggle_roaming", arguments: "{}" }], usage: { prompt_tokens: 60, completion_tokens: 5 } },
      { content: "Roaming is on and data works now. Thanks! ###STOP###", usage: { prompt_tokens: 70, completion_tokens: 9 } },
    ]);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const [simulation] = readTau2Results(file).simulations;
    expect(simulation.termination_reason).toBe("user_stop");
    expect(rewardOf(simulation.reward_info)).toBe(1);
    const calls = simulation.messages.flatMap((message) => (message.role === "assistant" || message.role === "user" ? (message.tool_calls ?? []).map((call) => `${call.requestor}:${call.name}`) : []));
    expect(calls).toEqual(["assistant:enable_roaming", "user:toggle_roaming"]);
    const userMessages = simulation.messages.filter((message) => message.role === "user");
    expect(userMessages.every((message) => (message as { usage: unknown }).usage !== null)).toBe(true);
    expect(server.requests.filter((request) => request.model === "user-model")[0].body).toMatchObject({ tool_choice: "auto", temperature: 0 });
  });

  it("the user skips their part: the env assertions fail and the reward is 0", async () => {
    const { result, file } = await run([{ content: "My mobile data stopped working since I arrived abroad." }, { content: "OK, thanks anyway. ###STOP###" }]);
    expect(result.exitCode).toBe(0);
    const [simulation] = readTau2Results(file).simulations;
    expect(simulation.termination_reason).toBe("user_stop");
    expect(rewardOf(simulation.reward_info)).toBe(0);
  });
});

describe.skipIf(!data)("τ² solo mode (llm_agent_solo + dummy_user, scripted model)", () => {
  for (const [domain, taskId, calls] of [
    ["mock", "create_task_1", [{ id: "s1", name: "create_task", arguments: '{"user_id": "user_1", "title": "Important Meeting"}' }]],
    [
      "telecom",
      TASK,
      [
        { id: "s1", name: "enable_roaming", arguments: '{"customer_id": "C1001", "line_id": "L1002"}' },
        { id: "s2", name: "toggle_roaming", arguments: "{}" },
      ],
    ],
  ] as const) {
    it(`${domain}: the agent works the ticket alone with every tool and ends with done (agent_stop)`, async () => {
      const server = await startScriptedModelServer({ scripts: { solo: [...calls.map((call) => ({ tool_calls: [call] })), { tool_calls: [{ id: "d", name: "done", arguments: "{}" }] }] } });
      try {
        const file = join(mkdtempSync(join(tmpdir(), "tau2-solo-")), "results.json");
        const endpoint = JSON.stringify({ temperature: 0.0, api_base: server.baseURL });
        const taskSet = domain === "telecom" ? ["--task-set-name", "telecom_small"] : [];
        const result = await runTau2(["--domain", domain, ...taskSet, "--task-ids", taskId, "--agent", "llm_agent_solo", "--agent-llm", "solo", "--agent-llm-args", endpoint, "--user", "dummy_user"], {
          data: data as string,
          saveTo: file,
        });
        expect(result.stderr).toBe("");
        expect(result.exitCode).toBe(0);
        const [simulation] = readTau2Results(file).simulations;
        expect(simulation.termination_reason).toBe("agent_stop");
        expect(rewardOf(simulation.reward_info)).toBe(1);
        expect(simulation.messages[0].role).toBe("assistant"); // no greeting, no user
        expect((server.requests[0].body as { tool_choice: string }).tool_choice).toBe("required");
        expect(simulation.policy).toContain(domain === "mock" ? "Mock" : "Telecom");
      } finally {
        await server.close();
      }
    });
  }

  it("refuses a solo agent with a talking user, and dummy_user with a non-solo agent", async () => {
    const base = ["tau2", "run", "--domain", "mock", "--data-dir", data as string, "--save-to", join(mkdtempSync(join(tmpdir(), "tau2-solo-")), "r.json")];
    const soloWithUser = await runCli([...base, "--agent", "llm_agent_solo", "--user", "scripted"]);
    expect(soloWithUser.exitCode).toBe(2);
    expect(soloWithUser.stderr).toMatch(/solo agent: run it with --user dummy_user/);
    const dummyAlone = await runCli([...base, "--agent", "oracle", "--user", "dummy_user"]);
    expect(dummyAlone.exitCode).toBe(2);
    expect(dummyAlone.stderr).toMatch(/dummy_user is only valid with a solo agent/);
  });
});
