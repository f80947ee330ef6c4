/**
 * τ²-bench results files (spec §1.3, §1.5): the monolithic `results.json` that `tau2 run` writes
 * (`timestamp`, `info`, `tasks`, `simulations`, `simulation_index`), in τ²'s own field order and
 * JSON text so the original's `Results` model and tools load ours, plus a `taubridge` block
 * (ignored by τ²) with our schema version and notes. Reading accepts τ²'s own files, HEAD and
 * June-2025 schemas alike.
 */
import { readFileSync } from "node:fs";
import { DataError } from "../core/errors.ts";
import { parsePythonJsonText } from "../engine/data-files.ts";
import { type Tau2RewardInfo, type Tau2SimulationMessage, type Tau2TerminationReason, TAU2_TERMINATION_REASONS, messageFromJson, messageToJson } from "../tasks/tau2-simulation.ts";
import { PyFloat, type PyDict, type PyValue, pyJsonDumpsIndented, pyJsonDumpsLine } from "../value/index.ts";
import { writeFileAtomic } from "./results-file.ts";

/** Our schema version of τ²-shaped results files (the `taubridge` block); frozen fixtures per version are tested. */
export const TAU2_RESULTS_SCHEMA_VERSION = 1;

/** One simulation (τ²'s `SimulationRun`) as we hold it. */
export interface Tau2SimulationRecord {
  id: string;
  task_id: string;
  timestamp: string;
  start_time: string;
  end_time: string;
  duration: number;
  termination_reason: Tau2TerminationReason;
  agent_cost: number | null;
  user_cost: number | null;
  reward_info: Tau2RewardInfo | PyDict | null;
  messages: Tau2SimulationMessage[];
  trial: number;
  seed: number | null;
  policy: string | null;
  /** Diagnostics; for infrastructure failures `{error, error_type, error_traceback, failed_after_attempts}`. */
  info: Record<string, unknown> | null;
}

/** The reward of a stored reward info (ours or a parsed file's). */
export function rewardOf(info: Tau2RewardInfo | PyDict | null): number {
  if (info === null) return 0;
  const reward = info instanceof Map ? info.get("reward") : info.reward;
  if (reward instanceof PyFloat) return reward.value;
  return typeof reward === "number" ? reward : 0;
}

/** `SimulationRun.model_dump(mode="json")` (HEAD field order). */
export function simulationToJson(record: Tau2SimulationRecord): Record<string, unknown> {
  const float = (value: number | null) => (value === null ? null : new PyFloat(value));
  return {
    id: record.id,
    task_id: record.task_id,
    timestamp: record.timestamp,
    start_time: record.start_time,
    end_time: record.end_time,
    duration: new PyFloat(record.duration),
    termination_reason: record.termination_reason,
    agent_cost: float(record.agent_cost),
    user_cost: float(record.user_cost),
    agent_usage: null,
    reward_info: record.reward_info,
    messages: record.messages.map(messageToJson),
    ticks: null,
    trial: record.trial,
    seed: record.seed,
    mode: "half_duplex",
    speech_environment: null,
    review: null,
    user_only_review: null,
    info: record.info,
    auth_classification: null,
    hallucination_retries_used: 0,
    hallucination_check: null,
    provider_session_id: null,
    policy: record.policy,
    effect_timeline: null,
  };
}

/** A whole results document. `tasks` are the run's tasks as their file holds them. */
export interface Tau2ResultsDocument {
  timestamp: string;
  info: Record<string, unknown>;
  tasks: PyDict[];
  simulations: Tau2SimulationRecord[];
  /** Our block: schema version, suite, flagged tasks. */
  taubridge: Record<string, unknown>;
}

/** The file's text: τ²'s 2-space-indented JSON (Python's float and escaping rules). */
export function resultsText(document: Tau2ResultsDocument): string {
  return pyJsonDumpsIndented({
    timestamp: document.timestamp,
    info: document.info,
    tasks: document.tasks,
    simulations: document.simulations.map(simulationToJson),
    simulation_index: null,
    taubridge: { schemaVersion: TAU2_RESULTS_SCHEMA_VERSION, suite: "tau2-bench", ...document.taubridge },
  });
}

/** Writes the document atomically (temp file, then rename), as τ² checkpoints after every simulation. */
export function writeTau2Results(path: string, document: Tau2ResultsDocument): void {
  writeFileAtomic(path, `${resultsText(document)}\n`);
}

function text(value: PyValue | undefined): string | null {
  return typeof value === "string" ? value : null;
}

function numberOrNull(value: PyValue | undefined): number | null {
  if (value instanceof PyFloat) return value.value;
  return typeof value === "number" ? value : null;
}

function readSimulation(value: PyDict, file: string, index: number): Tau2SimulationRecord {
  const termination = text(value.get("termination_reason"));
  if (!termination || !(TAU2_TERMINATION_REASONS as readonly string[]).includes(termination)) {
    throw new DataError(`${file}: simulations[${index}]: field termination_reason: ${JSON.stringify(termination)} is not a τ² termination reason`);
  }
  const taskId = text(value.get("task_id"));
  if (taskId === null) throw new DataError(`${file}: simulations[${index}]: field task_id: expected a string`);
  const messages = value.get("messages");
  const rewardInfo = value.get("reward_info");
  const info = value.get("info");
  return {
    id: text(value.get("id")) ?? "",
    task_id: taskId,
    timestamp: text(value.get("timestamp")) ?? "",
    start_time: text(value.get("start_time")) ?? "",
    end_time: text(value.get("end_time")) ?? "",
    duration: numberOrNull(value.get("duration")) ?? 0,
    termination_reason: termination as Tau2TerminationReason,
    agent_cost: numberOrNull(value.get("agent_cost")),
    user_cost: numberOrNull(value.get("user_cost")),
    reward_info: rewardInfo instanceof Map ? rewardInfo : null,
    messages: Array.isArray(messages) ? messages.map((message) => messageFromJson(message as PyDict)) : [],
    trial: numberOrNull(value.get("trial")) ?? 0,
    seed: numberOrNull(value.get("seed")),
    policy: text(value.get("policy")),
    info: info instanceof Map ? (Object.fromEntries(info) as Record<string, unknown>) : null,
  };
}

/** A results file as read back: its parts, losslessly. */
export interface LoadedTau2Results {
  timestamp: string;
  info: PyDict;
  tasks: PyDict[];
  simulations: Tau2SimulationRecord[];
  taubridge: PyDict | null;
}

/** True when a parsed JSON document has τ²'s results shape (`info`, `tasks`, `simulations`). */
export function isTau2ResultsDocument(value: PyValue): value is PyDict {
  return value instanceof Map && value.get("simulations") !== undefined && value.get("tasks") !== undefined && value.get("info") !== undefined;
}

/** Reads a τ² results file (ours or the original's); errors name the file and field. */
export function readTau2Results(path: string): LoadedTau2Results {
  let raw: string;
  try {
    raw = readFileSync(path, "utf8");
  } catch (error) {
    throw new DataError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
  const value = parsePythonJsonText(raw, path);
  if (!isTau2ResultsDocument(value)) throw new DataError(`${path}: not a τ²-bench results file (expected the keys info, tasks, simulations)`);
  const simulations = value.get("simulations");
  const tasks = value.get("tasks");
  if (!Array.isArray(simulations)) throw new DataError(`${path}: field simulations: expected a list`);
  if (!Array.isArray(tasks)) throw new DataError(`${path}: field tasks: expected a list`);
  const block = value.get("taubridge");
  return {
    timestamp: text(value.get("timestamp")) ?? "",
    info: value.get("info") as PyDict,
    tasks: tasks as PyDict[],
    simulations: simulations.map((simulation, index) => readSimulation(simulation as PyDict, path, index)),
    taubridge: block instanceof Map ? block : null,
  };
}

/** The run-identity text of an `info` block: everything but the policy text (τ² compares it so on resume). */
export function infoIdentity(info: Record<string, unknown> | PyDict): string {
  const plain = info instanceof Map ? new Map(info) : new Map(Object.entries(info));
  const environment = plain.get("environment_info");
  if (environment instanceof Map) plain.set("environment_info", new Map([...environment].filter(([key]) => key !== "policy")));
  else if (environment && typeof environment === "object") plain.set("environment_info", Object.fromEntries(Object.entries(environment).filter(([key]) => key !== "policy")));
  return pyJsonDumpsLine(plain);
}
