import {
  RESPOND_ACTION_FIELD_NAME,
  RESPOND_ACTION_NAME,
  STOP_TOKEN,
  type Action,
  type EnvInfo,
  type ResetResult,
  type RewardResult,
  type StepResult,
  type Task,
} from "../core/types.ts";
import { pyJsonDumps, pyKeyError, pyStr, type PyValue } from "../value/index.ts";
import type { EpisodeDatabase } from "./database.ts";
import type { LoadedDomain } from "./domain.ts";
import { invokeTool } from "./tool.ts";

/** Per-call options the environment passes to its user simulator. */
export interface UserCallOptions {
  /** Aborted when the episode times out or the run is interrupted; model-backed users pass it on. */
  signal?: AbortSignal;
}

/**
 * The simulated user as the environment sees it (τ-bench keeps the user inside the env: a
 * `respond` action is answered by the user simulator).
 */
export interface UserSimulator {
  /** Starts the conversation for an instruction; returns the user's first utterance. */
  reset(instruction: string, options?: UserCallOptions): Promise<string>;
  /** Answers the agent's message. */
  step(content: string, options?: UserCallOptions): Promise<string>;
  /** τ-bench's `user_cost` (the original reports the last call's cost); null when unknown. */
  reportedCost(): number | null;
}

/** Options that change the environment away from τ-bench defaults (all off by default). */
export interface EnvironmentOptions {
  /** Called after every step, for trajectories and bridge step events. */
  onStep?: (event: { action: Action; observation: string; reward: number; done: boolean }) => void;
  /** Cancels the user simulator's pending call (episode timeout, interrupted run). */
  signal?: AbortSignal;
}

/** A `respond` action without `content`: in the original a KeyError escapes `step` and the task errors. */
export class MissingRespondContentError extends Error {
  constructor() {
    super(pyKeyError(RESPOND_ACTION_FIELD_NAME).message);
    this.name = "KeyError";
  }
}

/**
 * One episode of a τ-bench domain: `reset` / `step` with the original's semantics (spec §3–§4).
 *
 * Isolation: each environment has its own copy-on-write database over the domain's shared parse,
 * so concurrent episodes never share mutable state and a reset touches no file.
 */
export class Environment {
  db: EpisodeDatabase;
  /** Every action passed to `step`, in order (τ-bench's `env.actions`). */
  readonly actions: Action[] = [];
  private done = false;

  constructor(
    readonly domain: LoadedDomain,
    readonly task: Task,
    readonly taskIndex: number,
    readonly user: UserSimulator,
    private readonly options: EnvironmentOptions = {},
  ) {
    this.db = domain.newDatabase();
  }

  get isDone(): boolean {
    return this.done;
  }

  private info(source: string | null): EnvInfo {
    return { task: this.task, source, user_cost: null, reward_info: null };
  }

  /** Fresh data, cleared action log, and the user's first utterance. */
  async reset(): Promise<ResetResult> {
    this.db = this.domain.newDatabase();
    this.actions.length = 0;
    this.done = false;
    const observation = await this.user.reset(this.task.instruction, { signal: this.options.signal });
    return { observation, info: this.info("user") };
  }

  /**
   * Applies one action. A `respond` goes to the user (done when the reply contains `###STOP###`);
   * a known tool runs against the episode database (errors become `Error: ...` observations; a
   * terminate tool ends the episode); anything else observes `Unknown action <name>`.
   */
  async step(action: Action): Promise<StepResult> {
    if (action.name === RESPOND_ACTION_NAME) {
      this.actions.push(action);
      const content = action.kwargs.get(RESPOND_ACTION_FIELD_NAME);
      if (content === undefined) throw new MissingRespondContentError();
      const observation = await this.user.step(content === null ? "" : typeof content === "string" ? content : pyStr(content), { signal: this.options.signal });
      return this.finish(action, observation, "user", observation.includes(STOP_TOKEN));
    }
    return this.stepTool(action);
  }

  /** A tool (non-respond) step; synchronous because tools never wait on anything. */
  stepTool(action: Action): StepResult {
    this.actions.push(action);
    const tool = this.domain.toolsByName.get(action.name);
    if (!tool) return this.finish(action, `Unknown action ${action.name}`, action.name, false);
    const observation = invokeTool(tool, this.domain.definition.dataSubdirectory, this.db, action.kwargs);
    return this.finish(action, observation, action.name, this.domain.definition.terminateTools.includes(action.name));
  }

  private finish(action: Action, observation: string, source: string, done: boolean): StepResult {
    const info = this.info(source);
    let reward = 0;
    if (done) {
      this.done = true;
      const rewardInfo = this.calculateReward();
      info.reward_info = rewardInfo;
      info.user_cost = this.user.reportedCost();
      reward = rewardInfo.reward;
    }
    this.options.onStep?.({ action, observation, reward, done });
    return { observation, reward, done, info };
  }

  /** Hash of the episode's current database (τ-bench `get_data_hash`). */
  dataHash(): string {
    return this.db.tauBenchHash();
  }

  /**
   * τ-bench's reward (spec §4): the end state's hash against the hash after replaying the
   * ground-truth actions on fresh data, then (if the task has outputs) a case-insensitive substring
   * check of each output in what the agent said, with commas removed from the agent's words only.
   *
   * Deliberate isolation (no score change): the replay runs on its own database and its actions are
   * not appended to `actions`, and the episode keeps the agent's end state afterwards.
   */
  calculateReward(): RewardResult {
    const dataHash = this.dataHash();
    const groundTruthHash = groundTruthHashFor(this.domain, this.task);
    let reward = 1.0;
    const actionsForReport = this.task.actions.filter((action) => action.name !== RESPOND_ACTION_NAME);
    const actionsMatch = dataHash === groundTruthHash;
    if (!actionsMatch) reward = 0.0;
    let info: RewardResult["info"] = { r_actions: actionsMatch ? 1.0 : 0.0, gt_data_hash: groundTruthHash };
    if (this.task.outputs.length > 0) {
      const said = this.actions
        .filter((action) => action.name === RESPOND_ACTION_NAME)
        .map((action) => {
          const content = action.kwargs.get(RESPOND_ACTION_FIELD_NAME);
          return typeof content === "string" ? content.toLowerCase().replaceAll(",", "") : "";
        });
      const outputs: Record<string, boolean> = {};
      let outputsOk = 1.0;
      for (const output of this.task.outputs) {
        const wanted = output.toLowerCase();
        const found = said.some((content) => content.includes(wanted));
        outputs[output] = found;
        if (!found) {
          outputsOk = 0.0;
          reward = 0.0;
        }
      }
      info = { r_outputs: outputsOk, outputs };
    }
    return { reward, info, actions: actionsForReport };
  }
}

/**
 * The ground-truth end-state hash of a task: replay its actions (terminate tools skipped) on fresh
 * data. Deterministic, so it is computed once per task and shared across trials and episodes.
 */
export function groundTruthHashFor(domain: LoadedDomain, task: Task): string {
  // Fast path by task object (the domain's own task lists); the text key covers tasks rebuilt
  // elsewhere (rescore reads them back from results files).
  const byObject = domain.groundTruthByTask.get(task);
  if (byObject) return byObject;
  const key = pyJsonDumps(task.actions.map((action) => new Map<string, PyValue>([["name", action.name], ["kwargs", action.kwargs]])));
  const cached = domain.groundTruthHashes.get(key);
  if (cached) {
    domain.groundTruthByTask.set(task, cached);
    return cached;
  }
  const db = domain.newDatabase();
  for (const action of task.actions) {
    if (domain.definition.terminateTools.includes(action.name)) continue;
    const tool = domain.toolsByName.get(action.name);
    if (!tool) continue; // `Unknown action` changes nothing; a ground-truth respond would only talk to the user.
    invokeTool(tool, domain.definition.dataSubdirectory, db, action.kwargs);
  }
  const hash = db.tauBenchHash();
  domain.groundTruthHashes.set(key, hash);
  domain.groundTruthByTask.set(task, hash);
  return hash;
}
