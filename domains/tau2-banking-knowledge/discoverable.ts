/**
 * τ³'s discoverable tools as the agent and user reach them (`tools.py`:
 * `parse_discoverable_tool_docstring`, `format_discoverable_tool_for_agent`): the description and
 * parameters shown by unlock/give are parsed at run time from each method's docstring in the pinned
 * sources, with the original's regexes run by Python's `re` (src/value).
 */
import { PY_RE_IGNORECASE, PY_RE_MULTILINE, pyReCompile, pyStrip } from "../../src/value/index.ts";
import { bankText } from "./messages.ts";

/** One parsed parameter: `param_name (type[, optional]): description`. */
export interface DiscoverableParameter {
  name: string;
  type: string;
  description: string;
  required: boolean;
}

/** `parse_discoverable_tool_docstring(func)` without the unused success message. */
export interface DiscoverableToolInfo {
  name: string;
  description: string;
  parameters: DiscoverableParameter[];
}

/** The first match of a pattern: where it starts and ends, or undefined. */
function firstMatch(pattern: string, text: string): { start: number; end: number } | undefined {
  const regExp = new RegExp(pyReCompile(pattern).regExp.source, "u");
  const match = regExp.exec(text);
  return match ? { start: match.index, end: match.index + match[0].length } : undefined;
}

/** `re.split(pattern, text, maxsplit=1)`. */
function splitOnce(pattern: string, text: string): string[] {
  const match = firstMatch(pattern, text);
  return match ? [text.slice(0, match.start), text.slice(match.end)] : [text];
}

/** Parses a discoverable method's docstring (`inspect.getdoc`) as the original does. */
export function parseDiscoverableDocstring(name: string, docstring: string): DiscoverableToolInfo {
  const parts = splitOnce("\\n\\s*Args:\\s*\\n", docstring);
  const parameters: DiscoverableParameter[] = [];
  if (parts.length > 1) {
    const argsSection = splitOnce("\\n\\s*Returns:\\s*\\n", parts[1])[0];
    const argPattern = pyReCompile("^\\s*(\\w+)\\s*(?:\\(([^)]+)\\))?\\s*:\\s*(.+?)$", PY_RE_MULTILINE).regExp;
    const optional = pyReCompile(",?\\s*optional", PY_RE_IGNORECASE).regExp;
    argPattern.lastIndex = 0;
    for (let match = argPattern.exec(argsSection); match; match = argPattern.exec(argsSection)) {
      const typeInfo = match[2] || "string";
      const type = pyStrip(typeInfo.replace(optional, "")) || "string";
      const existing = parameters.findIndex((parameter) => parameter.name === match![1]);
      const parameter = { name: match[1], type, description: pyStrip(match[3]), required: !typeInfo.toLowerCase().includes("optional") };
      if (existing >= 0) parameters[existing] = parameter;
      else parameters.push(parameter);
      if (match[0] === "") argPattern.lastIndex++;
    }
  }
  return { name, description: pyStrip(parts[0]), parameters };
}

/** `format_discoverable_tool_for_agent(tool_info)`. */
export function formatDiscoverableTool(info: DiscoverableToolInfo): string {
  const say = (at: number, ...values: string[]) => bankText.say("format_discoverable_tool_for_agent", at, ...values);
  const lines = info.parameters.map((parameter) => say(8, parameter.name, parameter.type, say(parameter.required ? 6 : 7), parameter.description));
  const section = lines.length > 0 ? lines.join(say(9)) : say(10);
  return say(11, info.name, info.description, section);
}

/** The parsed info of a discoverable method of `className` (its docstring read from the pinned `tools.py`). */
export function discoverableInfo(className: string, name: string): DiscoverableToolInfo {
  return parseDiscoverableDocstring(name, bankText.docstring(`${className}.${name}`));
}
