/**
 * The golden scenarios: whole CLI runs whose outputs must not change while the code is
 * restructured. Each runs `taubridge …` from the sources in a child process (against a scripted
 * model server on loopback when the scenario needs models) and keeps what a user would compare:
 * the exit code, stdout and stderr, and every file the run wrote into its output directory
 * (results files and run-status sidecars; checkpoints are the run layer's own business).
 */
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Responder } from "../../src/testing/index.ts";
import { byModel, tau2AgentResponder, tau2JudgeResponder, tau2PlanTasks, tau2UserResponder, tauAgentResponder, tauBenchPlanTasks, tauUserResponder, type AgentStyle } from "./responders.ts";

export const REPOSITORY = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const LIBRARY_TASKS = join(REPOSITORY, "domains", "library", "data", "tasks_test.json");
const FASTWORKFLOW_FIXTURES = join(REPOSITORY, "test", "fixtures", "fastworkflow");

/** What a scenario needs besides the repository. */
export type Needs = "tau-bench" | "tau2-bench" | "python";

/** Everything a scenario's command line may refer to. */
export interface ScenarioContext {
  /** The scenario's output directory (results go here). */
  out: string;
  /** A scratch directory for inputs the scenario writes. */
  scratch: string;
  /** The scripted model server's base URL (when the scenario has a responder). */
  baseUrl: string;
  shared: string;
  tauBench: string;
  tau2Bench: string;
}

/** One CLI invocation of a scenario. */
export interface Invocation {
  args: string[];
  env?: Record<string, string>;
  /** What it prints holds no upstream data (numbers, our own words), so it is stored whole even in a data scenario. */
  printsNoData?: boolean;
}

export interface Scenario {
  name: string;
  needs: Needs[];
  /** Answers the model calls, when the scenario makes any. */
  responder?: (context: ScenarioContext) => Responder;
  /** Inputs to write before the run. */
  prepare?: (context: ScenarioContext) => void;
  /** The invocations, in order (a resume scenario runs twice). */
  invocations: (context: ScenarioContext) => Invocation[];
}

const MODEL_FLAGS = (context: ScenarioContext) => ["--model", "agent-model", "--model-provider", "openai-compatible", "--base-url", context.baseUrl];
const USER_MODEL_FLAGS = (context: ScenarioContext) => ["--user-model", "user-model", "--user-model-provider", "openai-compatible", "--user-base-url", context.baseUrl];

const libraryTasks = () => tauBenchPlanTasks(LIBRARY_TASKS);

function tauRun(name: string, args: (context: ScenarioContext) => string[], options: Partial<Scenario> = {}): Scenario {
  return {
    name,
    needs: [],
    ...options,
    invocations: (context) => [{ args: ["run", "--log-dir", context.out, "--quiet", ...args(context)] }],
  };
}

function tau2Run(name: string, args: (context: ScenarioContext) => string[], options: Partial<Scenario> = {}): Scenario {
  return {
    name,
    needs: ["tau2-bench"],
    ...options,
    // One simulation at a time: τ² appends simulations in the order they finish.
    invocations: (context) => [{ args: ["tau2", "run", "--data-dir", context.tau2Bench, "--save-to", join(context.out, "results.json"), "--quiet", "--max-concurrency", "1", ...args(context)] }],
  };
}

const AGENT_STYLES: Array<[string, AgentStyle]> = [
  ["tool-calling", "tool-calling"],
  ["act", "act"],
  ["react", "react"],
  ["few-shot", "tool-calling"],
];

const FRAMEWORKS = ["vercel-ai", "openai-agents", "langchain", "mastra"] as const;
const frameworkExample = (framework: string, domain: string) => join(REPOSITORY, "adapters", framework, "example", `${domain}-agent.ts`);

/** A few-shot displays file for the library domain (the agent samples 5 of its lines per episode). */
function writeFewShotDisplays(context: ScenarioContext): void {
  const lines = Array.from({ length: 6 }, (_, index) =>
    JSON.stringify({ messages_display: `user: Example ${index}: I want to renew my loans.\nassistant: Sure, what is the e-mail on your card?\nuser: ann${index}@example.com` }),
  );
  writeFileSync(join(context.scratch, "displays.jsonl"), `${lines.join("\n")}\n`);
}

const tauBenchScenarios: Scenario[] = [
  tauRun("tau-library-oracle", () => []),
  tauRun("tau-retail-test-oracle", (context) => ["--env", "retail", "--data-dir", context.tauBench, "--task-split", "test"], { needs: ["tau-bench"] }),
  tauRun("tau-retail-train-oracle", (context) => ["--env", "retail", "--data-dir", context.tauBench, "--task-split", "train", "--max-concurrency", "4"], { needs: ["tau-bench"] }),
  tauRun("tau-retail-dev-oracle", (context) => ["--env", "retail", "--data-dir", context.tauBench, "--task-split", "dev"], { needs: ["tau-bench"] }),
  tauRun("tau-airline-test-oracle", (context) => ["--env", "airline", "--data-dir", context.tauBench], { needs: ["tau-bench"] }),
  ...AGENT_STYLES.map(([strategy, style]) =>
    tauRun(
      `tau-library-${strategy}-llm-user`,
      (context) => [
        "--agent-strategy",
        strategy,
        ...MODEL_FLAGS(context),
        ...USER_MODEL_FLAGS(context),
        ...(strategy === "few-shot" ? ["--few-shot-displays-path", join(context.scratch, "displays.jsonl")] : []),
      ],
      {
        responder: () => byModel({ agent: tauAgentResponder(libraryTasks(), style), user: tauUserResponder(libraryTasks(), "llm") }),
        ...(strategy === "few-shot" ? { prepare: writeFewShotDisplays } : {}),
      },
    ),
  ),
  ...(["react", "verify", "reflection"] as const).map((user) =>
    tauRun(
      `tau-library-tool-calling-${user}-user`,
      (context) => ["--agent-strategy", "tool-calling", "--user-strategy", user, ...MODEL_FLAGS(context), ...USER_MODEL_FLAGS(context), "--task-ids", "0", "1", "2"],
      {
        responder: () => byModel({ agent: tauAgentResponder(libraryTasks(), "tool-calling"), user: tauUserResponder(libraryTasks(), user) }),
      },
    ),
  ),
  tauRun("tau-library-module", () => ["--agent-strategy", "module", "--agent-module", join(REPOSITORY, "test", "fixtures", "function-agent", "renewal-agent.mjs")]),
  ...FRAMEWORKS.map((framework) =>
    tauRun(
      `tau-library-${framework}`,
      (context) => ["--agent-strategy", framework, "--agent-module", frameworkExample(framework, "library"), "--base-url", context.baseUrl, "--model", "scripted-model"],
      {
        responder: () => byModel({ agent: tauAgentResponder(libraryTasks(), "tool-calling") }),
      },
    ),
  ),
  ...(["decision-only", "dry-run"] as const).map((mode) =>
    tauRun(
      `tau-library-vercel-ai-${mode}`,
      (context) => [
        "--agent-strategy",
        "vercel-ai",
        "--agent-module",
        frameworkExample("vercel-ai", "library"),
        "--base-url",
        context.baseUrl,
        "--model",
        "scripted-model",
        "--bridge-mode",
        mode,
        "--task-ids",
        "0",
        "2",
        "6",
      ],
      { responder: () => byModel({ agent: tauAgentResponder(libraryTasks(), "tool-calling") }) },
    ),
  ),
  tauRun(
    "tau-retail-fastworkflow-standin",
    (context) => [
      "--env",
      "retail",
      "--data-dir",
      context.tauBench,
      "--task-ids",
      "5",
      "--agent-strategy",
      "fastworkflow",
      "--workflow-path",
      join(FASTWORKFLOW_FIXTURES, "retail_workflow"),
      "--agent-option",
      `pythonPath=${join(FASTWORKFLOW_FIXTURES, "standin")}`,
      "--agent-option",
      `env.FASTWORKFLOW_STANDIN_SCRIPT=${join(context.scratch, "turns.json")}`,
      "--agent-option",
      `env.FASTWORKFLOW_STANDIN_NATIVE_LOG=${join(context.scratch, "native.log")}`,
    ],
    {
      needs: ["tau-bench", "python"],
      prepare: (context) =>
        writeFileSync(
          join(context.scratch, "turns.json"),
          JSON.stringify({
            turns: [
              {
                commands: [
                  "find_user_id_by_name_zip <first_name>Mei</first_name> <last_name>Kovacs</last_name> <zip>28236</zip>",
                  "get_user_details <user_id>mei_kovacs_8020</user_id>",
                  "get_order_details <order_id>W6390527</order_id>",
                  "get_product_details <product_id>6817146515</product_id>",
                  "return_delivered_order_items <order_id>W6390527</order_id> <item_ids>8538875209</item_ids> <payment_method_id>paypal_7644869</payment_method_id>",
                ],
                reply: "Your return is requested: {last}",
              },
            ],
          }),
        ),
    },
  ),
  tauRun("tau-retail-python-bridge", (context) => ["--env", "retail", "--data-dir", context.tauBench, "--task-ids", "5", "--agent-strategy", "python-bridge", ...pythonBridgeOptions()], {
    needs: ["tau-bench", "python"],
  }),
];

function pythonBridgeOptions(): string[] {
  const targets = [
    "toy_retail_tools:find_user_id_by_name_zip",
    "toy_retail_tools:get_user_details",
    "toy_retail_tools:OrderDesk.order_details=get_order_details",
    "toy_retail_tools:OrderDesk.return_items=return_delivered_order_items",
    "toy_retail_tools:store_hours",
  ].join(",");
  return ["entry=toy_retail_agent:ToyRetailAgent", `patchTargets=${targets}`, "native=store_hours", `pythonPath=${join(FASTWORKFLOW_FIXTURES, "generic_agent")}`].flatMap((option) => [
    "--agent-option",
    option,
  ]);
}

const tau2Tasks = (context: ScenarioContext, domain: string) => tau2PlanTasks(join(context.tau2Bench, domain, "tasks.json"));
const tau2Models = (context: ScenarioContext) => {
  const args = JSON.stringify({ temperature: 0.0, api_base: context.baseUrl });
  return ["--agent-llm", "agent-model", "--agent-llm-args", args, "--user-llm", "user-model", "--user-llm-args", args];
};

const tau2Scenarios: Scenario[] = [
  tau2Run("tau2-mock-oracle", () => ["--domain", "mock", "--agent", "oracle", "--user", "scripted"]),
  tau2Run("tau2-airline-oracle", () => ["--domain", "airline", "--agent", "oracle", "--user", "scripted"]),
  tau2Run(
    "tau2-retail-oracle",
    (context) => ["--domain", "retail", "--agent", "oracle", "--user", "scripted", "--judge-model", "judge-model", "--judge-provider", "openai-compatible", "--judge-base-url", context.baseUrl],
    {
      responder: (context) => byModel({ judge: tau2JudgeResponder(tau2Tasks(context, "retail")) }),
    },
  ),
  tau2Run("tau2-telecom-full-oracle", () => ["--domain", "telecom", "--agent", "oracle", "--user", "scripted", "--task-split-name", "full"]),
  tau2Run("tau2-mock-llm-agent-user-simulator", (context) => ["--domain", "mock", "--agent", "llm_agent", "--user", "user_simulator", ...tau2Models(context)], {
    responder: (context) => byModel({ agent: tau2AgentResponder(tau2Tasks(context, "mock")), user: tau2UserResponder(tau2Tasks(context, "mock")) }),
  }),
  tau2Run("tau2-mock-llm-agent-gt", (context) => ["--domain", "mock", "--agent", "llm_agent_gt", "--user", "user_simulator", ...tau2Models(context)], {
    responder: (context) => byModel({ agent: tau2AgentResponder(tau2Tasks(context, "mock")), user: tau2UserResponder(tau2Tasks(context, "mock")) }),
  }),
  tau2Run("tau2-mock-llm-agent-solo", (context) => ["--domain", "mock", "--agent", "llm_agent_solo", "--user", "dummy_user", ...tau2Models(context)], {
    responder: (context) => byModel({ agent: tau2AgentResponder(tau2Tasks(context, "mock")) }),
  }),
  tau2Run("tau2-mock-tool-calling", (context) => ["--domain", "mock", "--agent", "tool-calling", "--user", "user_simulator", "--agent-base-url", context.baseUrl, ...tau2Models(context)], {
    responder: (context) => byModel({ agent: tau2AgentResponder(tau2Tasks(context, "mock")), user: tau2UserResponder(tau2Tasks(context, "mock")) }),
  }),
  tau2Run("tau2-telecom-module", () => [
    "--domain",
    "telecom",
    "--task-set-name",
    "telecom_small",
    "--task-ids",
    "[mobile_data_issue]user_abroad_roaming_disabled_off[PERSONA:Hard]",
    "--agent",
    "module",
    "--agent-option",
    `module=${join(REPOSITORY, "test", "fixtures", "tau2", "roaming-agent.mjs")}`,
    "--user",
    "scripted",
  ]),
  ...(["internal", "decision-only", "dry-run"] as const).map((mode) =>
    tau2Run(
      `tau2-retail-vercel-ai-${mode}`,
      (context) => [
        "--domain",
        "retail",
        "--task-ids",
        "0",
        "5",
        "--agent",
        "vercel-ai",
        "--agent-option",
        `module=${frameworkExample("vercel-ai", "retail")}`,
        "--agent-option",
        `bridgeMode=${mode}`,
        "--agent-llm",
        "scripted-model",
        "--agent-base-url",
        context.baseUrl,
        "--user",
        "user_simulator",
        "--user-llm",
        "user-model",
        "--user-llm-args",
        JSON.stringify({ temperature: 0.0, api_base: context.baseUrl }),
      ],
      { responder: (context) => byModel({ agent: tau2AgentResponder(tau2Tasks(context, "retail")), user: tau2UserResponder(tau2Tasks(context, "retail")) }) },
    ),
  ),
  ...FRAMEWORKS.filter((framework) => framework !== "vercel-ai").map((framework) =>
    tau2Run(
      `tau2-retail-${framework}`,
      (context) => [
        "--domain",
        "retail",
        "--task-ids",
        "0",
        "5",
        "--agent",
        framework,
        "--agent-option",
        `module=${frameworkExample(framework, "retail")}`,
        "--agent-llm",
        "scripted-model",
        "--agent-base-url",
        context.baseUrl,
        "--user",
        "user_simulator",
        "--user-llm",
        "user-model",
        "--user-llm-args",
        JSON.stringify({ temperature: 0.0, api_base: context.baseUrl }),
      ],
      { responder: (context) => byModel({ agent: tau2AgentResponder(tau2Tasks(context, "retail")), user: tau2UserResponder(tau2Tasks(context, "retail")) }) },
    ),
  ),
  tau2Run("tau2-retail-python-bridge", () => ["--domain", "retail", "--task-ids", "5", "--agent", "python-bridge", ...pythonBridgeOptions(), "--user", "scripted"], {
    needs: ["tau2-bench", "python"],
  }),
];

const V1_RESULTS = join(REPOSITORY, "test", "fixtures", "results", "v1");
const V1_ORACLE = "library-test-oracle-none-0.0_ids_0-6_user-none-scripted";
const V1_WITH_ERROR = "library-test-tool-calling-agent-model-0.0_ids_0-1-2_user-user-model-llm";

/** Copies the frozen v1 results (and checkpoints) into the scenario's output directory. */
function copyV1(context: ScenarioContext): void {
  cpSync(V1_RESULTS, context.out, { recursive: true });
}

const toolScenarios: Scenario[] = [
  {
    name: "v1-fixtures-report",
    needs: [],
    invocations: () => [
      ...["text", "markdown", "json"].map((format) => ({ args: ["report", join(V1_RESULTS, `${V1_ORACLE}.json`), join(V1_RESULTS, `${V1_WITH_ERROR}.json`), "--format", format, "--per-task"] })),
      { args: ["report", join(V1_RESULTS, `${V1_WITH_ERROR}.json`), "--env", "library"] },
    ],
  },
  {
    name: "v1-fixtures-rescore",
    needs: [],
    invocations: () => [
      { args: ["rescore", join(V1_RESULTS, `${V1_ORACLE}.json`), "--env", "library", "--details"] },
      { args: ["rescore", join(V1_RESULTS, `${V1_WITH_ERROR}.json`), "--env", "library", "--format", "json"] },
    ],
  },
  {
    name: "v1-fixtures-resume",
    needs: [],
    prepare: copyV1,
    invocations: (context) => [{ args: ["run", "--env", "library", "--task-ids", "0", "6", "--num-trials", "3", "--log-dir", context.out, "--quiet"] }],
  },
  {
    name: "tau-airline-gpt-4o-rescore",
    needs: ["tau-bench"],
    invocations: (context) => [
      { args: ["rescore", join(context.tauBench, "historical_trajectories", "gpt-4o-airline.json"), "--env", "airline", "--data-dir", context.tauBench, "--format", "json"], printsNoData: true },
    ],
  },
  {
    name: "tau-retail-replay",
    needs: ["tau-bench"],
    prepare: (context) => {
      mkdirSync(context.scratch, { recursive: true });
      writeFileSync(
        join(context.scratch, "actions.json"),
        JSON.stringify([
          { name: "find_user_id_by_name_zip", kwargs: { first_name: "Mei", last_name: "Kovacs", zip: "28236" } },
          { name: "get_order_details", kwargs: { order_id: "#W6390527" } },
          { name: "cancel_pending_order", kwargs: { order_id: "#W6390527", reason: "no longer needed" } },
          { name: "calculate", kwargs: { expression: "2 * (3.5 + 1)" } },
          { name: "no_such_tool", kwargs: {} },
        ]),
      );
    },
    invocations: (context) => [
      { args: ["replay", "--env", "retail", "--data-dir", context.tauBench, "--actions", join(context.scratch, "actions.json"), "--format", "json"] },
      { args: ["replay", "--env", "retail", "--data-dir", context.tauBench, "--actions", join(context.scratch, "actions.json"), "--format", "text"] },
    ],
  },
  {
    name: "tau2-telecom-replay",
    needs: ["tau2-bench"],
    prepare: (context) =>
      writeFileSync(
        join(context.scratch, "calls.json"),
        JSON.stringify([
          { requestor: "assistant", name: "get_customer_by_phone", arguments: { phone_number: "555-123-2002" } },
          { requestor: "assistant", name: "enable_roaming", arguments: { customer_id: "C1001", line_id: "L1002" } },
          { requestor: "user", name: "toggle_roaming", arguments: {} },
          { requestor: "user", name: "check_status_bar", arguments: {} },
          { requestor: "assistant", name: "no_such_tool", arguments: {} },
        ]),
      ),
    invocations: (context) => [
      { args: ["replay", "--suite", "tau2", "--env", "telecom", "--data-dir", context.tau2Bench, "--actions", join(context.scratch, "calls.json"), "--format", "json"] },
      {
        args: [
          "replay",
          "--suite",
          "tau2",
          "--env",
          "telecom",
          "--data-dir",
          context.tau2Bench,
          "--actions",
          join(context.scratch, "calls.json"),
          "--task-id",
          "[mobile_data_issue]user_abroad_roaming_disabled_off[PERSONA:Hard]",
          "--format",
          "text",
        ],
      },
    ],
  },
  {
    name: "tau2-mock-rescore-report",
    needs: ["tau2-bench"],
    invocations: (context) => [
      {
        args: [
          "tau2",
          "run",
          "--domain",
          "mock",
          "--agent",
          "oracle",
          "--user",
          "scripted",
          "--num-trials",
          "2",
          "--max-concurrency",
          "1",
          "--data-dir",
          context.tau2Bench,
          "--save-to",
          join(context.out, "mock.json"),
          "--quiet",
        ],
      },
      { args: ["rescore", join(context.out, "mock.json"), "--data-dir", context.tau2Bench], printsNoData: true },
      { args: ["rescore", join(context.out, "mock.json"), "--data-dir", context.tau2Bench, "--format", "json"], printsNoData: true },
      { args: ["report", join(context.out, "mock.json")] },
      { args: ["report", join(context.out, "mock.json"), "--format", "json"] },
    ],
  },
];

export const SCENARIOS: Scenario[] = [...tauBenchScenarios, ...tau2Scenarios, ...toolScenarios];

/** A fresh context (directories) for one scenario. */
export function scenarioContext(shared: string | undefined, baseUrl: string): ScenarioContext {
  const root = mkdtempSync(join(tmpdir(), "taubridge-golden-"));
  const out = join(root, "out");
  const scratch = join(root, "scratch");
  mkdirSync(out);
  mkdirSync(scratch);
  return { out, scratch, baseUrl, shared: shared ?? "", tauBench: shared ? join(shared, "tau-bench") : "", tau2Bench: shared ? join(shared, "tau2-bench") : "" };
}
