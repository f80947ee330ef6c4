/**
 * τ²-bench's evaluator (τ²: src/tau2/evaluator/evaluator.py, evaluate_simulation with
 * `EvaluationType.ALL`): the environment check (database hashes against a gold replay, and env
 * assertions), the action check, the communicate check and — only when the reward basis names it —
 * the NL-assertion judge; the reward is the product over the task's `reward_basis`. The reward info
 * it returns is τ²'s `RewardInfo`, field for field, so results files and `rescore` agree with the
 * original's.
 */
import { evaluatorMessages } from "./engine/engine-messages.ts";
import type { LoadedTau2Domain } from "./engine/domain.ts";
import type { Tau2DatabaseHash, Tau2Environment } from "./engine/environment.ts";
import { toReplayMessage } from "./engine/task-state.ts";
import { toolTypesOf } from "./engine/toolkit.ts";
import { type Tau2ParticipantMessage, type Tau2RewardInfo, type Tau2SimulationMessage, type Tau2TerminationReason, actionDump, emptyRewardInfo, hasTextContent } from "./simulation.ts";
import type { Tau2Action, Tau2RewardType, Tau2Task } from "./tasks.ts";
import { ConfigError, errorMarker } from "../../errors/error-tree.ts";
import { PyException, PyFloat, type PyDict, pyEquals, pyLower } from "../../value/index.ts";
import type { Tau2NlJudge } from "./judge.ts";

/** What the evaluator needs of a finished simulation. */
export interface Tau2EvaluationInput {
  domain: LoadedTau2Domain;
  task: Tau2Task;
  termination: Tau2TerminationReason;
  /** The full trajectory, the task's message history included, in timestamp order. */
  messages: readonly Tau2SimulationMessage[];
  solo?: boolean;
  /** Needed when the basis contains `NL_ASSERTION` and the task has assertions. */
  judge?: Tau2NlJudge;
  /** Replay recorded tool results strictly (live runs) or leniently (re-grading stored files). */
  strictReplay?: boolean;
  signal?: AbortSignal;
}

/** An evaluator needed the NL judge but the run has none configured. */
export class MissingJudgeError extends ConfigError {
  static readonly marker: symbol = errorMarker("MissingJudgeError");
}

const SCORED: readonly Tau2TerminationReason[] = ["agent_stop", "user_stop"];

const float = (value: number) => new PyFloat(value);

/** Scores one simulation as τ²'s `evaluate_simulation(..., EvaluationType.ALL, ...)` does. */
export async function evaluateTau2Simulation(input: Tau2EvaluationInput): Promise<Tau2RewardInfo> {
  if (!SCORED.includes(input.termination)) return emptyRewardInfo(0, { note: `Simulation terminated prematurely. Termination reason: ${input.termination}` });
  const criteria = input.task.evaluation_criteria;
  if (!criteria) return emptyRewardInfo(1, { note: evaluatorMessages.text("noCriteria") });
  const basis = criteria.reward_basis as Tau2RewardType[];
  const environment = environmentCheck(input, basis);
  const action = actionCheck(input.task, input.messages, (name) => toolType(input.domain, name));
  const communicate = communicateCheck(input.task, input.messages);
  const nl = basis.includes("NL_ASSERTION") ? await nlCheck(input) : null;
  let reward = 1;
  const breakdown: Partial<Record<Tau2RewardType, PyFloat>> = {};
  const parts: Array<[readonly Tau2RewardType[], Partial<Tau2RewardInfo>]> = [
    [["DB", "ENV_ASSERTION"], environment],
    [["ACTION"], action],
    [["NL_ASSERTION"], nl ?? {}],
    [["COMMUNICATE"], communicate],
  ];
  for (const [types, part] of parts) {
    if (!types.some((type) => basis.includes(type))) continue;
    Object.assign(breakdown, part.reward_breakdown ?? {});
    reward *= (part.reward as PyFloat).value;
  }
  return {
    reward: float(reward),
    db_check: environment.db_check ?? null,
    env_assertions: environment.env_assertions ?? null,
    action_checks: action.action_checks ?? null,
    nl_assertions: nl?.nl_assertions ?? null,
    communicate_checks: communicate.communicate_checks ?? null,
    reward_basis: basis,
    reward_breakdown: breakdown,
    info: { env: environment.info ?? null, nl: nl ? (nl.info ?? null) : null, communicate: communicate.info ?? null, action: action.info ?? null },
  };
}

/**
 * A tool's type as a dict of the agent's tools updated with the user's has it (a user tool of the
 * same name wins), each toolkit's types made once ({@link toolTypesOf}).
 */
function toolType(domain: LoadedTau2Domain, name: string): string | undefined {
  const { agentToolkit, userToolkit } = domain.definition;
  return (userToolkit ? toolTypesOf(userToolkit).get(name) : undefined) ?? toolTypesOf(agentToolkit).get(name);
}

// ─── Environment (DB + ENV_ASSERTION) ───────────────────────────────────────────────────────────

function environmentCheck(input: Tau2EvaluationInput, basis: readonly Tau2RewardType[]): Partial<Tau2RewardInfo> {
  const criteria = input.task.evaluation_criteria!;
  if (criteria.actions == null && criteria.env_assertions == null) {
    return { reward: float(1), db_check: { db_match: true, db_reward: float(1) }, info: { note: "No expected actions or env assertions" } };
  }
  const predicted = input.domain.createEnvironment({ solo: input.solo, task: input.task });
  try {
    const state = input.task.initial_state;
    predicted.setState(state?.initialization_data, state?.initialization_actions, input.messages.filter(isReplayable), input.strictReplay ?? true);
    return scoreEnvironment(predicted, goldHash(input.domain, input.task, criteria.actions ?? []), criteria, basis);
  } finally {
    // The replay runs no read tool, so the environment made nothing to release (τ³'s sandbox is made on its first shell call).
    void predicted.dispose().catch(() => undefined);
  }
}

/**
 * The gold environment's hashes of each task, per loaded domain without a run-time setup (τ²'s
 * airline, retail, telecom, mock): the gold replay is a function of the domain's data and the task
 * alone (tools are deterministic and an environment's random ids are seeded), so every trial of a
 * task has the same target. Replaying and hashing it once per task instead of once per simulation
 * spares a fresh environment, the gold actions and a database hash per trial. A configured domain
 * (τ³ banking: its environment context, its sandbox) replays every time, as the original does.
 */
const goldHashes = new WeakMap<LoadedTau2Domain, WeakMap<Tau2Task, Tau2DatabaseHash>>();

function goldHash(domain: LoadedTau2Domain, task: Tau2Task, actions: readonly Tau2Action[]): Tau2DatabaseHash {
  const byTask = domain.setup ? undefined : (goldHashes.get(domain) ?? new WeakMap<Tau2Task, Tau2DatabaseHash>());
  const known = byTask?.get(task);
  if (known) return known;
  const gold = goldEnvironment(domain, task, actions);
  try {
    const hash = gold.hash();
    if (byTask) {
      byTask.set(task, hash);
      goldHashes.set(domain, byTask);
    }
    return hash;
  } finally {
    void gold.dispose().catch(() => undefined);
  }
}

/** The DB and env-assertion part of the reward, on the replayed environment and the gold one's hashes. */
function scoreEnvironment(predicted: Tau2Environment, goldHash: Tau2DatabaseHash, criteria: NonNullable<Tau2Task["evaluation_criteria"]>, basis: readonly Tau2RewardType[]): Partial<Tau2RewardInfo> {
  const predictedHash = predicted.hash();
  const dbMatch = goldHash.agent === predictedHash.agent && goldHash.user === predictedHash.user;
  const checks = (criteria.env_assertions ?? []).map((assertion) => {
    const met = predicted.runAssertion(assertion);
    return {
      env_assertion: { env_type: assertion.env_type, func_name: assertion.func_name, arguments: assertion.arguments, assert_value: assertion.assert_value, message: assertion.message ?? null },
      met,
      reward: float(met ? 1 : 0),
    };
  });
  const dbReward = dbMatch ? 1 : 0;
  const assertionReward = checks.reduce((product, check) => product * check.reward.value, 1);
  let reward = 1;
  const breakdown: Partial<Record<Tau2RewardType, PyFloat>> = {};
  if (basis.includes("DB")) {
    breakdown.DB = float(dbReward);
    reward *= dbReward;
  }
  if (basis.includes("ENV_ASSERTION")) {
    breakdown.ENV_ASSERTION = float(assertionReward);
    reward *= assertionReward;
  }
  return { reward: float(reward), db_check: { db_match: dbMatch, db_reward: float(dbReward) }, env_assertions: checks, reward_breakdown: breakdown, info: null };
}

/** Only assistant/user/tool messages take part in `set_state`'s replay. */
function isReplayable(message: Tau2SimulationMessage): message is Exclude<Tau2SimulationMessage, { role: "system" }> {
  return message.role !== "system";
}

/** The target state: the task's initial state, then every gold action through `make_tool_call` (no sync; failures ignored). */
export function goldEnvironment(domain: LoadedTau2Domain, task: Tau2Task, actions: readonly Tau2Action[]): Tau2Environment {
  const gold = domain.createEnvironment({ task });
  const state = task.initial_state;
  gold.setState(state?.initialization_data, state?.initialization_actions, (state?.message_history ?? []).map(toReplayMessage));
  for (const action of actions) {
    try {
      gold.makeToolCall(action.name, action.requestor, action.arguments);
    } catch (error) {
      if (!PyException.isInstance(error)) throw error;
    }
  }
  return gold;
}

// ─── Action ─────────────────────────────────────────────────────────────────────────────────────

function matchesToolCall(action: Tau2Action, call: { name: string; arguments: PyDict }): boolean {
  if (action.name !== call.name) return false;
  const keys = action.compare_args ?? [...call.arguments.keys()];
  if (keys.length === 0) return true;
  const pick = (args: PyDict) => new Map([...args].filter(([key]) => keys.includes(key)));
  return pyEquals(pick(call.arguments), pick(action.arguments));
}

function actionCheck(task: Tau2Task, messages: readonly Tau2SimulationMessage[], typeOf: (name: string) => string | undefined): Partial<Tau2RewardInfo> {
  const gold = task.evaluation_criteria?.actions;
  if (!gold || gold.length === 0) return { reward: float(1), info: { note: "No actions to evaluate" }, reward_breakdown: { ACTION: float(1) } };
  const calls = messages.flatMap((message) => (message.role === "assistant" || message.role === "user" ? ((message as Tau2ParticipantMessage).tool_calls ?? []) : []));
  const checks = gold.map((action) => {
    const match = calls.some((call) => matchesToolCall(action, call));
    return { action: actionDump(action), action_match: match, action_reward: float(match ? 1 : 0), tool_type: typeOf(action.name) ?? null };
  });
  const reward = checks.every((check) => check.action_match) ? 1 : 0;
  return { reward: float(reward), action_checks: checks, reward_breakdown: { ACTION: float(reward) }, info: null };
}

// ─── Communicate ────────────────────────────────────────────────────────────────────────────────

function communicateCheck(task: Tau2Task, messages: readonly Tau2SimulationMessage[]): Partial<Tau2RewardInfo> {
  const required = task.evaluation_criteria?.communicate_info;
  if (!required || required.length === 0) return { reward: float(1), info: { note: "No communicate_info to evaluate" }, reward_breakdown: { COMMUNICATE: float(1) } };
  const spoken = messages.filter((message): message is Tau2ParticipantMessage => message.role === "assistant" && hasTextContent(message));
  const checks = required.map((info) => {
    const found = spoken.find((message) => pyLowerIncludes((message.content as string).replaceAll(",", ""), info));
    return found
      ? { info, met: true, justification: `Information '${info}' communicated in the message:\n '${found.content}'` }
      : { info, met: false, justification: `Information '${info}' not communicated.` };
  });
  const reward = checks.every((check) => check.met) ? 1 : 0;
  return { reward: float(reward), communicate_checks: checks, reward_breakdown: { COMMUNICATE: float(reward) }, info: null };
}

function pyLowerIncludes(haystack: string, needle: string): boolean {
  return pyLower(haystack).includes(pyLower(needle));
}

// ─── NL assertions ──────────────────────────────────────────────────────────────────────────────

async function nlCheck(input: Tau2EvaluationInput): Promise<Partial<Tau2RewardInfo>> {
  const assertions = input.task.evaluation_criteria?.nl_assertions;
  if (!assertions || assertions.length === 0) return { reward: float(1), nl_assertions: [], info: { note: evaluatorMessages.text("noNlAssertions") }, reward_breakdown: { NL_ASSERTION: float(1) } };
  if (!input.judge) throw new MissingJudgeError(`task ${input.task.id} needs the NL-assertion judge (its reward basis has NL_ASSERTION); configure --judge-model`);
  const checks = await input.judge.judge(input.messages, assertions, input.signal);
  const reward = checks.every((check) => check.met) ? 1 : 0;
  return { reward: float(reward), nl_assertions: checks, reward_breakdown: { NL_ASSERTION: float(reward) }, info: null };
}
