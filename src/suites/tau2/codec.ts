/**
 * τ²-bench results files (τ²: src/tau2/data_model/simulation.py, Results and SimulationRun): the
 * monolithic `results.json` that `tau2 run` writes (`timestamp`, `info`, `tasks`, `simulations`,
 * `simulation_index`), in τ²'s own field order and JSON text so the original's `Results` model and
 * tools load ours, plus a `taubridge` block (ignored by τ²) with our schema version and notes.
 * Reading accepts τ²'s own files, HEAD and June-2025 schemas alike.
 */
import { existsSync, rmSync } from "node:fs";
import type { EpisodeSummary } from "../../core/run.ts";
import type { TerminationReason } from "../../core/types.ts";
import { CheckpointWriter, REWARD, TRIAL } from "../../run/checkpoint.ts";
import { DataError } from "../../errors/error-tree.ts";
import { lazySchema } from "../../data/lazy-zod.ts";
import { computeTau2Metrics, type Tau2Metrics } from "./metrics.ts";
import { parsePythonJsonText, readPythonJsonFile, readUtf8Lines } from "../../data/data-files.ts";
import { type Tau2RewardInfo, type Tau2SimulationMessage, type Tau2TerminationReason, TAU2_TERMINATION_REASONS, messageFromJson, messageToJson } from "./simulation.ts";
import { plainView, tau2Schemas } from "./tasks.ts";
import { PyFloat, PrintedJson, type PyDict, type PyValue, printedJson, pyJsonDumpsIndented, pyJsonDumpsLine, pyJsonString } from "../../value/index.ts";
import { compactLineBytes, pyJsonDumpsIndentedPieces } from "../../value/printing.ts";
import { writeFileAtomic } from "../../run/atomic-file.ts";
import { cachedDerivation, derivedCacheKey } from "../../data/derived-cache.ts";

/**
 * Our schema version of τ²-shaped results files (the `taubridge` block); frozen fixtures per version are tested.
 * 1: `suite`, `flaggedTasks`, `judgeUsage`, `roleUsage`.
 * 2: adds `manifest` (the run manifest, `src/core/run-manifest.ts`) and, after `run --policy`,
 *    `policy` (the run's adherence score and each simulation's hits). τ²'s own fields are unchanged.
 */
export const TAU2_RESULTS_SCHEMA_VERSION = 2;

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

/** τ²'s metrics of stored simulations (infrastructure errors counted, left out of the scores). */
export function simulationMetrics(simulations: readonly Tau2SimulationRecord[]): Tau2Metrics {
  return computeTau2Metrics(
    simulations.map((simulation) => ({
      taskId: simulation.task_id,
      reward: tau2Summary(simulation).reward,
      termination: simulation.termination_reason,
      agentCost: simulation.agent_cost,
      userCost: simulation.user_cost,
    })),
  );
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
  return pyJsonDumpsIndented(resultsValue(document));
}

/** The document as it is printed: the task list and every simulation as their printed texts. */
function resultsValue(document: Tau2ResultsDocument): Record<string, unknown> {
  return {
    timestamp: document.timestamp,
    info: document.info,
    tasks: printedTasks(document.tasks),
    simulations: document.simulations.map(printedSimulation),
    simulation_index: null,
    taubridge: { schemaVersion: TAU2_RESULTS_SCHEMA_VERSION, suite: "tau2-bench", ...document.taubridge },
  };
}

/** A run's task list printed once (level 1 of the results file): every rewrite of the file reuses the text. */
const printedTaskLists = new WeakMap<readonly PyDict[], PrintedJson>();

export const TAU2_TASK_TEXTS_KIND = "tau2-task-list-texts-v1";

/**
 * Prints a run's task list (its results file's `tasks`, the tasks as their file holds them, at
 * level 1) from the derived cache, under the task file's SHA-256 and the selected ids in order: a
 * file's ids are unique, so they name the same tasks. Printing telecom's 114 base tasks (~0.7 MB of
 * text) was ~2.5% of a whole oracle run. One entry per selection, so a run reads only its own list
 * (not the texts of every task any run printed). Tasks that come from no one file (`fileSha256`
 * undefined: τ³'s task folder) or a selection repeating an id are printed on first use, as before.
 */
export function prepareTau2TaskTexts(tasks: readonly PyDict[], fileSha256: string | undefined): void {
  if (fileSha256 === undefined || tasks.length === 0 || printedTaskLists.has(tasks)) return;
  const ids = tasks.map((task) => task.get("id"));
  if (!ids.every((id): id is string => typeof id === "string") || new Set(ids).size !== ids.length) return;
  const text = cachedDerivation(TAU2_TASK_TEXTS_KIND, derivedCacheKey(fileSha256, ...ids), isTaskListText, () => printedJson(tasks, 2, 1).indented);
  printedTaskLists.set(tasks, new PrintedJson(tasks, 2, 1, text));
}

/** A stored entry: the task list's text at level 1 of a results file. */
const isTaskListText = (value: unknown): value is string => typeof value === "string" && value.startsWith("[");

function printedTasks(tasks: readonly PyDict[]): PrintedJson {
  let printed = printedTaskLists.get(tasks);
  if (printed === undefined) {
    printed = printedJson(tasks, 2, 1);
    printedTaskLists.set(tasks, printed);
  }
  return printed;
}

/** Writes the document atomically (temp file, then rename). */
export function writeTau2Results(path: string, document: Tau2ResultsDocument): void {
  // {@link resultsText} in pieces (each simulation's text one), written one after the other: not joined into one string and one buffer first.
  const pieces = pyJsonDumpsIndentedPieces(resultsValue(document), 2);
  pieces.push("\n");
  writeFileAtomic(path, pieces);
}

/**
 * The checkpoint beside a results file: one JSON line per finished simulation, appended as it
 * finishes. τ² rewrites its whole results file after every simulation, which grows quadratically
 * (a 114-task telecom run writes ~300 MB); we append a line instead, rewrite the results file now
 * and then and at the end, and on resume read both, so nothing finished is lost.
 */
export function tau2CheckpointPath(resultsPath: string): string {
  return `${resultsPath}.checkpoint.jsonl`;
}

/** The checkpoint's writer; `open(…, true)` starts it afresh after the results file was rewritten. */
export function tau2CheckpointWriter(resultsPath: string): Tau2CheckpointWriter {
  return new Tau2CheckpointWriter(tau2CheckpointPath(resultsPath));
}

/** A simulation's `policy` field in its printed text (level 2: its fields are indented by six spaces, and no string holds a raw line break). */
const POLICY_FIELD = '\n      "policy": "';
/** The start of an episode line whose entry's policy is the text of the last `policy` line before it. */
const SHARED_POLICY_EPISODE_START = Buffer.from('{"type": "episode", "sharedPolicy": true, "entry": ');
const LINE_END = Buffer.from("}\n");

/**
 * The τ² checkpoint: the run layer's lines (`src/run/checkpoint.ts`), with a simulation's policy
 * written once per file. A run's simulations mostly hold one policy text (telecom's is ~24 KB of a
 * ~31 KB simulation), and every episode line repeating it was three quarters of the checkpoint's
 * bytes, encoded and written during the run and thrown away at its end. So a `{"type": "policy",
 * "text": …}` line holds it when it first appears (or changes), and each episode line after it
 * that holds the same text says `"sharedPolicy": true` with `"policy": null` in its entry;
 * {@link readTau2Checkpoint} puts the text back.
 */
export class Tau2CheckpointWriter {
  private readonly lines: CheckpointWriter;
  /** The JSON text of the policy the open file's last `policy` line holds (null: none yet). */
  private policyJson: string | null = null;

  constructor(readonly path: string) {
    this.lines = new CheckpointWriter(path, TAU2_RESULTS_SCHEMA_VERSION);
  }

  open(header: Record<string, unknown>, fresh: boolean): void {
    this.lines.open(header, fresh);
    this.policyJson = null;
  }

  /** Appends a simulation as its results-file entry (its policy text by reference when the last `policy` line holds it). */
  append(record: Tau2SimulationRecord): void {
    const printed = printedSimulation(record);
    const cut = policyCut(printed);
    if (cut === undefined) {
      this.lines.append(printed);
      return;
    }
    if (cut.policy !== this.policyJson) {
      this.lines.appendLine(Buffer.from(`{"type": "policy", "text": ${cut.policy}}\n`, "utf8"));
      this.policyJson = cut.policy;
    }
    // The entry with `null` for its policy, from pieces of its text (no joined copy), written at once (the bytes' memory is reused).
    this.lines.appendLine(compactLineBytes([cut.head, "null", cut.tail], SHARED_POLICY_EPISODE_START, LINE_END));
  }

  close(): void {
    this.lines.close();
  }
}

/** A printed simulation's text around its policy's JSON text: `head + policy + tail` is the whole text. */
interface PolicyCut {
  head: string;
  policy: string;
  tail: string;
}

/**
 * A printed simulation's cut at its policy. One printed here ({@link printedSimulation}) has it as
 * its pieces, `[head, policy, tail]`: the checkpoint line needs the text without its policy, and
 * finding the policy in the printed text flattened the whole text into one string (~90 KB per
 * telecom simulation, 8% of the bytes a scale run allocates), the ~24 KB policy copied into every
 * simulation's text. One printed elsewhere (a worker's, a resumed one) has its policy field found
 * in the text. Undefined when its policy is not a string.
 */
function policyCut(printed: PrintedJson): PolicyCut | undefined {
  if (printed.pieces?.length === 3) {
    const [head, policy, tail] = printed.pieces as [string, string, string];
    return { head, policy, tail };
  }
  const { indented } = printed;
  const field = indented.indexOf(POLICY_FIELD);
  if (field < 0) return undefined;
  const start = field + POLICY_FIELD.length - 1;
  const lineEnd = indented.indexOf("\n", start);
  const end = lineEnd < 0 ? indented.length : indented.charCodeAt(lineEnd - 1) === 0x2c ? lineEnd - 1 : lineEnd;
  return { head: indented.slice(0, start), policy: indented.slice(start, end), tail: indented.slice(end) };
}

/** A simulation as a checkpoint entry (what the results file's `simulations[]` holds). */
export function checkpointEntry(record: Tau2SimulationRecord): PrintedJson {
  return printedSimulation(record);
}

/** Simulations printed as the results file holds them (records do not change once made). */
const printedSimulations = new WeakMap<Tau2SimulationRecord, PrintedJson>();

/**
 * A simulation printed once, at its place in the results file (`simulations[]`, level 2): its
 * checkpoint line and every rewrite of the results file reuse the text.
 */
function printedSimulation(record: Tau2SimulationRecord): PrintedJson {
  let printed = printedSimulations.get(record);
  if (printed === undefined) {
    // Kept as text only (read back as a value only if it must be printed at another place, as a
    // worker's simulation is): the JSON tree it was printed from would stay alive with it, a second
    // copy of every simulation for the whole run, for the garbage collector to walk.
    const value = simulationToJson(record);
    const policy = typeof record.policy === "string" ? pyJsonString(record.policy) : undefined;
    if (policy === undefined) printed = PrintedJson.fromText(pyJsonDumpsIndented(value, 2, 2), 2, 2);
    else {
      // The policy's JSON text (the one remembered string, see pyJsonString) placed as a piece of its own, at its level (3).
      value.policy = new PrintedJson(record.policy, 2, 3, policy);
      const pieces = pyJsonDumpsIndentedPieces(value, 2, 2);
      const at = pieces.lastIndexOf(policy);
      let head = "";
      for (let index = 0; index < at; index++) head += pieces[index];
      let tail = "";
      for (let index = at + 1; index < pieces.length; index++) tail += pieces[index];
      printed = PrintedJson.fromText(head + policy + tail, 2, 2, [head, policy, tail]);
    }
    printedSimulations.set(record, printed);
  }
  return printed;
}

/** A simulation's text as the results file holds it (`simulations[]`, level 2): what a worker sends (`--workers`). */
export function printedSimulationText(record: Tau2SimulationRecord): string {
  return printedSimulation(record).indented;
}

/** A simulation's scalar fields: what a worker sends beside its printed text (`--workers`). */
export type Tau2SimulationHead = Pick<
  Tau2SimulationRecord,
  "id" | "task_id" | "timestamp" | "start_time" | "end_time" | "duration" | "termination_reason" | "agent_cost" | "user_cost" | "trial" | "seed"
>;

/** The fields a simulation's head holds. */
export function simulationHead(record: Tau2SimulationRecord): Tau2SimulationHead {
  const { id, task_id, timestamp, start_time, end_time, duration, termination_reason, agent_cost, user_cost, trial, seed } = record;
  return { id, task_id, timestamp, start_time, end_time, duration, termination_reason, agent_cost, user_cost, trial, seed };
}

/**
 * A simulation a worker process made, from its printed text, its head and its summary: the text
 * is placed in the checkpoint and the results file as printed; the head and the summary serve the
 * progress, the report and the metrics; the rest (messages, reward info, policy, info) is read
 * from the text, as the resume path reads a simulation, only when something asks for it (the
 * API's `onEpisode` or `details`). Reading 50 KB back per simulation would cost the coordinator
 * more than the episode cost its worker.
 */
export function simulationFromWorker(text: string, head: Tau2SimulationHead, summary: EpisodeSummary, source: string): Tau2SimulationRecord {
  let full: Tau2SimulationRecord | undefined;
  const read = (): Tau2SimulationRecord => {
    if (!full) {
      const value = parsePythonJsonText(text, source) as PyDict;
      if (!(value instanceof Map)) throw new DataError(`${source}: a simulation is a JSON object`);
      full = readSimulation(value, source, 0);
    }
    return full;
  };
  const record = { ...head } as Tau2SimulationRecord;
  for (const field of ["reward_info", "messages", "policy", "info"] as const) {
    Object.defineProperty(record, field, { enumerable: true, configurable: true, get: () => read()[field] });
  }
  printedSimulations.set(record, PrintedJson.fromText(text, 2, 2));
  summaries.set(record, summary);
  return record;
}

/** The simulations of a checkpoint (a line cut short by a kill is ignored); none when there is no checkpoint. */
export function readTau2Checkpoint(resultsPath: string): Tau2SimulationRecord[] {
  const path = tau2CheckpointPath(resultsPath);
  if (!existsSync(path)) return [];
  const lines = readUtf8Lines(path);
  const records: Tau2SimulationRecord[] = [];
  /** The text of the last `policy` line read (see {@link Tau2CheckpointWriter}). */
  let policy: string | null = null;
  lines.forEach((line, index) => {
    const last = index >= lines.length - 2;
    if (line === null) {
      if (last) return; // the last line, interrupted inside a character
      throw new DataError(`${path}: line ${index + 1}: not valid UTF-8`);
    }
    if (line.trim() === "") return;
    let value: PyValue;
    try {
      value = parsePythonJsonText(line, path);
    } catch (error) {
      if (last) return; // the last line, interrupted mid-write
      throw error;
    }
    const line_ = value as PyDict;
    if (line_.get("type") === "run") return; // the header (the identity is in the results file)
    if (line_.get("type") === "policy") {
      policy = text(line_.get("text"));
      return;
    }
    // Lines are the run layer's `{type: "episode", entry}`; checkpoints of earlier versions hold the bare simulation.
    const simulation = line_.get("type") === "episode" ? (line_.get("entry") as PyDict) : line_;
    if (line_.get("sharedPolicy") === true && simulation instanceof Map) {
      if (policy === null) throw new DataError(`${path}: line ${index + 1}: a simulation refers to a policy line, and none comes before it`);
      simulation.set("policy", policy);
    }
    records.push(readSimulation(simulation, path, index));
  });
  return records;
}

/** Removes the checkpoint once the results file holds everything. */
export function removeTau2Checkpoint(resultsPath: string): void {
  rmSync(tau2CheckpointPath(resultsPath), { force: true });
}

function text(value: PyValue | undefined): string | null {
  return typeof value === "string" ? value : null;
}

/** The shape of a stored simulation (HEAD and June-2025 schemas; unknown fields ignored), checked on a plain view of the lossless parse. */
const simulationSchema = lazySchema((z) =>
  z.object({
    id: z.string(),
    task_id: z.string(),
    timestamp: z.string().nullish(),
    start_time: z.string(),
    end_time: z.string(),
    duration: z.number(),
    termination_reason: z.enum(TAU2_TERMINATION_REASONS),
    agent_cost: z.number().nullish(),
    user_cost: z.number().nullish(),
    reward_info: z
      .object({ reward: z.number().gte(0, REWARD).lte(1, REWARD) })
      .passthrough()
      .nullish(),
    messages: z.array(tau2Schemas().message).nullish(),
    trial: z.number().int(TRIAL).gte(0, TRIAL).nullish(),
    seed: z.number().int().nullish(),
    policy: z.string().nullish(),
    info: z.record(z.string(), z.unknown()).nullish(),
  }),
);

function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) out += typeof part === "number" ? `[${part}]` : out ? `.${String(part)}` : String(part);
  return out;
}

function readSimulation(value: PyDict, file: string, index: number): Tau2SimulationRecord {
  const checked = simulationSchema().safeParse(plainView(value));
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const taskId = typeof value.get("task_id") === "string" ? ` (task ${String(value.get("task_id"))})` : "";
    throw new DataError(`${file}: simulations[${index}]${taskId}: field ${fieldPath(issue.path) || "(simulation)"}: ${issue.message}`);
  }
  const simulation = checked.data;
  const messages = value.get("messages");
  const rewardInfo = value.get("reward_info");
  return {
    id: simulation.id,
    task_id: simulation.task_id,
    timestamp: simulation.timestamp ?? "",
    start_time: simulation.start_time,
    end_time: simulation.end_time,
    duration: simulation.duration,
    termination_reason: simulation.termination_reason,
    agent_cost: simulation.agent_cost ?? null,
    user_cost: simulation.user_cost ?? null,
    reward_info: rewardInfo instanceof Map ? rewardInfo : null,
    messages: Array.isArray(messages) ? messages.map((message) => messageFromJson(message as PyDict)) : [],
    trial: simulation.trial ?? 0,
    seed: simulation.seed ?? null,
    policy: simulation.policy ?? null,
    info: simulation.info ?? null,
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
  const value = readPythonJsonFile(path);
  if (!isTau2ResultsDocument(value)) throw new DataError(`${path}: not a τ²-bench results file (expected the keys info, tasks, simulations)`);
  const simulations = value.get("simulations");
  const tasks = value.get("tasks");
  if (!Array.isArray(simulations)) throw new DataError(`${path}: field simulations: expected a list`);
  if (!Array.isArray(tasks)) throw new DataError(`${path}: field tasks: expected a list`);
  const block = value.get("taubridge");
  const records = simulations.map((simulation, index) => readSimulation(simulation as PyDict, path, index));
  // Each (task, trial) once: pasted runs would count twice in pass^k. A simulation recording no trial is not compared.
  const seen = new Map<string, number>();
  records.forEach((record, index) => {
    if (!(simulations[index] instanceof Map) || typeof (simulations[index] as PyDict).get("trial") !== "number") return;
    const key = `${record.task_id}\0${record.trial}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) throw new DataError(`${path}: simulations ${earlier} and ${index} are both task ${record.task_id} trial ${record.trial}; is it several runs' results in one file?`);
    seen.set(key, index);
  });
  return {
    timestamp: text(value.get("timestamp")) ?? "",
    info: value.get("info") as PyDict,
    tasks: tasks as PyDict[],
    simulations: records,
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

/** The kernel's termination reason of a τ² one (`too_many_errors` is `max_errors`; the two τ² declares but never sets count as failures). */
export function canonicalTermination(reason: Tau2TerminationReason): TerminationReason {
  if (reason === "too_many_errors") return "max_errors";
  if (reason === "infrastructure_error" || reason === "unexpected_error") return "infra_error";
  if (reason === "context_window_exceeded") return "agent_error";
  return reason;
}

/** The run layer's summary of a simulation: its reward, termination, spend per side (from its messages) and error. */
export function tau2Summary(record: Tau2SimulationRecord): EpisodeSummary {
  let summary = summaries.get(record);
  if (summary === undefined) {
    summary = summaryOf(record);
    summaries.set(record, summary);
  }
  return summary;
}

/** Summaries of simulations (which do not change once made), computed once. */
const summaries = new WeakMap<Tau2SimulationRecord, EpisodeSummary>();

function summaryOf(record: Tau2SimulationRecord): EpisodeSummary {
  const usage = (role: "assistant" | "user", cost: number | null) => {
    let calls = 0;
    let promptTokens = 0;
    let completionTokens = 0;
    for (const message of record.messages) {
      if (message.role !== role || !message.usage) continue;
      calls++;
      promptTokens += message.usage.prompt_tokens;
      completionTokens += message.usage.completion_tokens;
    }
    // A null cost is τ²'s "unknown" (a side whose messages came without cost, e.g. a task's message
    // history): kept, so the report says unknown rather than $0; no calls and a zero cost is no usage.
    return calls === 0 && cost === 0 ? null : { calls, promptTokens, completionTokens, cost };
  };
  const error = typeof record.info?.error === "string" ? record.info.error : null;
  const unmapped = record.info?.unmapped_tools;
  return {
    taskId: record.task_id,
    trial: record.trial,
    reward: rewardOf(record.reward_info),
    termination: canonicalTermination(record.termination_reason),
    usage: { agent: usage("assistant", record.agent_cost), user: usage("user", record.user_cost) },
    error,
    ...(Array.isArray(unmapped) && unmapped.length > 0 ? { unmappedTools: unmapped.filter((tool): tool is string => typeof tool === "string") } : {}),
  };
}
