import { DataError, TaubridgeError, errorMarker } from "../../errors/error-tree.ts";
import { RESPOND_ACTION_NAME, type Action, type Task } from "../../core/types.ts";
import type { Participant, ParticipantSession, Turn } from "../../core/contracts.ts";
import { Environment } from "./engine/environment.ts";
import { ToolReturnedNoneError } from "./engine/tool.ts";

import { groundTruthHashFor, TauBenchEvaluator } from "./evaluator.ts";
import { MissingRespondContentError, runEpisode } from "./loop.ts";
import { BaseDatabase } from "./engine/database.ts";
import { LoadedDomain } from "./engine/domain.ts";
import { parsePythonJsonText } from "../../data/data-files.ts";
import { parsePythonJson, toJs, type PyDict, type PyValue } from "../../value/index.ts";
import { computePassK, type PassKReport } from "../../metrics/pass-k.ts";
import { lazySchema } from "../../data/lazy-zod.ts";
import { rescoredEntry, type LoadedResultEntry } from "./codec.ts";
import { ScriptedUser } from "./participants/scripted-user.ts";
import { simulatedUser, type UserSimulator } from "./participants/simulated-user.ts";

const actionListSchema = lazySchema((z) =>
  z.array(
    z.object({
      name: z.string().min(1),
      kwargs: z.record(z.string(), z.unknown()).optional(),
      // A step of `taubridge records` (`{name, arguments, requestor: "agent", …}`): its arguments are the kwargs.
      arguments: z.record(z.string(), z.unknown()).optional(),
      requestor: z.literal("agent", { message: 'τ-bench replays the agent\'s actions only (requestor "agent")' }).optional(),
    }),
  ),
);

/**
 * Parses an actions file, keeping Python number types; errors name file, index and field. Each
 * action is `{name, kwargs}`, or a step as `taubridge records` prints it (`{name, arguments,
 * requestor: "agent", …}`; its other fields are ignored).
 */
export function parseActionsFile(text: string, fileName: string): Action[] {
  const parsed = parsePythonJsonText(text, fileName);
  const result = actionListSchema().safeParse(toJs(parsed));
  if (!result.success) {
    const issue = result.error.issues[0];
    const [index, ...field] = issue.path;
    throw new DataError(`${fileName}: ${typeof index === "number" ? `action ${index}: field ${field.join(".") || "(action)"}` : "top level"}: ${issue.message}`);
  }
  return (parsed as PyDict[]).map((entry) => ({
    name: entry.get("name") as string,
    kwargs: ((entry.get("kwargs") ?? entry.get("arguments")) as PyDict | undefined) ?? new Map(),
  }));
}

export interface ReplayStep {
  name: string;
  observation?: string;
  exception?: string;
}

/**
 * Replays a recorded action sequence on fresh data, one tool step per action, and returns each
 * observation exactly as the original environment would plus the τ-bench hash of the end state.
 * This is a probe of the environment, not an episode: like the reference fixtures, a terminate
 * tool does not stop it, and a `respond` is answered by the scripted user (`###STOP###`).
 */
export async function replayActions(domain: LoadedDomain, actions: readonly Action[]): Promise<{ steps: ReplayStep[]; dataHash: string }> {
  const env = new Environment(domain);
  const user = new ScriptedUser();
  const steps: ReplayStep[] = [];
  for (const action of actions) {
    try {
      if (action.name === RESPOND_ACTION_NAME && !action.kwargs.has("content")) throw new MissingRespondContentError();
      const observation = action.name === RESPOND_ACTION_NAME ? await user.step() : env.step(action).observation;
      steps.push({ name: action.name, observation });
    } catch (error) {
      // ToolReturnedNoneError (send_certificate) escaped `step` in the original too; show it and go on.
      // Only the errors the original also raised from `step` are shown; anything else is a harness bug.
      if (!ToolReturnedNoneError.isInstance(error) && !MissingRespondContentError.isInstance(error)) throw error;
      steps.push({ name: action.name, exception: `${error.pythonType}: ${error.message.split("\n")[0]}` });
    }
  }
  return { steps, dataHash: env.dataHash() };
}

/** Extracts the environment actions an agent took from a stored trajectory (ours or the original's). */
export function actionsFromEntry(entry: LoadedResultEntry): { actions: Action[]; userReplies: string[] } | { error: string } {
  const raw = entry.raw;
  const block = raw.get("taubridge");
  if (block instanceof Map && Array.isArray(block.get("steps"))) {
    const actions = (block.get("steps") as PyDict[]).map((step) => {
      const action = step.get("action") as PyDict;
      return { name: action.get("name") as string, kwargs: action.get("kwargs") as PyDict };
    });
    return { actions, userReplies: userRepliesOf(raw) };
  }
  const traj = (raw.get("traj") as PyDict[] | undefined) ?? [];
  const actions: Action[] = [];
  const usesToolCalls = traj.some((message) => Array.isArray(message.get("tool_calls")) && (message.get("tool_calls") as PyValue[]).length > 0);
  for (const message of traj) {
    if (message.get("role") !== "assistant") continue;
    const toolCalls = message.get("tool_calls");
    if (Array.isArray(toolCalls) && toolCalls.length > 0) {
      const fn = (toolCalls[0] as PyDict).get("function") as PyDict;
      try {
        const kwargs = parsePythonJson(String(fn.get("arguments") ?? "{}"));
        actions.push({ name: String(fn.get("name")), kwargs: kwargs instanceof Map ? kwargs : new Map() });
      } catch (error) {
        return { error: `unparseable tool-call arguments: ${(error as Error).message}` };
      }
      continue;
    }
    const content = message.get("content");
    const text = typeof content === "string" ? content : "";
    if (!usesToolCalls && text.includes("Action:")) {
      // act/react trajectories: the JSON after the last `Action:` (respond when it does not parse).
      const actionText = text.slice(text.lastIndexOf("Action:") + "Action:".length).trim();
      try {
        const parsed = parsePythonJson(actionText);
        if (parsed instanceof Map && typeof parsed.get("name") === "string" && parsed.get("arguments") instanceof Map) {
          actions.push({ name: parsed.get("name") as string, kwargs: parsed.get("arguments") as PyDict });
          continue;
        }
      } catch {
        // falls through to respond, as the original does
      }
      actions.push({ name: RESPOND_ACTION_NAME, kwargs: new Map([["content", actionText]]) });
      continue;
    }
    actions.push({ name: RESPOND_ACTION_NAME, kwargs: new Map<string, PyValue>([["content", content ?? null]]) });
  }
  return { actions, userReplies: userRepliesOf(raw) };
}

function userRepliesOf(raw: PyDict): string[] {
  const traj = (raw.get("traj") as PyDict[] | undefined) ?? [];
  const replies: string[] = [];
  let seenAssistant = false;
  for (const message of traj) {
    if (message.get("role") === "assistant") seenAssistant = true;
    else if (message.get("role") === "user" && seenAssistant) {
      const content = message.get("content");
      replies.push(typeof content === "string" ? content.replace(/^API output: /, "") : "");
    }
  }
  return replies;
}

/** Plays back the recorded agent actions, one per turn; running out of them ends the episode unfinished. */
class RecordedAgent implements Participant<Task> {
  readonly name = "recorded";
  constructor(private readonly actions: readonly Action[]) {}
  start(): ParticipantSession {
    let next = 0;
    return {
      next: async (): Promise<Turn> => {
        const action = this.actions[next++];
        if (!action) throw new TrajectoryExhausted();
        return { content: null, toolCalls: [{ id: "", name: action.name, arguments: action.kwargs }] };
      },
    };
  }
}

/** The recorded trajectory has no further action although the episode did not end. */
class TrajectoryExhausted extends TaubridgeError {
  static readonly marker: symbol = errorMarker("TrajectoryExhausted");

  constructor() {
    super("the episode did not end (step limit): reward 0");
  }
}

/** Plays back the recorded user replies, so `###STOP###` ends the replay where it ended the episode. */
class RecordedUser implements UserSimulator {
  private index = 0;
  constructor(private readonly replies: string[]) {}
  async reset(instruction: string): Promise<string> {
    return instruction;
  }
  async step(): Promise<string> {
    return this.replies[this.index++] ?? "";
  }
  reportedCost(): number | null {
    return null;
  }
}

export interface RescoreItem {
  taskId: number;
  trial: number;
  recordedReward: number;
  reward: number;
  agree: boolean;
  recordedHash: string | null;
  groundTruthHash: string | null;
  hashMatch: boolean | null;
  note?: string;
}

export interface RescoreReport {
  total: number;
  agree: number;
  passK: PassKReport["passK"];
  averageReward: number;
  /** Recorded `infra_error` episodes, left out of `passK` and `averageReward`. */
  infraErrors: number;
  hashCompared: number;
  hashMatches: number;
  /** Recorded hashes that match once user addresses use the pre-2025 `province` key. */
  legacyHashMatches: number;
  hashExplanation: string | null;
  items: RescoreItem[];
  /**
   * Every entry of the file in its order (lossless), re-scored where the replay ran — `reward`,
   * `info.reward_info` and our block's `rewardBreakdown` replaced — as recorded otherwise: what
   * `rescore -o` writes.
   */
  entries: PyDict[];
}

/** A copy of the domain whose user addresses use the `province` key, as τ-bench's data did before 2025-01-16. */
function legacyProvinceDomain(domain: LoadedDomain): LoadedDomain | null {
  const users = domain.base.collections.get("users");
  if (!users) return null;
  let renamed = false;
  const legacyUsers: PyDict = new Map();
  for (const [id, user] of users) {
    if (!(user instanceof Map) || !(user.get("address") instanceof Map)) {
      legacyUsers.set(id, user);
      continue;
    }
    const address = new Map<string, PyValue>();
    for (const [key, value] of user.get("address") as PyDict) {
      if (key === "state") renamed = true;
      address.set(key === "state" ? "province" : key, value);
    }
    const copy = new Map(user);
    copy.set("address", address);
    legacyUsers.set(id, copy);
  }
  if (!renamed) return null;
  const collections = new Map(domain.base.collections);
  collections.set("users", legacyUsers);
  return new LoadedDomain(domain.definition, domain.dataDirectory, new BaseDatabase(collections), domain.policy, domain.toolSchemas);
}

/** The task an entry records (`info.task`), else `fallback`. */
export function taskFromInfo(raw: PyDict, fallback: Task | undefined): Task | undefined {
  const info = raw.get("info");
  const task = info instanceof Map ? info.get("task") : undefined;
  if (!(task instanceof Map)) return fallback;
  return {
    user_id: String(task.get("user_id") ?? ""),
    actions: ((task.get("actions") as PyDict[] | undefined) ?? []).map((action) => ({
      name: action.get("name") as string,
      kwargs: (action.get("kwargs") as PyDict | undefined) ?? new Map(),
    })),
    instruction: String(task.get("instruction") ?? ""),
    outputs: ((task.get("outputs") as PyValue[] | undefined) ?? []).map(String),
  };
}

/**
 * Re-scores a results file: replays each trajectory's agent actions through our environment,
 * recomputes the reward, and compares it (and the recorded ground-truth hash) with what was recorded.
 */
export async function rescoreResults(domain: LoadedDomain, entries: readonly LoadedResultEntry[], tasks: readonly Task[]): Promise<RescoreReport> {
  const items: RescoreItem[] = [];
  const rescored: PyDict[] = [];
  let legacy: LoadedDomain | null | undefined;
  let legacyHashMatches = 0;
  const evaluator = new TauBenchEvaluator(domain);
  for (const entry of entries) {
    const task = taskFromInfo(entry.raw, tasks[entry.taskId]);
    const info = entry.raw.get("info");
    const rewardInfo = info instanceof Map ? info.get("reward_info") : undefined;
    const recordedHash = rewardInfo instanceof Map && rewardInfo.get("info") instanceof Map ? (((rewardInfo.get("info") as PyDict).get("gt_data_hash") as string | undefined) ?? null) : null;
    const base: RescoreItem = {
      taskId: entry.taskId,
      trial: entry.trial,
      recordedReward: entry.reward,
      reward: 0,
      agree: false,
      recordedHash,
      groundTruthHash: null,
      hashMatch: null,
    };
    if (!task) {
      items.push({ ...base, note: `task ${entry.taskId} not found` });
      rescored.push(entry.raw);
      continue;
    }
    const extracted = actionsFromEntry(entry);
    if ("error" in extracted || (info instanceof Map && info.has("error"))) {
      const note = "error" in extracted ? extracted.error : "the episode ended in an error";
      items.push({ ...base, agree: entry.reward === 0, note });
      rescored.push(entry.raw);
      continue;
    }
    // The same episode loop (over the episode kernel) and evaluator as a live run: the recorded actions are the agent, the recorded replies the user.
    const episode = await runEpisode({
      domain,
      task,
      taskIndex: entry.taskId,
      trial: entry.trial,
      agent: new RecordedAgent(extracted.actions),
      user: simulatedUser("recorded", () => new RecordedUser(extracted.userReplies)),
      evaluator,
      maxSteps: Number.POSITIVE_INFINITY,
    });
    const reward = episode.reward;
    const note = episode.error ? (episode.error.message.startsWith("the episode did not end") ? episode.error.message : `replay stopped: ${episode.error.message.split("\n")[0]}`) : undefined;
    const ourHash = groundTruthHashFor(domain, task);
    let hashMatch: boolean | null = null;
    if (recordedHash) {
      hashMatch = recordedHash === ourHash;
      if (!hashMatch) {
        legacy ??= legacyProvinceDomain(domain);
        if (legacy && groundTruthHashFor(legacy, task) === recordedHash) legacyHashMatches++;
      }
    }
    items.push({ ...base, reward, agree: Math.abs(reward - entry.reward) < 1e-9, groundTruthHash: ourHash, hashMatch, ...(note ? { note } : {}) });
    rescored.push(rescoredEntry(entry.raw, episode));
  }
  // One item per entry, in order; recorded infra errors stay out of pass^k as in every report.
  const metrics = computePassK(items.map((item, index) => ({ taskId: item.taskId, trial: item.trial, reward: item.reward, termination: entries[index].termination })));
  const compared = items.filter((item) => item.hashMatch !== null);
  const hashMatches = compared.filter((item) => item.hashMatch).length;
  let hashExplanation: string | null = null;
  if (compared.length > hashMatches) {
    hashExplanation =
      legacyHashMatches > 0
        ? `${legacyHashMatches} of the ${compared.length - hashMatches} differing recorded hashes match once user addresses use the key "province" instead of "state": those results were recorded before upstream renamed that key (τ-bench commit 404f33e, 2025-01-16), so their hashes describe the older data. Rewards are unaffected.`
        : "the recorded ground-truth hashes were computed on different data than the data directory given";
  }
  return {
    total: items.length,
    agree: items.filter((item) => item.agree).length,
    passK: metrics.passK,
    averageReward: metrics.averageReward,
    infraErrors: metrics.infraErrors,
    hashCompared: compared.length,
    hashMatches,
    legacyHashMatches,
    hashExplanation,
    items,
    entries: rescored,
  };
}
