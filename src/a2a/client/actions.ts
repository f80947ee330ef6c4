/**
 * A remote agent's reply read as a turn: words for the user, or tool calls (several in one reply
 * are one turn), in every style agents are known to write (README, "Replies").
 *
 * Data parts are read first, then the text. The text is tried as a whole JSON value, then the
 * inside of each `<json>…</json>` tag, then each fenced code block, then the first balanced JSON
 * object found in prose (as Python's `raw_decode` would find it). These JSON forms are actions:
 *
 * - `{"name": "respond", "arguments": {"content": S}}` — S is said to the user;
 * - `{"name": T, "arguments": A}` (A may be a JSON string; `parameters` is accepted for `arguments`);
 * - `{"tool_call": {"name", "arguments", "id"?}}` and `{"tool_calls": [ … ]}`;
 * - OpenAI's `{"type": "function", "function": {"name", "arguments"}, "id"?}`;
 * - a JSON array of any of these.
 *
 * Text with no action is said to the user as it is. Nothing is invented: an empty reply is reported
 * as empty, and the caller decides what that means.
 */
import { isObject, type Plain, type PlainObject, stringField, tryParseJson } from "./json.ts";
import type { WirePart } from "./wire.ts";

/** The name of the pseudo-tool an agent calls to speak to the user. */
export const RESPOND_TOOL = "respond";

/** One tool call as the agent wrote it. */
export interface ParsedCall {
  id: string | null;
  name: string;
  /** An object, a JSON string still to be read, or undefined (no arguments). */
  arguments: Plain | undefined;
}

/** How the action was found (kept in the protocol log; useful when an agent's style drifts). */
export type ReplyStyle = "data" | "json" | "json-tag" | "fence" | "embedded" | "text" | "empty";

export interface ParsedReply {
  /** Words for the user (a `respond`, or text with no action); null when there are none. */
  content: string | null;
  calls: ParsedCall[];
  style: ReplyStyle;
  /** The reply's text parts joined (what the agent wrote, for the transcript and estimates). */
  text: string;
}

function callArguments(object: PlainObject): Plain | undefined {
  return object.arguments ?? object.parameters ?? object.args;
}

/** The calls one JSON value describes, or null when it is not an action. */
function callsOf(value: Plain | undefined): ParsedCall[] | null {
  if (Array.isArray(value)) {
    if (value.length === 0) return null;
    const calls: ParsedCall[] = [];
    for (const item of value) {
      const found = callsOf(item);
      if (found === null) return null;
      calls.push(...found);
    }
    return calls;
  }
  if (!isObject(value)) return null;
  if (isObject(value.tool_call)) return callsOf(value.tool_call);
  if (Array.isArray(value.tool_calls)) return callsOf(value.tool_calls);
  if (isObject(value.function)) {
    const inner = value.function;
    const name = stringField(inner, "name");
    return name ? [{ id: stringField(value, "id") ?? null, name, arguments: callArguments(inner) }] : null;
  }
  const name = stringField(value, "name");
  if (!name) return null;
  const keys = Object.keys(value);
  // `{"name": "Ann"}` in prose is not an action: an action names a tool and (usually) its arguments.
  if (!keys.some((key) => key === "arguments" || key === "parameters" || key === "args") && keys.some((key) => key !== "name" && key !== "id" && key !== "type")) return null;
  return [{ id: stringField(value, "id") ?? null, name, arguments: callArguments(value) }];
}

/** The index just past the JSON object or array starting at `start` (strings and escapes respected), or -1. */
function balancedEnd(text: string, start: number): number {
  const open = text[start];
  const close = open === "{" ? "}" : "]";
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === open) depth++;
    else if (char === close && --depth === 0) return index + 1;
  }
  return -1;
}

function fromTagged(text: string, pattern: RegExp): ParsedCall[] | null {
  const calls: ParsedCall[] = [];
  for (const match of text.matchAll(pattern)) {
    const found = callsOf(tryParseJson(match[1].trim()));
    if (found) calls.push(...found);
  }
  return calls.length > 0 ? calls : null;
}

function embedded(text: string): ParsedCall[] | null {
  for (let index = text.indexOf("{"); index >= 0; index = text.indexOf("{", index + 1)) {
    const end = balancedEnd(text, index);
    if (end < 0) continue;
    const found = callsOf(tryParseJson(text.slice(index, end)));
    if (found) return found;
  }
  return null;
}

/** The calls in a reply's text, and how they were written. */
function textCalls(text: string): { calls: ParsedCall[]; style: ReplyStyle } | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    const whole = callsOf(tryParseJson(trimmed));
    if (whole) return { calls: whole, style: "json" };
  }
  const tagged = fromTagged(text, /<json>([\s\S]*?)<\/json>/gi);
  if (tagged) return { calls: tagged, style: "json-tag" };
  const fenced = fromTagged(text, /```[a-zA-Z]*\s*\n?([\s\S]*?)```/g);
  if (fenced) return { calls: fenced, style: "fence" };
  const found = embedded(text);
  return found ? { calls: found, style: "embedded" } : null;
}

/** The text of a `respond`'s `content` argument (arguments given as a JSON string are read first). */
function respondContent(call: ParsedCall): string {
  let args = call.arguments;
  if (typeof args === "string") args = tryParseJson(args) ?? { content: args };
  const content = isObject(args) ? args.content : undefined;
  if (typeof content === "string") return content;
  return content === undefined || content === null ? "" : String(content);
}

/**
 * Reads a reply's parts as a turn. `respond` calls become the words for the user; the other calls
 * are tool calls. When a reply has both, the tool calls are the turn and the words ride along (a
 * τ² message may carry both; τ-bench steps the calls).
 */
export function parseReply(parts: readonly WirePart[]): ParsedReply {
  const text = parts
    .filter((part): part is Extract<WirePart, { kind: "text" }> => part.kind === "text")
    .map((part) => part.text)
    .join("\n");
  let found: { calls: ParsedCall[]; style: ReplyStyle } | null = null;
  const dataCalls: ParsedCall[] = [];
  for (const part of parts) if (part.kind === "data") dataCalls.push(...(callsOf(part.data) ?? []));
  if (dataCalls.length > 0) found = { calls: dataCalls, style: "data" };
  found ??= textCalls(text);
  if (!found) {
    const hasData = parts.some((part) => part.kind === "data");
    if (text.trim() === "") return { content: null, calls: [], style: hasData ? "data" : "empty", text };
    return { content: text, calls: [], style: "text", text };
  }
  const responds = found.calls.filter((call) => call.name === RESPOND_TOOL);
  const tools = found.calls.filter((call) => call.name !== RESPOND_TOOL);
  const words = responds.length > 0 ? responds.map(respondContent).join("\n") : null;
  return { content: words, calls: tools, style: found.style, text };
}
