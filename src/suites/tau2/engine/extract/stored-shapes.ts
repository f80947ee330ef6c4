/**
 * Shape checks for extractions read back from the derived cache (`index.ts`). An entry's bytes are
 * already checked against the SHA-256 in its header and its kind carries a version, so these guard
 * against what is left: an entry of another taubridge build under the same kind. Plain structural
 * checks, not zod: this module is loaded by offline runs too (through `views.ts`), which never read
 * an entry and should not load a schema library for it.
 */
import type { FStringPart } from "../../../../data/python-source/syntax.ts";
import type { Tau2PromptTemplates } from "./prompts.ts";
import type { Tau2FunctionSchema, Tau2ToolInfo, Tau2ToolkitExtraction, Tau2ToolsExtraction } from "./tools.ts";

type Dictionary = Record<string, unknown>;

const isDictionary = (value: unknown): value is Dictionary => typeof value === "object" && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === "string";
const arrayOf =
  <T>(isItem: (item: unknown) => item is T) =>
  (value: unknown): value is T[] =>
    Array.isArray(value) && value.every(isItem);

function isFunctionSchema(value: unknown): value is Tau2FunctionSchema {
  if (!isDictionary(value) || value.type !== "function" || !isDictionary(value.function)) return false;
  const { name, description, parameters } = value.function;
  return isString(name) && isString(description) && isDictionary(parameters);
}

function isToolInfo(value: unknown): value is Tau2ToolInfo {
  return isDictionary(value) && isString(value.name) && isString(value.tool_type) && typeof value.mutates_state === "boolean";
}

function isToolkit(value: unknown): value is Tau2ToolkitExtraction {
  return isDictionary(value) && isString(value.className) && arrayOf(isFunctionSchema)(value.schemas) && arrayOf(isToolInfo)(value.info) && isString(value.toolsDescription);
}

/** A stored {@link Tau2ToolsExtraction}. */
export function isTau2ToolsExtraction(value: unknown): value is Tau2ToolsExtraction {
  return isDictionary(value) && isString(value.domain) && isToolkit(value.agent) && (value.user === null || isToolkit(value.user));
}

function isFStringPart(value: unknown): value is FStringPart {
  if (!isDictionary(value)) return false;
  if ("text" in value) return isString(value.text) && Object.keys(value).length === 1;
  return isString(value.expression) && (value.conversion === undefined || isString(value.conversion)) && (value.formatSpec === undefined || isString(value.formatSpec));
}

const isTemplate = arrayOf(isFStringPart);

const hasStrings = (value: unknown, keys: readonly string[]): boolean => isDictionary(value) && keys.every((key) => isString(value[key]));

const PROMPT_STRINGS = [
  "agentInstruction",
  "agentSystemPrompt",
  "gtInstruction",
  "gtSystemPrompt",
  "soloInstruction",
  "soloSystemPrompt",
  "soloStopFunctionName",
  "soloStopToken",
  "soloTransferToolName",
  "userSystemPrompt",
  "userPersonaPlaceholder",
  "firstAgentMessage",
] as const satisfies readonly (keyof Tau2PromptTemplates)[];

/** A stored {@link Tau2PromptTemplates}. */
export function isTau2PromptTemplates(value: unknown): value is Tau2PromptTemplates {
  if (!isDictionary(value) || !hasStrings(value, PROMPT_STRINGS) || !isTemplate(value.gtStepLine) || !isFunctionSchema(value.soloDoneTool)) return false;
  const { gtAction } = value;
  if (!isDictionary(gtAction) || !["userWithArguments", "userWithoutArguments", "assistantWithArguments", "assistantWithoutArguments"].every((key) => isTemplate(gtAction[key]))) return false;
  return hasStrings(value.userGuidelinesFile, ["withTools", "withoutTools"]) && hasStrings(value.userStopTokens, ["stop", "transfer", "outOfScope"]);
}
