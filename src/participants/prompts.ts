/**
 * Prompt templates of the model-driven agents, and the small template language shared with the
 * user simulators (`src/suites/tau-bench/participants/user-prompts.ts`).
 *
 * The texts are taubridge's own wording. They keep the *structure* of τ-bench's prompts (in
 * tau_bench/agents/: the system messages of `ToolCallingAgent.solve`,
 * `FewShotToolCallingAgent.solve` and `ChatReActAgent.__init__`), because the parsers and the
 * comparability of scores depend on that structure, not on the words: the tool-calling system
 * prompt is the policy alone; few-shot appends `Example i:` blocks; act / react append
 * `#Available tools`, Python `json.dumps(tools_info)` and an instruction block with the
 * `Thought:` / `Action:` format the parser reads.
 *
 * Template syntax (for `--agent-prompt-file` / `--user-prompt-file`): `{{name}}` (spaces inside the
 * braces are allowed) is replaced by the value of `name`; every other character is literal. An
 * unknown name is a {@link ConfigError} raised before the first episode, so a typo never reaches a
 * model. Substitution is a single pass: a value that itself contains `{{…}}` is not expanded again.
 */
import { readUtf8File } from "../data/data-files.ts";
import { ConfigError } from "../errors/error-tree.ts";
import { RESPOND_ACTION_FIELD_NAME, RESPOND_ACTION_NAME } from "../core/types.ts";

/** Matches one placeholder; group 1 is its name. */
export const PLACEHOLDER_PATTERN = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The placeholder names a template uses, in order of first appearance. */
export function templatePlaceholders(template: string): string[] {
  const names: string[] = [];
  for (const match of template.matchAll(PLACEHOLDER_PATTERN)) if (!names.includes(match[1])) names.push(match[1]);
  return names;
}

/**
 * Checks that a template only uses the given placeholder names. Throws a one-line ConfigError that
 * names the source and lists the allowed names, so a user template fails at start-up, not mid-run.
 */
export function checkTemplate(template: string, allowed: readonly string[], source: string): void {
  const unknown = templatePlaceholders(template).filter((name) => !allowed.includes(name));
  if (unknown.length > 0) {
    throw new ConfigError(
      `${source}: unknown placeholder${unknown.length > 1 ? "s" : ""} ${unknown.map((name) => `{{${name}}}`).join(", ")}; ` + `available here: ${allowed.map((name) => `{{${name}}}`).join(", ")}`,
    );
  }
}

/** Fills a template in one pass. Unknown names throw (call {@link checkTemplate} first for a nicer message). */
export function renderTemplate(template: string, values: Readonly<Record<string, string>>, source = "prompt template"): string {
  return template.replace(PLACEHOLDER_PATTERN, (_whole, name: string) => {
    if (!Object.hasOwn(values, name)) throw new ConfigError(`${source}: unknown placeholder {{${name}}}`);
    return values[name];
  });
}

/** Reads a user-supplied template file (UTF-8, used verbatim) and validates its placeholders. */
export function loadTemplateFile(path: string, allowed: readonly string[], what: string): string {
  let text: string;
  try {
    text = readUtf8File(path, what);
  } catch (error) {
    throw new ConfigError((error as Error).message, { cause: error });
  }
  checkTemplate(text, allowed, `${what} ${path}`);
  return text;
}

// ---------------------------------------------------------------------------------------------
// Agent placeholders and default templates
// ---------------------------------------------------------------------------------------------

/** Which agent family a template is for; decides which placeholders exist. */
export type AgentPromptKind = "tool-calling" | "few-shot" | "act" | "react";

/**
 * Agent template placeholders:
 * - `{{policy}}`: the domain policy (τ-bench's `wiki.md`);
 * - `{{tools_json}}`: Python `json.dumps(tools_info)` (`, ` / `: ` separators, ASCII-escaped);
 * - `{{tool_names}}`: the tool names, comma-separated;
 * - `{{respond_action_name}}`: `respond`;
 * - `{{few_shot_examples}}` (few-shot only): the sampled examples, `Example i:` + display, blank-line separated;
 * - `{{action_format}}` (act / react only): taubridge's instruction block describing the exact
 *   `Thought:` / `Action:` output format the parser reads (starts with a newline).
 */
export const AGENT_PLACEHOLDERS: Readonly<Record<AgentPromptKind, readonly string[]>> = {
  "tool-calling": ["policy", "tools_json", "tool_names", "respond_action_name"],
  "few-shot": ["policy", "tools_json", "tool_names", "respond_action_name", "few_shot_examples"],
  act: ["policy", "tools_json", "tool_names", "respond_action_name", "action_format"],
  react: ["policy", "tools_json", "tool_names", "respond_action_name", "action_format"],
};

/** The tool-calling system prompt is the policy alone (τ-bench: `{"role": "system", "content": wiki}`). */
export const TOOL_CALLING_TEMPLATE = "{{policy}}";

/**
 * Few-shot: the policy, a blank line, then the examples (τ-bench: tau_bench/agents/few_shot_agent.py,
 * FewShotToolCallingAgent.solve).
 */
export const FEW_SHOT_TEMPLATE = "{{policy}}\n\n{{few_shot_examples}}";

/**
 * Act / react: policy, `#Available tools`, the Python JSON of the tools, then the instruction block
 * (τ-bench: tau_bench/agents/chat_react_agent.py, ChatReActAgent.__init__).
 */
export const CHAT_REACT_TEMPLATE = "{{policy}}\n#Available tools\n{{tools_json}}{{action_format}}";

/** The default template of each agent family. */
export const DEFAULT_AGENT_TEMPLATES: Readonly<Record<AgentPromptKind, string>> = {
  "tool-calling": TOOL_CALLING_TEMPLATE,
  "few-shot": FEW_SHOT_TEMPLATE,
  act: CHAT_REACT_TEMPLATE,
  react: CHAT_REACT_TEMPLATE,
};

// The worked example's tool schema (our own wording; same role as the original's weather tool).
const WEATHER_TOOL_SCHEMA = `{
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Look up the weather right now at a place",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {
                    "type": "string",
                    "description": "City and state, for example Boston, MA"
                },
                "format": {
                    "type": "string",
                    "enum": ["celsius", "fahrenheit"],
                    "description": "Temperature unit; pick the one used where the user lives"
                }
            },
            "required": ["location", "format"]
        }
    }
}`;

const EXAMPLE_CALL = `{"name": "get_current_weather", "arguments": {"location": "Boston, MA", "format": "fahrenheit"}}`;
// Reproduced on purpose (τ-bench: tau_bench/agents/chat_react_agent.py, REACT_INSTRUCTION /
// ACT_INSTRUCTION): the respond name is written without quotes, so this example
// Action is not valid JSON, exactly like the original's example.
const EXAMPLE_RESPOND = `{"name": ${RESPOND_ACTION_NAME}, "arguments": {"${RESPOND_ACTION_FIELD_NAME}": "Right now it is 70F in Boston."}}`;

/** The react instruction block (`{{action_format}}` for react): one `Thought:` line, then `Action:` + JSON. */
export const REACT_ACTION_FORMAT = `
# Instruction
Use the tools above to help the user, always within the policy above.

Every reply you write must have exactly this shape:
Thought:
<one line of reasoning about the conversation so far and what to do next; no further lines>
Action:
{"name": <the name of the action>, "arguments": <the arguments of the action, as a JSON object>}

The Action is read by a JSON parser, so it has to be valid JSON.

Never use invented or placeholder values as arguments.

For instance, suppose the user asks "What's the weather in Boston right now?" and one of the tools is:
${WEATHER_TOOL_SCHEMA}

Then a good reply is:
Thought:
The user is asking about Boston in the USA, so I will look up the current weather there in fahrenheit.
Action:
${EXAMPLE_CALL}

And once the tool has returned "70F", a good reply is:
Thought:
I have what I need to answer the user.
Action:
${EXAMPLE_RESPOND}

Be helpful, and follow the policy at all times.
`;

/** The act instruction block (`{{action_format}}` for act): only `Action:` + JSON, the schema in a json fence. */
export const ACT_ACTION_FORMAT = `
# Instruction
Use the tools above to help the user, always within the policy above.

Every reply you write must have exactly this shape:

Action:
{"name": <the name of the action>, "arguments": <the arguments of the action, as a JSON object>}

Never use invented or placeholder values as arguments.

The Action is read by a JSON parser, so it has to be valid JSON.

For instance, suppose the user asks "What's the weather in Boston right now?" and one of the tools is:
\`\`\`json
${WEATHER_TOOL_SCHEMA}
\`\`\`

Then a good reply is:
Action:
${EXAMPLE_CALL}

And once the tool has returned "70F", a good reply is:
Action:
${EXAMPLE_RESPOND}

Be helpful, and follow the policy at all times.
Always write valid JSON in the Action.
`;

/** Values available to agent templates for one domain (few-shot examples are added per episode). */
export interface AgentPromptValues {
  policy: string;
  tools_json: string;
  tool_names: string;
  respond_action_name: string;
  few_shot_examples?: string;
  action_format?: string;
}

/**
 * Resolves the agent's template: the user's `--agent-prompt-file` when given (validated against the
 * strategy's placeholders), otherwise the strategy's default.
 */
export function agentTemplate(kind: AgentPromptKind, promptFile: string | undefined): string {
  if (!promptFile) return DEFAULT_AGENT_TEMPLATES[kind];
  return loadTemplateFile(promptFile, AGENT_PLACEHOLDERS[kind], `agent prompt file (--agent-strategy ${kind})`);
}

/** Formats sampled few-shot displays as τ-bench does: `Example {i}:` (1-based), newline, display; blank-line separated. */
export function formatFewShotExamples(displays: readonly string[]): string {
  return displays.map((display, index) => `Example ${index + 1}:\n${display}`).join("\n\n");
}
