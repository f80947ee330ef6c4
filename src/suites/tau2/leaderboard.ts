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
import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { LeaderboardResultsFile, LeaderboardSupport, LeaderboardTaskDefinition } from "../../core/leaderboard.ts";
import type { Registry } from "../../core/registry.ts";
import { DataError, fileErrorText } from "../../errors/error-tree.ts";
import { PyFloat, type PyDict, type PyValue, pyJsonDumpsSortedKeys } from "../../value/index.ts";
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

/** The definitions behind task objects, for {@link sameTaskValue}. */
const definitions = new WeakMap<LeaderboardTaskDefinition, PyDict>();

/** A task with its definition hash computed when first read (equal definitions are compared without it). */
function taskDefinition<Extra extends object>(id: string, raw: PyDict, extra: Extra): LeaderboardTaskDefinition & Extra {
  let hash: string | undefined;
  const task = {
    id,
    ...extra,
    get hash(): string {
      hash ??= tau2TaskHash(raw);
      return hash;
    },
  };
  definitions.set(task, raw);
  return task;
}

/**
 * Whether two values print the same JSON text (key order aside): strings, booleans, ints (normalised:
 * a number when safe, else a bigint, so `===` compares them) and null alike, floats as floats (`1`
 * and `1.0` print differently), containers
 * element by element. Stricter than Python's `==`, so two tasks it finds equal dump and hash alike.
 */
function sameTaskValue(left: PyValue | undefined, right: PyValue | undefined): boolean {
  if (left === right) return true;
  if (left instanceof PyFloat) return right instanceof PyFloat && Object.is(left.value, right.value);
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index++) if (!sameTaskValue(left[index], right[index])) return false;
    return true;
  }
  if (left instanceof Map) {
    if (!(right instanceof Map) || left.size !== right.size) return false;
    for (const [key, value] of left) if (!right.has(key) || !sameTaskValue(value, right.get(key))) return false;
    return true;
  }
  return false;
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
 * What a submission needs of a results file, read fast from its bytes: `info` and `tasks`
 * losslessly (the hashes need Python's spelling of every number) from the text before the
 * top-level `simulations` key, and of each simulation only the fields the checks and numbers read
 * (`task_id`, `trial`, `termination_reason`, `agent_cost`, `reward_info`), each parsed as JSON.
 * The messages — nearly all of a file's bytes — are neither decoded nor parsed: no check reads
 * them (decoding and parsing them was most of `submit validate`'s time, and their garbage most of
 * the rest). The whole file is still checked to be UTF-8, and each simulation's layout (its field
 * lines, commas and closing brace). This needs the layout τ²'s and our files have (`indent=2`,
 * `simulations` last but for the index); a file laid out otherwise is read whole.
 */
function readResults(path: string): LeaderboardResultsFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new DataError(`cannot read results file ${path}: ${fileErrorText(error)}`, { cause: error });
  }
  const marker = bytes.indexOf(SIMULATIONS_KEY);
  if (marker > 0 && isUtf8(bytes)) {
    const head = parsePythonJsonText(`${bytes.toString("utf8", 0, marker).replace(/,\s*$/, "")}\n}`, path);
    const simulations = head instanceof Map ? simulationsOfIndented(bytes, marker + SIMULATIONS_KEY.length) : null;
    if (head instanceof Map && simulations !== null) return fromHead(path, head, simulations);
  }
  const text = readUtf8File(path, "results file");
  let plain: { simulations?: unknown };
  try {
    plain = JSON.parse(text) as { simulations?: unknown };
  } catch (error) {
    throw new DataError(`${path}: not valid JSON: ${(error as Error).message}`);
  }
  const split = text.indexOf(SIMULATIONS_KEY);
  const head = split > 0 ? parsePythonJsonText(`${text.slice(0, split).replace(/,\s*$/, "")}\n}`, path) : null;
  if (!(head instanceof Map) || !Array.isArray(plain.simulations)) return fromLoaded(path, readTau2Results(path));
  return fromHead(path, head, plain.simulations as Array<Record<string, unknown>>);
}

/** From the lossless head (`info`, `tasks`) and the simulations' fields. */
function fromHead(path: string, head: PyDict, simulations: ReadonlyArray<Record<string, unknown>>): LeaderboardResultsFile {
  const tasks = head.get("tasks");
  const info = head.get("info");
  if (!Array.isArray(tasks) || !(info instanceof Map)) throw new DataError(`${path}: not a τ²-bench results file (expected the keys info, tasks, simulations)`);
  return describe(
    path,
    info,
    tasks as PyDict[],
    simulations.map((simulation, index) => leaderboardSimulation(simulation, `${path}: simulations[${index}]`)),
  );
}

/** The top-level key, as τ²'s and our files write it (ASCII: its bytes are its characters). */
const SIMULATIONS_KEY = '\n  "simulations": [';
/** A simulation's lines in an `indent=2` file: it opens and closes at 4 spaces, its fields start at 6. */
const OPEN = "\n    {";
const CLOSE = "\n    }";
const FIELD = '\n      "';
/** The fields of a simulation a submission reads. */
const WANTED = new Set(["task_id", "trial", "termination_reason", "agent_cost", "reward_info"]);
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether `text` (ASCII) is at `at` in the bytes. */
function bytesAt(bytes: Buffer, at: number, text: string): boolean {
  if (at + text.length > bytes.length) return false;
  for (let index = 0; index < text.length; index++) if (bytes[at + index] !== text.charCodeAt(index)) return false;
  return true;
}

/**
 * The wanted fields of each simulation of an `indent=2` results file, from `start` (just after
 * `"simulations": [`). JSON strings hold no raw newline, so a line that starts with exactly 4
 * spaces and `}` closes a simulation, and one with exactly 6 spaces and `"` starts one of its
 * fields; the fields in between (messages) are skipped. Null when the bytes are not laid out so or
 * a wanted field does not parse: the caller then reads the whole file, whose errors name the field.
 */
function simulationsOfIndented(bytes: Buffer, start: number): Array<Record<string, unknown>> | null {
  const out: Array<Record<string, unknown>> = [];
  let at = start;
  try {
    if (bytes[at] === 0x5d /* ] */) at += 1;
    else
      for (;;) {
        if (!bytesAt(bytes, at, OPEN)) return null;
        const end = bytes.indexOf(CLOSE, at);
        if (end < 0) return null;
        const fields = simulationFields(bytes, at + OPEN.length, end);
        if (fields === null) return null;
        out.push(fields);
        at = end + CLOSE.length;
        if (bytes[at] === COMMA) at += 1;
        else if (bytesAt(bytes, at, "\n  ]")) {
          at += 4;
          break;
        } else return null;
      }
    // The rest (`"simulation_index"`, our block) closes the top-level object.
    const rest = bytes.toString("utf8", at).trimEnd();
    JSON.parse(rest.startsWith(",") ? `{${rest.slice(1)}` : `{${rest}`);
  } catch {
    return null;
  }
  return out;
}

/** One simulation's wanted fields, from its first field line to its closing line (`end`); null when its layout is not the expected one. */
function simulationFields(bytes: Buffer, from: number, end: number): Record<string, unknown> | null {
  const fields: Record<string, unknown> = {};
  // The first field line starts right after the opening brace's line.
  if (!bytesAt(bytes, from, FIELD)) return null;
  let line = from;
  while (line >= 0) {
    const keyStart = line + FIELD.length;
    const keyEnd = bytes.indexOf(QUOTE, keyStart);
    if (keyEnd < 0 || keyEnd > end || !bytesAt(bytes, keyEnd, '": ') || bytes.subarray(keyStart, keyEnd).includes(BACKSLASH)) return null;
    const next = bytes.indexOf(FIELD, keyEnd);
    const stop = next < 0 || next > end ? end : next;
    // Every field but the last ends with a comma; the last does not.
    const comma = bytes[stop - 1] === COMMA;
    if (comma !== (stop !== end)) return null;
    const key = bytes.toString("latin1", keyStart, keyEnd);
    if (WANTED.has(key)) fields[key] = JSON.parse(bytes.toString("utf8", keyEnd + 3, comma ? stop - 1 : stop));
    line = stop === end ? -1 : stop;
  }
  return fields;
}

/** One simulation's fields a submission reads, checked. */
function leaderboardSimulation(simulation: Record<string, unknown>, where: string): LeaderboardResultsFile["simulations"][number] {
  if (!simulation || typeof simulation !== "object") throw new DataError(`${where}: expected an object`);
  const { task_id: taskId, trial, termination_reason: termination, agent_cost: agentCost, reward_info: rewardInfo } = simulation;
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
      return taskDefinition(task.get("id") as string, task, { numActions: tau2TaskActionCount(task) });
    }),
    simulations,
  };
}

/**
 * τ²'s leaderboard support over its domains: a domain's base tasks are read from its definition's
 * data folder. Without the domain registry (a caller that needs only this support, such as `tau2
 * submit`, spares loading every domain's tools), from the task set of the domain's name, which is
 * its folder for every leaderboard domain.
 */
export function tau2Leaderboard(domains?: Pick<Registry<Tau2DomainDefinition>, "get">): LeaderboardSupport {
  return {
    domains: LEADERBOARD_DOMAINS,
    benchmarkVersion: TAU2_BENCHMARK_VERSION,
    readResults,
    baseTasks(domain, dataDir) {
      const taskSet = loadTau2TaskSet(tau2DataRoot(dataDir), { taskSetName: domains ? domains.get(domain).folder : domain, split: "base" });
      return taskSet.tasks.map((task) => {
        const raw = rawTau2Task(task);
        if (!raw) throw new DataError(`${domain}: task ${task.id} has no source dictionary to hash`);
        return taskDefinition(task.id, raw, {});
      });
    },
    // A results file's copy of a task is usually the task file's own: equal values need no hashing.
    sameDefinition(task, current) {
      const left = definitions.get(task);
      const right = definitions.get(current);
      return (left !== undefined && right !== undefined && sameTaskValue(left, right)) || task.hash === current.hash;
    },
  };
}
