/**
 * τ-bench (v1)'s original prompt templates, extracted from its agent and user-simulator sources in
 * the data directory (`<dataRoot>/upstream-src/tau_bench/{agents,envs}/…`), and builders that make
 * the prompts exactly as the original does: the act / react system prompt (policy, `#Available
 * tools`, `json.dumps(tools_info)`, the instruction block), the few-shot system prompt, the user
 * simulators' system prompts (`llm`, and `react`; `verify` and `reflection` use `llm`'s), their
 * first agent line, and the verify / reflect supervisor prompts with their transcript.
 *
 * Why extracted: these are the original authors' words; the project's own prompts
 * (`src/participants/prompts.ts`, `src/suites/tau-bench/participants/user-prompts.ts`) only keep the structure, so scores made with
 * them are not comparable with the original's. Nothing here contains the original prose.
 */
import { join, resolve } from "node:path";
import { RESPOND_ACTION_FIELD_NAME, RESPOND_ACTION_NAME } from "../../../core/types.ts";
import { describeFailure, PythonSourceError, PythonSourceTree } from "../../../data/python-source/modules.ts";
import { fillTemplate, type StringTemplate, stringTemplateOf, stringValueOf, templateFields } from "../../../data/python-source/strings.ts";
import type { FStringPart, PyBlock, PyExpr, PyFunctionDef, PythonSourceFile } from "../../../data/python-source/syntax.ts";
import { pyJsonDumps, type PyValue } from "../../../value/index.ts";

const HINT = "run `taubridge data pull tau-bench` (it fetches the τ-bench agent and user sources the original prompts are read from, at the pinned commit)";

/** What the original prompts are built from. */
export interface TauBenchPromptTemplates {
  /** `REACT_INSTRUCTION` with the respond-action names filled in. */
  reactInstruction: string;
  /** `ACT_INSTRUCTION` likewise. */
  actInstruction: string;
  /** `ChatReActAgent`'s `self.prompt = wiki + <text> + json.dumps(tools_info) + instruction`: fields `wiki`, `tools`, `instruction`. */
  chatReactPrompt: StringTemplate;
  /** Few-shot: one example (`Example {i+1}:\n{display}` fields: number, display), their separator, and the system content (fields: wiki, examples). */
  fewShotExample: StringTemplate;
  fewShotSeparator: string;
  fewShotSystem: StringTemplate;
  /** User simulators' `build_system_prompt`: the instruction display (prefix + instruction + suffix, or "" without one) and the prompt with its one field. */
  userPrompt: Record<"llm" | "react", { instructionPrefix: string; instructionSuffix: string; template: StringTemplate }>;
  /** The agent line every user simulator's conversation starts with (`reset`). */
  userFirstMessage: string;
  /** `verify()` / `reflect()` prompts: fields `transcript`, `response`. */
  verifyPrompt: StringTemplate;
  reflectPrompt: StringTemplate;
  /** One transcript line (fields: role label, content) and the line separator. */
  transcriptLine: StringTemplate;
  transcriptSeparator: string;
  /** `map_role_label`'s fixed labels (other roles are `role.capitalize()`). */
  roleLabels: Record<string, string>;
}

const cache = new Map<string, TauBenchPromptTemplates>();

/** The templates of a τ-bench data root, read once per process. */
export function extractTauBenchPrompts(dataRoot: string): TauBenchPromptTemplates {
  const key = resolve(dataRoot);
  let templates = cache.get(key);
  if (!templates) {
    templates = readTauBenchPrompts(key);
    cache.set(key, templates);
  }
  return templates;
}

/** The tree of τ-bench's sources under a data root (`tree.readPaths()` then names the files a reading used). */
export function tauBenchSourceTree(dataRoot: string): PythonSourceTree {
  return new PythonSourceTree(join(dataRoot, "upstream-src"), HINT);
}

/** Reads the templates (uncached), through `tree` when given. */
export function readTauBenchPrompts(dataRoot: string, tree: PythonSourceTree = tauBenchSourceTree(dataRoot)): TauBenchPromptTemplates {
  const react = tree.module("tau_bench.agents.chat_react_agent", "the act/react prompts");
  const fewShot = tree.module("tau_bench.agents.few_shot_agent", "the few-shot prompt");
  const user = tree.module("tau_bench.envs.user", "the user simulator prompts");
  const names = { RESPOND_ACTION_NAME, RESPOND_ACTION_FIELD_NAME };
  return {
    ...describeFailure(react.file, HINT, () => ({
      reactInstruction: stringValueOf(react, moduleValue(react, "REACT_INSTRUCTION"), names),
      actInstruction: stringValueOf(react, moduleValue(react, "ACT_INSTRUCTION"), names),
      chatReactPrompt: chatReactPrompt(react),
    })),
    ...describeFailure(fewShot.file, HINT, () => fewShotTemplates(fewShot)),
    ...describeFailure(user.file, HINT, () => userTemplates(user)),
  };
}

function unexpected(file: PythonSourceFile, symbol: string, reason: string): never {
  throw new PythonSourceError(`${file.file}: ${symbol}: ${reason} (is this τ-bench at the pinned commit?); ${HINT}`);
}

function moduleValue(file: PythonSourceFile, name: string): PyExpr {
  return file.moduleValue(name) ?? unexpected(file, name, "no module-level assignment");
}

function method(file: PythonSourceFile, className: string, name: string): PyFunctionDef {
  const definition = file.findClass(className) ?? unexpected(file, className, "class not found");
  return definition.methods.find((candidate) => candidate.name === name) ?? unexpected(file, `${className}.${name}`, "method not found");
}

function moduleFunction(file: PythonSourceFile, name: string): PyFunctionDef {
  return file.functions().find((candidate) => candidate.name === name) ?? unexpected(file, name, "function not found");
}

/** A `+` chain of literals, f-strings and names/calls (names become fields named by `fieldName`). */
function concatenation(file: PythonSourceFile, expression: PyExpr, fieldName: (expression: PyExpr) => string): FStringPart[] {
  if (expression.kind === "binary" && expression.operator === "+") return [...concatenation(file, expression.left, fieldName), ...concatenation(file, expression.right, fieldName)];
  if (expression.kind === "constant" || expression.kind === "fstring") return [...stringTemplateOf(file, expression)];
  return [{ expression: fieldName(expression) }];
}

/** The value of `self.<attribute> = <expr>` in a method body. */
function selfAssignment(file: PythonSourceFile, body: readonly PyBlock[], attribute: string): PyExpr | undefined {
  for (const block of body) {
    const { start, end } = block.line;
    const tokens = file.tokens;
    if (tokens[start].text === "self" && tokens[start + 1].text === "." && tokens[start + 2].text === attribute && tokens[start + 3].text === "=") return file.expressionIn(start + 4, end);
  }
  return undefined;
}

function chatReactPrompt(file: PythonSourceFile): StringTemplate {
  const init = method(file, "ChatReActAgent", "__init__");
  const value = selfAssignment(file, init.body, "prompt") ?? unexpected(file, "ChatReActAgent.__init__", "no `self.prompt = ...`");
  const template = concatenation(file, value, (expression) => {
    if (expression.kind === "name") return expression.name === "instruction" ? "instruction" : expression.name;
    if (expression.kind === "call") return "tools";
    return file.fail(expression.start, "unexpected part of the prompt");
  });
  const fields = templateFields(template).map((field) => field.expression);
  if (fields.join() !== "wiki,tools,instruction") unexpected(file, "ChatReActAgent.__init__", `self.prompt is built from ${fields.join(", ")}`);
  return template;
}

/** The f-string tokens of a body, parsed, in order. */
function fStringsIn(file: PythonSourceFile, body: readonly PyBlock[]): { template: StringTemplate; index: number }[] {
  const found: { template: StringTemplate; index: number }[] = [];
  const visit = (blocks: readonly PyBlock[]): void => {
    for (const block of blocks) {
      for (let index = block.line.start; index < block.line.end; index++) {
        const token = file.tokens[index];
        if (token.type === "string" && token.kind === "fstring") {
          const parsed = file.expressionIn(index, index + 1);
          if (parsed.kind === "fstring") found.push({ template: parsed.parts, index });
        }
      }
      visit(block.children);
    }
  };
  visit(body);
  return found;
}

/** `"<sep>".join([f"..." for ...])`: the separator string token before the `.join` that precedes `index`. */
function joinSeparator(file: PythonSourceFile, index: number, symbol: string): string {
  for (let cursor = index; cursor >= 2; cursor--) {
    const tokens = file.tokens;
    if (tokens[cursor].text === "join" && tokens[cursor - 1].text === "." && tokens[cursor - 2].type === "string" && tokens[cursor - 2].kind === "str") return tokens[cursor - 2].value ?? "";
  }
  return unexpected(file, symbol, 'no `"<separator>".join(...)`');
}

function withFields(found: { template: StringTemplate; index: number }[], fields: string[], file: PythonSourceFile, symbol: string): { template: StringTemplate; index: number } {
  const match = found.find(
    (entry) =>
      templateFields(entry.template)
        .map((field) => field.expression)
        .join("|") === fields.join("|"),
  );
  return match ?? unexpected(file, symbol, `no f-string with the fields ${fields.join(", ")}`);
}

function fewShotTemplates(file: PythonSourceFile) {
  const solve = method(file, "FewShotToolCallingAgent", "solve");
  const found = fStringsIn(file, solve.body);
  const example = withFields(found, ["i+1", "display"], file, "FewShotToolCallingAgent.solve");
  return {
    fewShotExample: example.template,
    fewShotSeparator: joinSeparator(file, example.index, "FewShotToolCallingAgent.solve"),
    fewShotSystem: withFields(found, ["self.wiki", "few_shots"], file, "FewShotToolCallingAgent.solve").template,
  };
}

function userPrompt(file: PythonSourceFile, className: string) {
  const build = method(file, className, "build_system_prompt");
  const symbol = `${className}.build_system_prompt`;
  const display = file.assignmentsIn(build.body).find((assignment) => assignment.name === "instruction_display")?.value;
  if (display?.kind !== "conditional") return unexpected(file, symbol, 'expected `instruction_display = (... if instruction is not None else "")`');
  const parts = concatenation(file, display.body, (expression) => (expression.kind === "name" ? expression.name : file.fail(expression.start, "unexpected part")));
  const middle = parts.findIndex((part) => "expression" in part && part.expression === "instruction");
  const orElse = display.orElse.kind === "constant" ? display.orElse.value : undefined;
  if (middle < 0 || templateFields(parts).length !== 1 || orElse !== "") unexpected(file, symbol, "unexpected instruction display");
  const text = (part: FStringPart | undefined): string => (part && "text" in part ? part.text : "");
  const returned = build.body.map((block) => file.returnValue(block)).find((value) => value !== undefined);
  if (!returned) return unexpected(file, symbol, "no return");
  const template = stringTemplateOf(file, returned);
  if (templateFields(template).some((field) => field.expression !== "instruction_display")) unexpected(file, symbol, "unexpected fields in the prompt");
  return { instructionPrefix: text(parts[middle - 1]), instructionSuffix: text(parts[middle + 1]), template };
}

function roleLabels(file: PythonSourceFile): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const block of moduleFunction(file, "map_role_label").body) {
    const test = file.conditionOf(block);
    const value = block.children.map((child) => file.returnValue(child)).find((entry) => entry !== undefined);
    if (test?.kind === "compare" && test.operator === "==" && test.right.kind === "constant" && typeof test.right.value === "string" && value?.kind === "constant" && typeof value.value === "string") {
      labels[test.right.value] = value.value;
    }
  }
  if (Object.keys(labels).length === 0) unexpected(file, "map_role_label", 'no `if role == "...": return "..."` branches');
  return labels;
}

function promptOf(file: PythonSourceFile, functionName: string): StringTemplate {
  const value = file.assignmentsIn(moduleFunction(file, functionName).body).find((assignment) => assignment.name === "prompt")?.value;
  if (!value) return unexpected(file, functionName, 'no `prompt = f"..."`');
  const template = stringTemplateOf(file, value);
  const fields = templateFields(template).map((field) => field.expression);
  if (fields.some((field) => field !== "transcript" && field !== "response")) unexpected(file, functionName, `unexpected prompt fields ${fields.join(", ")}`);
  return template;
}

function userTemplates(file: PythonSourceFile) {
  const reset = method(file, "LLMUserSimulationEnv", "reset");
  const messages = selfAssignment(file, reset.body, "messages");
  const first = messages?.kind === "list" ? messages.items.find((item) => item.kind === "dict" && item.entries.some((entry) => isPair(entry, "role", "user"))) : undefined;
  const content = first?.kind === "dict" ? first.entries.find((entry) => entry.key.kind === "constant" && entry.key.value === "content")?.value : undefined;
  if (content?.kind !== "constant" || typeof content.value !== "string") return unexpected(file, "LLMUserSimulationEnv.reset", "no first user-role message");
  const verify = moduleFunction(file, "verify");
  const line = withFields(fStringsIn(file, verify.body), ["map_role_label(message['role'])", "message['content']"], file, "verify");
  return {
    userPrompt: { llm: userPrompt(file, "LLMUserSimulationEnv"), react: userPrompt(file, "ReactUserSimulationEnv") },
    userFirstMessage: content.value,
    verifyPrompt: promptOf(file, "verify"),
    reflectPrompt: promptOf(file, "reflect"),
    transcriptLine: line.template,
    transcriptSeparator: joinSeparator(file, line.index, "verify"),
    roleLabels: roleLabels(file),
  };
}

function isPair(entry: { key: PyExpr; value: PyExpr }, key: string, value: string): boolean {
  return entry.key.kind === "constant" && entry.key.value === key && entry.value.kind === "constant" && entry.value.value === value;
}

// ---------------------------------------------------------------------------------------------
// Builders
// ---------------------------------------------------------------------------------------------

/** `ChatReActAgent.prompt`: react (`useReasoning`) or act. `toolsInfo` is dumped as Python `json.dumps` does. */
export function tauChatReactSystemPrompt(templates: TauBenchPromptTemplates, wiki: string, toolsInfo: PyValue, useReasoning: boolean): string {
  const values: Record<string, string> = { wiki, tools: pyJsonDumps(toolsInfo), instruction: useReasoning ? templates.reactInstruction : templates.actInstruction };
  return fillTemplate(templates.chatReactPrompt, (field) => values[field.expression]);
}

/** `FewShotToolCallingAgent`'s system content for the sampled example displays (in sample order). */
export function tauFewShotSystemPrompt(templates: TauBenchPromptTemplates, wiki: string, displays: readonly string[]): string {
  const examples = displays
    .map((display, index) => {
      let field = 0;
      return fillTemplate(templates.fewShotExample, () => (field++ === 0 ? String(index + 1) : display));
    })
    .join(templates.fewShotSeparator);
  let field = 0;
  return fillTemplate(templates.fewShotSystem, () => (field++ === 0 ? wiki : examples));
}

/** A user simulator's system prompt (`verify` and `reflection` use the `llm` one). */
export function tauUserSystemPrompt(templates: TauBenchPromptTemplates, kind: "llm" | "react" | "verify" | "reflection", instruction: string | null): string {
  const prompt = templates.userPrompt[kind === "react" ? "react" : "llm"];
  const display = instruction === null ? "" : `${prompt.instructionPrefix}${instruction}${prompt.instructionSuffix}`;
  return fillTemplate(prompt.template, () => display);
}

/** `map_role_label`: the fixed labels, else Python's `role.capitalize()`. */
export function tauRoleLabel(templates: TauBenchPromptTemplates, role: string): string {
  return Object.hasOwn(templates.roleLabels, role) ? templates.roleLabels[role] : role.slice(0, 1).toUpperCase() + role.slice(1).toLowerCase();
}

/** The transcript `verify` / `reflect` show the supervisor (`None` for a missing content, as Python prints it). */
export function tauSupervisorTranscript(templates: TauBenchPromptTemplates, messages: readonly { role: string; content: string | null }[]): string {
  return messages
    .map((message) => {
      let field = 0;
      return fillTemplate(templates.transcriptLine, () => (field++ === 0 ? tauRoleLabel(templates, message.role) : (message.content ?? "None")));
    })
    .join(templates.transcriptSeparator);
}

/** The `verify()` or `reflect()` prompt. */
export function tauSupervisorPrompt(templates: TauBenchPromptTemplates, which: "verify" | "reflect", transcript: string, response: string): string {
  const values: Record<string, string> = { transcript, response };
  return fillTemplate(which === "verify" ? templates.verifyPrompt : templates.reflectPrompt, (field) => values[field.expression]);
}
