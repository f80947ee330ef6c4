/**
 * The deterministic facts of an episode: what it did against what its task expected, read from the
 * canonical episode record alone (`src/core/episode-record.ts`), so the same code serves both
 * suites, our results files and the originals'. No model call: everything here is computed from
 * the trajectory and the ground truth the record carries. A judge model (`judge.ts`) adds fault
 * assignment on top; a viewer can show these facts as they are.
 */
import type { EpisodeRecord, RecordExpectedAction, RecordStep } from "../core/episode-record.ts";

/** An action, as facts name it. */
export interface FactAction {
  name: string;
  arguments: unknown;
  requestor: string;
}

/** A tool call of the episode, pinned to where it happened. */
export interface FactStep extends FactAction {
  /** Index in the record's `steps`. */
  stepIndex: number;
  /** Index in the record's `messages` of the message that made the call (null when the file does not link them). */
  messageIndex: number | null;
}

/** One argument that differs between a ground-truth action and the call the episode made instead. */
export interface ArgumentDiff {
  field: string;
  expected: unknown;
  /** What the call passed; `undefined` (absent in JSON) when it did not pass the field. */
  actual: unknown;
}

/** A ground-truth action the episode called with other arguments. */
export interface ArgumentMismatch {
  /** Index of the ground-truth action in the task's list. */
  expectedIndex: number;
  name: string;
  step: FactStep;
  fields: ArgumentDiff[];
}

/** Everything failure analysis knows about an episode without a model. */
export interface EpisodeFacts {
  /** Ground-truth actions the episode did not perform (with exactly these arguments), in the task's order, with their index. */
  missingActions: Array<FactAction & { expectedIndex: number }>;
  /** Calls the episode made that no ground-truth action accounts for (reads included), in order. */
  extraActions: FactStep[];
  /** Missing ground-truth actions the episode did call, but with other arguments: the differing fields. */
  argumentDiffs: ArgumentMismatch[];
  /** τ-bench outputs and τ² communicate items the agent never said. */
  missingOutputs: string[];
  /** τ² environment and NL assertions that were not met. */
  unmetAssertions: Array<{ kind: "env" | "nl"; text: string; justification: string | null }>;
  /** The first ground-truth action the episode's calls, in order, do not reach; and the call made in its place. */
  firstDivergence: { expectedIndex: number; expected: FactAction; actual: FactStep | null } | null;
  termination: string | null;
  /** Tool calls whose result was an error. */
  toolErrors: Array<FactStep & { result: string | null }>;
  /** Whether the final database matched the gold one (null: not checked or not recorded). */
  databaseMatch: boolean | null;
  /** False when the file carries no ground truth: the action, output and assertion facts are then empty. */
  groundTruth: boolean;
}

/** τ-bench's and τ²'s success test: a reward within 1e-6 of 1. */
export function isSuccessfulReward(reward: number): boolean {
  return reward >= 1 - 1e-6 && reward <= 1 + 1e-6;
}

/** Python-like equality of JSON values: numbers by value (1 == 1.0), objects by keys regardless of order. */
export function sameValue(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== typeof right || left === null || right === null || typeof left !== "object") return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left)) {
    const other = right as unknown[];
    return left.length === other.length && left.every((item, index) => sameValue(item, other[index]));
  }
  const a = left as Record<string, unknown>;
  const b = right as Record<string, unknown>;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && sameValue(a[key], b[key]));
}

const argumentsObject = (value: unknown): Record<string, unknown> => (value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/**
 * The argument names compared for a ground-truth action: τ²'s `compare_args` when the task gives
 * them, else every argument of the gold action (τ² ignores arguments only the call has). τ-bench
 * compares whole argument dicts (its check is the database hash): `exact` asks for that.
 */
function comparedFields(expected: RecordExpectedAction, exact: boolean): string[] | null {
  if (expected.compareArgs) return expected.compareArgs;
  return exact ? null : Object.keys(argumentsObject(expected.arguments));
}

function callMatches(expected: RecordExpectedAction, step: RecordStep, exact: boolean): boolean {
  if (step.name !== expected.name) return false;
  const fields = comparedFields(expected, exact);
  if (fields === null) return sameValue(argumentsObject(step.arguments), argumentsObject(expected.arguments));
  const actual = argumentsObject(step.arguments);
  const wanted = argumentsObject(expected.arguments);
  return fields.every((field) => Object.hasOwn(actual, field) === Object.hasOwn(wanted, field) && sameValue(actual[field], wanted[field]));
}

function differingFields(expected: RecordExpectedAction, step: RecordStep, exact: boolean): ArgumentDiff[] {
  const actual = argumentsObject(step.arguments);
  const wanted = argumentsObject(expected.arguments);
  const fields = comparedFields(expected, exact) ?? [...new Set([...Object.keys(wanted), ...Object.keys(actual)])];
  return fields
    .filter((field) => !(Object.hasOwn(actual, field) === Object.hasOwn(wanted, field) && sameValue(actual[field], wanted[field])))
    .map((field) => ({ field, expected: wanted[field], actual: actual[field] }));
}

/**
 * The message index of each step: the message that made a call of its id, taken in order (a model
 * may reuse an id, so the n-th step of an id belongs to the n-th call of that id).
 */
function stepMessages(record: EpisodeRecord): Array<number | null> {
  const byId = new Map<string, number[]>();
  record.messages.forEach((message, index) => {
    for (const call of message.toolCalls ?? []) {
      if (!call.id) continue;
      const key = `${call.requestor}\0${call.id}`;
      byId.set(key, [...(byId.get(key) ?? []), index]);
    }
  });
  return record.steps.map((step) => (step.toolCallId !== null ? (byId.get(`${step.requestor}\0${step.toolCallId}`)?.shift() ?? null) : null));
}

/** The lower-cased text every assistant message said, commas removed (τ-bench's and τ²'s output check). */
function agentWords(record: EpisodeRecord): string[] {
  return record.messages.filter((message) => message.role === "assistant" && typeof message.content === "string").map((message) => (message.content as string).toLowerCase().replaceAll(",", ""));
}

/** A tool result that reports an error: the file's flag, else τ-bench's `Error: …` observations. */
function isToolError(step: RecordStep): boolean {
  if (step.error !== null) return step.error;
  return typeof step.result === "string" && /^error\b/i.test(step.result.trim());
}

/**
 * The facts of one episode. Ground-truth actions are matched one to one with the episode's calls
 * of the same requestor, in the task's order; a match the evaluator recorded (τ²'s action checks)
 * is taken as it is, otherwise a call matches when the name and the compared arguments are equal
 * (τ-bench: all arguments). A missing action with a call of the same name left over is an
 * argument mismatch, naming the fields that differ.
 */
export function episodeFacts(record: EpisodeRecord): EpisodeFacts {
  const expected = record.expected;
  const exact = record.suite === "tau-bench";
  const messageOf = stepMessages(record);
  const pin = (step: RecordStep, stepIndex: number): FactStep => ({ name: step.name, arguments: step.arguments, requestor: step.requestor, stepIndex, messageIndex: messageOf[stepIndex] });
  const toolErrors = record.steps.flatMap((step, index) => (isToolError(step) ? [{ ...pin(step, index), result: step.result }] : []));
  const base = { termination: record.termination, toolErrors, databaseMatch: expected?.databaseMatch ?? null };
  if (!expected) {
    return { missingActions: [], extraActions: [], argumentDiffs: [], missingOutputs: [], unmetAssertions: [], firstDivergence: null, groundTruth: false, ...base };
  }
  const used = new Set<number>();
  const matchedStep = new Map<number, number>();
  const findStep = (action: RecordExpectedAction, predicate: (step: RecordStep) => boolean): number =>
    record.steps.findIndex((step, index) => !used.has(index) && step.requestor === action.requestor && predicate(step));
  // Exact matches first, so a near-miss call is never taken for the action it does not match.
  expected.actions.forEach((action, index) => {
    if (action.matched === false) return;
    const at = findStep(action, (step) => callMatches(action, step, exact));
    if (at >= 0) {
      used.add(at);
      matchedStep.set(index, at);
    } else if (action.matched === true) matchedStep.set(index, -1); // the evaluator says it matched (its own normalisation)
  });
  const missingActions: EpisodeFacts["missingActions"] = [];
  const argumentDiffs: ArgumentMismatch[] = [];
  expected.actions.forEach((action, index) => {
    if (matchedStep.has(index)) return;
    missingActions.push({ name: action.name, arguments: action.arguments, requestor: action.requestor, expectedIndex: index });
    const at = findStep(action, (step) => step.name === action.name);
    if (at < 0) return;
    used.add(at);
    argumentDiffs.push({ expectedIndex: index, name: action.name, step: pin(record.steps[at], at), fields: differingFields(action, record.steps[at], exact) });
  });
  const extraActions = record.steps.flatMap((step, index) => (used.has(index) ? [] : [pin(step, index)]));
  const words = agentWords(record);
  const missingOutputs = expected.outputs.filter((output) => (output.met !== null ? !output.met : !words.some((text) => text.includes(output.text.toLowerCase())))).map((output) => output.text);
  const unmetAssertions = expected.assertions.filter((assertion) => assertion.met === false).map(({ kind, text, justification }) => ({ kind, text, justification }));
  return { missingActions, extraActions, argumentDiffs, missingOutputs, unmetAssertions, firstDivergence: firstDivergence(record, exact, pin), groundTruth: true, ...base };
}

/**
 * Where the episode first left the ground truth: the gold actions are followed in order through
 * the episode's calls (a gold action is reached by the first later call that matches it); the first
 * one not reached is the divergence, and the call the episode made next is what it did instead.
 */
function firstDivergence(record: EpisodeRecord, exact: boolean, pin: (step: RecordStep, index: number) => FactStep): EpisodeFacts["firstDivergence"] {
  const actions = record.expected?.actions ?? [];
  let cursor = 0;
  for (const [index, action] of actions.entries()) {
    let at = -1;
    for (let position = cursor; position < record.steps.length; position++) {
      if (record.steps[position].requestor === action.requestor && callMatches(action, record.steps[position], exact)) {
        at = position;
        break;
      }
    }
    if (at < 0) {
      const next = record.steps.findIndex((step, position) => position >= cursor && step.requestor === action.requestor);
      return { expectedIndex: index, expected: { name: action.name, arguments: action.arguments, requestor: action.requestor }, actual: next >= 0 ? pin(record.steps[next], next) : null };
    }
    cursor = at + 1;
  }
  return null;
}
