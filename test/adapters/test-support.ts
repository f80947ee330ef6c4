/**
 * Shared pieces of the adapter test suites (not shipped behaviour): a retail "ground-truth"
 * responder for the scripted model server, a counting fake backend the example agents' own tools
 * would call, and helpers to run episodes through the real runner layers.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { RESPOND_ACTION_NAME, type Action, type Task } from "../../src/core/types.ts";
import type { ScriptStep, ScriptedRequest, Responder } from "../../src/testing/index.ts";
import { pyJsonDumps } from "../../src/value/index.ts";

/** A fake retail backend that counts every request; the bridged example tools must never reach it. */
export interface CountingBackend {
  url: string;
  readonly hits: string[];
  close(): Promise<void>;
}

export async function startCountingBackend(): Promise<CountingBackend> {
  const hits: string[] = [];
  const server: Server = createServer((request, response) => {
    hits.push(request.url ?? "");
    response.writeHead(200, { "content-type": "text/plain" });
    response.end("real backend answered");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/api`,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The text of a chat message (string content or text parts). */
export function textOf(message: Record<string, unknown> | undefined): string {
  if (!message) return "";
  const content = message.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : "")).join("");
  return "";
}

/** A plan the scripted model follows for one task: tool calls (in order), then a final answer. */
export interface TaskScript {
  /** A substring of the first user message that identifies the task (its instruction). */
  instruction: string;
  calls: Array<{ name: string; arguments: string | Record<string, unknown>; id?: string }>;
  finalText: string;
  /** Prefix for tool-call ids (distinct per task so concurrent episodes are distinguishable). */
  idPrefix: string;
}

/** The ground-truth plan of a τ-bench task: its non-respond actions, then its outputs said out loud. */
export function groundTruthScript(task: Task, idPrefix: string, transform?: (action: Action, index: number) => Action | null): TaskScript {
  const calls: TaskScript["calls"] = [];
  task.actions
    .filter((action) => action.name !== RESPOND_ACTION_NAME)
    .forEach((action, index) => {
      const changed = transform ? transform(action, index) : action;
      if (changed) calls.push({ name: changed.name, arguments: pyJsonDumps(changed.kwargs) });
    });
  const finalText = task.outputs.length > 0 ? `Here is what you asked for: ${task.outputs.join("; ")}` : "Your request has been handled. Is there anything else?";
  return { instruction: task.instruction, calls, finalText, idPrefix };
}

/**
 * A stateless responder: it finds the task from the first user message, counts the tool results
 * already in the request and answers with the next planned tool call, or the final text once all
 * calls have results. Stateless on purpose: concurrent episodes and framework retries cannot
 * confuse it, and each answer depends only on what the framework actually sent.
 */
export function planResponder(scripts: readonly TaskScript[], options: { onRequest?: (request: ScriptedRequest, script: TaskScript | undefined) => void } = {}): Responder {
  return (request: ScriptedRequest): ScriptStep | undefined => {
    const firstUser = request.messages.find((message) => message.role === "user");
    const opening = textOf(firstUser);
    const script = scripts.find((candidate) => opening.includes(candidate.instruction));
    options.onRequest?.(request, script);
    if (!script) return { content: "I could not identify the task." };
    const results = request.messages.filter((message) => message.role === "tool").length;
    if (results < script.calls.length) {
      const call = script.calls[results];
      return { tool_calls: [{ id: call.id ?? `${script.idPrefix}_${results}`, name: call.name, arguments: call.arguments }] };
    }
    return { content: script.finalText };
  };
}
