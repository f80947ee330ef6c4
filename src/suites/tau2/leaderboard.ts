/**
 * τ²'s leaderboard support (`src/core/leaderboard.ts`): a results file read as the original's
 * `submit prepare|validate` reads it (`Results.load`, `compute_metrics`, `check_tasks`,
 * `validate_submission_traj_set`), and the current base-split tasks with their definition hashes.
 *
 * A task's hash is the original's `get_pydantic_hash(task)`: SHA-256 of
 * `json.dumps(task.model_dump(), sort_keys=True, default=str)`. `tau2TaskDump` fills what
 * pydantic's model fills (every field of `Task` and its nested models with its default), so a task
 * written whole by the original and the same task as `tasks.json` holds it hash alike. Messages of
 * a task's message history get their defaults too, except `timestamp`, whose default is the time of
 * loading in the original (its own check cannot match such a task either; no leaderboard task has one).
 */
import { createHash } from "node:crypto";
import type { LeaderboardResultsFile, LeaderboardSupport } from "../../core/leaderboard.ts";
import type { Registry } from "../../core/registry.ts";
import { DataError } from "../../errors/error-tree.ts";
import { type PyDict, type PyValue, pyJsonDumpsSortedKeys } from "../../value/index.ts";
import { readTau2Results, rewardOf } from "./codec.ts";
import { parsePythonJsonText, readUtf8File } from "../../data/data-files.ts";
import { TAU2_TERMINATION_REASONS } from "./simulation.ts";
import { tau2DataRoot } from "./data-root.ts";
import type { Tau2DomainDefinition } from "./engine/domain.ts";
import { loadTau2TaskSet } from "./task-sets.ts";
import { rawTau2Task } from "./tasks.ts";

/** The leaderboard's domains, in the order of the submission schema's `Results`. */
export const LEADERBOARD_DOMAINS = ["retail", "airline", "telecom", "banking_knowledge"] as const;

/** The τ² version at the pinned commit (`pyproject.toml`), the default answer to "Tau-bench version". */
export const TAU2_BENCHMARK_VERSION = "1.0.1";

type Fields = ReadonlyArray<readonly [string, PyValue | (() => PyValue)]>;

/** A model's fields in declaration order with their defaults; given values (nested models dumped by `nested`) win. */
function dumpModel(value: PyValue | undefined, fields: Fields, nested: Record<string, (item: PyValue) => PyValue> = {}): PyValue {
  if (!(value instanceof Map)) return value ?? null;
  const out: PyDict = new Map();
  for (const [name, fallback] of fields) {
    const given = value.get(name);
    if (given === undefined || given === null) out.set(name, given === null ? null : typeof fallback === "function" ? fallback() : fallback);
    else out.set(name, nested[name] ? nested[name](given) : given);
  }
  // Keys the model does not declare are dropped by pydantic (extra="ignore").
  return out;
}

const list = (dump: (item: PyValue) => PyValue) => (value: PyValue) => (Array.isArray(value) ? value.map(dump) : value);

const dumpToolCall = (value: PyValue) =>
  dumpModel(value, [
    ["id", ""],
    ["name", null],
    ["arguments", null],
    ["requestor", "assistant"],
  ]);

/** A message of a message history (the text fields of `SystemMessage`, `AssistantMessage`/`UserMessage`, `ToolMessage`). */
function dumpMessage(value: PyValue): PyValue {
  if (!(value instanceof Map)) return value;
  const role = value.get("role");
  if (role === "tool")
    return dumpModel(value, [
      ["id", null],
      ["role", "tool"],
      ["content", null],
      ["requestor", "assistant"],
      ["error", false],
      ["turn_idx", null],
      ["timestamp", null],
    ]);
  if (role === "system")
    return dumpModel(value, [
      ["role", "system"],
      ["content", null],
      ["turn_idx", null],
      ["timestamp", null],
    ]);
  return dumpModel(
    value,
    [
      ["role", role ?? null],
      ["content", null],
      ["tool_calls", null],
      ["is_audio", false],
      ["turn_idx", null],
      ["timestamp", null],
      ["cost", null],
      ["usage", null],
      ["raw_data", null],
      ["generation_time_seconds", null],
      ["audio_format", null],
      ["audio_content", null],
      ["audio_path", null],
      ["audio_script_gold", null],
      ["speech_effects", null],
      ["source_effects", null],
      ["channel_effects", null],
      ["turn_taking_action", null],
      ["utterance_ids", null],
      ["chunk_id", null],
      ["is_final_chunk", true],
      ["source", null],
      ["contains_speech", true],
    ],
    { tool_calls: list(dumpToolCall) },
  );
}

const envCall =
  (extra: Fields = []) =>
  (value: PyValue) =>
    dumpModel(value, [["env_type", null], ["func_name", null], ["arguments", null], ...extra]);

/** τ²'s `Task.model_dump()` of a task as a file holds it. */
export function tau2TaskDump(task: PyDict): PyValue {
  return dumpModel(
    task,
    [
      ["id", null],
      ["description", null],
      ["user_scenario", null],
      ["ticket", null],
      ["initial_state", null],
      ["evaluation_criteria", null],
      ["issues", null],
      ["required_documents", null],
      ["user_tools", null],
    ],
    {
      description: (value) =>
        dumpModel(value, [
          ["purpose", null],
          ["relevant_policies", null],
          ["notes", null],
        ]),
      user_scenario: (value) =>
        dumpModel(
          value,
          [
            ["persona", null],
            ["instructions", null],
          ],
          {
            instructions: (instructions) =>
              instructions instanceof Map
                ? dumpModel(instructions, [
                    ["domain", null],
                    ["reason_for_call", null],
                    ["known_info", null],
                    ["unknown_info", null],
                    ["task_instructions", null],
                  ])
                : instructions,
          },
        ),
      initial_state: (value) =>
        dumpModel(
          value,
          [
            ["initialization_data", null],
            ["initialization_actions", null],
            ["message_history", null],
          ],
          {
            initialization_data: (data) =>
              dumpModel(data, [
                ["agent_data", null],
                ["user_data", null],
              ]),
            initialization_actions: list(envCall()),
            message_history: list(dumpMessage),
          },
        ),
      evaluation_criteria: (value) =>
        dumpModel(
          value,
          [
            ["actions", null],
            ["env_assertions", null],
            ["communicate_info", null],
            ["nl_assertions", null],
            ["reward_basis", () => ["DB", "COMMUNICATE"]],
          ],
          {
            actions: list((action) =>
              dumpModel(action, [
                ["action_id", null],
                ["requestor", "assistant"],
                ["name", null],
                ["arguments", null],
                ["info", null],
                ["compare_args", null],
              ]),
            ),
            env_assertions: list(
              envCall([
                ["assert_value", true],
                ["message", null],
              ]),
            ),
          },
        ),
      issues: list((issue) =>
        dumpModel(issue, [
          ["id", null],
          ["title", null],
          ["description", null],
          ["status", "open"],
          ["resolution", null],
          ["created_at", null],
          ["resolved_at", null],
          ["author_email", null],
          ["pr_link", null],
          ["simulation_file", null],
        ]),
      ),
    },
  );
}

/** `get_pydantic_hash(task)`. */
export function tau2TaskHash(task: PyDict): string {
  return createHash("sha256")
    .update(pyJsonDumpsSortedKeys(tau2TaskDump(task)), "utf8")
    .digest("hex");
}

/** τ²'s `task_num_actions`: the gold actions of both sides, −1 when the only one is a transfer. */
export function tau2TaskActionCount(task: PyDict): number {
  const criteria = task.get("evaluation_criteria");
  const actions = criteria instanceof Map ? criteria.get("actions") : null;
  if (!Array.isArray(actions)) return 0;
  if (actions.length === 1 && actions[0] instanceof Map && String(actions[0].get("name")).toLowerCase().includes("transfer")) return -1;
  return actions.length; // num_agent_actions + num_user_actions: every action is the assistant's or the user's
}

const text = (value: PyValue | undefined) => (typeof value === "string" ? value : null);
const dict = (value: PyValue | undefined): PyDict => (value instanceof Map ? value : new Map());

/**
 * What a submission needs of a results file, read fast: `info` and `tasks` losslessly (the hashes
 * need Python's spelling of every number) from the text before the top-level `simulations` key
 * (τ²'s and our files write it last but for the index, indented by 2), the simulations' few fields
 * with the native JSON parser, each checked. A file laid out otherwise is read whole, losslessly.
 */
function readResults(path: string): LeaderboardResultsFile {
  const text = readUtf8File(path, "results file");
  const marker = text.indexOf('\n  "simulations": ');
  let plain: { simulations?: unknown };
  try {
    plain = JSON.parse(text) as { simulations?: unknown };
  } catch (error) {
    throw new DataError(`${path}: not valid JSON: ${(error as Error).message}`);
  }
  const head = marker > 0 ? parsePythonJsonText(`${text.slice(0, marker).replace(/,\s*$/, "")}\n}`, path) : null;
  if (head === null || !(head instanceof Map) || !Array.isArray(plain.simulations)) return fromLoaded(path, readTau2Results(path));
  const simulations = (plain.simulations as Array<Record<string, unknown>>).map((simulation, index) => {
    const where = `${path}: simulations[${index}]`;
    if (!simulation || typeof simulation !== "object") throw new DataError(`${where}: expected an object`);
    const { task_id: taskId, trial, termination_reason: termination, agent_cost: agentCost, reward_info: rewardInfo } = simulation as Record<string, unknown>;
    const reward = rewardInfo && typeof rewardInfo === "object" ? (rewardInfo as { reward?: unknown }).reward : null;
    if (typeof taskId !== "string") throw new DataError(`${where}: field task_id: expected a string`);
    if (!TAU2_TERMINATION_REASONS.includes(termination as never)) throw new DataError(`${where}: field termination_reason: not one of τ²'s termination reasons`);
    if (reward !== null && (typeof reward !== "number" || reward < 0 || reward > 1)) throw new DataError(`${where}: field reward_info.reward: expected a number in [0, 1]`);
    if (agentCost !== null && agentCost !== undefined && typeof agentCost !== "number") throw new DataError(`${where}: field agent_cost: expected a number or null`);
    if (trial !== undefined && trial !== null && !Number.isInteger(trial)) throw new DataError(`${where}: field trial: expected an integer`);
    return {
      taskId,
      trial: (trial as number | null | undefined) ?? 0,
      reward: reward as number | null,
      infrastructureError: termination === "infrastructure_error",
      agentCost: (agentCost as number | null | undefined) ?? null,
    };
  });
  const tasks = head.get("tasks");
  const info = head.get("info");
  if (!Array.isArray(tasks) || !(info instanceof Map)) throw new DataError(`${path}: not a τ²-bench results file (expected the keys info, tasks, simulations)`);
  return describe(path, info, tasks as PyDict[], simulations);
}

/** From a file read whole by the suite's reader. */
function fromLoaded(path: string, results: ReturnType<typeof readTau2Results>): LeaderboardResultsFile {
  return describe(
    path,
    results.info,
    results.tasks,
    results.simulations.map((simulation) => ({
      taskId: simulation.task_id,
      trial: simulation.trial,
      reward: simulation.reward_info === null ? null : rewardOf(simulation.reward_info),
      infrastructureError: simulation.termination_reason === "infrastructure_error",
      agentCost: simulation.agent_cost,
    })),
  );
}

function describe(path: string, info: PyDict, tasks: readonly PyDict[], simulations: LeaderboardResultsFile["simulations"]): LeaderboardResultsFile {
  const agent = dict(info.get("agent_info"));
  const user = dict(info.get("user_info"));
  const configuration: PyDict = new Map<string, PyValue>([
    ["llm_agent", agent.get("llm") ?? null],
    ["llm_args_agent", agent.get("llm_args") ?? null],
    ["llm_user", user.get("llm") ?? null],
    ["llm_args_user", user.get("llm_args") ?? null],
  ]);
  const domain = text(dict(info.get("environment_info")).get("domain_name"));
  if (!domain) throw new DataError(`${path}: no info.environment_info.domain_name: not a results file of a τ² run`);
  const trials = info.get("num_trials");
  return {
    path,
    domain,
    numTrials: typeof trials === "number" ? trials : typeof trials === "bigint" ? Number(trials) : null,
    agentLlm: text(agent.get("llm")),
    userLlm: text(user.get("llm")),
    agentUserConfiguration: pyJsonDumpsSortedKeys(configuration),
    agentUserDescription: `agent ${text(agent.get("llm")) ?? "(none)"} ${pyJsonDumpsSortedKeys(agent.get("llm_args") ?? null)}, user ${text(user.get("llm")) ?? "(none)"} ${pyJsonDumpsSortedKeys(user.get("llm_args") ?? null)}`,
    retrievalConfig: text(info.get("retrieval_config")),
    voice: info.get("audio_native_config") !== undefined && info.get("audio_native_config") !== null,
    tasks: tasks.map((task) => {
      if (!(task instanceof Map) || typeof task.get("id") !== "string") throw new DataError(`${path}: a task without an id`);
      return { id: task.get("id") as string, hash: tau2TaskHash(task), numActions: tau2TaskActionCount(task) };
    }),
    simulations,
  };
}

/** τ²'s leaderboard support over its domains. */
export function tau2Leaderboard(domains: Registry<Tau2DomainDefinition>): LeaderboardSupport {
  return {
    domains: LEADERBOARD_DOMAINS,
    benchmarkVersion: TAU2_BENCHMARK_VERSION,
    readResults,
    baseTasks(domain, dataDir) {
      const definition = domains.get(domain);
      const taskSet = loadTau2TaskSet(tau2DataRoot(dataDir), { taskSetName: definition.folder, split: "base" });
      return taskSet.tasks.map((task) => {
        const raw = rawTau2Task(task);
        if (!raw) throw new DataError(`${domain}: task ${task.id} has no source dictionary to hash`);
        return { id: task.id, hash: tau2TaskHash(raw) };
      });
    },
  };
}
