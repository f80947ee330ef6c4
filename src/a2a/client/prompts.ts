/**
 * What the client says to a remote agent, per profile (`--agent-option profile=…`). Whatever the
 * profile, the reply parser (`actions.ts`) accepts every style.
 *
 * - `agentbeats` (default): one text with the policy, the tools as OpenAI function schemas, a
 *   `respond` pseudo-tool, the output rules and the first user message, separated by the marker
 *   lines AgentBeats' τ² green agents write (and baseline purple agents split on), so those agents
 *   work unchanged. The four marker lines are protocol, kept verbatim; the rest is our wording.
 * - `agentbeats-tutorial`: the AgentBeats tutorial's older marker family (`Please respond in JSON
 *   format.` with `<json>` tags, the user's words after `Now here is the user message:`).
 * - `agentify`: the older `<json>…</json>` family (τ²'s agentify experiment): answers wrapped in
 *   `<json>` tags, the first user message after `User message:`.
 * - `wutims`: the A2A proposal's style: the tools as an `<available_tools>` list on every user
 *   message, calls written `{"tool_call": {…}}`; the policy comes first (the proposal left it out).
 *
 * Later turns carry the user's words verbatim, or one `Tool '<name>' result: <content>` line per
 * result, in call order (`wutims`: `Tool result (id=<id>): <content>`).
 */
import type { DomainView, HistoryEntry, Incoming } from "../../core/contracts.ts";
import { RESPOND_TOOL } from "./actions.ts";

export const PROFILES = ["agentbeats", "agentbeats-tutorial", "agentify", "wutims"] as const;
export type Profile = (typeof PROFILES)[number];

/** The marker lines AgentBeats τ² purple agents look for (verbatim: they are parsed, not read). */
export const AGENTBEATS_MARKERS = {
  tools: "Here's a list of tools you can use (you can use at most one tool at a time):",
  respond: "Additionally, you can respond with the following call:",
  format: "Please respond in JSON format.",
  messages: "Now here are the user messages:",
  /** The tutorial family's user-message marker (singular). */
  message: "Now here is the user message:",
} as const;

/** The respond pseudo-tool, as a function schema. */
export const RESPOND_SCHEMA = {
  type: "function",
  function: {
    name: RESPOND_TOOL,
    description: "Send a message to the user. Use it for every reply that is not a tool call.",
    parameters: { type: "object", properties: { content: { type: "string", description: "The message for the user." } }, required: ["content"] },
  },
} as const;

interface ToolSchema {
  function?: { name?: string; description?: string; parameters?: { properties?: Record<string, { type?: unknown; description?: string }>; required?: string[] } };
}

function schemas(domain: DomainView): readonly ToolSchema[] {
  return domain.toolSchemas.json as unknown as readonly ToolSchema[];
}

/** An example call of the domain's first tool, with placeholder values for its required parameters. */
function exampleCall(domain: DomainView): string {
  const tool = schemas(domain)[0]?.function;
  if (!tool?.name) return `{"name": "${RESPOND_TOOL}", "arguments": {"content": "Could you give me your user id?"}}`;
  const args = Object.fromEntries((tool.parameters?.required ?? []).map((name) => [name, `<${name}>`]));
  return JSON.stringify({ name: tool.name, arguments: args });
}

/** The conversation before this turn, when there is more than the agent's greeting (τ² tasks that start mid-conversation). */
function historyLines(history: readonly HistoryEntry[]): string[] {
  const onlyGreeting = history.every((entry) => entry.role === "assistant" && !entry.toolCalls?.length);
  if (onlyGreeting) return [];
  return history.map((entry) => {
    if (entry.role === "tool") return `tool: ${entry.content ?? ""}`;
    const calls = entry.toolCalls?.length ? ` ${JSON.stringify(entry.toolCalls.map((call) => ({ name: call.name, id: call.id })))}` : "";
    return `${entry.role}: ${entry.content ?? ""}${calls}`;
  });
}

/** Tool results, one line per result in call order. */
function toolResultLines(incoming: Extract<Incoming, { type: "tool_results" }>, profile: Profile): string {
  if (profile === "wutims") return incoming.results.map((result) => `Tool result (id=${result.id}): ${result.content}`).join("\n");
  return incoming.results.map((result) => `Tool '${result.name}' result: ${result.content}`).join("\n");
}

/** A compact tool list for the `wutims` profile: `- name(param: type, …): description`. */
function availableTools(domain: DomainView): string {
  const lines = schemas(domain).map((schema) => {
    const tool = schema.function ?? {};
    const params = Object.entries(tool.parameters?.properties ?? {}).map(([name, spec]) => `${name}: ${typeof spec.type === "string" ? spec.type : "any"}`);
    return `- ${tool.name}(${params.join(", ")}): ${(tool.description ?? "").split("\n")[0]}`;
  });
  return `<available_tools>\n${lines.join("\n")}\n</available_tools>\nTo use a tool, reply with {"tool_call": {"name": "<tool>", "arguments": {…}}} and nothing else (several calls: {"tool_calls": [{"tool_call": …}, …]}); otherwise reply with plain text for the user.`;
}

function incomingText(incoming: Incoming | null, profile: Profile): string {
  if (incoming === null) return "";
  if (incoming.type === "text") return incoming.content ?? "";
  return toolResultLines(incoming, profile);
}

/** The first message of a conversation: everything the agent needs, then what the user said. */
export function firstMessage(profile: Profile, domain: DomainView, history: readonly HistoryEntry[], incoming: Incoming | null): string {
  const toolsJson = JSON.stringify(domain.toolSchemas.json, null, 2);
  const said = [...historyLines(history), incomingText(incoming, profile)].filter((line) => line !== "").join("\n");
  if (profile === "agentify") {
    return [
      domain.policy,
      `${AGENTBEATS_MARKERS.tools}\n${toolsJson}`,
      `Answer with one JSON object wrapped in <json></json> tags, naming a tool and its arguments: <json>{"name": "<tool name>", "arguments": {…}}</json>. To send a message to the user, use "${RESPOND_TOOL}": <json>{"name": "${RESPOND_TOOL}", "arguments": {"content": "<your message>"}}</json>. Call one tool at a time.`,
      `User message: ${said}`,
    ].join("\n\n");
  }
  if (profile === "wutims") return [domain.policy, said, availableTools(domain)].join("\n\n");
  const rules = (tagged: boolean) =>
    [
      tagged ? `${AGENTBEATS_MARKERS.format} Wrap the JSON with <json>...</json> tags.` : AGENTBEATS_MARKERS.format,
      `Reply with exactly one JSON object, {"name": <tool or "${RESPOND_TOOL}">, "arguments": {…}}${tagged ? "" : ", and nothing else"}.`,
      `Use "${RESPOND_TOOL}" to talk to the user; do not call a tool and talk to the user in the same reply.`,
      "Examples:",
      tagged ? `<json>${exampleCall(domain)}</json>` : exampleCall(domain),
      tagged
        ? `<json>{"name": "${RESPOND_TOOL}", "arguments": {"content": "Thank you, one moment please."}}</json>`
        : `{"name": "${RESPOND_TOOL}", "arguments": {"content": "Thank you, one moment please."}}`,
    ].join("\n");
  if (profile === "agentbeats-tutorial") return [domain.policy, `${AGENTBEATS_MARKERS.tools}\n${toolsJson}`, rules(true), `${AGENTBEATS_MARKERS.message}\n${said}`].join("\n\n");
  return [
    domain.policy,
    `${AGENTBEATS_MARKERS.tools}\n${toolsJson}`,
    `${AGENTBEATS_MARKERS.respond}\n${JSON.stringify(RESPOND_SCHEMA, null, 2)}`,
    rules(false),
    `${AGENTBEATS_MARKERS.messages}\n${said}`,
  ].join("\n\n");
}

/** A later message: the user's words, or the tool results (`wutims` repeats the tool list). */
export function laterMessage(profile: Profile, domain: DomainView, incoming: Incoming): string {
  const text = incomingText(incoming, profile);
  return profile === "wutims" ? `${text}\n\n${availableTools(domain)}` : text;
}
