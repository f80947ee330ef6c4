/**
 * End to end: `--agent-strategy fastworkflow` against taubridge's FastWorkflow STAND-IN (a contract
 * test: `test/fixtures/fastworkflow/standin` mirrors the documented module layout and
 * signatures of FastWorkflow 2.24.1 with a scripted, deterministic "agent"; it is not FastWorkflow).
 * The real environment runs in this process; the agent runs in a Python child per episode.
 *
 * What is checked: bridged commands step our environment with the framework-validated parameters
 * (normalized `#` order ids, lists, floats that stay floats) and the stand-in command's own code
 * never runs; reward 1 for the right behaviour and 0 for the wrong one; FastWorkflow's own handling
 * of handled/failed plans and non-benchmark commands is kept; both patch targets; assistant mode;
 * `ask_user` suspension; decision-only and dry-run modes; library prints; a child that crashes
 * mid-episode ends as `infra_error` and the next episode runs fine; concurrent episodes stay apart;
 * the sitecustomize launch, the fd channel and the generic `python-bridge` strategy.
 *
 * The retail part needs the τ-bench data (`$TAUBRIDGE_SHARED/tau-bench`); the library part uses the
 * bundled library domain and always runs.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as pause } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { retailDomain } from "../domains/retail/index.ts";
import { libraryDomain } from "../domains/library/index.ts";
import { EPISODE_OVER_OUTPUT, FastWorkflowAgent, parseFastWorkflowOptions } from "../adapters/fastworkflow/index.ts";
import { ConfigError } from "../src/errors/error-tree.ts";
import type { StepEvent } from "../src/core/types.ts";
import { loadDomain, type LoadedDomain } from "../src/suites/tau-bench/engine/domain.ts";
import type { Participant } from "../src/core/contracts.ts";
import type { Task } from "../src/core/types.ts";
import { simulatedUser, type UserSimulator } from "../src/suites/tau-bench/participants/simulated-user.ts";
import { runEpisode, type EpisodeResult } from "../src/suites/tau-bench/loop.ts";
import { scriptedUser } from "../src/suites/tau-bench/participants/scripted-user.ts";
import { isPyFloat, pyJsonDumps } from "../src/value/index.ts";
import { tauBenchDirectory, warnIfMissingShared } from "./support/shared-data.ts";
import { testRegistries } from "./support/registries.ts";

warnIfMissingShared();

const python = process.env.TAUBRIDGE_PYTHON ?? "python3";
const pythonAvailable = spawnSync(python, ["-c", "import sys; assert sys.version_info >= (3, 8)"]).status === 0;
if (!pythonAvailable) console.warn(`skipped: no usable Python 3.8+ interpreter (${python}); set TAUBRIDGE_PYTHON`);

const FIXTURES = fileURLToPath(new URL("./fixtures/fastworkflow", import.meta.url));
const STANDIN = join(FIXTURES, "standin");
const RETAIL_WORKFLOW = join(FIXTURES, "retail_workflow");
const LIBRARY_WORKFLOW = join(FIXTURES, "library_workflow");
const GENERIC_AGENT = join(FIXTURES, "generic_agent");
const scratch = mkdtempSync(join(tmpdir(), "taubridge-fastworkflow-"));
let counter = 0;

/** Writes a stand-in agent script (one entry per agent turn). */
function script(turns: unknown[]): string {
  const path = join(scratch, `script-${++counter}.json`);
  writeFileSync(path, JSON.stringify({ turns }));
  return path;
}

function nativeRuns(path: string): string[] {
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : [];
}

interface Setup {
  agent: FastWorkflowAgent;
  nativeLog: string;
  stderr: string[];
}

function fastworkflow(workflow: string, turns: unknown[], options: Record<string, string> = {}): Setup {
  const nativeLog = join(scratch, `native-${++counter}.log`);
  const stderr: string[] = [];
  const agent = new FastWorkflowAgent(
    parseFastWorkflowOptions({
      workflowPath: workflow,
      pythonPath: STANDIN,
      "env.FASTWORKFLOW_STANDIN_SCRIPT": script(turns),
      "env.FASTWORKFLOW_STANDIN_NATIVE_LOG": nativeLog,
      ...options,
    }),
    { onStderr: (line) => stderr.push(line) },
  );
  return { agent, nativeLog, stderr };
}

/** Says the task's first message, then the given replies in order, then stops. */
class SequenceUser implements UserSimulator {
  private index = 0;
  constructor(
    private readonly first: string | undefined,
    private readonly replies: string[],
  ) {}
  async reset(instruction: string): Promise<string> {
    return this.first ?? instruction;
  }
  async step(): Promise<string> {
    return this.replies[this.index++] ?? "Thanks! ###STOP###";
  }
  reportedCost(): number | null {
    return null;
  }
}

function episode(domain: LoadedDomain, taskIndex: number, agent: FastWorkflowAgent, user: Participant<Task> = scriptedUser, maxSteps = 30): Promise<EpisodeResult> {
  return runEpisode({ domain, task: domain.tasks()[taskIndex]!, taskIndex, trial: 0, agent, user, maxSteps });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const toolSteps = (result: EpisodeResult): StepEvent[] => result.steps.filter((step) => step.action.name !== "respond");
const names = (result: EpisodeResult): string[] => toolSteps(result).map((step) => step.action.name);

// ------------------------------------------------------------------------------------------------
// retail (τ-bench data)

const RIGHT_5 = [
  "find_user_id_by_name_zip <first_name>Mei</first_name> <last_name>Kovacs</last_name> <zip>28236</zip>",
  "get_user_details <user_id>mei_kovacs_8020</user_id>",
  "get_order_details <order_id>W6390527</order_id>",
  "get_product_details <product_id>6817146515</product_id>",
  "return_delivered_order_items <order_id>W6390527</order_id> <item_ids>8538875209</item_ids> <payment_method_id>paypal_7644869</payment_method_id>",
];
const WRONG_5 = [...RIGHT_5.slice(0, 4), "return_delivered_order_items <order_id>#W6390527</order_id> <item_ids>8384507844</item_ids> <payment_method_id>paypal_7644869</payment_method_id>"];
const RIGHT_5_NAMES = ["find_user_id_by_name_zip", "get_user_details", "get_order_details", "get_product_details", "return_delivered_order_items"];

describe.skipIf(!tauBenchDirectory || !pythonAvailable)("fastworkflow strategy on τ-bench retail (stand-in FastWorkflow)", () => {
  const retail = tauBenchDirectory ? loadDomain(retailDomain, tauBenchDirectory) : (undefined as unknown as LoadedDomain);

  it("steps the environment with the validated parameters, never runs the command's own code, and earns reward 1", async () => {
    const { agent, nativeLog } = fastworkflow(RETAIL_WORKFLOW, [{ commands: RIGHT_5, reply: "Your return is requested: {last}" }]);
    const result = await episode(retail, 5, agent);
    expect(result.error).toBeUndefined();
    expect(result.reward).toBe(1);
    expect(result.termination).toBe("user_stop");
    expect(names(result)).toEqual(RIGHT_5_NAMES);
    expect(toolSteps(result).every((step) => step.origin === "bridge")).toBe(true);
    const returned = toolSteps(result)[4]!.action;
    expect(pyJsonDumps(returned.kwargs)).toBe('{"order_id": "#W6390527", "item_ids": ["8538875209"], "payment_method_id": "paypal_7644869"}');
    expect(nativeRuns(nativeLog)).toEqual([]);
    // τ-bench trajectory shape: the tool calls and their observations, then the reply and the user's answer
    const roles = result.traj.map((message) => message.role);
    expect(roles.slice(0, 2)).toEqual(["system", "user"]);
    expect(roles.slice(2, 12)).toEqual(Array.from({ length: 5 }, () => ["assistant", "tool"]).flat());
    const details = result.traj[5] as { role: "tool"; content: string; name: string };
    expect(details.name).toBe("get_user_details");
    expect(details.content).toContain('"payment_methods"');
    const reply = result.traj[12] as { content: string };
    expect(reply.content).toContain('"status": "return requested"');
    expect(result.extra?.bridge).toMatchObject({ driver: "fastworkflow", mode: "internal", patchTarget: "invoke_command", toolCalls: 5, passthrough: 0 });
  });

  it("earns reward 0 when the agent returns the wrong item", async () => {
    const { agent, nativeLog } = fastworkflow(RETAIL_WORKFLOW, [{ commands: WRONG_5, reply: "Done." }]);
    const result = await episode(retail, 5, agent);
    expect(result.reward).toBe(0);
    expect(result.termination).toBe("user_stop");
    expect(nativeRuns(nativeLog)).toEqual([]);
  });

  for (const patchTarget of ["invoke_command", "execute_workflow_query"] as const) {
    it(`keeps FastWorkflow's handling of handled and failed plans and of non-benchmark commands (patchTarget=${patchTarget})`, async () => {
      const commands = ["what_can_i_do", "get_order_details", "show_store_hours", ...RIGHT_5];
      const { agent, nativeLog } = fastworkflow(RETAIL_WORKFLOW, [{ commands, reply: "[0] {0} [1] {1} [2] {2}" }], { patchTarget, native: "show_store_hours" });
      const result = await episode(retail, 5, agent);
      expect(result.error).toBeUndefined();
      expect(result.reward).toBe(1);
      expect(names(result)).toEqual(RIGHT_5_NAMES); // only benchmark commands reach the environment
      expect(nativeRuns(nativeLog)).toEqual(["show_store_hours"]); // a non-benchmark command runs natively
      const reply = result.traj.find((message) => message.role === "assistant" && typeof message.content === "string" && message.content.startsWith("[0]"));
      const text = (reply as { content: string }).content;
      expect(text).toMatch(/\[0\] Commands: .*get_user_details/); // handled meta-command, executed by the CME
      expect(text).toMatch(/\[1\] PARAMETER EXTRACTION ERROR FOR COMMAND 'get_order_details'[\s\S]*command aborted/); // FastWorkflow's abort
      expect(text).toMatch(/\[2\] native show_store_hours/);
      expect(result.extra?.bridge).toMatchObject({ patchTarget, passthrough: 1 });
    });
  }

  it("fails closed: a command that is not a benchmark tool and not listed as native is not executed", async () => {
    const commands = ["show_store_hours", ...RIGHT_5];
    const { agent, nativeLog } = fastworkflow(RETAIL_WORKFLOW, [{ commands, reply: "[0] {0}" }]);
    const result = await episode(retail, 5, agent);
    expect(result.reward).toBe(1);
    expect(nativeRuns(nativeLog)).toEqual([]);
    expect(result.extra?.bridge).toMatchObject({ passthrough: 0, unmappedTools: ["show_store_hours"] });
    const reply = result.traj.find((message) => message.role === "assistant" && typeof message.content === "string" && message.content.startsWith("[0]"));
    expect((reply as { content: string }).content).toContain('tool "show_store_hours" is not part of the benchmark domain');
  });

  it("bridges assistant-mode messages (`/command`), which reach invoke_command without the agent", async () => {
    const { agent, nativeLog } = fastworkflow(RETAIL_WORKFLOW, []);
    const result = await episode(
      retail,
      5,
      agent,
      simulatedUser("sequence", () => new SequenceUser("/get_user_details <user_id>mei_kovacs_8020</user_id>", ["###STOP###"])),
    );
    expect(result.error).toBeUndefined();
    expect(names(result)).toEqual(["get_user_details"]);
    const reply = result.traj.find((message) => message.role === "assistant" && typeof message.content === "string");
    expect((reply as { content: string }).content).toContain('"orders": ["#W6390527"'); // the environment's observation
    expect(nativeRuns(nativeLog)).toEqual([]);
  });

  it("suspends on ask_user, relays the question to the user, and resumes with the answer", async () => {
    const turns = [{ commands: RIGHT_5.slice(0, 3), ask_user: "Which item should be returned?", after_answer: { commands: RIGHT_5.slice(3), reply: "Done: {last}" } }];
    const { agent } = fastworkflow(RETAIL_WORKFLOW, turns);
    const result = await episode(
      retail,
      5,
      agent,
      simulatedUser("sequence", () => new SequenceUser(undefined, ["The water bottle, please.", "###STOP###"])),
    );
    expect(result.error).toBeUndefined();
    expect(result.reward).toBe(1);
    expect(result.extra?.bridge).toMatchObject({ turnStatuses: ["awaiting_user", "completed"] });
    const texts = result.traj.filter((message) => message.role === "assistant" && typeof message.content === "string").map((message) => message.content);
    expect(texts[0]).toBe("Which item should be returned?");
  });

  it("decision-only: the harness steps the planned actions and logs each decision", async () => {
    const { agent } = fastworkflow(RETAIL_WORKFLOW, [{ commands: RIGHT_5, reply: "Done." }], { bridgeMode: "decision-only" });
    const result = await episode(retail, 5, agent);
    expect(result.reward).toBe(1);
    expect(toolSteps(result).every((step) => step.origin === "harness")).toBe(true);
    const decisions = (result.extra?.bridge as { decisions: Array<{ name: string; kwargs: string }> }).decisions;
    expect(decisions.map((decision) => decision.name)).toEqual(RIGHT_5_NAMES);
    expect(decisions[2]!.kwargs).toBe('{"order_id": "#W6390527"}');
  });

  it("dry-run: nothing is stepped, the plan is recorded, and the end state earns 0", async () => {
    const { agent, nativeLog } = fastworkflow(RETAIL_WORKFLOW, [{ commands: RIGHT_5, reply: "{last}" }], { bridgeMode: "dry-run" });
    const result = await episode(retail, 5, agent);
    expect(toolSteps(result)).toEqual([]);
    expect(result.plannedOnly.map((step) => step.action.name)).toEqual(RIGHT_5_NAMES);
    expect(result.reward).toBe(0);
    const reply = result.traj.find((message) => message.role === "assistant" && typeof message.content === "string");
    expect((reply as { content: string }).content).toMatch(/^\[dry run\] planned return_delivered_order_items/);
    expect(nativeRuns(nativeLog)).toEqual([]);
  });

  it("keeps library prints (on import and during turns) off the protocol stream", async () => {
    const { agent, stderr } = fastworkflow(RETAIL_WORKFLOW, [{ print: "agent is thinking out loud", commands: RIGHT_5, reply: "Done." }]);
    const result = await episode(retail, 5, agent);
    expect(result.reward).toBe(1);
    expect(stderr.some((line) => line.startsWith("fastworkflow stand-in: imported"))).toBe(true);
    expect(stderr.filter((line) => line === "agent is thinking out loud")).toHaveLength(2);
  });

  it("a child that crashes mid-episode ends the episode as infra_error; the next episode runs fine", async () => {
    const crashing = fastworkflow(RETAIL_WORKFLOW, [{ commands: RIGHT_5.slice(0, 2), crash: true }]);
    const crashed = await episode(retail, 5, crashing.agent);
    expect(crashed.termination).toBe("infra_error");
    expect(crashed.reward).toBe(0);
    expect(crashed.error?.message).toMatch(/exited with code 3 unexpectedly/);
    expect(crashed.error?.message).toMatch(/crashing on purpose/);
    expect(names(crashed)).toEqual(RIGHT_5_NAMES.slice(0, 2)); // what happened before the crash stays recorded

    const fine = fastworkflow(RETAIL_WORKFLOW, [{ commands: RIGHT_5, reply: "Done." }]);
    const next = await episode(retail, 5, fine.agent);
    expect(next.reward).toBe(1);
  });

  it("an episode timeout kills the child", async () => {
    // A child that never finishes its turn, and an episode clock the test moves: the limit passes
    // only once the child is running (it printed its pid), however slowly the machine starts it.
    const { agent, stderr } = fastworkflow(RETAIL_WORKFLOW, [{ commands: RIGHT_5.slice(0, 1), sleep: 86_400, reply: "never said" }]);
    const childPid = () => Number(/imported \(pid (\d+)\)/.exec(stderr.join("\n"))?.[1] ?? 0);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let result: EpisodeResult;
    try {
      const episodeDone = runEpisode({ domain: retail, task: retail.tasks()[5]!, taskIndex: 5, trial: 0, agent, user: scriptedUser, maxSteps: 30, timeoutMs: 1_000 });
      while (childPid() === 0) await pause(20); // node:timers/promises: not the faked global
      expect(alive(childPid())).toBe(true);
      // The episode's limit, and no other timer: the bridge's own (ready: 20 s, turn: 600 s) are longer.
      vi.advanceTimersByTime(1_000);
      result = await episodeDone;
    } finally {
      vi.useRealTimers();
    }
    expect(result.termination).toBe("timeout");
    // Gone: polled without a time bound (the test's own timeout is the bound).
    while (alive(childPid())) await pause(50);
    expect(alive(childPid())).toBe(false);
  }, 300_000);

  it("an exception in the agent's own code is an agent error, not an infra error", async () => {
    const { agent } = fastworkflow(RETAIL_WORKFLOW, [{ commands: RIGHT_5.slice(0, 1), raise: "the workflow has a bug" }]);
    const result = await episode(retail, 5, agent);
    expect(result.termination).toBe("agent_error");
    expect(result.error?.message).toMatch(/RuntimeError: the workflow has a bug/);
  });

  it("runs concurrent episodes in separate children without crosstalk", async () => {
    const right = fastworkflow(RETAIL_WORKFLOW, [{ commands: RIGHT_5, reply: "Done." }]);
    const wrong = fastworkflow(RETAIL_WORKFLOW, [{ commands: WRONG_5, reply: "Done." }]);
    const results = await Promise.all([episode(retail, 5, right.agent), episode(retail, 5, wrong.agent), episode(retail, 5, right.agent), episode(retail, 5, wrong.agent)]);
    expect(results.map((result) => result.reward)).toEqual([1, 0, 1, 0]);
    for (const result of results) expect(names(result)).toEqual(RIGHT_5_NAMES);
    const sessions = results.map((result) => (result.extra?.bridge as { session: { sessionKey: string } }).session.sessionKey);
    expect(new Set(sessions).size).toBe(4);
  });

  it("stops stepping at the step budget and after a terminate tool", async () => {
    const { agent } = fastworkflow(RETAIL_WORKFLOW, [{ commands: RIGHT_5, reply: "{last}" }]);
    const limited = await episode(retail, 5, agent, scriptedUser, 3);
    expect(limited.termination).toBe("max_steps");
    expect(names(limited)).toEqual(RIGHT_5_NAMES.slice(0, 3));
    expect(limited.extra?.bridge).toMatchObject({ refused: 2 });
    const lastReply = limited.traj.filter((message) => message.role === "tool").pop() as { content: string };
    expect(lastReply.content).not.toBe(EPISODE_OVER_OUTPUT); // refused calls are not recorded as steps

    const transfer = [
      "find_user_id_by_email <email>mia.garcia2723@example.com</email>",
      "get_user_details <user_id>mia_garcia_4516</user_id>",
      "get_order_details <order_id>W5490111</order_id>",
      "get_order_details <order_id>W7387996</order_id>",
      "transfer_to_human_agents <summary>The user wants to refund each order to the opposite order's payment method, but the agent cannot help.</summary>",
      "cancel_pending_order <order_id>W5490111</order_id> <reason>no longer needed</reason>",
    ];
    const transferring = fastworkflow(RETAIL_WORKFLOW, [{ commands: transfer, reply: "{last}" }]);
    const ended = await episode(retail, 10, transferring.agent);
    expect(ended.termination).toBe("agent_stop");
    expect(ended.reward).toBe(1);
    expect(names(ended)).toEqual(["find_user_id_by_email", "get_user_details", "get_order_details", "get_order_details", "transfer_to_human_agents"]);
    expect(ended.extra?.bridge).toMatchObject({ refused: 1 });
  });

  it("bridges an unchanged command line through sitecustomize, and over the dedicated fd channel", async () => {
    const variants: Array<Record<string, string>> = [{ launch: "sitecustomize", program: join(FIXTURES, "user_program.py") }, { channel: "fd" }];
    for (const options of variants) {
      const { agent, nativeLog } = fastworkflow(RETAIL_WORKFLOW, [{ print: "chatter", commands: RIGHT_5, reply: "Done." }], options);
      const result = await episode(retail, 5, agent);
      expect(result.error).toBeUndefined();
      expect(result.reward).toBe(1);
      expect(nativeRuns(nativeLog)).toEqual([]);
    }
  });

  it("the python-bridge strategy bridges any Python agent's tool functions (generic patch targets)", async () => {
    const nativeLog = join(scratch, `native-${++counter}.log`);
    const agent = new FastWorkflowAgent(
      parseFastWorkflowOptions({
        driver: "entry",
        entry: "toy_retail_agent:ToyRetailAgent",
        patchTargets: [
          "toy_retail_tools:find_user_id_by_name_zip",
          "toy_retail_tools:get_user_details",
          "toy_retail_tools:OrderDesk.order_details=get_order_details",
          "toy_retail_tools:OrderDesk.return_items=return_delivered_order_items",
          "toy_retail_tools:store_hours",
        ].join(","),
        native: "store_hours",
        pythonPath: GENERIC_AGENT,
        "env.TOY_AGENT_NATIVE_LOG": nativeLog,
      }),
    );
    const result = await episode(retail, 5, agent);
    expect(result.error).toBeUndefined();
    expect(result.reward).toBe(1);
    expect(names(result)).toEqual(["find_user_id_by_name_zip", "get_user_details", "get_order_details", "return_delivered_order_items"]);
    expect(nativeRuns(nativeLog)).toEqual(["store_hours"]); // not a benchmark tool: ran natively
    expect(result.extra?.bridge).toMatchObject({ driver: "entry", passthrough: 1 });
  });
});

// ------------------------------------------------------------------------------------------------
// library (bundled data: always runs)

const LIBRARY_3 = [
  "find_member_id_by_name_zip <first_name>Mateo</first_name> <last_name>Rossi</last_name> <zip>80205</zip>",
  "get_member_details <member_id>mateo_rossi_6152</member_id>",
  "get_loan_details <loan_id>L2005</loan_id>",
  "pay_fine <member_id>mateo_rossi_6152</member_id> <amount>8</amount> <payment_method_id>card_5547</payment_method_id>",
  "renew_loan <loan_id>L2005</loan_id>",
];

describe.skipIf(!pythonAvailable)("fastworkflow strategy on the bundled library domain (stand-in FastWorkflow)", () => {
  const library = loadDomain(libraryDomain, undefined);

  it("keeps a float parameter a float end to end (pay_fine amount 8 → 8.0) and earns reward 1", async () => {
    const { agent, nativeLog } = fastworkflow(LIBRARY_WORKFLOW, [{ commands: LIBRARY_3, reply: "Paid and renewed: {last}" }]);
    const result = await episode(library, 3, agent);
    expect(result.error).toBeUndefined();
    expect(result.reward).toBe(1);
    const payment = toolSteps(result).find((step) => step.action.name === "pay_fine")!;
    expect(isPyFloat(payment.action.kwargs.get("amount"))).toBe(true);
    expect(pyJsonDumps(payment.action.kwargs)).toBe('{"member_id": "mateo_rossi_6152", "amount": 8.0, "payment_method_id": "card_5547"}');
    const call = result.traj.find((message) => message.role === "assistant" && message.tool_calls?.[0]?.function.name === "pay_fine") as {
      tool_calls: Array<{ function: { arguments: string } }>;
    };
    expect(call.tool_calls[0]!.function.arguments).toContain('"amount": 8.0');
    expect(nativeRuns(nativeLog)).toEqual([]);
  });

  const realFastWorkflow = pythonAvailable && spawnSync(python, ["-c", "import fastworkflow"]).status === 0;
  it.skipIf(realFastWorkflow)("a session that cannot start is an infra error (no fastworkflow importable)", async () => {
    const agent = new FastWorkflowAgent(parseFastWorkflowOptions({ workflowPath: LIBRARY_WORKFLOW }));
    const result = await episode(library, 3, agent);
    expect(result.termination).toBe("infra_error");
    expect(result.error?.message).toMatch(/cannot import fastworkflow/);
  });

  it("registers the strategies and rejects bad options before any episode", () => {
    expect(testRegistries.agentStrategies.has("fastworkflow")).toBe(true);
    expect(testRegistries.agentStrategies.has("python-bridge")).toBe(true);
    expect(() => parseFastWorkflowOptions({})).toThrow(ConfigError);
    expect(() => parseFastWorkflowOptions({ workflowPath: "/nonexistent" })).toThrow(/workflow directory not found/);
    expect(() => parseFastWorkflowOptions({ workflowPath: LIBRARY_WORKFLOW, bridgeMode: "sometimes" })).toThrow(/bridgeMode/);
    expect(() => parseFastWorkflowOptions({ workflowPath: LIBRARY_WORKFLOW, wokflowPath: "x" })).toThrow(/unknown --agent-option wokflowPath/);
    expect(() => parseFastWorkflowOptions({ driver: "entry" })).toThrow(/entry=<module>:<callable>/);
    const parsed = parseFastWorkflowOptions({ workflowPath: LIBRARY_WORKFLOW, "fwEnv.LLM_AGENT": "litellm_proxy/m", "env.X": "1", runAsAgent: "false", renames: "lookup:get_member_details" });
    expect(parsed).toMatchObject({ fwEnv: { LLM_AGENT: "litellm_proxy/m" }, env: { X: "1" }, runAsAgent: false, renames: { lookup: "get_member_details" }, patchTarget: "invoke_command" });
  });
});
