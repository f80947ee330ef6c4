/**
 * τ²'s prompt templates, extracted from the agent, user-simulator and orchestrator sources in the
 * data directory, and the functions that build every system prompt from them exactly as τ² does:
 * `llm_agent`, `llm_agent_gt` (resolution steps), `llm_agent_solo` (ticket, `done` tool), and the
 * user simulator (guidelines file + rendered scenario).
 *
 * Why extracted: the templates are the original authors' prose, which this project never contains;
 * the model must still see exactly what the original sends (tests compare with every
 * `system_prompt` of the `prompts_<domain>.json` fixtures).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeUtf8 } from "../../../../data/data-files.ts";
import { describeFailure, PythonSourceError, type PythonSourceTree } from "../../../../data/python-source/modules.ts";
import { PydanticSchemaBuilder } from "../../../../data/python-source/pydantic-schema.ts";
import { fillTemplate, pythonFormat, type StringTemplate, stringTemplateOf, stringValueOf, templateFields } from "../../../../data/python-source/strings.ts";
import type { PyBlock, PyClassDef, PyExpr, PyFunctionDef, PythonSourceFile } from "../../../../data/python-source/syntax.ts";
import type { PyValue } from "../../../../value/index.ts";
import { pyStr } from "../../../../value/index.ts";
import { TAU2_SCHEMA_OPTIONS, TAU2_SOURCE_HINT, tau2SourceTree, unexpectedSource } from "./sources.ts";
import { type Tau2FunctionSchema, toolSchema } from "./tools.ts";

/** The four f-strings of `make_agent_instructions_from_action`, by requestor and whether arguments are shown. */
export interface Tau2GtActionTemplates {
  userWithArguments: StringTemplate;
  userWithoutArguments: StringTemplate;
  assistantWithArguments: StringTemplate;
  assistantWithoutArguments: StringTemplate;
}

/** Everything τ²'s prompts are built from, as its sources define it. */
export interface Tau2PromptTemplates {
  /** `AGENT_INSTRUCTION` (llm_agent). */
  agentInstruction: string;
  /** `SYSTEM_PROMPT` of llm_agent.py: a `str.format` template with `{agent_instruction}` and `{domain_policy}`. */
  agentSystemPrompt: string;
  /** `AGENT_GT_INSTRUCTION`. */
  gtInstruction: string;
  /** `SYSTEM_PROMPT_GT`: `{agent_instruction}`, `{domain_policy}`, `{resolution_steps}`. */
  gtSystemPrompt: string;
  /** The `[Step {i + 1}] {...}` line of `make_agent_instructions_from_actions` (fields: step number, action text). */
  gtStepLine: StringTemplate;
  gtAction: Tau2GtActionTemplates;
  /** `AGENT_SOLO_INSTRUCTION`: a `str.format` template with `{stop_function_name}`. */
  soloInstruction: string;
  /** `SYSTEM_PROMPT_SOLO`: `{agent_instruction}`, `{domain_policy}`, `{ticket}`. */
  soloSystemPrompt: string;
  /** `LLMSoloAgent.STOP_FUNCTION_NAME`, `STOP_TOKEN`, `TRANSFER_TOOL_NAME`. */
  soloStopFunctionName: string;
  soloStopToken: string;
  soloTransferToolName: string;
  /** The schema of the `done` tool the solo agent adds (`as_tool(done).openai_schema`). */
  soloDoneTool: Tau2FunctionSchema;
  /** `SYSTEM_PROMPT` of user_simulator.py: `{global_user_sim_guidelines_with_persona}`, `{instructions}`. */
  userSystemPrompt: string;
  /** The placeholder in (voice) guideline files that runtime persona text replaces. */
  userPersonaPlaceholder: string;
  /** Guideline file names under `<dataRoot>/user_simulator/`. */
  userGuidelinesFile: { withTools: string; withoutTools: string };
  /** `STOP`, `TRANSFER`, `OUT_OF_SCOPE` of user_simulator_base.py. */
  userStopTokens: { stop: string; transfer: string; outOfScope: string };
  /** The content of the orchestrator's `DEFAULT_FIRST_AGENT_MESSAGE`. */
  firstAgentMessage: string;
}

const AGENT_MODULE = "tau2.agent.llm_agent";
const USER_MODULE = "tau2.user.user_simulator";
const USER_BASE_MODULE = "tau2.user.user_simulator_base";
const ORCHESTRATOR_MODULE = "tau2.orchestrator.orchestrator";

/** Reads the templates from `<dataRoot>/upstream-src/src/tau2/{agent,user,orchestrator}/…` (uncached; see `extractTau2Prompts`). */
export function readTau2PromptTemplates(dataRoot: string, tree: PythonSourceTree = tau2SourceTree(dataRoot)): Tau2PromptTemplates {
  const agent = tree.module(AGENT_MODULE, "the agent prompts");
  const user = tree.module(USER_MODULE, "the user simulator prompt");
  const userBase = tree.module(USER_BASE_MODULE, "the user simulator stop tokens");
  const orchestrator = tree.module(ORCHESTRATOR_MODULE, "the first agent message");
  return {
    ...describeFailure(agent.file, TAU2_SOURCE_HINT, () => agentTemplates(tree, agent)),
    ...describeFailure(user.file, TAU2_SOURCE_HINT, () => userTemplates(user, userBase)),
    firstAgentMessage: describeFailure(orchestrator.file, TAU2_SOURCE_HINT, () => firstAgentMessage(orchestrator)),
  };
}

function constant(file: PythonSourceFile, name: string): string {
  const value = file.moduleValue(name);
  if (!value) return unexpectedSource(file.file, name, "no module-level assignment");
  return stringValueOf(file, value);
}

function classOf(file: PythonSourceFile, name: string): PyClassDef {
  return file.findClass(name) ?? unexpectedSource(file.file, name, "class not found");
}

function methodOf(file: PythonSourceFile, definition: PyClassDef, name: string): PyFunctionDef {
  return definition.methods.find((method) => method.name === name) ?? unexpectedSource(file.file, `${definition.name}.${name}`, "method not found");
}

function classConstant(file: PythonSourceFile, definition: PyClassDef, name: string): string {
  const value = definition.assignments.find((assignment) => assignment.name === name)?.value;
  if (!value) return unexpectedSource(file.file, `${definition.name}.${name}`, "class attribute not found");
  return stringValueOf(file, value);
}

/** `return <expr>` statements of a body with the `if`/`elif`/`else` conditions leading to each. */
interface ConditionalReturn {
  conditions: { test: PyExpr; negated: boolean }[];
  value: PyExpr;
}

function conditionalReturns(file: PythonSourceFile, body: readonly PyBlock[], conditions: ConditionalReturn["conditions"] = []): ConditionalReturn[] {
  const found: ConditionalReturn[] = [];
  let previous: { test: PyExpr; negated: boolean }[] = [];
  for (const block of body) {
    const word = file.firstWord(block);
    if (word === "if" || word === "elif") {
      if (word === "if") previous = [];
      const test = file.conditionOf(block)!;
      found.push(...conditionalReturns(file, block.children, [...conditions, ...previous, { test, negated: false }]));
      previous = [...previous, { test, negated: true }];
    } else if (word === "else") {
      found.push(...conditionalReturns(file, block.children, [...conditions, ...previous]));
      previous = [];
    } else {
      const value = file.returnValue(block);
      if (value) found.push({ conditions, value });
    }
  }
  return found;
}

function testText(file: PythonSourceFile, test: PyExpr): string {
  if (test.kind === "name") return test.name;
  if (test.kind === "compare" && test.right.kind === "constant") return `${test.operator}${String(test.right.value)}`;
  return file.fail(test.start, "unexpected condition");
}

function gtActionTemplates(file: PythonSourceFile, method: PyFunctionDef): Tau2GtActionTemplates {
  const returns = conditionalReturns(file, method.body).filter((entry) => entry.value.kind === "fstring");
  const pick = (requestor: string, withArguments: boolean): StringTemplate => {
    const match = returns.find((entry) => {
      const texts = entry.conditions.map((condition) => `${condition.negated ? "!" : ""}${testText(file, condition.test)}`);
      return texts.includes(`==${requestor}`) && texts.includes(withArguments ? "include_function_args" : "!include_function_args");
    });
    if (!match) return unexpectedSource(file.file, method.name, `no instruction for a ${requestor} action ${withArguments ? "with" : "without"} arguments`);
    return stringTemplateOf(file, match.value);
  };
  return {
    userWithArguments: pick("user", true),
    userWithoutArguments: pick("user", false),
    assistantWithArguments: pick("assistant", true),
    assistantWithoutArguments: pick("assistant", false),
  };
}

/** The f-string appended per step in `make_agent_instructions_from_actions` (`lines.append(f"...")`). */
function gtStepLine(file: PythonSourceFile, method: PyFunctionDef): StringTemplate {
  const templates: StringTemplate[] = [];
  const visit = (blocks: readonly PyBlock[]): void => {
    for (const block of blocks) {
      const { start, end } = block.line;
      const word = file.firstWord(block);
      if (word === "for" || word === "if" || word === "else" || word === "with") {
        visit(block.children);
        continue;
      }
      const statement = file.tokens[start].type === "name" && file.tokens[start].text !== "return" ? safeExpression(file, start, end) : undefined;
      if (statement?.kind === "call" && statement.callee.kind === "attribute" && statement.callee.name === "append" && statement.positional[0]?.kind === "fstring") {
        templates.push(statement.positional[0].parts);
      }
    }
  };
  visit(method.body);
  if (templates.length !== 1 || templateFields(templates[0]).length !== 2) return unexpectedSource(file.file, method.name, "expected one f-string step line with two fields");
  return templates[0];
}

function safeExpression(file: PythonSourceFile, start: number, end: number): PyExpr | undefined {
  if (file.findTopLevel(start, end, "=") !== undefined) return undefined;
  try {
    return file.expressionIn(start, end);
  } catch {
    return undefined;
  }
}

function agentTemplates(tree: PythonSourceTree, file: PythonSourceFile) {
  const gtClass = classOf(file, "LLMGTAgent");
  const soloClass = classOf(file, "LLMSoloAgent");
  const addStop = methodOf(file, soloClass, "add_stop_tool");
  const done = file.functionsIn(addStop.body).find((candidate) => candidate.name === "done") ?? unexpectedSource(file.file, "LLMSoloAgent.add_stop_tool", "no nested 'def done'");
  const schemas = new PydanticSchemaBuilder(tree, TAU2_SCHEMA_OPTIONS);
  return {
    agentInstruction: constant(file, "AGENT_INSTRUCTION"),
    agentSystemPrompt: constant(file, "SYSTEM_PROMPT"),
    gtInstruction: constant(file, "AGENT_GT_INSTRUCTION"),
    gtSystemPrompt: constant(file, "SYSTEM_PROMPT_GT"),
    gtStepLine: gtStepLine(file, methodOf(file, gtClass, "make_agent_instructions_from_actions")),
    gtAction: gtActionTemplates(file, methodOf(file, gtClass, "make_agent_instructions_from_action")),
    soloInstruction: constant(file, "AGENT_SOLO_INSTRUCTION"),
    soloSystemPrompt: constant(file, "SYSTEM_PROMPT_SOLO"),
    soloStopFunctionName: classConstant(file, soloClass, "STOP_FUNCTION_NAME"),
    soloStopToken: classConstant(file, soloClass, "STOP_TOKEN"),
    soloTransferToolName: classConstant(file, soloClass, "TRANSFER_TOOL_NAME"),
    soloDoneTool: toolSchema(schemas, done, AGENT_MODULE, { dropFirst: false }).schema,
  };
}

/** The string file name at the right of `DIR / "name.md"`. */
function pathFileName(file: PythonSourceFile, name: string): string {
  const value = file.moduleValue(name);
  if (value?.kind !== "binary" || value.operator !== "/" || value.right.kind !== "constant" || typeof value.right.value !== "string") {
    return unexpectedSource(file.file, name, 'expected `<directory> / "<file name>"`');
  }
  return value.right.value;
}

/** The first string argument of `<x>.replace("<placeholder>", ...)` in the `system_prompt` property. */
function personaPlaceholder(file: PythonSourceFile, method: PyFunctionDef): string {
  for (const block of method.body) {
    const tokens = file.tokens;
    for (let index = block.line.start; index + 2 < block.line.end; index++) {
      if (tokens[index].text === "replace" && tokens[index - 1]?.text === "." && tokens[index + 1].text === "(" && tokens[index + 2].type === "string") {
        const value = tokens[index + 2].value;
        if (value !== undefined && tokens[index + 2].kind === "str") return value;
      }
    }
  }
  return unexpectedSource(file.file, "UserSimulator.system_prompt", 'no `.replace("<placeholder>", ...)` of the guidelines');
}

function userTemplates(file: PythonSourceFile, base: PythonSourceFile) {
  const simulator = classOf(file, "UserSimulator");
  return {
    userSystemPrompt: constant(file, "SYSTEM_PROMPT"),
    userPersonaPlaceholder: personaPlaceholder(file, methodOf(file, simulator, "system_prompt")),
    userGuidelinesFile: { withTools: pathFileName(file, "GLOBAL_USER_SIM_GUIDELINES_PATH_TOOLS"), withoutTools: pathFileName(file, "GLOBAL_USER_SIM_GUIDELINES_PATH") },
    userStopTokens: { stop: constant(base, "STOP"), transfer: constant(base, "TRANSFER"), outOfScope: constant(base, "OUT_OF_SCOPE") },
  };
}

function firstAgentMessage(file: PythonSourceFile): string {
  const value = file.moduleValue("DEFAULT_FIRST_AGENT_MESSAGE");
  const content = value?.kind === "call" ? value.keywords.find((keyword) => keyword.name === "content")?.value : undefined;
  if (!content) return unexpectedSource(file.file, "DEFAULT_FIRST_AGENT_MESSAGE", "expected AssistantMessage(..., content=...)");
  return stringValueOf(file, content);
}

// ---------------------------------------------------------------------------------------------
// Builders
// ---------------------------------------------------------------------------------------------

/** `LLMAgent.system_prompt`. */
export function tau2AgentSystemPrompt(templates: Tau2PromptTemplates, policy: string): string {
  return pythonFormat(templates.agentSystemPrompt, { domain_policy: policy, agent_instruction: templates.agentInstruction }, "llm_agent SYSTEM_PROMPT");
}

/** The part of a gold action the resolution steps use. */
export interface Tau2GtAction {
  name: string;
  arguments: ReadonlyMap<string, PyValue> | Readonly<Record<string, PyValue>>;
  requestor?: string | null;
}

/** `Action.get_func_format()`: `name(k=v, ...)` with each value as Python `str()`. */
export function tau2ActionFuncFormat(action: Tau2GtAction): string {
  const entries = action.arguments instanceof Map ? [...action.arguments] : Object.entries(action.arguments);
  return `${action.name}(${entries.map(([key, value]) => `${key}=${pyStr(value as PyValue)}`).join(", ")})`;
}

/** `LLMGTAgent.make_agent_instructions_from_actions()`: one `[Step i] ...` line per gold action. */
export function tau2ResolutionSteps(templates: Tau2PromptTemplates, actions: readonly Tau2GtAction[], provideFunctionArguments = true): string {
  return actions
    .map((action, index) => {
      const requestor = action.requestor ?? "assistant";
      if (requestor !== "user" && requestor !== "assistant") throw new PythonSourceError(`Unknown action requestor: ${requestor}`);
      const template =
        requestor === "user"
          ? provideFunctionArguments
            ? templates.gtAction.userWithArguments
            : templates.gtAction.userWithoutArguments
          : provideFunctionArguments
            ? templates.gtAction.assistantWithArguments
            : templates.gtAction.assistantWithoutArguments;
      const instruction = fillTemplate(template, (field) => (field.expression.endsWith("get_func_format()") ? tau2ActionFuncFormat(action) : action.name));
      let fieldIndex = 0;
      return fillTemplate(templates.gtStepLine, () => (fieldIndex++ === 0 ? String(index + 1) : instruction));
    })
    .join("\n");
}

/** `LLMGTAgent.system_prompt` for a task's gold actions. */
export function tau2GtSystemPrompt(templates: Tau2PromptTemplates, policy: string, actions: readonly Tau2GtAction[], provideFunctionArguments = true): string {
  return pythonFormat(
    templates.gtSystemPrompt,
    { agent_instruction: templates.gtInstruction, domain_policy: policy, resolution_steps: tau2ResolutionSteps(templates, actions, provideFunctionArguments) },
    "llm_agent SYSTEM_PROMPT_GT",
  );
}

/** `LLMSoloAgent.system_prompt` (policy = the domain's solo policy). */
export function tau2SoloSystemPrompt(templates: Tau2PromptTemplates, policy: string, ticket: string): string {
  const instruction = pythonFormat(templates.soloInstruction, { stop_function_name: templates.soloStopFunctionName, stop_token: templates.soloStopToken }, "AGENT_SOLO_INSTRUCTION");
  return pythonFormat(templates.soloSystemPrompt, { agent_instruction: instruction, domain_policy: policy, ticket }, "llm_agent SYSTEM_PROMPT_SOLO");
}

/** The guideline file's text (`<dataRoot>/user_simulator/<file>`), with or without user tools. */
export function readTau2UserGuidelines(dataRoot: string, templates: Tau2PromptTemplates, withTools: boolean): string {
  const path = join(dataRoot, "user_simulator", withTools ? templates.userGuidelinesFile.withTools : templates.userGuidelinesFile.withoutTools);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new PythonSourceError(`${path} is missing; run \`taubridge data pull tau2-bench\``, { cause: error });
  }
  return decodeUtf8(bytes, path);
}

/**
 * `UserSimulator.system_prompt`: the guidelines with the persona placeholder replaced (by
 * `personaText` framed by blank lines, or nothing), and the rendered scenario.
 */
export function tau2UserSystemPrompt(templates: Tau2PromptTemplates, guidelines: string, scenario: string, personaText?: string): string {
  const persona = personaText ? `\n\n${personaText}\n` : "";
  return pythonFormat(
    templates.userSystemPrompt,
    { global_user_sim_guidelines_with_persona: guidelines.split(templates.userPersonaPlaceholder).join(persona), instructions: scenario },
    "user_simulator SYSTEM_PROMPT",
  );
}

/** A task's `user_scenario` (τ²: src/tau2/data_model/tasks.py, UserScenario). */
export interface Tau2UserScenario {
  persona?: string | null;
  instructions:
    | string
    | {
        domain: string;
        reason_for_call: string;
        known_info?: string | null;
        unknown_info?: string | null;
        task_instructions: string;
      };
}

/** Python's `textwrap.indent(text, prefix)`: the prefix on every line that is not whitespace only. */
export function textwrapIndent(text: string, prefix: string): string {
  return (text.match(/[^\n]*\n|[^\n]+$/g) ?? []).map((line) => (line.trim() === "" ? line : prefix + line)).join("");
}

/**
 * `str(task.user_scenario)`, the text the user simulator gets as its scenario (τ²:
 * src/tau2/data_model/tasks.py, UserScenario.__str__ and StructuredUserInstructions.__str__).
 */
export function renderTau2UserScenario(scenario: Tau2UserScenario): string {
  const lines: string[] = [];
  if (scenario.persona) {
    lines.push("Persona:");
    lines.push(textwrapIndent(scenario.persona, "\t"));
  }
  lines.push("Instructions:");
  lines.push(textwrapIndent(typeof scenario.instructions === "string" ? scenario.instructions : renderStructuredInstructions(scenario.instructions), "\t"));
  return lines.join("\n");
}

function renderStructuredInstructions(instructions: Exclude<Tau2UserScenario["instructions"], string>): string {
  const lines = [`Domain: ${instructions.domain}`, "Reason for call:", textwrapIndent(instructions.reason_for_call, "\t")];
  if (instructions.known_info != null) lines.push("Known info:", textwrapIndent(instructions.known_info, "\t"));
  if (instructions.unknown_info != null) lines.push("Unknown info:", textwrapIndent(instructions.unknown_info, "\t"));
  lines.push("Task instructions:", textwrapIndent(instructions.task_instructions, "\t"));
  return lines.join("\n");
}

/** Re-exported so callers can name the template type. */
export type { StringTemplate };
