/**
 * Model answers for the golden scenarios: stateless responders for the scripted model server, so
 * each answer depends only on the request (which task it is about, how far the conversation has
 * come) and never on timing or the order of concurrent requests. Agents replay the task's
 * ground truth in their strategy's own output format; users say the instruction, then stop.
 */
import { readFileSync } from "node:fs";
import type { Responder, ScriptStep, ScriptedRequest } from "../../src/testing/index.ts";
import { parsePythonJson, pyJsonDumps, pyJsonString, type PyDict, type PyValue } from "../../src/value/index.ts";

type Json = Record<string, unknown>;

/** A task as the responders need it: its words and its ground-truth calls (arguments as Python JSON text). */
export interface PlanTask {
  /** Text that identifies the task in a request (its instruction). */
  instruction: string;
  calls: Array<{ name: string; arguments: string }>;
  /** What the agent says when its calls are done. */
  closing: string;
}

function textOf(message: Json | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof (part as Json)?.text === "string" ? ((part as Json).text as string) : "")).join("");
  return "";
}

/** τ-bench tasks of a task file (lossless, so float arguments keep their spelling). */
export function tauBenchPlanTasks(taskFile: string): PlanTask[] {
  const tasks = parsePythonJson(readFileSync(taskFile, "utf8")) as PyDict[];
  return tasks.map((task) => {
    const actions = (task.get("actions") as PyDict[]).filter((action) => action.get("name") !== "respond");
    const outputs = (task.get("outputs") as PyValue[]).map(String);
    return {
      instruction: String(task.get("instruction")),
      calls: actions.map((action) => ({ name: String(action.get("name")), arguments: pyJsonDumps(action.get("kwargs") as PyDict) })),
      closing: outputs.length > 0 ? `Here is what you asked for: ${outputs.join("; ")}` : "Your request has been handled.",
    };
  });
}

function findTask(tasks: readonly PlanTask[], text: string): PlanTask | undefined {
  return tasks.find((task) => text.includes(task.instruction));
}

/** The agent's output format (τ-bench's strategies). */
export type AgentStyle = "tool-calling" | "act" | "react";

function actionText(style: AgentStyle, name: string, args: string): string {
  const action = `{"name": ${pyJsonString(name)}, "arguments": ${args}}`;
  return style === "act" ? `Action:\n${action}` : `Thought:\nNext: ${name}.\nAction:\n${action}`;
}

/**
 * A τ-bench agent that replays the ground truth: it finds the task from the conversation, counts
 * the tool results it has seen and sends the next call (a tool call, or an `Action:` for act/react),
 * then its closing words.
 */
export function tauAgentResponder(tasks: readonly PlanTask[], style: AgentStyle) {
  return (request: ScriptedRequest): ScriptStep => {
    const conversation = request.messages.map(textOf).join("\n");
    const task = findTask(tasks, conversation);
    if (!task) return { content: style === "tool-calling" ? "Which task is this?" : actionText(style, "respond", '{"content": "Which task is this?"}') };
    const seen =
      style === "tool-calling"
        ? request.messages.filter((message) => message.role === "tool").length
        : request.messages.filter((message) => message.role === "user" && textOf(message).startsWith("API output: ")).length;
    const call = task.calls[seen];
    if (style === "tool-calling") return call ? { tool_calls: [{ id: `call_${seen}`, name: call.name, arguments: call.arguments }] } : { content: task.closing };
    if (call) return { content: actionText(style, call.name, call.arguments) };
    return { content: actionText(style, "respond", `{"content": ${pyJsonString(task.closing)}}`) };
  };
}

/** The user simulators' answers: the instruction first (react: in its Thought/User Response form), then the stop token; supervisors agree (reflection: they reject the first reply once). */
export function tauUserResponder(tasks: readonly PlanTask[], style: "llm" | "react" | "verify" | "reflection") {
  return (request: ScriptedRequest): ScriptStep => {
    const system = textOf(request.messages.find((message) => message.role === "system"));
    const only = request.messages.length === 1 ? textOf(request.messages[0]) : "";
    if (only.includes("Classification:") || /classif/i.test(only.slice(-200)))
      return { content: style === "reflection" && !only.includes("###STOP###") && !only.includes("(again)") ? "false" : "true" };
    if (only.includes("Reflection:") || /reflect/i.test(only.slice(-400))) {
      const task = findTask(tasks, only);
      return { content: `Reflection:\nSay it again.\nResponse:\n${task ? `${task.instruction} (again)` : "###STOP###"}` };
    }
    const last = request.messages.at(-1);
    if (last?.role === "user" && textOf(last).endsWith("(again)")) return { content: textOf(last) };
    const task = findTask(tasks, system);
    const replies = request.messages.filter((message) => message.role === "assistant").length;
    const said = replies === 0 ? (task?.instruction ?? "I need help.") : "###STOP###";
    return { content: style === "react" ? `Thought:\nI say what I need.\nUser Response:\n${said}` : said };
  };
}

/** τ²-bench tasks as the responders see them: the user's instructions and the assistant's ground truth. */
export function tau2PlanTasks(taskFile: string): Array<PlanTask & { id: string; ticket: string | null; assertions: string[] }> {
  const tasks = parsePythonJson(readFileSync(taskFile, "utf8")) as PyDict[];
  return tasks.map((task) => {
    const scenario = task.get("user_scenario") as PyDict;
    const instructions = scenario.get("instructions");
    const words = typeof instructions === "string" ? instructions : String((instructions as PyDict).get("task_instructions"));
    const criteria = task.get("evaluation_criteria") as PyDict | null;
    const actions = ((criteria?.get("actions") as PyDict[] | null) ?? []).filter((action) => action.get("requestor") !== "user");
    const assertions = ((criteria?.get("nl_assertions") as PyValue[] | null) ?? []).map(String);
    const communicate = ((criteria?.get("communicate_info") as PyValue[] | null) ?? []).map(String);
    return {
      id: String(task.get("id")),
      ticket: typeof task.get("ticket") === "string" ? (task.get("ticket") as string) : null,
      instruction: words,
      calls: actions.map((action) => ({ name: String(action.get("name")), arguments: pyJsonDumps(action.get("arguments") as PyDict) })),
      closing: communicate.length > 0 ? `Done. ${communicate.join("; ")}` : "Done, your request has been handled.",
      assertions,
    };
  });
}

/** τ²'s agents (llm_agent, llm_agent_gt, the tool-calling strategy): the ground truth after the user's first words; solo agents find the task by its ticket and end with `done`. */
export function tau2AgentResponder(tasks: ReturnType<typeof tau2PlanTasks>) {
  return (request: ScriptedRequest): ScriptStep => {
    const conversation = request.messages.map(textOf).join("\n");
    const task = tasks.find((candidate) => conversation.includes(candidate.instruction) || (candidate.ticket !== null && conversation.includes(candidate.ticket)));
    if (!task) return { content: "Could you tell me more?" };
    const seen = request.messages.filter((message) => message.role === "tool").length;
    const call = task.calls[seen];
    if (call) return { tool_calls: [{ id: `call_${seen}`, name: call.name, arguments: call.arguments }] };
    const solo = (request.tools as Json[]).some((tool) => (tool.function as Json | undefined)?.name === "done");
    return solo ? { tool_calls: [{ id: `call_${seen}`, name: "done", arguments: "{}" }] } : { content: task.closing };
  };
}

/** τ²'s user simulator: the instructions first, then the stop token once the agent has answered. */
export function tau2UserResponder(tasks: ReturnType<typeof tau2PlanTasks>) {
  return (request: ScriptedRequest): ScriptStep => {
    const system = textOf(request.messages.find((message) => message.role === "system"));
    const task = tasks.find((candidate) => system.includes(candidate.instruction));
    const own = request.messages.filter((message) => message.role === "assistant").length;
    return { content: own === 0 ? (task?.instruction ?? "I need help.") : "Thank you. ###STOP###" };
  };
}

/** τ²'s NL-assertion judge: every assertion of the task the request is about is met. */
export function tau2JudgeResponder(tasks: ReturnType<typeof tau2PlanTasks>) {
  return (request: ScriptedRequest): ScriptStep => {
    const text = request.messages.map(textOf).join("\n");
    const task = tasks.find((candidate) => candidate.assertions.length > 0 && candidate.assertions.every((assertion) => text.includes(assertion)));
    const assertions = task?.assertions ?? [];
    return { content: JSON.stringify({ results: assertions.map((assertion) => ({ expectedOutcome: assertion, reasoning: "scripted judge", metExpectation: true })) }) };
  };
}

/** Routes requests by model name: `agent-model`, `user-model`, `judge-model` (anything else is the agent's: frameworks name their own model). */
export function byModel(parts: { agent?: Responder; user?: Responder; judge?: Responder }): Responder {
  return (request: ScriptedRequest) => {
    const responder = request.model === "user-model" ? parts.user : request.model === "judge-model" ? parts.judge : parts.agent;
    if (!responder) return { content: `no scripted answer for model ${request.model}` } satisfies ScriptStep;
    return responder(request);
  };
}
