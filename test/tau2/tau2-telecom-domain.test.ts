import { join } from "node:path";
import { expect, it } from "vitest";
import { tau2TelecomDomain, tau2TelecomWorkflowDomain } from "../../domains/tau2-telecom/index.ts";
import { telecomDbModel } from "../../domains/tau2-telecom/data-model.ts";
import { telecomUserDbModel } from "../../domains/tau2-telecom/user-data-model.ts";
import { loadTau2Domain, readDatabase } from "../../src/suites/tau2/engine/domain.ts";
import { type Tau2Assertion, type Tau2DatabaseHash, Tau2Environment, type Tau2ReplayMessage, type Tau2Requestor, type Tau2ToolCall } from "../../src/suites/tau2/engine/environment.ts";
import { applyTaskInitialState, environmentHop, toReplayMessage } from "../../src/suites/tau2/engine/task-state.ts";
import { toolsOf } from "../../src/suites/tau2/engine/toolkit.ts";
import { readTau2Splits, readTau2Tasks, type Tau2Task } from "../../src/suites/tau2/tasks.ts";
import { PyException, type PyDict, type PyValue, fromJs, pyFloat } from "../../src/value/index.ts";
import { describeWithTau2Data, missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";
import { checkGroundTruthReplay, checkToolProbes, expectNoProblems, readFixture } from "./fixture-checks.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

function get(value: PyValue | undefined, key: string): PyValue {
  return (value as PyDict).get(key) as PyValue;
}

describeWithTau2Data("τ² telecom domain against the reference fixtures", () => {
  const domain = loadTau2Domain(tau2TelecomDomain, data as string);
  const allTasks = readTau2Tasks(join(data as string, "telecom", "tasks.json"));
  const smallTasks = readTau2Tasks(join(data as string, "telecom", "tasks_small.json"));
  const tasksById = new Map(allTasks.map((task) => [task.id, task]));
  const smallById = new Map(smallTasks.map((task) => [task.id, task]));
  const replay = readFixture(data as string, "gt_replay_telecom.json");
  const sets = replay.get("sets") as PyDict;
  const setTasks: Record<string, Map<string, Tau2Task>> = { base: tasksById, tasks_small: smallById };

  for (const setName of ["base", "tasks_small"]) {
    it(`replays every ground-truth action of the ${setName} set with the original's results, error flags and hashes`, () => {
      const entries = sets.get(setName) as PyValue[];
      expect(entries.length).toBe(setName === "base" ? 114 : 20);
      expectNoProblems(entries.flatMap((entry) => checkGroundTruthReplay(domain, setTasks[setName].get(get(entry, "id") as string) as Tau2Task, entry as PyDict)));
    });

    it(`builds the evaluator's gold state of the ${setName} set (make_tool_call without sync_tools)`, () => {
      const problems: string[] = [];
      for (const entry of sets.get(setName) as PyValue[]) {
        const task = setTasks[setName].get(get(entry, "id") as string) as Tau2Task;
        const environment = domain.createEnvironment();
        const state = task.initial_state;
        environment.setState(state?.initialization_data, state?.initialization_actions, (state?.message_history ?? []).map(toReplayMessage));
        let raised = 0;
        for (const step of get(entry, "steps") as PyValue[]) {
          try {
            environment.makeToolCall(get(step, "name") as string, get(step, "requestor") as Tau2Requestor, get(step, "arguments") as PyDict);
          } catch (error) {
            if (!PyException.isInstance(error)) throw error;
            raised++;
          }
        }
        const gold = get(entry, "evaluator_gold");
        const expected = get(gold, "final_hash") as PyDict;
        const hash: Tau2DatabaseHash = environment.hash();
        if (hash.agent !== expected.get("agent") || hash.user !== expected.get("user")) problems.push(`${task.id}: gold hash`);
        if (raised !== (get(gold, "raised") as PyValue[]).length) problems.push(`${task.id}: gold raised ${raised}`);
      }
      expectNoProblems(problems);
    });
  }

  it("answers every tool probe as the original does (the random bill id probe excepted)", () => {
    expectNoProblems(checkToolProbes(domain, tasksById, readFixture(data as string, "tool_probes_telecom.json")));
  });

  it("reproduces every tool result of the reference simulations (evaluator_telecom.json) and their env assertion outcomes", () => {
    const problems: string[] = [];
    let compared = 0;
    const fixture = readFixture(data as string, "evaluator_telecom.json");
    for (const entry of fixture.get("tasks") as PyDict[]) {
      const task = setTasks[entry.get("task_set") as string].get(entry.get("task_id") as string) as Tau2Task;
      for (const variant of entry.get("variants") as PyDict[]) {
        const label = `${task.id} ${variant.get("variant") as string}`;
        const messages = variant.get("messages") as PyDict[];
        const environment = domain.createEnvironment();
        applyTaskInitialState(environment, task);
        const trajectory: Tau2ReplayMessage[] = [];
        messages.forEach((message, index) => {
          const calls = (message.get("tool_calls") ?? []) as PyDict[];
          if (message.get("role") === "tool") {
            trajectory.push({
              role: "tool",
              id: message.get("id") as string,
              content: message.get("content") as string,
              requestor: message.get("requestor") as Tau2Requestor,
              error: message.get("error") as boolean,
            });
            return;
          }
          const toolCalls: Tau2ToolCall[] = calls.map((call) => ({
            id: call.get("id") as string,
            name: call.get("name") as string,
            arguments: call.get("arguments") as PyDict,
            requestor: call.get("requestor") as Tau2Requestor,
          }));
          trajectory.push({ role: message.get("role") as "assistant" | "user", tool_calls: toolCalls.length > 0 ? toolCalls : null });
          toolCalls.forEach((call, offset) => {
            const recorded = messages[index + 1 + offset];
            const result = environmentHop(environment, call);
            compared++;
            if (result.content !== recorded.get("content") || result.error !== recorded.get("error")) problems.push(`${label} message ${index} ${call.name}: ${result.content}`);
          });
        });
        const assertions = (get(variant.get("reward_info"), "env_assertions") ?? []) as PyDict[];
        if (assertions.length === 0) continue;
        const predicted = domain.createEnvironment();
        applyTaskInitialState(predicted, task, trajectory);
        for (const check of assertions) {
          const assertion = check.get("env_assertion") as PyDict;
          const call: Tau2Assertion = {
            env_type: assertion.get("env_type") as Tau2Requestor,
            func_name: assertion.get("func_name") as string,
            arguments: assertion.get("arguments") as PyDict,
            assert_value: assertion.get("assert_value") as boolean,
          };
          if (predicted.runAssertion(call) !== check.get("met")) problems.push(`${label} ${call.func_name}: met`);
          compared++;
        }
      }
    }
    expectNoProblems(problems);
    expect(compared).toBeGreaterThan(200);
  });

  it("lists the agent and user tools with the original's names, order, types and mutates_state", () => {
    const tools = readFixture(data as string, "tools_telecom.json");
    const info = (kit: typeof tau2TelecomDomain.agentToolkit) => toolsOf(kit).map((tool) => ({ name: tool.name, tool_type: tool.tool?.type, mutates_state: tool.tool?.mutatesState }));
    const expected = (key: string) => (tools.get(key) as PyDict[]).map((entry) => ({ name: entry.get("name"), tool_type: entry.get("tool_type"), mutates_state: entry.get("mutates_state") }));
    expect(info(tau2TelecomDomain.agentToolkit)).toEqual(expected("agent_tool_info"));
    expect(info(tau2TelecomDomain.userToolkit as typeof tau2TelecomDomain.agentToolkit)).toEqual(expected("user_tool_info"));
  });

  it("validates all 2,285 tasks and runs the initialization of every base and small task", () => {
    expect(allTasks.length).toBe(2285);
    const splits = readTau2Splits(join(data as string, "telecom", "split_tasks.json")) as Record<string, string[]>;
    const base = new Set(splits.base);
    const toInitialize = [...allTasks.filter((task) => base.has(task.id)), ...smallTasks];
    expect(toInitialize.length).toBe(134);
    for (const task of toInitialize) applyTaskInitialState(domain.createEnvironment(), task);
  });

  it("runs the initialization of every one of the 2,285 tasks", () => {
    const failures: string[] = [];
    for (const task of allTasks) {
      try {
        applyTaskInitialState(domain.createEnvironment(), task);
      } catch (error) {
        failures.push(`${task.id}: ${String(error)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("composes the policies as τ²'s telecom get_environment (manual, workflow, and their solo variants)", () => {
    const prompts = readFixture(data as string, "prompts_telecom.json");
    const agents = prompts.get("llm_agent") as PyDict;
    expect(domain.policy()).toBe(get(agents.get("telecom"), "policy"));
    const workflow = loadTau2Domain(tau2TelecomWorkflowDomain, data as string);
    expect(workflow.policy()).toBe(get(agents.get("telecom-workflow"), "policy"));
    expect(domain.policy(true)).toMatch(/^<main_policy>\n[\s\S]*\n<\/main_policy>\n<tech_support_policy>\n[\s\S]*\n<\/tech_support_policy>$/);
    expect(workflow.policy(true)).not.toBe(workflow.policy(false));
  });
});

describeWithTau2Data("τ² telecom domain: behaviour checked against the original code", () => {
  const domain = loadTau2Domain(tau2TelecomDomain, data as string);
  const directory = join(data as string, "telecom");
  const databases = () => ({ agent: readDatabase(join(directory, "db.toml"), telecomDbModel), user: readDatabase(join(directory, "user_db.toml"), telecomUserDbModel) });
  let callId = 0;
  const run = (environment: Tau2Environment, requestor: Tau2Requestor, name: string, args: Record<string, unknown> = {}) =>
    environmentHop(environment, { id: `c${callId++}`, name, requestor, arguments: fromJs(args) as PyDict });
  const fn = (environment: Tau2Environment, envType: Tau2Requestor, name: string, args: Record<string, unknown> = {}) =>
    environment.runFunctionCall({ env_type: envType, func_name: name, arguments: fromJs(args) as PyDict });
  const raises = (action: () => unknown): string => {
    try {
      action();
    } catch (error) {
      if (PyException.isInstance(error)) return error.message;
      throw error;
    }
    return "did not raise";
  };

  it("names a new Draft bill from the environment's random source (the fixture's stand-in id B00000001 gives its hash)", () => {
    const probe = (readFixture(data as string, "tool_probes_telecom.json").get("probes") as PyDict[]).find((entry) => entry.get("id") === "refuel_no_draft_bill") as PyDict;
    const environment = new Tau2Environment(tau2TelecomDomain, databases(), false, { nextUint32: () => 1 });
    const result = run(environment, "assistant", "refuel_data", { customer_id: "C1002", line_id: "L1004", gb_amount: pyFloat(1) });
    const expected = (probe.get("results") as PyDict[])[0];
    expect(result.content).toBe(expected.get("content"));
    expect(environment.hash()).toEqual(Object.fromEntries(expected.get("hash_after") as PyDict));
    expect(run(environment, "assistant", "get_details_by_id", { id: "B00000001" }).content).toContain(
      '"period_start": "2025-03-01", "period_end": "2025-03-31", "issue_date": "2025-03-01", "total_due": 0.1, "due_date": "2025-03-15"',
    );
  });

  it("draws the same bill ids for the same seed and different ones for different seeds", () => {
    const newBillId = (seed?: number) => {
      const environment = domain.createEnvironment(seed === undefined ? {} : { seed });
      run(environment, "assistant", "refuel_data", { customer_id: "C1002", line_id: "L1004", gb_amount: 1 });
      const bills = JSON.parse(run(environment, "assistant", "get_customer_by_id", { customer_id: "C1002" }).content).bill_ids as string[];
      return bills[bills.length - 1];
    };
    expect(newBillId(7)).toMatch(/^B[0-9a-f]{8}$/);
    expect(newBillId(7)).toBe(newBillId(7));
    expect(newBillId(8)).not.toBe(newBillId(7));
    expect(newBillId()).toBe(newBillId(0));
  });

  it("gives every environment its own default VPN (fresh-process behaviour), which break_vpn degrades for later reconnects", () => {
    const broken = domain.createEnvironment();
    fn(broken, "user", "break_vpn");
    const poor = "VPN is ON and connected. Details: {'server_address': '192.168.1.1', 'protocol': 'OpenVPN', 'server_performance': <PerformanceLevel.POOR: 'poor'>}";
    expect(run(broken, "user", "check_vpn_status").content).toBe(poor);
    expect(broken.hash().user).toBe("ad57750dde244df18e558997f01ee26c6fb4c6786e9fd4933c6abce619a7ffca");
    run(broken, "user", "disconnect_vpn");
    run(broken, "user", "connect_vpn");
    expect(run(broken, "user", "check_vpn_status").content).toBe(poor);
    const fresh = domain.createEnvironment();
    run(fresh, "user", "connect_vpn");
    expect(run(fresh, "user", "check_vpn_status").content).toContain("<PerformanceLevel.EXCELLENT: 'excellent'>");
  });

  it("keeps what an unvalidated assignment stored, and fails later as Python does", () => {
    const mode = domain.createEnvironment();
    expect(run(mode, "user", "set_network_mode_preference", { mode: 3 }).content).toBe("Error: 'int' object has no attribute 'value'");
    expect(mode.hash().user).toBe("d3e3d3c3c97ac50eeb1c7d42aa2dbcce21abe97daa411408719eab7c54ca80a5");
    const none = domain.createEnvironment();
    expect(run(none, "user", "set_network_mode_preference", { mode: null }).content).toBe(
      "Failed to set network mode: 'None' is not a valid option. Please use one of: 4g_5g_preferred, 4g_only, 3g_only, 2g_only\nStatus Bar: \u{1f4f6}\u00b3 Good | 4G | \u{1f4f1} Data Enabled | \u{1f50b} 80%",
    );
    expect(none.hash().user).toBe("bce57954a6670f67d1c228b88033821164857084504007a4721edc884657d452");
    const apn = domain.createEnvironment();
    expect(run(apn, "user", "set_apn_settings", { apn_settings: "internet" }).content).toBe("Error: 'str' object has no attribute 'apn_name'");
    expect(run(apn, "user", "check_apn_settings").content).toBe("Error: 'str' object has no attribute 'model_copy'");
    expect(run(apn, "user", "reboot_device").content).toBe("Error: 'str' object has no attribute 'reset_at_reboot'");
    expect(apn.hash().user).toBe("1448e204f795641ac1aa3b2bb5677e3d889636128a0cb37cc14b21a168cda9bb");
  });

  it("answers odd arguments with Python's errors", () => {
    const environment = domain.createEnvironment();
    expect(raises(() => fn(environment, "user", "assert_service_status", { expected_status: "bogus" }))).toBe("'bogus' is not a valid NetworkStatus");
    expect(raises(() => fn(environment, "user", "assert_service_status", { expected_status: 5 }))).toBe("5 is not a valid NetworkStatus");
    expect(run(environment, "user", "grant_app_permission", { app_name: "messaging", permission: 5 }).content).toBe("Error: 'int' object has no attribute 'lower'");
    expect(run(environment, "user", "grant_app_permission", { app_name: ["x"], permission: "sms" }).content).toBe("Error: unhashable type: 'list'");
    expect(run(environment, "user", "check_app_status", { app_name: 7 }).content).toBe("App '7' not found on this phone.");
    expect(raises(() => fn(environment, "user", "remove_app_permission", { app_name: "messaging", permission: "copy" }))).toBe('"AppPermissions" object has no field "copy"');
    expect(fn(environment, "user", "lock_sim_card", { mode: "other" })).toBe("SIM card locked successfully in other mode.");
    expect(run(environment, "assistant", "get_details_by_id", { id: 5 }).content).toBe("Error: 'int' object has no attribute 'startswith'");
    expect(run(environment, "assistant", "get_customer_by_name", { full_name: 5, dob: "x" }).content).toBe("Error: 'int' object has no attribute 'lower'");
    expect(run(environment, "assistant", "get_bills_for_customer", { customer_id: "C1001", limit: pyFloat(2) }).content).toBe(
      "Error: slice indices must be integers or None or have an __index__ method",
    );
  });

  it("formats refuel charges with Python's half-even .2f and keeps a bool amount as given", () => {
    const environment = domain.createEnvironment();
    expect(run(environment, "assistant", "refuel_data", { customer_id: "C1001", line_id: "L1002", gb_amount: true }).content).toBe(
      '{"message": "Successfully added True GB of data for line L1002 for $2.00", "new_data_refueling_gb": "1.0", "charge": "2.0"}',
    );
    expect(run(environment, "assistant", "refuel_data", { customer_id: "C1001", line_id: "L1002", gb_amount: 0.125 }).content).toBe(
      '{"message": "Successfully added 0.125 GB of data for line L1002 for $0.25", "new_data_refueling_gb": "1.125", "charge": "0.25"}',
    );
    expect(environment.hash().agent).toBe("4a9fb91aa5a3a77a0820417f56e6fe61691bbec6e05e6507a1189e53acd5fb96");
  });

  it("runs the derived device behaviour with the code's numbers (data saver ×0.2, 2G, speed assertions)", () => {
    const saver = domain.createEnvironment();
    fn(saver, "user", "turn_data_saver_mode_on");
    expect(run(saver, "user", "run_speed_test").content).toBe("Speed Test Result: 44.00 Mbps (Good). Connection is good for most activities, including HD streaming.");
    const slow = domain.createEnvironment();
    fn(slow, "user", "set_network_mode_preference", { mode: "2g_only" });
    expect(run(slow, "user", "run_speed_test").content).toBe("Speed Test Result: 0.05 Mbps (Very Poor). Connection is very slow. Basic web browsing might be difficult.");
    expect(fn(slow, "user", "assert_internet_speed", { expected_speed: 0.3 })).toBe(false);
    expect(fn(slow, "user", "assert_internet_not_excellent")).toBe(true);
    expect(run(slow, "user", "check_app_status", { app_name: "browser" }).content).toBe("Status for App: browser\n - Permissions Granted:\n   - storage\n   - network");
  });

  it("runs the agent-side setup and assertion functions as the original", () => {
    const environment = domain.createEnvironment();
    expect(fn(environment, "assistant", "suspend_line_for_overdue_bill", { customer_id: "C1001", line_id: "L1002", new_bill_id: "B99", contract_ended: true })).toBe(
      "Line L1002 suspended for unpaid bill B99. Contract ended: True",
    );
    expect(environment.hash().agent).toBe("08c1b4d27f7aeccebe19bb17a32357e0328b453226346d5b308cb7e7e12fbd06");
    expect(fn(environment, "assistant", "assert_overdue_bill_exists", { customer_id: "C1001", overdue_bill_id: "B99" })).toBe(true);
    expect(fn(environment, "assistant", "assert_no_overdue_bill", { overdue_bill_id: "B99" })).toBe(false);
    expect(fn(environment, "assistant", "assert_no_overdue_bill", { overdue_bill_id: "B404" })).toBe(true);
    const usage = domain.createEnvironment();
    expect(fn(usage, "assistant", "set_data_usage", { customer_id: "C1001", line_id: "L1002", data_used_gb: 20 })).toBe("Data usage set to 20 GB for line L1002");
    expect(run(usage, "assistant", "get_data_usage", { customer_id: "C1001", line_id: "L1002" }).content).toBe(
      '{"line_id": "L1002", "data_used_gb": "20", "data_limit_gb": "15.0", "data_refueling_gb": "0.0", "cycle_end_date": "2025-02-28"}',
    );
    expect(usage.hash().agent).toBe("cfbcdb201a9e4a94229b908abba863d4423bcb8c224405ffcf686d59d25d0b09");
  });
});
